"""Client-given paths resolved strictly inside the files folder, and document slugs."""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Container
from pathlib import Path, PurePosixPath

from pdfindex.errors import ConfigError, PathOutsideFiles, UnsafeFile

_NON_SLUG = re.compile(r"[^a-z0-9]+")


def resolve_inside(files_dir: Path, user_path: str) -> Path:
    """Return the real path of `user_path` (relative to `files_dir`, or absolute inside it).

    Symlinks are resolved before the check, so a link that leads out is refused too.
    Raises PathOutsideFiles without touching anything outside the folder.
    """
    if not isinstance(user_path, str) or "\x00" in user_path:
        raise PathOutsideFiles("path must be a string without NUL characters")
    base = files_dir.resolve()
    candidate = Path(user_path).expanduser() if user_path.startswith("~") else Path(user_path)
    if not candidate.is_absolute():
        candidate = base / candidate
    real = candidate.resolve(strict=False)
    if real != base and not real.is_relative_to(base):
        raise PathOutsideFiles(
            f"{user_path!r} is outside the files folder; give a path relative to {base}"
        )
    return real


def check_folders(root: Path, files_dir: Path, index_dir: Path) -> None:
    """Refuse a root or files folder that does not exist, or an index inside the files
    folder, before anything is created: an index belongs beside the files it describes,
    never in a folder someone mistyped or in the documents themselves."""
    if not root.is_dir():
        raise ConfigError(f"root {root} does not exist or is not a folder; give --root PATH")
    if not files_dir.is_dir():
        raise ConfigError(
            f"files folder {files_dir} does not exist; create it and put your PDFs in it, "
            "or give --root (the folder holding files/) or --files-dir"
        )
    if index_dir.resolve().is_relative_to(files_dir.resolve()):
        raise ConfigError(
            f"index folder {index_dir} is inside the files folder {files_dir}; "
            "put it beside it (--index-dir)"
        )


def check_extra_folders(files_dir: Path, index_dir: Path, folders: dict[str, Path]) -> None:
    """Refuse a folder of the `folders` setting that is missing, overlaps the files
    folder, another of them or the index, or whose name is a sub-folder of the files
    folder (both would be `NAME/...`): one clear line at start-up, never two documents
    under one name."""
    taken = {"the files folder": files_dir.resolve(), "the index folder": index_dir.resolve()}
    for name, folder in folders.items():
        if not folder.is_dir():
            raise ConfigError(
                f"folder {folder} (folders: {name}) does not exist or is not a folder"
            )
        real = folder.resolve()
        for what, other in taken.items():
            if real.is_relative_to(other) or other.is_relative_to(real):
                raise ConfigError(
                    f"folder {folder} (folders: {name}) overlaps {what} {other}: give folders "
                    "that hold each document once"
                )
        if (files_dir / name).exists():
            raise ConfigError(
                f"the files folder {files_dir} has an entry {name!r}, the name of folder "
                f"{folder} (folders): its documents would be {name}/... too; name that "
                f'folder otherwise (folders = {{{name}2 = "{folder}"}} or --folder '
                f"{name}2={folder})"
            )
        taken[f"folder {name}"] = real


def relative_posix(files_dir: Path, path: Path) -> str:
    """The catalog key of a file: its posix path under the files folder."""
    return PurePosixPath(path.resolve().relative_to(files_dir.resolve())).as_posix()


def base_slug(rel_path: str) -> str:
    """Path without extension, lower-case, runs of other characters than [a-z0-9] -> '_'."""
    stem = str(PurePosixPath(rel_path).with_suffix(""))
    return _NON_SLUG.sub("_", stem.lower()).strip("_") or "document"


def assign_slug(rel_path: str, taken: Container[str]) -> str:
    """A slug for a new path that no other file uses (numeric suffix on a clash)."""
    slug = base_slug(rel_path)
    candidate, n = slug, 2
    while candidate in taken:
        candidate, n = f"{slug}_{n}", n + 1
    return candidate


Identity = tuple[int, int]  # (st_dev, st_ino): which file the scan saw


NOT_REGULAR = "skipped: not a regular file"
NOT_UTF8 = "skipped: file name is not valid UTF-8"


def open_regular(path: Path, identity: Identity | None = None, inside: Path | None = None) -> int:
    """Open `path` for reading and return the fd, refusing a final symlink (O_NOFOLLOW),
    a FIFO, socket or device (O_NONBLOCK: the open itself never waits for a writer; then
    fstat), given the scan's `identity` any other file swapped in since the scan, and given
    `inside` (the files folder) a file reached through a folder swapped for a link.

    Reading from this fd (or /proc/self/fd/N) reads the checked file whatever happens to
    the name afterwards. Raises UnsafeFile (an OSError) or the open's own OSError.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):  # how O_NOFOLLOW refuses a link
            raise UnsafeFile("a symbolic link now, not the file the scan saw") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFile("not a regular file")
        if identity is not None and (info.st_dev, info.st_ino) != identity:
            raise UnsafeFile("not the file the scan saw (replaced since)")
        if inside is not None and not _opened_inside(fd, inside):
            raise UnsafeFile("outside the files folder (a folder on its way is a link now)")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _opened_inside(fd: int, base: Path) -> bool:
    """The open file is under `base`, by the path the kernel holds for it (Linux /proc,
    exact whatever links led there); True where the system cannot tell."""
    try:
        where = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return True
    return Path(where).is_relative_to(base.resolve())


def fd_path(fd: int) -> Path:
    """A name for an open fd that libraries taking a path open again as the same file
    (this process only)."""
    return Path(f"/proc/self/fd/{fd}" if os.path.isdir("/proc/self/fd") else f"/dev/fd/{fd}")


def shown_name(name: str) -> str:
    """A file name as text that always encodes: bytes that are not UTF-8 (held as
    surrogates by os functions) shown as backslash escapes, e.g. 'bad\\xffname.pdf'."""
    return os.fsencode(name).decode("utf-8", errors="backslashreplace")
