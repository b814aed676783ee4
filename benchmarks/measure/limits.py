"""2. Limits: each extraction engine alone (once, shared) and each index engine's writer
alone (per index engine), in one process.

The build cannot beat min(workers x pdfium rate, writer rate); as extraction and the
writer share the cores, cores / (1/pdfium + 1/writer) is the tighter bound. The writer
alone is the index engine's writer on a fresh index (`open_engine`), below PdfIndex: the
one place this benchmark drives an engine directly.
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.measure.common import WORD, Plan, evenly, log
from benchmarks.measure.workspace import Workspace
from pdfindex.config import index_settings
from pdfindex.engine import open_engine
from pdfindex.extract.adapters import get_adapter
from pdfindex.models import FileRecord
from pdfindex.text.index import index_text


def pick_sample(
    records: list[FileRecord], target_pages: int, max_doc_pages: int
) -> list[FileRecord]:
    """Evenly spread ok documents of at most `max_doc_pages` pages, about `target_pages` in all."""
    fitting = [r for r in records if r.status == "ok" and r.pages <= max_doc_pages] or [
        min((r for r in records if r.status == "ok"), key=lambda r: r.pages)
    ]
    mean = statistics.mean(r.pages for r in fitting)
    count = max(1, min(len(fitting), round(target_pages / mean)))
    chosen, pages = [], 0
    for record in evenly(fitting, count):
        if chosen and pages + record.pages > target_pages * 1.2:
            continue
        chosen.append(record)
        pages += record.pages
    return chosen


def extract_all(engine: str, paths: list[Path]) -> tuple[float, list[list[str]]]:
    adapter = get_adapter(engine)
    start = time.perf_counter()
    texts = [adapter.extract(p).pages for p in paths]
    return time.perf_counter() - start, texts


def word_counts(pages: Iterable[str]) -> Counter[str]:
    return Counter(w.casefold() for page in pages for w in WORD.findall(page))


def agreement(a: Counter[str], b: Counter[str]) -> float:
    """Share of a's word occurrences that b also has (multiset intersection)."""
    total = sum(a.values())
    return round(sum((a & b).values()) / total, 4) if total else 0.0


@dataclass
class WriterSample:
    """The pdfium sample's records and extracted pages: every index engine's writer is
    timed on the same text, extracted once."""

    records: list[FileRecord]
    pages: list[list[str]]

    @property
    def page_count(self) -> int:
        return sum(r.pages for r in self.records)


def measure_extraction(
    ws: Workspace, records: list[FileRecord], plan: Plan
) -> tuple[dict[str, Any], WriterSample]:
    """Each extraction engine's single-process rate and their word agreement (shared by
    the index engines), and the extracted sample the writers are then timed on."""
    cores = os.cpu_count() or 1
    workers = plan.workers or cores
    big = pick_sample(records, plan.pdfium_sample_pages, 10_000)
    big_paths = [ws.files / r.path for r in big]
    big_bytes = sum(p.stat().st_size for p in big_paths)
    big_pages = sum(r.pages for r in big)
    log(f"limits: pdfium on {len(big)} files, {big_pages} pages")
    pdfium_s, pdfium_texts = extract_all("pdfium", big_paths)

    small = pick_sample(
        records, plan.pdfminer_sample_pages, max(5, plan.pdfminer_sample_pages // 3)
    )
    small_paths = [ws.files / r.path for r in small]
    small_pages = sum(r.pages for r in small)
    log(f"limits: pdfminer and pdfium on {len(small)} files, {small_pages} pages")
    miner_s, miner_texts = extract_all("pdfminer", small_paths)
    pdfium_small_s, pdfium_small_texts = extract_all("pdfium", small_paths)
    miner_words = word_counts(p for doc in miner_texts for p in doc)
    pdfium_words = word_counts(p for doc in pdfium_small_texts for p in doc)

    pdfium_rate = big_pages / pdfium_s
    miner_rate = small_pages / miner_s
    figures = {
        "cores": cores,
        "extraction_workers": workers,
        "pdfium_pages_per_s": round(pdfium_rate, 1),
        "pdfium_mb_per_s": round(big_bytes / 1e6 / pdfium_s, 2),
        "pdfium_sample": {"files": len(big), "pages": big_pages, "mb": round(big_bytes / 1e6, 2)},
        "pdfminer_pages_per_s": round(miner_rate, 2),
        "pdfium_pages_per_s_on_pdfminer_sample": round(small_pages / pdfium_small_s, 1),
        "pdfminer_sample": {"files": len(small), "pages": small_pages},
        "pdfium_vs_pdfminer_speed": round((small_pages / pdfium_small_s) / miner_rate, 1),
        "extraction_limit_pages_per_s": round(workers * pdfium_rate, 1),
        "word_agreement": {
            "pdfminer_words_in_pdfium": agreement(miner_words, pdfium_words),
            "pdfium_words_in_pdfminer": agreement(pdfium_words, miner_words),
            "pdfminer_words": sum(miner_words.values()),
            "pdfium_words": sum(pdfium_words.values()),
        },
    }
    return figures, WriterSample(big, pdfium_texts)


def measure_writer(
    ws: Workspace,
    sample: WriterSample,
    extraction: dict[str, Any],
    build: dict[str, Any],
) -> dict[str, Any]:
    """The workspace's index engine's writer alone on the sample (fresh index), and the
    build's limits with it: min(workers x pdfium, writer) and the shared-cores bound."""
    pages = sample.page_count
    log(f"limits: raw {ws.engine} writer on {pages} pages")
    engine_dir = Path(tempfile.mkdtemp(prefix="writer-", dir=ws.root))
    engine = open_engine(index_settings(engine_dir, ws.engine))
    start = time.perf_counter()
    with engine.writer(timeout=10) as writer:
        for record, texts in zip(sample.records, sample.pages, strict=True):
            writer.add_file(record, texts, [index_text(p) for p in texts])
    writer_s = time.perf_counter() - start
    engine.close()
    shutil.rmtree(engine_dir, ignore_errors=True)

    cores = extraction["cores"]
    pdfium_rate = extraction["pdfium_pages_per_s"]
    writer_rate = pages / writer_s
    extraction_limit = extraction["extraction_limit_pages_per_s"]
    limit = min(extraction_limit, writer_rate)
    build_rate = build["pages_per_s"]["median"]
    # Extraction and writing share the cores: pages cost 1/e + 1/w CPU-seconds each.
    cpu_limit = cores / (1 / pdfium_rate + 1 / writer_rate)
    return {
        "engine": ws.engine,
        "writer_pages_per_s": round(writer_rate, 1),
        "writer_sample_pages": pages,
        "build_limit_pages_per_s": round(limit, 1),
        "bound_by": (
            "extraction" if extraction_limit < writer_rate else f"indexing ({ws.engine} writer)"
        ),
        "build_share_of_limit": round(build_rate / limit, 3),
        "shared_cpu_limit_pages_per_s": round(cpu_limit, 1),
        "build_share_of_shared_cpu_limit": round(build_rate / cpu_limit, 3),
    }
