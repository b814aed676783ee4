"""fuzzy_search over a whole library, in-process: the CPU and wall time of one call, its
total, and how far its scan got, with no time limit and under the tool's own (issue 30:
at 47,970 pages it ran out of its 10 s; at a million it answered nothing and left a
serving process at 634 MB).

python -m benchmarks.fuzzy_scan ROOT [--query hypenaton] [--match fzf] [--limit 10]
    [--runs 3] [--files-dir DIR]

Each run is a fresh call (nothing is kept between calls but the index's own caches).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks.engine_table import rss_mb
from benchmarks.million import settings_for
from pdfindex import deadline
from pdfindex.api import PdfIndex
from pdfindex.errors import PdfIndexError
from pdfindex.tools.fuzzy import fuzzy_search


def one_call(index: PdfIndex, query: str, match: str, limit: float | None) -> dict[str, Any]:
    """One fuzzy_search of the whole library under `limit` seconds (None: no limit)."""
    cpu, wall = time.process_time(), time.perf_counter()
    try:
        with deadline.limit(limit):
            answer = fuzzy_search(index, query, match=match, max_results=10)
    except PdfIndexError as exc:
        return {"error": str(exc)[:120], "wall_s": round(time.perf_counter() - wall, 2)}
    return {
        "total": answer["total_matches"],
        "partial": answer.get("partial", False),
        "first": [(m["file"], m["page"], m.get("score")) for m in answer["matches"][:3]],
        "cpu_s": round(time.process_time() - cpu, 2),
        "wall_s": round(time.perf_counter() - wall, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--query", default="hypenaton")
    parser.add_argument("--match", default="fzf")
    parser.add_argument("--limit", type=float, default=10.0, help="the request's limit, s")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--files-dir", type=Path)
    args = parser.parse_args()
    index = PdfIndex(settings_for(args.root, "tantivy", None, args.files_dir))
    index.search("hyphenation")  # the index opened and warm, as a serving process has it
    out: dict[str, Any] = {"rss_before_mb": round(rss_mb())}
    for label, limit in (("no limit", None), (f"limit {args.limit:g} s", args.limit)):
        runs = [one_call(index, args.query, args.match, limit) for _ in range(args.runs)]
        timed = [run for run in runs if "cpu_s" in run]
        out[label] = {
            "runs": runs,
            "cpu_s_median": statistics.median(r["cpu_s"] for r in timed) if timed else None,
        }
    out["rss_after_mb"] = round(rss_mb())
    index.close()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
