"""`python -m benchmarks.relevance [--root DIR] [--set FILE]`: how well the ranked tools
find the page that answers a question (issue 14).

Reads a labelled JSON Lines set ({"id", "kind": "question" | "keywords", "query",
"document", "pages": [...]}; the answer pages are those of `document`), runs each query
through the real tools (`search_documents` and `query_documents`, in-process) on an
indexed root, once per ranking mode: `before` (the ranking as it was: every word of the
query, any counting, `pdfindex.search.understand.ENABLED = False`) and `after` (query
understanding). Reports, per tool, mode and kind: page hit@1, hit@10, MRR@10, document
MRR@10 (the answer's document among the distinct documents of the first ten pages) and
p50 / p95 latency of the tool call. The root is brought up to date first (`reindex`: an
index of an older format is refilled from the extraction cache). With `--recoll CONFIG`
(a recoll configuration folder whose index holds the same files), `recollq` is measured
too, as a whole process: documents only.

Hybrid modes (the semantic extra, `pdfindex.semantic.fusion`): `hybrid` (the product's
choice: questions and sentences fused as MODE says, keyword lists BM25), and, for every
natural-language query, `rrf` (BM25's top 50 fused with the 50 most similar pages of the
library) and `rerank` (BM25's top 50 re-ordered with their similarity); each optionally
`MODE:w=WEIGHT,k=K,p=1` (the similarity ranking's weight, the fusion constant, the first
passage of a page only).
Pages without vectors are embedded first (this takes long the first time: ~3 pages/s
on 2 cores; the vectors are cached in the index folder).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

DEFAULT_ROOT = Path("/work/rel")
DEFAULT_SET = Path(__file__).parent / "relevance" / "tuning.jsonl"
MODES = ("before", "after")
HYBRID = ("rrf", "rerank")
_PRODUCT: dict[str, tuple[float, float, str]] = {}  # the fusion's knobs before the modes
TOOLS = ("search_documents", "query_documents")
DEPTH = 10
_HIT = re.compile(r"^\[\d+\] TEXT: Page (\d+)\n  Document: (\S+)$", re.MULTILINE)

Pages = list[tuple[str, int]]


def load(path: Path) -> list[dict[str, Any]]:
    """The labelled entries of a JSON Lines file (blank lines skipped)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def tools(index: Any, sessions: Any) -> dict[str, Callable[[str], Pages]]:
    """Each tool as query -> its ranked (slug, page) list, best first, at most DEPTH."""
    from pdfindex.tools.catalog import ELEMENTS_IN_SEARCH, search_documents
    from pdfindex.tools.passages import query_documents

    def documents(query: str) -> Pages:
        # `limit` counts elements too (issue 28): ask for room for DEPTH pages beside them
        text = search_documents(index, query, limit=DEPTH + ELEMENTS_IN_SEARCH)
        return [(slug, int(page)) for page, slug in _HIT.findall(text)][:DEPTH]

    def passages(query: str) -> Pages:
        answer = query_documents(index, sessions, query, top_k=20)  # a new session each
        found = [
            (s["metadata"]["document_id"], s["metadata"]["page"]) for s in answer.get("sources", [])
        ]
        return list(dict.fromkeys(found))[:DEPTH]

    return {"search_documents": documents, "query_documents": passages}


def recoll(config: Path, catalog: dict[str, str]) -> Callable[[str], Pages]:
    """recoll as the peer: `recollq` in its any-term mode, as a whole process. It answers
    with documents, not pages: each comes as (slug, 0), and only document ranks count."""

    def documents(query: str) -> Pages:
        command = ["recollq", "-c", str(config), "-o", "-n", str(DEPTH), "-b", query]
        found = subprocess.run(command, capture_output=True, text=True, check=False).stdout
        paths = [line.split("/files/", 1)[-1] for line in found.splitlines() if "://" in line]
        return [(catalog[path], 0) for path in paths if path in catalog]

    return documents


