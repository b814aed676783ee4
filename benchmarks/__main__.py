"""`python -m benchmarks`: measure pdfindex on a folder of PDFs and write a report.

python -m benchmarks --corpus DIR          # any folder of PDFs
python -m benchmarks --generate 20000      # a synthetic corpus of 20,000 pages first
python -m benchmarks --quick               # a small synthetic corpus, few runs (~1 min)
python -m benchmarks --quick --engines tantivy   # one index engine (default: all)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from benchmarks import measure as m
from benchmarks.corpus import MAX_PAGES, FolderCorpus, SyntheticCorpus
from benchmarks.report import write_all
from pdfindex.api import PdfIndex
from pdfindex.config import SETTINGS
from pdfindex.engine import embedded_engines, engines

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
    parser.add_argument(
        "--engines",
        type=engine_list,
        default=default_engines(),
        help="index engines to measure, comma-separated, side by side on the same corpus "
        f"(default: all, {','.join(default_engines())}); the first one's figures also fill "
        "the report's top level",
    )
    args = parser.parse_args(argv)
    if args.corpus is None and args.generate is None and not args.quick:
        parser.error("give --corpus DIR, --generate N or --quick")
    if args.generate is not None and args.generate < 1:
        parser.error("--generate needs a positive number of pages")
    return args


def default_engines() -> list[str]:
    """Every installed engine, the default one first (its figures fill the top level)."""
    return sorted(embedded_engines(), key=lambda name: (name != SETTINGS["engine"].default, name))


def engine_list(text: str) -> list[str]:
    """`--engines a,b`: known engine names, in the order given, each once."""
    names = list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    unknown = [n for n in names if n not in engines()]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown engine {', '.join(unknown) or '(none given)'}: "
            f"choose from {', '.join(engines())}"
        )
    return names


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
    api: dict[str, dict],
    mcp: dict[str, Any],
    baselines: dict[str, dict],
    process: dict[str, dict],
) -> dict[str, dict]:
    """One entry per query kind: library, MCP, whole-process, naive and pdfgrep figures
    and speed-ups (of one engine)."""
    out: dict[str, dict] = {}
    for kind in m.QUERY_KINDS:
        q = dict(api[kind])
        measured = mcp["kinds"].get(kind)
        if measured:
            q["mcp"], q["mcp_tool"] = measured["latency"], measured["tool"]
        else:  # exact_all_docs: search_pdf searches one document
            m.not_available(q, "mcp", m.NO_MCP_NOTE)
        q.update(process[kind])
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


@dataclass
class Shared:
    """What every engine is measured against, measured once on the first engine's
    workspace: the queries, the extraction limits (and the text the writers get), the
    baselines."""

    queries: m.Queries
    extraction: dict[str, Any]
    sample: m.WriterSample
    baselines: dict[str, dict]


Phase = Callable[[str], None]


def measure_shared(
    ws: m.Workspace, corpus: FolderCorpus, plan: m.Plan, results: dict[str, Any], phase: Phase
) -> Shared:
    """Corpus figures, the queries (chosen from the first engine's index), extraction
    limits, baselines and recoll; fills `results` with the JSON ones."""
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
        m.log(f"queries: choosing words from the index ({ws.engine})")
        queries = m.choose_queries(index)
        results["query_choice"] = queries.as_dict()
        phase("choose queries")
    finally:
        index.close()
    extraction, sample = m.measure_extraction(ws, records, plan)
    phase("limits (extraction)")
    pages = results["corpus"]["pages"]
    baselines = m.measure_baselines(ws, queries, plan, extraction, pages)
    phase("baselines")
    results["recoll"] = m.measure_recoll(ws, queries, plan, pages)
    phase("recoll")
    return Shared(queries, extraction, sample, baselines)


def measure_engine(
    ws: m.Workspace, plan: m.Plan, shared: Shared, build: dict[str, Any], phase: Phase
) -> dict[str, Any]:
    """Every figure of the workspace's engine after its build: writer alone, queries
    (library, whole process, MCP), load, rescans, live updates."""
    name = ws.engine
    out: dict[str, Any] = {"build": build}
    out["limits"] = m.measure_writer(ws, shared.sample, shared.extraction, build)
    phase(f"writer ({name})")
    index = PdfIndex(ws.settings(plan.workers))
    try:
        api = m.measure_queries_api(index, shared.queries, plan)
        phase(f"queries, library ({name})")
        threads = m.measure_threads(index, shared.queries, plan)
        phase(f"load, library ({name})")
    finally:
        index.close()
    process = m.measure_process_search(ws, shared.queries, plan)
    phase(f"queries, whole process ({name})")
    m.log(f"MCP ({name}): starting `pdfindex serve` under the SDK's stdio client")
    mcp = m.measure_mcp(ws, shared.queries, plan)
    phase(f"MCP ({name})")
    out["queries"] = assemble_queries(api, mcp, shared.baselines, process)
    out["mcp_server"] = {k: mcp[k] for k in ("startup_s", "first_call_s", "tools")}
    out["concurrency"] = {"clients": plan.clients, "api": threads, "mcp": mcp["concurrency"]}
    out["rescan"] = m.measure_rescans(ws, plan)
    phase(f"rescans ({name})")
    out["live_update"] = m.measure_live_update(ws, plan)
    phase(f"live update ({name})")
    return out


# The figures each engine has; the first engine's also sit at the top level, where a
# report of one engine had them.
ENGINE_KEYS = ("build", "rescan", "live_update", "queries", "mcp_server", "concurrency")


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
    names: list[str] = args.engines
    results: dict[str, Any] = {
        "schema": 2,
        "date": date.today().isoformat(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "command": ["python", "-m", "benchmarks", *sys.argv[1:]],
        "quick": args.quick,
        "engines": names,
        "engine": names[0],  # whose figures the top-level build, queries, ... are
        "plan": vars(plan).copy(),
        "machine": m.machine(args.note),
    }
    corpus = corpus_from_args(args)
    prepare_corpus(corpus)
    phase("generate")
    shared: Shared | None = None
    by_engine: dict[str, dict[str, Any]] = {}
    for name in names:
        ws = m.make_workspace(corpus, name, args.scratch)
        try:
            m.log(
                f"engine {name}: workspace {ws.root} ({len(ws.pdfs)} PDFs, "
                f"{ws.corpus_bytes / 1e6:.1f} MB)"
            )
            phase(f"workspace ({name})")
            build = m.measure_build(ws, plan)
            phase(f"build ({name})")
            if shared is None:
                shared = measure_shared(ws, corpus, plan, results, phase)
            by_engine[name] = measure_engine(ws, plan, shared, build, phase)
        finally:
            ws.close()
    assert shared is not None
    results["whole_process"] = {
        "runs": plan.process_runs,
        "rss_floor_mb": m.rss_floor_mb(),
        "method": "spawned from a small launcher that times spawn to exit and reads the"
        " child's ru_maxrss (wait4); a figure at the floor means at most the floor",
    }
    first = by_engine[names[0]]
    results.update({key: first[key] for key in ENGINE_KEYS})
    results["limits"] = {**shared.extraction, **first["limits"]}
    results["by_engine"] = by_engine
    results["notes"] = run_notes(results, plan)
    results["load_average_at_end"] = list(os.getloadavg())
    results["timing"] = {"total_s": round(time.perf_counter() - started, 1), "phases": phases}
    return results


def run_notes(results: dict[str, Any], plan: m.Plan) -> list[str]:
    names = results["engines"]
    notes = [
        f"Index engines measured one after the other, each in a workspace of its own on the"
        f" same corpus and queries: {', '.join(names)}. The top-level figures are the first"
        f" engine's ({names[0]}); `by_engine` has every engine's. Build, writer, rescans,"
        " live updates, library, whole-process and MCP queries and load are per engine;"
        " the corpus, the query choice, extraction limits, baselines and recoll are shared.",
        "pdfgrep over all documents runs once and for one query only (it re-parses every PDF);"
        " the naive re-parse runs on one document only.",
        "Raw writer rate is measured on a sample and a fresh index; the warm rebuild is the"
        " writer at full size (plus hashing and cache reads).",
        "Exact queries stop at 10 matches (search_pdf's default topk); pdfgrep finds all.",
        "Whole process: `pdfindex search` is a Python process (start-up and imports"
        " included) that prints snippets; `recollq -n 10 -q` a C++ one that prints"
        " result lines (no abstracts). recoll counts documents, pdfindex pages; recoll"
        " matches words (its exact kinds are phrases) and has no fuzzy or regex queries.",
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
