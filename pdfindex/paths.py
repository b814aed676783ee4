"""Client-given paths resolved strictly inside the files folder, and document slugs."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from pdfindex.errors import ConfigError, PathOutsideFiles

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


def relative_posix(files_dir: Path, path: Path) -> str:
    """The catalog key of a file: its posix path under the files folder."""
    return PurePosixPath(path.resolve().relative_to(files_dir.resolve())).as_posix()


def base_slug(rel_path: str) -> str:
    """Path without extension, lower-case, runs of other characters than [a-z0-9] -> '_'."""
    stem = str(PurePosixPath(rel_path).with_suffix(""))
    return _NON_SLUG.sub("_", stem.lower()).strip("_") or "document"


def assign_slug(rel_path: str, taken: set[str]) -> str:
    """A slug for a new path that no other file uses (numeric suffix on a clash)."""
    slug = base_slug(rel_path)
    candidate, n = slug, 2
    while candidate in taken:
        candidate, n = f"{slug}_{n}", n + 1
    return candidate
