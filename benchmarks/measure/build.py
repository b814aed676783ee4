"""1. Full build: `pdfindex reindex` as a process on an empty index, then warm rebuilds.

A warm rebuild (`reindex --full`, all text from the extraction cache) re-parses nothing,
so its time is about the indexing alone; the cold build minus it is about extraction.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
from typing import Any

from benchmarks.measure.common import Plan, log
from benchmarks.measure.process import run_measured
from benchmarks.measure.stats import summary
from benchmarks.measure.workspace import Workspace
from pdfindex.api import PdfIndex


def measure_build(ws: Workspace, plan: Plan) -> dict[str, Any]:
    """Cold builds (empty index and cache) and warm rebuilds (`reindex --full`, all text
    from the cache), each as a `pdfindex reindex` process."""
    env = ws.env(plan.workers)
    cold: list[dict[str, Any]] = []
    for run in range(plan.build_runs):
        shutil.rmtree(ws.index_dir, ignore_errors=True)
        log(f"build: cold run {run + 1}/{plan.build_runs}")
        result = run_measured(ws.cli("reindex", "--json"), env)
        result["summary"] = json.loads(result.pop("stdout"))
        cold.append(result)
    segments_cold = index_stats(ws, plan)["segments"]
    warm: list[dict[str, Any]] = []
    for run in range(plan.warm_runs):
        log(f"build: warm rebuild (reindex --full) {run + 1}/{plan.warm_runs}")
        result = run_measured(ws.cli("reindex", "--full", "--json"), env)
        result["summary"] = json.loads(result.pop("stdout"))
        warm.append(result)
    last = cold[-1]["summary"]
    pages = last["pages"]
    mb = ws.corpus_bytes / 1e6
    walls = [r["wall_s"] for r in cold]
    warm_walls = [r["wall_s"] for r in warm]
    stats = index_stats(ws, plan)
    indexing = statistics.median(warm_walls)
    # The elements pass runs after the text is committed: text is searchable before it.
    elements_s = [r["summary"].get("elements_seconds", 0.0) for r in cold]
    text_walls = [w - e for w, e in zip(walls, elements_s, strict=True)]
    warm_text = statistics.median(
        r["wall_s"] - r["summary"].get("elements_seconds", 0.0) for r in warm
    )
    return {
        "runs": plan.build_runs,
        "pages": pages,
        "files_parsed": last["parsed"],
        "failed": last["failed"],
        "wall_s": summary(walls),
        "cpu_s": summary([r["cpu_s"] for r in cold]),
        "cpu_utilisation": round(
            statistics.median(r["cpu_s"] / r["wall_s"] for r in cold) / (os.cpu_count() or 1), 3
        ),
        "pages_per_s": summary([pages / w for w in walls], 1),
        "mb_per_s": summary([mb / w for w in walls], 2),
        "peak_rss_mb": summary([r["peak_rss_mb"] for r in cold], 1),
        "processes_at_peak": cold[-1]["processes_at_peak"],
        "warm_rebuild_s": summary(warm_walls),
        "warm_rebuild_cpu_s": summary([r["cpu_s"] for r in warm]),
        "warm_rebuild_pages_per_s": round(pages / indexing, 1),
        "warm_rebuild_peak_rss_mb": summary([r["peak_rss_mb"] for r in warm], 1),
        "indexing_s": round(indexing, 3),
        "extraction_s": round(max(0.0, statistics.median(text_walls) - warm_text), 3),
        "text_searchable_s": summary(text_walls),
        "text_pages_per_s": summary([pages / w for w in text_walls], 1),
        "elements_pass_s": summary(elements_s),
        "elements_found": last.get("elements_found", 0),
        "index_mb": round(stats["index_bytes"] / 1e6, 2),
        "cache_mb": round(stats["cache_bytes"] / 1e6, 2),
        "corpus_mb": round(mb, 2),
        "index_to_corpus": round(stats["index_bytes"] / ws.corpus_bytes, 3),
        "index_and_cache_to_corpus": round(
            (stats["index_bytes"] + stats["cache_bytes"]) / ws.corpus_bytes, 3
        ),
        "segments_after_cold_build": segments_cold,
        "segments": stats["segments"],
        "by_status": stats["by_status"],
    }


def index_stats(ws: Workspace, plan: Plan) -> dict[str, Any]:
    """`PdfIndex.stats()` of the workspace's index (sizes, segments, files by status)."""
    index = PdfIndex(ws.settings(plan.workers))
    try:
        return index.stats()
    finally:
        index.close()
