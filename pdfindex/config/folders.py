"""Folders that cannot hold an index, refused with one clear line at start-up instead of
a traceback at the first write."""

from __future__ import annotations

import os
from pathlib import Path

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
