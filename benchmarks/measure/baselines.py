"""6. Baselines: what answering without an index costs. Seed 000's way (pdfminer.six
re-parses the whole PDF per query) and `pdfgrep`, on the exact and regex kinds."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from pdfminer.high_level import extract_text

from benchmarks.measure.common import PDFGREP_MISSING, Plan, log, not_available
from benchmarks.measure.queries import Queries
from benchmarks.measure.stats import summary
from benchmarks.measure.workspace import Workspace


def naive_search(path: Path, query: str) -> int:
    """Seed 000's way: re-parse the whole PDF with pdfminer.six, then a case-insensitive find."""
    return extract_text(str(path)).lower().find(query.lower())


def naive_regex(path: Path, pattern: str) -> int:
    """The same naive way for a regular expression (case-insensitive)."""
    found = re.search(pattern, extract_text(str(path)), re.IGNORECASE)
    return found.start() if found else -1


def measure_baselines(
    ws: Workspace, queries: Queries, plan: Plan, limits: dict[str, Any], pages: int
) -> dict[str, dict[str, Any]]:
    """Naive re-parse and pdfgrep for the exact kinds (one document; all documents)."""
    doc_path = ws.files / queries.document_path
    one = queries.texts["exact_one_doc"]
    every = queries.texts["exact_all_docs"]
    out: dict[str, dict[str, Any]] = {"exact_one_doc": {}, "exact_all_docs": {}}

    log(f"baselines: naive pdfminer re-parse of {queries.document_path} x{2 * plan.naive_runs}")
    times = []
    found = -1
    for _ in range(plan.naive_runs):
        start = time.perf_counter()
        found = naive_search(doc_path, one)
        times.append(time.perf_counter() - start)
    out["exact_one_doc"]["naive_s"] = summary(times)
    out["exact_one_doc"]["naive_found"] = found >= 0
    pattern = queries.texts["regex_one_doc"]
    times = []
    for _ in range(plan.naive_runs):
        start = time.perf_counter()
        found = naive_regex(doc_path, pattern)
        times.append(time.perf_counter() - start)
    out["regex_one_doc"] = {"naive_s": summary(times), "naive_found": found >= 0}
    estimate = round(pages / limits["pdfminer_pages_per_s"], 1)
    not_available(
        out["exact_all_docs"],
        "naive_s",
        f"not run: re-parsing all {pages} pages per query would take about {estimate} s "
        "at the measured pdfminer rate",
    )
    out["exact_all_docs"]["naive_estimate_s"] = estimate

    exe = shutil.which("pdfgrep")
    if exe is None:
        for kind in out:
            not_available(out[kind], "pdfgrep_s", PDFGREP_MISSING)
        return out
    log(f"baselines: pdfgrep -i -F on one file x{plan.pdfgrep_runs}")
    times = []
    for _ in range(plan.pdfgrep_runs):
        start = time.perf_counter()
        proc = subprocess.run([exe, "-i", "-F", "--", one, str(doc_path)], capture_output=True)
        times.append(time.perf_counter() - start)
    out["exact_one_doc"]["pdfgrep_s"] = summary(times)
    out["exact_one_doc"]["pdfgrep_lines"] = proc.stdout.count(b"\n")
    times = []
    for _ in range(plan.pdfgrep_runs):
        start = time.perf_counter()
        proc = subprocess.run([exe, "-i", "-P", "--", pattern, str(doc_path)], capture_output=True)
        times.append(time.perf_counter() - start)
    out["regex_one_doc"]["pdfgrep_s"] = summary(times)
    out["regex_one_doc"]["pdfgrep_lines"] = proc.stdout.count(b"\n")
    log("baselines: pdfgrep -i -F -r over the corpus x1 (slow)")
    start = time.perf_counter()
    proc = subprocess.run(
        [exe, "-i", "-F", "-r", "--include", "*.pdf", "--", every, str(ws.files)],
        capture_output=True,
    )
    out["exact_all_docs"]["pdfgrep_s"] = summary([time.perf_counter() - start])
    out["exact_all_docs"]["pdfgrep_lines"] = proc.stdout.count(b"\n")
    return out
