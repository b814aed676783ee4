"""Folders that cannot hold an index, refused with one clear line at start-up instead of
a traceback at the first write."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pdfindex.errors import ConfigError

# File systems that are the kernel's views, not storage: an index there cannot be written.
PSEUDO_FS = frozenset(
    "proc sysfs devtmpfs devpts cgroup cgroup2 debugfs tracefs securityfs pstore bpf "
    "configfs fusectl mqueue binfmt_misc autofs efivarfs rpc_pipefs nsfs".split()
)
PSEUDO_FOLDERS = (Path("/proc"), Path("/sys"), Path("/dev"))  # /dev/shm is storage (tmpfs)


def check_index_dir(folder: Path, source: str) -> None:
    """Refuse an index folder that cannot hold an index: on a pseudo-filesystem (/proc,
    /sys, /dev), a file, or not writable (the nearest existing folder, if it is not
    there yet): one clear line now instead of a traceback at the first write."""
    refuse_pseudo_fs("index_dir", folder, source)
    existing = folder
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        raise ConfigError(f"index_dir={str(folder)!r} from {source}: {existing} is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        where = "" if existing == folder else f" ({existing}, where it would be created)"
        raise ConfigError(
            f"index_dir={str(folder)!r} from {source}: the folder is not writable{where}; "
            "the index, its caches and sessions are written there: choose a folder you "
            "can write (--index-dir or PDFINDEX_INDEX_DIR)"
        )


def refuse_pseudo_fs(name: str, folder: Path, source: str) -> None:
    """Refuse a folder on a file system that is the kernel's view (proc, sysfs, devtmpfs
    ...) or under /proc, /sys or /dev (but /dev/shm)."""
    kind = _mount_type(folder)
    under = next((p for p in PSEUDO_FOLDERS if folder.is_relative_to(p)), None)
    if under == Path("/dev") and folder.is_relative_to("/dev/shm"):
        under = None
    if kind in PSEUDO_FS or under is not None:
        what = f"a {kind} pseudo-filesystem" if kind in PSEUDO_FS else f"under {under}"
        raise ConfigError(
            f"{name}={str(folder)!r} from {source} is {what}, the kernel's view of the "
            "system, not storage: choose a folder on a disk"
        )


def _mount_type(folder: Path) -> str | None:
    """The type of the file system holding `folder` (Linux: /proc/self/mounts), or None."""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as mounts:
            table = [line.split()[1:3] for line in mounts if len(line.split()) > 2]
    except OSError:
        return None
    best: tuple[int, str] | None = None
    for point, kind in table:
        point = point.replace("\\040", " ")
        if folder.is_relative_to(point) and (best is None or len(point) >= best[0]):
            best = (len(point), kind)
    return best[1] if best else None


def folder_names(raw: Any, source: str, check_name: Callable[[str, str], None]) -> dict[str, str]:
    """The `folders` setting as {source name: folder as given}: a TOML table names each
    folder; a list (TOML, `--folder` repeated, or the environment's `os.pathsep`-separated
    text) names each by its base name, made unique (`papers`, `papers-2`), unless an entry
    is written `NAME=PATH`. Names become the first part of documents' paths."""
    if isinstance(raw, str):
        raw = [part for part in raw.split(os.pathsep) if part.strip()]
    if isinstance(raw, dict):
        pairs = [(name, folder) for name, folder in raw.items()]
    elif isinstance(raw, (list, tuple)) and all(isinstance(entry, str) for entry in raw):
        pairs = [_named(entry.strip()) for entry in raw]
    else:
        raise ConfigError(
            f"folders from {source}: a list of folders or a table of name = folder, e.g. "
            'folders = ["~/papers", "~/books"]'
        )
    named: dict[str, str] = {}
    for name, folder in pairs:
        if not isinstance(folder, str) or not folder.strip():
            raise ConfigError(f"folders from {source}: {folder!r} is not a folder")
        if name is None:
            name = unique_name(base_name(folder), named)
        elif name in named:
            raise ConfigError(f"folders from {source}: the name {name!r} is given twice")
        check_name(name, f"folders from {source}")
        named[name] = folder.strip()
    return named


_NAMED = re.compile(r"([a-z0-9_-]+)=(.+)")


def _named(entry: str) -> tuple[str | None, str]:
    """(NAME, PATH) of `NAME=PATH`; (None, entry) for a plain folder."""
    match = _NAMED.fullmatch(entry)
    return (match.group(1), match.group(2)) if match else (None, entry)


def base_name(folder: str) -> str:
    """A source name from a folder's base name: `~/My Papers/` -> `my_papers`."""
    base = Path(os.path.expanduser(folder.rstrip("/\\"))).name.lower()
    return re.sub(r"[^a-z0-9_-]+", "_", base).strip("_") or "folder"


def unique_name(name: str, taken: dict[str, str]) -> str:
    if name not in taken:
        return name
    n = 2
    while f"{name}-{n}" in taken:
        n += 1
    return f"{name}-{n}"
