"""Worker memory caps come from the machine's memory, shared by all workers (issue 31,
item 6): with many cores and little memory, `memory_mb` per worker would add up past the
machine and invite the kernel's out-of-memory killer."""

from __future__ import annotations

from pathlib import Path

from pdfindex.api import PdfIndex
from pdfindex.memory import FLOOR_MB, PAGE_WORKERS, machine_memory_mb, worker_memory_mb
from tests.conftest import make_settings


def test_all_workers_together_stay_within_half_the_machine() -> None:
    total = machine_memory_mb()
    assert total is not None
    assert total > 0
    for workers in (1, 2, 16, 64, 256):
        cap = worker_memory_mb(4096, workers)
        assert FLOOR_MB <= cap <= 4096
        assert cap == FLOOR_MB or cap * (workers + PAGE_WORKERS) <= total * 0.5
    assert worker_memory_mb(300, 1) == 300  # a lower setting is kept as it is


def test_the_pools_use_the_shared_cap(tmp_path: Path) -> None:
    index = PdfIndex(make_settings(tmp_path, workers=64))
    try:
        workers = index.settings.worker_count  # 64, or the bound it is clamped to
        pool = index.indexer.new_pool()
        assert pool.memory_mb == worker_memory_mb(4096, workers) == index.isolated.memory_mb
        processes = workers + PAGE_WORKERS
        half = machine_memory_mb() * 0.5  # type: ignore[operator]
        assert pool.memory_mb * processes <= max(half, FLOOR_MB * processes)
    finally:
        index.close()
