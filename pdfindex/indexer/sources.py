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

from pdfindex.engine import Engine
from pdfindex.errors import PathOutsideFiles

UNNAMED = ""  # the source of a root without a source name


def host_name() -> str:
    return socket.gethostname()


@dataclass(frozen=True)
class Feeder:
    """Which folder on which host feeds a source."""

    host: str
    folder: str


def sources_of(engine: Engine) -> dict[str, Feeder]:
    """The sources a library records (none for an engine of one folder: embedded)."""
    return {name: Feeder(*where) for name, where in engine.sources().items()}


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


def scope_of(source: str, engine: Engine, also: set[str] | None = None) -> Scope:
    """`source`'s scope in the library `engine` holds: the other named sources are those
    it records, and `also` (source_folders' names)."""
    named = set(sources_of(engine)) | (also or set())
    return Scope(source, frozenset(n for n in named if n and n != source))