def rank(found: Pages, entry: dict[str, Any]) -> tuple[int | None, int | None]:
    """1-based rank of the first answer page, and of the answer's document among the
    distinct documents found (None: not in the first DEPTH)."""
    wanted = set(entry["pages"])
    page = next(
        (n for n, (slug, p) in enumerate(found, 1) if slug == entry["document"] and p in wanted),
        None,
    )
    documents = list(dict.fromkeys(slug for slug, _ in found))
    document = documents.index(entry["document"]) + 1 if entry["document"] in documents else None
    return page, document


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """hit@1, hit@10, MRR@10 (pages), document MRR@10, latency p50/p95 in ms."""
    n = len(rows)
    ranks = [r["page_rank"] for r in rows]
    documents = [r["document_rank"] for r in rows]
    times = sorted(r["ms"] for r in rows)
    pages = rows[0]["tool"] != "recoll"  # recoll answers with documents only
    return {
        "n": n,
        "hit@1": sum(r == 1 for r in ranks) / n if pages else None,
        "hit@10": sum(r is not None for r in ranks) / n if pages else None,
        "mrr@10": sum(1 / r for r in ranks if r) / n if pages else None,
        "doc_mrr@10": sum(1 / r for r in documents if r) / n,
        "p50_ms": statistics.median(times),
        "p95_ms": times[min(n - 1, round(0.95 * (n - 1)))],
    }


def configure(mode: str) -> bool:
    """Set the ranking knobs for `mode`; whether it is a hybrid mode."""
    from pdfindex.search import understand

    understand.ENABLED = mode != "before"
    name, _, knobs = mode.partition(":")
    if name not in HYBRID and name != "hybrid":
        return False
    from pdfindex.semantic import fusion, library

    product = _PRODUCT.setdefault("knobs", (fusion.DENSE_WEIGHT, fusion.RRF_K, fusion.MODE))
    values = dict(part.split("=") for part in knobs.split(",") if part)
    fusion.MODE = product[2] if name == "hybrid" else name
    fusion.DENSE_WEIGHT = float(values.get("w", product[0]))
    fusion.RRF_K = float(values.get("k", product[1]))
    fusion.SENTENCES_ONLY = name == "hybrid"  # rrf, rerank: every natural-language query
    library.FIRST_ONLY = values.get("p") == "1"
    return True


def restore() -> None:
    """The product's ranking knobs back, after the modes."""
    from pdfindex.search import understand

    understand.ENABLED = True
    if "knobs" in _PRODUCT:
        from pdfindex.semantic import fusion, library

        fusion.DENSE_WEIGHT, fusion.RRF_K, fusion.MODE = _PRODUCT["knobs"]
        fusion.SENTENCES_ONLY = True
        library.FIRST_ONLY = False


