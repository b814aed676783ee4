"""Giving freed memory back to the system between big pieces of work.

glibc keeps the heap a process once needed (a 200 MB PDF, a segment merge) as its size
until it exits; `malloc_trim` returns what is free. Long-lived processes call this after
work whose peak they do not need to keep: an extraction worker after each file, the
indexer after each commit. Worker processes also cap their own address space
(`cap_memory`), so a PDF that blows up memory fails in its worker, not the machine.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar, cast

MEMORY_SHARE = 0.5  # of the machine's memory, what all worker processes together may take
FLOOR_MB = 512  # a worker's cap is never below this, whatever the share
PAGE_WORKERS = 2  # processes that render and convert pages (pdfindex.workers), besides
# the extraction workers


_trim = True  # False while a one-shot command runs (one_shot)


@contextlib.contextmanager
def one_shot() -> Iterator[None]:
    """Around a command whose process ends after one answer (`pdfindex search`, `list`,
    `stats`, `extract`): its heap goes back to the system at exit, so trimming is skipped
    and ctypes (~6 ms to load) never loads. Restored after, for a process that runs
    commands in-process (tests)."""
    global _trim
    before, _trim = _trim, False
    try:
        yield
    finally:
        _trim = before


def answers_once() -> bool:
    """Whether this process ends after one answer (in `one_shot`): what only helps later
    answers (a structure built in the background) is not worth starting."""
    return not _trim


def release_freed_memory() -> None:
    """Return freed heap to the system (glibc); nothing elsewhere, nor in a one-shot
    process."""
    if not _trim:
        return
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)


MADV_DONTNEED = 4


def release_mapped(folder: Path, suffix: str) -> None:
    """Let go of this process's pages of the files in `folder` ending in `suffix` that are
    mapped read-only (an index's stored texts, after a scan read the whole library): they
    stay in the system's page cache, and a later read maps them again. Without it a
    serving process counted 86 MB of a million pages' stored texts as its own after one
    fuzzy_search."""
    if not _trim:
        return
    libc = _libc()
    if libc is None:
        return
    import ctypes

    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    prefix = str(folder.resolve()) + os.sep
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return
    for line in maps.splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) < 6 or not fields[5].startswith(prefix) or not fields[5].endswith(suffix):
            continue
        if "w" in fields[1]:  # only what nothing writes
            continue
        start, end = (int(x, 16) for x in fields[0].split("-"))
        libc.madvise(start, end - start, MADV_DONTNEED)


T = TypeVar("T")


def fresh_copy(value: T) -> T:
    """`value` rebuilt object by object (strings and containers; numbers and enum members
    are kept), for what a long-lived cache keeps from data decoded in bulk: each kept
    string sits among the objects decoded with it and pins their freed heap. Counts kept
    from 40,000 catalog records held on to ~120 MB of a serving process this way (the
    start-up scan's records around them): copied, 164 MB after start-up, not 281 MB."""
    copied: Any
    if type(value) is str:
        copied = (value + " ")[:-1]  # a new string: str(value) would be the same one
    elif isinstance(value, dict):
        copied = {fresh_copy(k): fresh_copy(v) for k, v in value.items()}
    elif isinstance(value, list | tuple | set | frozenset):
        copied = type(value)(fresh_copy(item) for item in value)
    else:
        copied = value
    return cast(T, copied)


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
        import logging  # not loaded by a process that only searches

        logging.getLogger(__name__).warning("cannot cap the memory of worker processes here")


_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def private_mb() -> int:
    """This process's anonymous memory (Linux; RssAnon, resident less file-backed and
    shared pages); 0 where /proc does not tell: what a long-lived parser grows by, so it
    can reopen its document. statm, not status: a tenth of the time, read every few pages."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            fields = statm.read().split()
        return (int(fields[1]) - int(fields[2])) * _PAGE_SIZE >> 20
    except (OSError, IndexError, ValueError):
        return 0


def machine_memory_mb() -> int | None:
    """The memory this process may use in all: the machine's, or its cgroup's limit when
    lower (a container); None when unknown."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit.isdigit():
            total = min(total, int(limit))
    except OSError:
        pass
    return total // 2**20


def shared_cap_mb(ceiling_mb: int, processes: int) -> int:
    """Each of `processes` workers' memory cap: `ceiling_mb` (the memory_mb setting), or
    less, so that all of them together stay within MEMORY_SHARE of the machine's memory
    (4 GB each on 64 cores with 32 GB would invite the kernel's out-of-memory killer);
    never below FLOOR_MB."""
    total = machine_memory_mb()
    if total is None:
        return ceiling_mb
    share = int(total * MEMORY_SHARE) // max(1, processes)
    return max(min(ceiling_mb, FLOOR_MB), min(ceiling_mb, share))


def worker_memory_mb(memory_mb: int, extraction_workers: int) -> int:
    """The cap of each worker process of one pdfindex process: its extraction workers
    and its PAGE_WORKERS share half the machine's memory."""
    return shared_cap_mb(memory_mb, extraction_workers + PAGE_WORKERS)
