"""8. The peer: recoll (Xapian; PDFs through poppler's pdftotext), when installed.

`recollindex -c DIR` builds recoll's index of the workspace's files (wall, CPU, peak RSS
of its process tree, index size), the same way as pdfindex's cold build; `recollq -c DIR
-n 10 -q QUERY` answers each query kind it can express, as a whole process like
`pdfindex search` (`run_short`). Never installed by the benchmark: measured only if
`recollindex` and `recollq` are on PATH.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from benchmarks.measure.common import (
    QUERY_KINDS,
    RECOLL_MISSING,
    Plan,
    log,
    not_available,
)
from benchmarks.measure.process import run_measured, run_short
from benchmarks.measure.queries import Queries
from benchmarks.measure.stats import summary
from benchmarks.measure.workspace import Workspace

# noaspell: the spelling dictionary serves recoll's GUI only (and fails without a locale);
# loglevel 2: errors and warnings, not a line per document.
RECOLL_CONF = "topdirs = {files}\nnoaspell = 1\nloglevel = 2\n"
NO_FUZZY = "recoll has no edit-distance (fuzzy) queries"
NO_REGEX = "recoll has no regular-expression queries"
RESULTS = re.compile(r"^(\d+) results", re.MULTILINE)


def recoll_version() -> str | None:
    """recoll's version (from `recollq -v`), or None when it is not installed."""
    exe = shutil.which("recollq")
    if not exe:
        return None
    out = subprocess.run([exe, "-v"], capture_output=True, text=True).stdout
    found = re.search(r"Recoll (\d+(?:\.\d+)*)", out)
    return found.group(1) if found else out.strip()[:40] or None


def recoll_query(kind: str, queries: Queries) -> tuple[str | None, str]:
    """recoll's query language for `kind` and how it was translated, or (None, why not).

    Words, phrases and `prefix*` read the same; a boolean's AND is implicit and its NOT is
    `-word`; the exact kinds become phrases (recoll matches words, not substrings), in
    one document by `filename:`."""
    text = queries.texts[kind]
    if kind in ("fuzzy_1", "fuzzy_2"):
        return None, NO_FUZZY
    if kind == "regex_one_doc":
        return None, NO_REGEX
    if kind == "boolean":
        text = re.sub(r"\bAND\s+NOT\s+", "-", text)
        return re.sub(r"\s+AND\s+", " ", text), "AND implicit, NOT as -word"
    if kind == "exact_one_doc":
        name = Path(queries.document_path).name
        name = f'"{name}"' if " " in name else name
        return f'"{text}" filename:{name}', "phrase in one file (filename:)"
    if kind == "exact_all_docs":
        return f'"{text}"', "phrase"
    return text, "as is"


def measure_recoll(ws: Workspace, queries: Queries, plan: Plan, pages: int) -> dict[str, Any]:
    """recoll's cold build (`plan.build_runs` times, from an empty config folder) and
    `recollq` per query kind (`plan.process_runs` processes each); null figures with a
    note when recoll is not installed."""
    out: dict[str, Any] = {"version": recoll_version()}
    indexer, querier = shutil.which("recollindex"), shutil.which("recollq")
    if indexer is None or querier is None:
        not_available(out, "build", RECOLL_MISSING)
        not_available(out, "queries", RECOLL_MISSING)
        return out
    try:
        out.update(_measure(ws, queries, plan, pages, indexer, querier))
    except RuntimeError as exc:  # a peer's failure is a note, not the end of the run
        note = f"recoll failed: {str(exc)[-300:]}"
        not_available(out, "build", note)
        not_available(out, "queries", note)
    return out


def _measure(
    ws: Workspace, queries: Queries, plan: Plan, pages: int, indexer: str, querier: str
) -> dict[str, Any]:
    """The build and query figures (RuntimeError if a recoll process fails)."""
    out: dict[str, Any] = {}
    conf = ws.root / "recoll"
    env = {**os.environ, "RECOLL_CONFDIR": str(conf)}
    runs: list[dict[str, Any]] = []
    for run in range(plan.build_runs):
        shutil.rmtree(conf, ignore_errors=True)
        conf.mkdir()
        (conf / "recoll.conf").write_text(RECOLL_CONF.format(files=ws.files))
        log(f"recoll: cold build (recollindex -c) {run + 1}/{plan.build_runs}")
        runs.append(run_measured([indexer, "-c", str(conf)], env))
    walls = [r["wall_s"] for r in runs]
    mb = ws.corpus_bytes / 1e6
    index_bytes = sum(f.stat().st_size for f in (conf / "xapiandb").rglob("*") if f.is_file())
    out["build"] = {
        "runs": len(runs),
        "command": "recollindex -c DIR",
        "wall_s": summary(walls),
        "cpu_s": summary([r["cpu_s"] for r in runs]),
        "pages_per_s": summary([pages / w for w in walls], 1),
        "mb_per_s": summary([mb / w for w in walls], 2),
        "peak_rss_mb": summary([r["peak_rss_mb"] for r in runs], 1),
        "processes_at_peak": runs[-1]["processes_at_peak"],
        "index_mb": round(index_bytes / 1e6, 2),
        "index_to_corpus": round(index_bytes / ws.corpus_bytes, 3),
    }
    out["config"] = RECOLL_CONF.format(files="FILES")
    found: dict[str, Any] = {}
    log(f"recoll: recollq x{plan.process_runs} per query kind")
    for kind in QUERY_KINDS:
        query, how = recoll_query(kind, queries)
        if query is None:
            not_available(found, kind, how)
            continue
        cmd = [querier, "-c", str(conf), "-n", "10", "-q", query]
        timed = [run_short(cmd, env) for _ in range(plan.process_runs)]
        hits = RESULTS.search(timed[-1]["stdout"])
        found[kind] = {
            "query": query,
            "translation": how,
            "wall_s": summary([r["wall_s"] for r in timed]),
            "peak_rss_mb": summary([r["peak_rss_mb"] for r in timed], 1),
            "documents": int(hits.group(1)) if hits else None,
        }
        if hits is None:
            found[kind]["documents_note"] = "recollq printed no result count"
    out["queries"] = found
    return out
