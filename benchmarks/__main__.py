"""`python -m benchmarks`: measure pdfindex on a folder of PDFs and write a report.

python -m benchmarks --corpus DIR          # any folder of PDFs
python -m benchmarks --generate 20000      # a synthetic corpus of 20,000 pages first
python -m benchmarks --quick               # a small synthetic corpus, few runs (< 1 min)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

from benchmarks import measure as m
from benchmarks.corpus import MAX_PAGES, FolderCorpus, SyntheticCorpus
from benchmarks.report import write_all
from pdfindex.api import PdfIndex

HERE = Path(__file__).resolve().parent
QUICK_PAGES = 200
QUICK_MAX_DOC_PAGES = 30


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.split("\n")[0]
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--corpus", type=Path, help="folder of PDFs to measure")
    source.add_argument(
        "--generate", type=int, metavar="N", help="build (or reuse) a synthetic corpus of N pages"
    )
    parser.add_argument(
        "--quick", action="store_true", help=f"few repetitions; {QUICK_PAGES} pages if no corpus"
    )
    parser.add_argument(
        "--out", type=Path, default=HERE / "results", help="results folder (benchmarks/results)"
    )
    parser.add_argument(
        "--corpus-root",
        type=Path,
        default=HERE / "corpus",
        help="where generated corpora go (benchmarks/corpus, git-ignored)",
    )
    parser.add_argument("--scratch", type=Path, help="folder for the temporary project root")
    parser.add_argument("--build-runs", type=int, help="cold builds to time (full default 2)")
    parser.add_argument("--workers", type=int, default=0, help="extraction processes (0 = cores)")
    parser.add_argument("--note", help="free text stored with the results (e.g. machine load)")
    args = parser.parse_args(argv)
    if args.corpus is None and args.generate is None and not args.quick:
        parser.error("give --corpus DIR, --generate N or --quick")
    if args.generate is not None and args.generate < 1:
        parser.error("--generate needs a positive number of pages")
    return args


def corpus_from_args(args: argparse.Namespace) -> FolderCorpus:
    """The corpus to measure: the given folder, or a synthetic one (generated if new)."""
    if args.corpus is not None:
        return FolderCorpus(args.corpus)
    if args.generate is not None:
        return SyntheticCorpus(args.corpus_root.resolve(), args.generate, MAX_PAGES)
    return SyntheticCorpus(args.corpus_root.resolve(), QUICK_PAGES, QUICK_MAX_DOC_PAGES, "-quick")


def prepare_corpus(corpus: FolderCorpus) -> None:
    """Ready the corpus folder, generating a synthetic corpus first (logged: it may take
    minutes)."""
    if not isinstance(corpus, SyntheticCorpus):
        corpus.prepare()
        return
    m.log(f"corpus: generating {corpus.pages} pages into {corpus.folder} (reused if already there)")
    corpus.prepare()
    assert corpus.generated is not None
    m.log(f"corpus: {corpus.generated['files']} files, {corpus.generated['seconds']} s to generate")


def assemble_queries(
    api: dict[str, dict], mcp: dict[str, Any], baselines: dict[str, dict]
) -> dict[str, dict]:
    """One entry per query kind: library, MCP, naive and pdfgrep figures and speed-ups."""
    out: dict[str, dict] = {}
    for kind in m.QUERY_KINDS:
        q = dict(api[kind])
        measured = mcp["kinds"].get(kind)
        if measured:
            q["mcp"], q["mcp_tool"] = measured["latency"], measured["tool"]
        else:  # exact_all_docs: search_pdf searches one document
            m.not_available(q, "mcp", m.NO_MCP_NOTE)
        extra = baselines.get(kind)
        if extra is None:
            for key in ("naive_s", "pdfgrep_s"):
                m.not_available(q, key, m.EXACT_ONLY)
        else:
            q.update(extra)
        for base, key in (("naive_s", "speedup_vs_naive"), ("pdfgrep_s", "speedup_vs_pdfgrep")):
            if q.get(base):
                ratio = q[base]["median"] * 1000 / max(q["api"]["p50_ms"], 1e-3)
                q[key] = round(ratio, 1 if ratio >= 10 else 3)
            else:
                m.not_available(q, key, q.get(f"{base}_note") or "nothing to compare")
        out[kind] = q
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    for name in list(os.environ):
        if name.startswith("PDFINDEX_"):
            del os.environ[name]  # measure the defaults, not the caller's settings
    started = time.perf_counter()
    phases: dict[str, float] = {}
    mark = time.perf_counter()

    def phase(name: str) -> None:
        nonlocal mark
        now = time.perf_counter()
        phases[name] = round(now - mark, 1)
        mark = now

    plan = m.Plan.for_mode(args.quick)
    plan.workers = args.workers
    if args.build_runs:
        plan.build_runs = args.build_runs
    results: dict[str, Any] = {
        "schema": 1,
        "date": date.today().isoformat(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "command": ["python", "-m", "benchmarks", *sys.argv[1:]],
        "quick": args.quick,
        "plan": vars(plan).copy(),
        "machine": m.machine(args.note),
    }
    corpus = corpus_from_args(args)
    prepare_corpus(corpus)
    phase("generate")
    ws = m.make_workspace(corpus, args.scratch)
    try:
        m.log(f"workspace: {ws.root} ({len(ws.pdfs)} PDFs, {ws.corpus_bytes / 1e6:.1f} MB)")
        phase("workspace")
        results["build"] = m.measure_build(ws, plan)
        phase("build")
        index = PdfIndex(ws.settings(plan.workers))
        try:
            records = m.catalog(index)
            results["corpus"] = {
                "name": corpus.name,
                "path": str(corpus.folder),
                "files": len(ws.pdfs),
                "pages": sum(r.pages for r in records),
                "mb": round(ws.corpus_bytes / 1e6, 2),
                "generated": corpus.generated,
            }
            m.log("queries: choosing words from the index")
            queries = m.choose_queries(index)
            results["query_choice"] = queries.as_dict()
            phase("choose queries")
            results["limits"] = m.measure_limits(ws, records, plan, results["build"])
            phase("limits")
            api = m.measure_queries_api(index, queries, plan)
            phase("queries (library)")
            threads = m.measure_threads(index, queries, plan)
            phase("load (library)")
        finally:
            index.close()
        m.log("MCP: starting `pdfindex serve` under the SDK's stdio client")
        mcp = m.measure_mcp(ws, queries, plan)
        phase("MCP")
        baselines = m.measure_baselines(
            ws, queries, plan, results["limits"], results["corpus"]["pages"]
        )
        phase("baselines")
        results["queries"] = assemble_queries(api, mcp, baselines)
        results["mcp_server"] = {k: mcp[k] for k in ("startup_s", "first_call_s", "tools")}
        results["concurrency"] = {
            "clients": plan.clients,
            "api": threads,
            "mcp": mcp["concurrency"],
        }
        results["rescan"] = m.measure_rescans(ws, plan)
        phase("rescans")
        results["live_update"] = m.measure_live_update(ws, plan)
        phase("live update")
    finally:
        ws.close()
    results["notes"] = run_notes(results, plan)
    results["load_average_at_end"] = list(os.getloadavg())
    results["timing"] = {"total_s": round(time.perf_counter() - started, 1), "phases": phases}
    return results


def run_notes(results: dict[str, Any], plan: m.Plan) -> list[str]:
    notes = [
        "pdfgrep over all documents runs once and for one query only (it re-parses every PDF);"
        " the naive re-parse runs on one document only.",
        "Raw writer rate is measured on a sample and a fresh index; the warm rebuild is the"
        " writer at full size (plus hashing and cache reads).",
        "Exact queries stop at 10 matches (search_pdf's default topk); pdfgrep finds all.",
    ]
    if plan.quick:
        notes.append("Quick mode: small corpus and few repetitions; numbers are indicative only.")
    return notes


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    results = run(args)
    stem = f"{results['date']}-{results['corpus']['name']}"
    paths = write_all(results, args.out, stem)
    print(paths["md"].read_text())
    for path in paths.values():
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