def rss_mb() -> float:
    """This process's resident memory now (Linux), MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def run(
    root: Path,
    entries: list[dict[str, Any]],
    modes: list[str],
    engine: str | None,
    recoll_config: Path | None = None,
) -> Any:
    """Every entry through every tool in every mode (and recoll's `recollq`, given its
    configuration folder, as the peer): per-query rows and summaries."""
    from pdfindex import PdfIndex, load_settings
    from pdfindex.errors import PdfIndexError
    from pdfindex.tools.sessions import SessionStore

    hybrid = any(m.partition(":")[0] in (*HYBRID, "hybrid") for m in modes)
    index = PdfIndex(load_settings({"engine": engine, "semantic": hybrid or None}, root=root))
    rows: list[dict[str, Any]] = []
    semantic: dict[str, Any] = {}
    try:
        index.reindex()
        if index.semantic is not None:
            started = time.perf_counter()
            embedded = index.semantic.run(progress=_progress)
            seconds = time.perf_counter() - started
            index.semantic.query_vector("warm")
            semantic = {
                **index.semantic.status(),
                "embedded_now": embedded,
                "pages_per_s": round(embedded / seconds, 2) if embedded else None,
                "rss_mb_model_and_vectors": round(rss_mb(), 1),
            }
        base = index.settings
        with tempfile.TemporaryDirectory() as scratch:
            ranked = tools(index, SessionStore(Path(scratch)))
            plan = [(mode, tool, call) for mode in modes for tool, call in ranked.items()]
            if recoll_config:
                catalog = {r.path: r.slug for r in index.engine.catalog().values()}
                plan.append(("peer", "recoll", recoll(recoll_config, catalog)))
            for mode, tool, call in plan:
                index.settings = replace(base, semantic=configure(mode))
                call(entries[0]["query"])  # warm: first-query costs are not latency
                for entry in entries:
                    started = time.perf_counter()
                    try:
                        found = call(entry["query"])
                    except PdfIndexError:  # the tool's error: nothing found
                        found = []
                    ms = (time.perf_counter() - started) * 1000
                    page, document = rank(found, entry)
                    rows.append(
                        {
                            "id": entry["id"],
                            "kind": entry["kind"],
                            "mode": mode,
                            "tool": tool,
                            "page_rank": page,
                            "document_rank": document,
                            "ms": round(ms, 2),
                            "found": found[:3],
                        }
                    )
        engine_name = index.engine.name
        pages = index.stats()["pages"]
    finally:
        restore()
        index.close()
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in rows:
        for kind in (row["kind"], "all"):
            groups.setdefault((row["tool"], row["mode"], kind), []).append(row)
    summaries = [
        {"tool": tool, "mode": mode, "kind": kind, **summary(found)}
        for (tool, mode, kind), found in sorted(groups.items())
    ]
    return {
        "engine": engine_name,
        "pages": pages,
        "semantic": semantic,
        "rows": rows,
        "summaries": summaries,
    }


def _progress(done: int, total: int) -> None:
    if done == total or done % 200 < 8:
        print(f"embedding: {done} of {total} pages", file=sys.stderr, flush=True)


def table(result: dict[str, Any]) -> str:
    """The summaries as a Markdown table."""
    lines = [
        f"Engine {result['engine']}, {result['pages']:,} pages.",
        "",
        "| tool | mode | kind | n | hit@1 | hit@10 | MRR@10 | doc MRR@10 | p50 ms | p95 ms |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in result["summaries"]:
        cells = [s[key] for key in ("hit@1", "hit@10", "mrr@10", "doc_mrr@10")]
        figures = " | ".join("–" if c is None else f"{c:.2f}" for c in cells)
        lines.append(
            f"| {s['tool']} | {s['mode']} | {s['kind']} | {s['n']} | {figures} | "
            f"{s['p50_ms']:.1f} | {s['p95_ms']:.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="an indexed root")
    parser.add_argument("--set", type=Path, default=DEFAULT_SET, help="labelled JSONL")
    parser.add_argument("--engine", default=None, help="index engine (default: the root's)")
    parser.add_argument(
        "--modes",
        default=",".join(MODES),
        help="before,after,rrf,rerank (hybrid modes take :w=WEIGHT,k=K,p=1); ';' separates "
        "modes that hold commas",
    )
    parser.add_argument("--json", type=Path, default=None, help="write every figure here")
    parser.add_argument("--misses", action="store_true", help="list what `after` missed")
    parser.add_argument(
        "--recoll", type=Path, default=None, help="a recoll config folder indexing the root"
    )
    args = parser.parse_args(argv)
    entries = load(args.set)
    if not entries:
        sys.exit(f"{args.set} holds no entries")
    separator = ";" if ";" in args.modes else ","
    modes = args.modes.split(separator)
    result = run(args.root, entries, modes, args.engine, args.recoll)
    result["set"] = str(args.set)
    print(f"{len(entries)} labelled queries from {args.set}. " + table(result))
    if result["semantic"]:
        print(f"semantic: {json.dumps(result['semantic'])}")
    if args.misses:
        queries = {e["id"]: e for e in entries}
        for row in result["rows"]:
            if row["mode"] == "after" and row["page_rank"] != 1:
                entry = queries[row["id"]]
                print(
                    f"{row['tool'][:7]} {row['id']} rank {row['page_rank']} doc "
                    f"{row['document_rank']}: {entry['query']} -> {entry['document']} "
                    f"{entry['pages']}; got {row['found']}"
                )
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
