"""Giving freed memory back to the system between big pieces of work.

glibc keeps the heap a process once needed (a 200 MB PDF, a segment merge) as its size
until it exits; `malloc_trim` returns what is free. Long-lived processes call this after
work whose peak they do not need to keep: an extraction worker after each file, the
indexer after each commit. Worker processes also cap their own address space
(`cap_memory`), so a PDF that blows up memory fails in its worker, not the machine.
"""

from __future__ import annotations

import functools
import logging
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


def cap_memory(memory_mb: int) -> None:
    """Allow this worker process `memory_mb` of address space beyond what it has after
    start-up, so a PDF that blows up memory fails in its worker (MemoryError or a crash)."""
    try:
        import resource

        with open("/proc/self/status", encoding="ascii") as status:
            vm_kb = next(int(line.split()[1]) for line in status if line.startswith("VmSize:"))
        limit = (vm_kb * 1024) + memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, OSError, ValueError, StopIteration):
        logging.getLogger(__name__).warning("cannot cap the memory of worker processes here")
