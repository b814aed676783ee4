"""3. Rescans: what keeping the index up to date costs when little or nothing changed.

No change (in-process and as a whole `pdfindex reindex` process), 1% of files touched,
one file rewritten, ten renamed; `parsed` says how many files were read again.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from benchmarks.corpus import render_document
from benchmarks.measure.common import Plan, evenly, log
from benchmarks.measure.process import run_measured
from benchmarks.measure.stats import summary
from benchmarks.measure.workspace import Workspace
from pdfindex.api import PdfIndex
from pdfindex.errors import DocumentNotFound
from pdfindex.models import Summary


def measure_rescans(ws: Workspace, plan: Plan) -> dict[str, Any]:
    """No-change rescans (library and CLI process), 1% touched, 1 file rewritten, 10 renamed."""
    env = ws.env(plan.workers)
    index = PdfIndex(ws.settings(plan.workers))
    out: dict[str, Any] = {}
    try:

        def timed(
            runs: int, before: Callable[[int], None] | None = None
        ) -> tuple[list[float], list[Summary]]:
            times, summaries = [], []
            for run in range(runs):
                if before:
                    before(run)
                start = time.perf_counter()
                result = index.reindex()
                times.append(time.perf_counter() - start)
                summaries.append(result)
            return times, summaries

        log("rescan: no change (library)")
        times, _ = timed(plan.rescan_runs)
        out["no_change_api_s"] = summary(times)

        log("rescan: no change (whole `pdfindex reindex` process)")
        cli_times = [run_measured(ws.cli("reindex"), env)["wall_s"] for _ in range(plan.cli_runs)]
        out["no_change_cli_s"] = summary(cli_times)

        touched = ws.touched
        log(f"rescan: {len(touched)} files touched")

        def touch(run: int) -> None:
            stamp = time.time() + run + 1
            for rel in touched:
                os.utime(ws.files / rel, (stamp, stamp))

        times, results = timed(plan.rescan_runs, touch)
        out["touch_1pct"] = {
            "files": len(touched),
            "seconds": summary(times),
            "touched": results[-1].touched,
            "parsed": max(r.parsed for r in results),
        }

        target = ws.rewrite
        try:
            pages = min(index.find_record(target).pages, 200)
        except DocumentNotFound:
            pages = 20
        log(f"rescan: 1 file rewritten ({target}, {pages} pages)")

        def rewrite(run: int) -> None:
            data = render_document(pages, 10_000 + run, f"Rewritten document, version {run}")
            tmp = ws.files / (target + ".tmp")
            tmp.write_bytes(data)
            tmp.replace(ws.files / target)  # a new inode: the corpus file is not touched

        times, results = timed(plan.rescan_runs, rewrite)
        out["modify_1"] = {
            "file": target,
            "pages": pages,
            "seconds": summary(times),
            "parsed": max(r.parsed for r in results),
            "updated": results[-1].updated,
        }

        fixed = [p for p in ws.pdfs if p not in {*touched, target}]
        renamed = evenly(fixed, 10, offset=3)
        log(f"rescan: {len(renamed)} files renamed")

        def rename(run: int) -> None:
            for rel in renamed:
                plain = ws.files / rel
                moved = plain.with_name(plain.stem + "-renamed.pdf")
                source, dest = (plain, moved) if run % 2 == 0 else (moved, plain)
                source.rename(dest)

        times, results = timed(plan.rescan_runs, rename)
        out["rename_10"] = {
            "files": len(renamed),
            "seconds": summary(times),
            "moved": results[-1].moved,
            "parsed": max(r.parsed for r in results),
        }
    finally:
        index.close()
    return out
