"""What a library of many files costs a serving process (issue 30's serving targets):
a no-change rescan, a new file landing until search finds it, and `pdfindex serve`'s
memory and first calls.

    python -m benchmarks.live_catalog ROOT --out FILE.json [--live-runs 5] [--document D]

ROOT is a project root built by `benchmarks.million build` (text only, no elements):
opening it with code of another index format starts it empty, so measure a copy. CPU
seconds are this process's (user + system, all threads); wall seconds hold the waits for
a core on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks.engine_table import rss_mb
from benchmarks.live_latency import landing_seconds
from benchmarks.million import DOCUMENT, cpu_seconds, marker, serve_memory, settings_for
from pdfindex.api import PdfIndex


def timed(call: Any) -> tuple[Any, float, float]:
    """(result, wall s, CPU s) of `call()`."""
    begin, begin_cpu = time.perf_counter(), cpu_seconds()
    result = call()
    return result, time.perf_counter() - begin, cpu_seconds() - begin_cpu


def measure(root: Path, live_runs: int, quiet: float, document: str) -> dict[str, Any]:
    out: dict[str, Any] = {"root": str(root)}
    index = PdfIndex(settings_for(root, "tantivy", None))
    try:
        out["pages"] = index.pages()
        summary, wall, cpu = timed(index.reindex)
        out["no_change_rescan"] = {
            "wall_s": round(wall, 2),
            "cpu_s": round(cpu, 2),
            "unchanged": summary.unchanged,
        }
        one = {("", f"{marker(0)}/{document}.pdf")}  # what the watcher names for one file
        try:
            summary, wall, cpu = timed(lambda: index.indexer.reindex(changes=one))
            out["one_path_rescan"] = {
                "wall_s": round(wall, 3),
                "cpu_s": round(cpu, 3),
                "scope": summary.scope,
            }
        except TypeError:  # a pdfindex before runs limited to the changed paths
            out["one_path_rescan"] = None
        _, wall, cpu = timed(index.stats)
        out["stats_first"] = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2)}
        out["rss_after_stats_mb"] = round(rss_mb())
        if live_runs:
            begin = time.perf_counter()
            live = index.live(quiet=quiet).start()
            live.caught_up.wait()
            caught = time.perf_counter() - begin
            try:
                begin_cpu = cpu_seconds()
                seconds = landing_seconds(index, live, root, live_runs, move=True)
                cpu = cpu_seconds() - begin_cpu
            finally:
                live.close()
            out["new_file_searchable"] = {
                "startup_scan_s": round(caught, 2),
                "quiet_s": quiet,
                "median_s": round(statistics.median(seconds), 2),
                "max_s": round(max(seconds), 2),
                "all_s": [round(s, 2) for s in seconds],
                "cpu_s_all_runs": round(cpu, 2),
                "runs": live_runs,
            }
        record = index.find_record(f"{marker(0)}/{document}")
        slug = record.slug
    finally:
        index.close()
    out["serve"] = serve_memory(root, "tantivy", None, slug)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--live-runs", type=int, default=5)
    parser.add_argument("--quiet", type=float, default=1.0, help="the watcher's quiet s")
    parser.add_argument("--document", default=DOCUMENT, help="a document's path stem")
    args = parser.parse_args(argv)
    result = measure(args.root, args.live_runs, args.quiet, args.document)
    args.out.write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
