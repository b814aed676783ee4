"""Giving freed memory back to the system between big pieces of work.

glibc keeps the heap a process once needed (a 200 MB PDF, a segment merge) as its size
until it exits; `malloc_trim` returns what is free. Long-lived processes call this after
work whose peak they do not need to keep: an extraction worker after each file, the
indexer after each commit.
"""

from __future__ import annotations

import functools
from typing import Any


def release_freed_memory() -> None:
    """Return freed heap to the system (glibc); nothing elsewhere."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)


@functools.cache
def _libc() -> Any:
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return None  # not glibc: nothing to trim
    return libc if hasattr(libc, "malloc_trim") else None
