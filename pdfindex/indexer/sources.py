"""Several files folders (hosts) feeding one library, each under its own source name.

With `source` set, every path a root puts in the library is `SOURCE/path under its files
folder`: slugs stay unique by construction and no engine needs to know. A root's indexer
changes only the records it owns (`Scope`); searches and listings see every source. A
library records which folder (host and path) feeds each source, so a second folder
writing under the same name is refused instead of deleting what it does not hold.
Tools that need the file itself find another source's files through `source_folders`.
"""

from __future__ import annotations

import posixpath
import socket
from dataclasses import dataclass
from typing import Any

from pdfindex.errors import ConfigError, DocumentNotFound, PathOutsideFiles

UNNAMED = ""  # the source of a root without a source name


class SourceUnreachable(DocumentNotFound, FileNotFoundError):
    """A library path of another source whose folder this host cannot reach (also a
    FileNotFoundError: a caller asking only whether the file is there gets 'no')."""

    @classmethod
    def about(cls, path: str, source: str) -> SourceUnreachable:
        return cls(
            f"'{path}' is in the library from source '{source}', whose folder is not "
            "reachable from this host; its text is searchable here, and "
            f'source_folders.{source} = "/path" makes the file itself readable'
        )


class SourceTaken(ConfigError):
    """Another folder feeds this source of the library already."""

    @classmethod
    def about(cls, source: str, host: str, folder: str) -> SourceTaken:
        named = f"source '{source}'" if source else "its unnamed source"
        return cls(
            f"this library is fed by {folder} on {host} as {named}; give this folder its "
            'own source name (source = "…" in pdfindex.toml or PDFINDEX_SOURCE), or, if it '
            "replaces that folder, run pdfindex reindex --take-over-source once"
        )


def host_name() -> str:
    return socket.gethostname()


@dataclass(frozen=True)
class Feeder:
    """Which folder on which host feeds a source."""

    host: str
    folder: str


def sources_of(engine: Any) -> dict[str, Feeder]:
    """The sources a library records (none for an engine of one folder: embedded)."""
    listing = getattr(engine, "sources", None)
    return {name: Feeder(*where) for name, where in listing().items()} if listing else {}


@dataclass(frozen=True)
class Scope:
    """The library paths one files folder owns: those under `SOURCE/`; with no source
    name, every path outside the other (named) sources."""

    source: str
    others: frozenset[str] = frozenset()  # the library's other named sources

    def library_path(self, rel: str) -> str:
        """The library path of a file at `rel` under this files folder."""
        return f"{self.source}/{rel}" if self.source else rel

    def local(self, path: str) -> str | None:
        """`path`'s place under this files folder, when this folder owns it."""
        if self.source:
            head, _, rest = path.partition("/")
            return rest if head == self.source and rest else None
        return None if self.source_of(path) else path

    def owns(self, path: str) -> bool:
        return self.local(path) is not None

    def source_of(self, path: str) -> str:
        """The source a library path belongs to (UNNAMED: the unnamed one's)."""
        head, sep, _ = path.partition("/")
        return head if sep and (head == self.source or head in self.others) else UNNAMED


def split_named(path: str, names: set[str]) -> tuple[str, str] | None:
    """(source, path inside its folder) of a relative library path under one of `names`;
    None otherwise. Refuses a path that climbs out of the source (`hostb/../../x`)."""
    head, sep, rest = path.partition("/")
    if not sep or head not in names:
        return None
    inside = posixpath.normpath(rest) if rest else "."
    if inside == ".." or inside.startswith("../") or inside.startswith("/"):
        raise PathOutsideFiles(f"{path!r} leads outside the folder of source '{head}'")
    return head, inside


def scope_of(source: str, engine: Any, also: set[str] | None = None) -> Scope:
    """`source`'s scope in the library `engine` holds: the other named sources are those
    it records, and `also` (source_folders' names)."""
    named = set(sources_of(engine)) | (also or set())
    return Scope(source, frozenset(n for n in named if n and n != source))
