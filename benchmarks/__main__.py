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

from benchmarks import corpus as synthetic
from benchmarks import measure as m
from benchmarks.report import write_all

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


def prepare_corpus(args: argparse.Namespace) -> tuple[Path, dict[str, Any] | None]:
    """The corpus folder, generating it first when asked."""
    if args.corpus is not None:
        if not args.corpus.is_dir():
            raise SystemExit(f"--corpus {args.corpus}: not a folder")
        return args.corpus.resolve(), None
    pages = args.generate or QUICK_PAGES
    max_pages = QUICK_MAX_DOC_PAGES if args.generate is None else synthetic.MAX_PAGES
    name = f"synthetic-{pages}" + ("-quick" if args.generate is None else "")
    folder = (args.corpus_root / name).resolve()
    m.log(f"corpus: generating {pages} pages into {folder} (reused if already there)")
    manifest = synthetic.generate(folder, pages, max_pages=max_pages)
    manifest = {k: v for k, v in manifest.items() if k != "documents"}
    m.log(f"corpus: {manifest['files']} files, {manifest['seconds']} s to generate")
    return folder, manifest


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
        else:
            m.not_available(q, "mcp", m.NO_MCP_NOTE)
        extra = baselines.get(kind)
        if extra is None:
            for key in ("naive_s", "pdfgrep_s"):
                m.not_available(q, key, m.EXACT_ONLY)
        else:
            q.update(extra)
        for base, key in (("naive_s", "speedup_vs_naive"), ("pdfgrep_s", "speedup_vs_pdfgrep")):
            if q["api"] and q.get(base):
                ratio = q[base]["median"] * 1000 / max(q["api"]["p50_ms"], 1e-3)
                q[key] = round(ratio, 1 if ratio >= 10 else 3)
            else:
                note = q.get(f"{base}_note") if q["api"] else q.get("api_note")
                m.not_available(q, key, note or "nothing to compare")
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
    folder, manifest = prepare_corpus(args)
    phase("generate")
    ws = m.make_workspace(folder, args.scratch)
    try:
        m.log(f"workspace: {ws.root} ({len(ws.pdfs)} PDFs, {ws.corpus_bytes / 1e6:.1f} MB)")
        phase("workspace")
        results["build"] = m.measure_build(ws, plan)
        phase("build")
        index = m.PdfIndex(ws.settings(plan.workers))
        try:
            records = sorted(index.engine.catalog().values(), key=lambda r: r.path)
            results["corpus"] = {
                "name": folder.name,
                "path": str(folder),
                "files": len(ws.pdfs),
                "pages": sum(r.pages for r in records),
                "mb": round(ws.corpus_bytes / 1e6, 2),
                "generated": manifest,
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
