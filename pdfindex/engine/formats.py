"""The format file beside an engine's index: which layout of pdfindex wrote it, so an
index of another layout is started empty (and refilled from the extraction cache)
instead of being misread; and the lock taken to create or replace an index."""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pdfindex.errors import IndexLocked


def stored_format(format_file: Path) -> int | None:
    """The format recorded in `format_file`; None when there is none or it is unreadable."""
    try:
        value = json.loads(format_file.read_text()).get("format")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, int) else None


def record_format(format_file: Path, version: int) -> None:
    """Written to a temporary file and renamed: never a half-written format file."""
    partial = format_file.with_name(f"{format_file.name}.{os.getpid()}.tmp")
    partial.write_text(json.dumps({"format": version}))
    partial.replace(format_file)


LOCK_WAIT = 30.0  # seconds to wait for another process creating or rebuilding an index


@contextmanager
def try_exclusive(lock_file: Path) -> Iterator[bool]:
    """An exclusive flock on `lock_file` (created if needed) while the block runs, if it
    is free now: yields whether it was taken. The engines' own writer locks are flocks
    on such files, so holding one keeps every writer out."""
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_file, os.O_CREAT | os.O_WRONLY, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # releases the flock


def locked_out(folder: Path, waited: float) -> IndexLocked:
    return IndexLocked(
        f"another pdfindex process is writing the index in {folder} "
        f"(waited {waited:g} s); try again when it has finished"
    )
