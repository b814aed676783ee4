"""Which files the files folder holds, with the size and mtime that decide what to look
at again: every file, those no adapter reads too (the indexer lists them as
`unsupported`, without reading them)."""

from __future__ import annotations

import logging
import os
import stat as stat_mode
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pdfindex.errors import ConfigError
from pdfindex.extract.archives import Member
from pdfindex.paths import NOT_REGULAR, NOT_UTF8, Identity, shown_name

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DiskFile:
    path: str  # posix, relative to the files folder
    abspath: Path
    size: int
    mtime: float
    real: Path | None = None  # the file itself (abspath may be a link staying inside)
    identity: Identity | None = None  # (st_dev, st_ino): reads must find this very file
    archive: DiskFile | None = None  # a member's archive file (indexer.archives)
    member: Member | None = None  # which member of `archive`, its size and sha256

    def opened_path(self) -> Path:
        """What to open with O_NOFOLLOW: the file a link inside leads to, or the file."""
        return self.real or self.abspath


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # os.scandir keeps undecodable bytes as surrogates
        return False
    return True


def scan_folder(
    files_dir: Path,
    skipped: dict[str, str] | None = None,
    leave_out: tuple[Path, ...] = (),
    under: str = "",
) -> dict[str, DiskFile]:
    """Every regular file under `files_dir` (hidden files, links leading out and the
    folders in `leave_out`, pdfindex's own log and index folders, skipped).

    os.scandir keeps this to one stat per file; only symlinks are resolved. FIFOs, sockets
    and devices (reading them would block) and names that are not UTF-8 (the catalog keys
    are UTF-8 text) are left out, logged, and told in `skipped` (escaped name -> reason).
    With `under` (a folder's path relative to `files_dir`), only that folder is scanned:
    paths stay relative to `files_dir`, links are checked against it.
    """
    if not files_dir.is_dir():
        raise ConfigError(f"files folder {files_dir} does not exist or is not a folder")
    if not os.access(files_dir, os.R_OK | os.X_OK):
        raise ConfigError(f"files folder {files_dir} is not readable")
    base = files_dir.resolve()
    own = {folder.resolve() for folder in leave_out}
    prefix = os.path.join(base, "")  # what each entry's path starts with
    found: dict[str, DiskFile] = {}
    folders = [base / under] if under else [base]

    def skip(path: str, reason: str) -> None:
        name = shown_name(Path(path).relative_to(base).as_posix())
        log.warning("%s: %s", name, reason)
        if skipped is not None:
            skipped[name] = reason

    while folders:
        folder = folders.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            log.warning("cannot read folder %s: %s", shown_name(str(folder)), exc)
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if Path(entry.path) in own:
                        continue
                    if _utf8(entry.name):
                        folders.append(Path(entry.path))  # linked folders are not followed
                    else:
                        skip(entry.path, NOT_UTF8)
                    continue
                real = path = Path(entry.path)
                if entry.is_symlink():
                    real = real.resolve(strict=True)
                    if not real.is_relative_to(base):
                        continue  # a symlink that leads outside the files folder
                stat = entry.stat()  # follows a link that stays inside
            except (OSError, RuntimeError):
                continue  # vanished, dangling link or a loop
            if not stat_mode.S_ISREG(stat.st_mode):
                skip(entry.path, NOT_REGULAR)  # a FIFO would block the first read forever
                continue
            if not _utf8(entry.name):
                skip(entry.path, NOT_UTF8)
                continue
            rel = entry.path[len(prefix) :].replace(os.sep, "/")  # every file is listed: no Path
            found[rel] = DiskFile(
                rel,
                path,
                stat.st_size,
                stat.st_mtime,
                real,
                (stat.st_dev, stat.st_ino),
            )
    return found


def scan_paths(
    files_dir: Path, paths: Iterable[str], leave_out: tuple[Path, ...] = ()
) -> dict[str, DiskFile] | None:
    """What `scan_folder` would find at each of `paths` (relative to `files_dir`: a file,
    or a folder and everything under it; gone: nothing), without looking at any other
    file: a live index's rescan after the watcher named what changed. None when one of
    them is the files folder itself (only a whole scan tells then)."""
    if not files_dir.is_dir():
        raise ConfigError(f"files folder {files_dir} does not exist or is not a folder")
    base = files_dir.resolve()
    own = {folder.resolve() for folder in leave_out}
    found: dict[str, DiskFile] = {}
    for rel in sorted(set(paths)):
        if rel in ("", "."):
            return None
        parts = rel.split("/")
        if any(part.startswith(".") for part in parts):
            continue  # hidden, as scan_folder leaves them
        path = base / rel
        try:
            if os.path.realpath(path.parent) != str(path.parent):
                continue  # reached through a link or gone: scan_folder follows no folder link
            info = os.lstat(path)
        except OSError:
            continue  # gone: its records leave
        if any(path == folder or path.is_relative_to(folder) for folder in own):
            continue
        if stat_mode.S_ISDIR(info.st_mode):
            if _utf8(parts[-1]):
                found.update(scan_folder(files_dir, leave_out=leave_out, under=rel))
            continue
        file = _file_at(base, path, rel, info)
        if file is not None:
            found[rel] = file
    return found


def _file_at(base: Path, path: Path, rel: str, info: os.stat_result) -> DiskFile | None:
    """`scan_folder`'s entry for the file at `path` (lstat `info`), or None when it would
    leave it out (a link leading out, dangling or looping; not a regular file; a name
    that is not UTF-8)."""
    real = path
    try:
        if stat_mode.S_ISLNK(info.st_mode):
            real = path.resolve(strict=True)
            if not real.is_relative_to(base):
                return None
            info = os.stat(path)
    except (OSError, RuntimeError):
        return None
    if not stat_mode.S_ISREG(info.st_mode):
        log.warning("%s: %s", shown_name(rel), NOT_REGULAR)
        return None
    if not _utf8(path.name):
        log.warning("%s: %s", shown_name(rel), NOT_UTF8)
        return None
    return DiskFile(rel, path, info.st_size, info.st_mtime, real, (info.st_dev, info.st_ino))
