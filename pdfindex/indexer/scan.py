"""Which supported files the files folder holds, with the size and mtime that decide
what to look at again."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from pdfindex.errors import ConfigError
from pdfindex.extract.adapters import supported_extensions

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DiskFile:
    path: str  # posix, relative to the files folder
    abspath: Path
    size: int
    mtime: float


def scan_folder(files_dir: Path) -> dict[str, DiskFile]:
    """Every supported file under `files_dir` (hidden files and links leading out skipped).

    os.scandir keeps this to one stat per file; only symlinks are resolved.
    """
    if not files_dir.is_dir():
        raise ConfigError(f"files folder {files_dir} does not exist or is not a folder")
    if not os.access(files_dir, os.R_OK | os.X_OK):
        raise ConfigError(f"files folder {files_dir} is not readable")
    base = files_dir.resolve()
    extensions = supported_extensions()
    found: dict[str, DiskFile] = {}
    folders = [base]
    while folders:
        folder = folders.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            log.warning("cannot read folder %s: %s", folder, exc)
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    folders.append(Path(entry.path))  # linked folders are not followed
                    continue
                if not entry.name.lower().endswith(extensions):
                    continue
                if entry.is_symlink():
                    real = Path(entry.path).resolve(strict=True)
                    if not real.is_relative_to(base) or not real.is_file():
                        continue  # a symlink that leads outside the files folder
                stat = entry.stat()  # follows a link that stays inside
            except (OSError, RuntimeError):
                continue  # vanished, dangling link or a loop
            rel = Path(entry.path).relative_to(base).as_posix()
            found[rel] = DiskFile(rel, Path(entry.path), stat.st_size, stat.st_mtime)
    return found
