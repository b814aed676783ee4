"""Several files folders (hosts) feeding one library, each under its own source name.

With `source` set, every path a root puts in the library is `SOURCE/path under its files
folder`: slugs stay unique by construction and no engine needs to know. A root's indexer
changes only the records it owns (`Scope`); searches and listings see every source. A
library records which folder (host and path) feeds each source, so a second folder
writing under the same name is refused instead of deleting what it does not hold.
Tools that need the file itself find another source's files through `source_folders`.

One process can also feed several sources: the `folders` setting's folders, each a
source of its own (`NAME/path`) beside the files folder's; the scope owns them all.
"""

from __future__ import annotations

import posixpath
import socket
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pdfindex.config import Settings
from pdfindex.engine import Engine
from pdfindex.errors import PathOutsideFiles
from pdfindex.indexer.scan import DiskFile, scan_folder
from pdfindex.paths import resolve_inside

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
    folders: frozenset[str] = frozenset()  # this process's `folders`: sources it owns too

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
        return self.local(path) is not None or self.folder_of(path) is not None

    def folder_of(self, path: str) -> str | None:
        """The `folders` source whose folder holds `path`, or None."""
        head, sep, rest = path.partition("/")
        return head if sep and rest and head in self.folders else None

    def source_of(self, path: str) -> str:
        """The source a library path belongs to (UNNAMED: the unnamed one's)."""
        head, sep, _ = path.partition("/")
        named = head == self.source or head in self.others or head in self.folders
        return head if sep and named else UNNAMED


def scan_folders(folders: dict[str, Path], leave_out: tuple[Path, ...]) -> dict[str, DiskFile]:
    """The files of the `folders` setting's folders, by library path (`NAME/path`)."""
    return {
        f"{name}/{rel}": replace(file, path=f"{name}/{rel}")
        for name, folder in folders.items()
        for rel, file in scan_folder(folder, leave_out=leave_out).items()
    }


def place(path: str, scope: Scope, files_dir: Path, folders: dict[str, Path]) -> tuple[Path, str]:
    """(folder, path inside it) of a library path this process owns: a `folders`
    source's in its folder, else the files folder's."""
    name = scope.folder_of(path)
    if name is not None and name in folders:
        return folders[name], path.partition("/")[2]
    return files_dir, scope.local(path) or path


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


def scope_of(
    source: str, engine: Engine, also: set[str] | None = None, folders: set[str] | None = None
) -> Scope:
    """`source`'s scope in the library `engine` holds: the other named sources are those
    it records, and `also` (source_folders' names); `folders` are this process's too."""
    own = frozenset(folders or ())
    named = set(sources_of(engine)) | (also or set())
    others = frozenset(n for n in named if n and n != source and n not in own)
    return Scope(source, others, own)


def root_relative(settings: Settings, folders: dict[str, Path], user_path: str) -> str | None:
    """`user_path` read from the project root (seed 003's `files/x.pdf`), as an absolute
    path, when it names nothing in the files folder but leads into the files folder or
    one of `folders`; else None. Only names are compared and one stat made in the files
    folder: nothing outside is read (the caller's resolve_inside checks the result)."""
    if not isinstance(user_path, str) or not user_path or user_path.startswith(("/", "~")):
        return None
    try:
        if resolve_inside(settings.files_dir, user_path).exists():
            return None  # a path of the files folder itself wins
    except (PathOutsideFiles, OSError):
        pass
    whole = Path(posixpath.normpath(str(settings.root / user_path)))
    for folder in (settings.files_dir, *folders.values()):
        if whole.is_relative_to(folder) or whole.is_relative_to(folder.resolve()):
            return str(whole)
    return None


def folder_figures(
    settings: Settings,
    folders: dict[str, Path],
    scope: Scope,
    by_folder: dict[str, tuple[int, int]],
) -> list[dict[str, Any]]:
    """Each folder this process indexes: its source name ('' for the unnamed files
    folder), path, documents and pages (`by_folder`: per first path part)."""
    named = set(folders) | set(scope.others)
    own = [n for n in by_folder if n not in named] if not settings.source else [settings.source]
    rows = [(settings.source, settings.files_dir, own)]
    rows += [(name, folder, [name]) for name, folder in folders.items()]
    return [
        {
            "name": name,
            "path": str(folder),
            "documents": sum(by_folder.get(n, (0, 0))[0] for n in heads),
            "pages": sum(by_folder.get(n, (0, 0))[1] for n in heads),
        }
        for name, folder, heads in rows
    ]
