"""A library of a million pages (issue 30, item 5): real page texts repeated with a
per-copy marker word, fed to an engine's writer, then measured as a user meets it.

    python -m benchmarks.million build ROOT --base BASE --pages 1000000 [--engine E]
    python -m benchmarks.million measure ROOT --out FILE.json [--engine E] [--runs 20]
    python -m benchmarks.million report DIR        # every measure JSON in DIR: .md, .json, .png

BASE is an indexed project root (e.g. `pdfindex reindex --root BASE --files-dir
CORPUS/full`, plus `huge/` from benchmarks/huge_corpus.sh when wanted): its catalog
records and stored page texts are the base, read once. (Opening it with a pdfindex of
another index format starts it empty: reindex BASE after such a change.) `build` lays
ROOT/files/copyNNNNN/ as hard links to the base's files (so a live index over ROOT finds
every catalogued file unchanged on disk) and writes copy after copy through
`EngineWriter.add_file` in one writer, each page with the word `copyNNNNN` on a line of
its own (and a content hash of its own), until `--pages`: no extraction, so the build
measures the engine. `measure` times opening the index, every query kind of
benchmarks.engine_table (p50/p95), the memory of a `pdfindex serve` process, a one-file
commit, and a new PDF landing in the files folder until search finds it while a live
index serves (`pdfindex serve`'s way).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.engine_table import query_cases, rss_mb
from benchmarks.live_latency import landing_seconds
from pdfindex.api import PdfIndex
from pdfindex.config import Settings, load_settings
from pdfindex.models import FileRecord
from pdfindex.paths import assign_slug
from pdfindex.text.index import index_text

DOCUMENT = "generic_pgf_pgfmanual"  # search_pdf's and the regex's document, in copy 0


def settings_for(
    root: Path, engine: str, database_url: str | None, files_dir: Path | None = None
) -> Settings:
    """Text only (no OCR, no elements pass): the engine is what is measured."""
    values: dict[str, Any] = {"engine": engine, "ocr": False, "elements": False}
    if files_dir:
        values["files_dir"] = files_dir
    if database_url:
        values["database_url"] = database_url
    return load_settings(values, root=root)


def marker(copy: int) -> str:
    return f"copy{copy:05d}"


# -- build ---------------------------------------------------------------------------


def load_base(
    base: Path, engine: str, files: Path, max_pages: int = 0
) -> list[tuple[FileRecord, list[str], list[str]]]:
    """Each base record with its stored pages and their index text, in path order; with
    `max_pages`, only files of at most that many pages (many files for few pages: what
    grows per file, the catalog and a rescan, without a 1M-page build)."""
    index = PdfIndex(settings_for(base, engine, None, files))
    try:
        catalog = index.engine.catalog()
        out = []
        for path in sorted(catalog):
            record = catalog[path]
            if max_pages and record.pages > max_pages:
                continue
            pages = index.engine.page_texts(record.slug) if record.pages else []
            out.append((record, pages, [index_text(p) for p in pages]))
        return out
    finally:
        index.close()


def copies(
    base: list[tuple[FileRecord, list[str], list[str]]],
    target: int,
    files: Path,
    base_files: Path,
    start: int = 0,
) -> Any:
    """(record, pages, index text) of copy after copy until `target` pages, each file
    hard-linked under files/copyNNNNN/ (made when missing); the files of the first `start`
    pages are skipped (an earlier build of the same sequence wrote them)."""
    taken: set[str] = set()
    total, copy = 0, 0
    while total < target:
        word = marker(copy)
        for record, pages, texts in base:
            if total >= target:
                return
            path = f"{word}/{record.path}"
            if total < start:
                taken.add(assign_slug(path, taken))
                total += len(pages)
                continue
            link = files / path
            if not link.exists():
                link.parent.mkdir(parents=True, exist_ok=True)
                os.link(base_files / record.path, link)
            slug = assign_slug(path, taken)
            taken.add(slug)
            stored = [f"{p}\n{word}" if p.strip() else p for p in pages]
            indexed = [
                f"{t}\n{word}" if p.strip() else t for p, t in zip(pages, texts, strict=True)
            ]
            sha = hashlib.sha256(f"{record.sha256}:{word}".encode()).hexdigest()
            yield (
                replace(
                    record,
                    path=path,
                    slug=slug,
                    sha256=sha,
                    indexed_at=time.time(),
                    page_lines=[len(p.splitlines()) for p in stored],
                ),
                stored,
                indexed,
            )
            total += len(pages)
        copy += 1


def build(args: argparse.Namespace) -> dict[str, Any]:
    started = time.perf_counter()
    base_files = args.base_files or args.base / "files"
    base = load_base(args.base, args.base_engine, base_files, args.base_max_pages)
    base_pages = sum(len(p) for _, p, _ in base)
    if not base_pages:  # e.g. a base of another index format, started empty on opening
        raise SystemExit(f"the base root {args.base} holds no pages: index it first")
    loaded = time.perf_counter() - started
    log(f"base: {len(base)} files, {base_pages} pages, read in {loaded:.1f} s, {rss_mb():.0f} MB")
    settings = settings_for(args.root, args.engine, args.database_url)
    files = args.root / "files"
    files.mkdir(parents=True, exist_ok=True)
    index = PdfIndex(settings)
    start = index.stats()["pages"] if args.append else 0
    pages = documents = 0
    begin, begin_cpu = time.perf_counter(), cpu_seconds()
    try:
        with index.engine.writer(timeout=60, clear=not args.append) as writer:
            for record, stored, indexed in copies(base, args.pages, files, base_files, start):
                writer.add_file(record, stored, indexed)
                pages += len(stored)
                documents += 1
                if documents % 2000 == 0:
                    log(f"{pages} pages in {time.perf_counter() - begin:.0f} s, {rss_mb():.0f} MB")
            log(f"{pages} pages written, committing")
        seconds, cpu = time.perf_counter() - begin, cpu_seconds() - begin_cpu
        size = index.engine.size_bytes()
    finally:
        index.close()
    result = {
        "engine": args.engine,
        "pages": start + pages,
        "appended_to": start,
        "files": documents,
        "base_files": len(base),
        "base_pages": base_pages,
        "build_s": round(seconds, 1),
        "pages_per_s": round(pages / seconds),  # of the pages this run wrote
        "cpu_s": round(cpu, 1),  # this process's (a database server's own is not in it)
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "base_read_s": round(loaded, 1),
        "index_mb": round(size / 1e6, 1),
    }
    log(json.dumps(result))
    return result


def cpu_seconds() -> float:
    """User + system CPU seconds of this process, all its threads (Tantivy's writer's too)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# -- measure -------------------------------------------------------------------------


def latency(call: Any, runs: int) -> dict[str, float]:
    """p50 and p95 (ms) of `runs` calls after one warm-up, wall and CPU time of this
    process (on a shared machine the CPU time is what the call itself cost: the wall time
    also holds the waits for a core); the warm-up's own wall time."""
    begin = time.perf_counter()
    found = call()
    first = (time.perf_counter() - begin) * 1000
    wall, cpu = [], []
    for _ in range(runs):
        begin, begin_cpu = time.perf_counter(), time.process_time()
        call()
        cpu.append((time.process_time() - begin_cpu) * 1000)
        wall.append((time.perf_counter() - begin) * 1000)
    return {
        "count": found,
        "p50_ms": round(statistics.median(wall), 2),
        "p95_ms": round(p95(wall), 2),
        "cpu_p50_ms": round(statistics.median(cpu), 2),
        "cpu_p95_ms": round(p95(cpu), 2),
        "first_ms": round(first, 2),
        "runs": runs,
    }


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def one_file_commits(index: PdfIndex, runs: int) -> dict[str, float]:
    """writer() + add_file + commit of one new 3-page file (then removed, untimed)."""
    times = []
    for run in range(runs):
        path = f"zz-commit/{run}.pdf"
        pages = [f"onefilecommit{run} page {n} of a small new file" for n in range(3)]
        record = FileRecord(
            path=path,
            slug=f"zz_commit_{run}",
            title="one-file commit",
            pages=len(pages),
            size=1,
            mtime=0.0,
            sha256=hashlib.sha256(path.encode()).hexdigest(),
            status="ok",  # type: ignore[arg-type]
            error=None,
            indexed_at=time.time(),
            extractor="benchmark",
            page_lines=[1] * len(pages),
        )
        begin = time.perf_counter()
        with index.engine.writer(timeout=60) as writer:
            writer.add_file(record, pages, [index_text(p) for p in pages])
        times.append(time.perf_counter() - begin)
        with index.engine.writer(timeout=60) as writer:
            writer.remove_file(path)
    return {"median_s": round(statistics.median(times), 3), "max_s": round(max(times), 3)}


def landed(index: PdfIndex, root: Path, runs: int, quiet: float) -> dict[str, Any]:
    """A live index as `pdfindex serve` runs it: its start-up scan, then new PDFs moved
    into the files folder until search_pdf finds their word (polled every 20 ms)."""
    begin = time.perf_counter()
    live = index.live(quiet=quiet).start()
    live.caught_up.wait()
    caught = time.perf_counter() - begin
    try:
        seconds = landing_seconds(index, live, root, runs, move=True)
        rss = rss_mb()
    finally:
        live.close()
    return {
        "startup_scan_s": round(caught, 2),
        "quiet_s": quiet,
        "median_s": round(statistics.median(seconds), 2),
        "max_s": round(max(seconds), 2),
        "runs": runs,
        "rss_mb_while_live": round(rss),
    }


async def idle(pid: int, most: float = 30.0) -> None:
    """Until process `pid` uses no CPU for half a second (or `most` seconds pass)."""
    import anyio

    def cpu() -> int:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    end = time.monotonic() + most
    before = cpu()
    while time.monotonic() < end:
        await anyio.sleep(0.5)
        now = cpu()
        if now - before <= 1:
            return
        before = now


def serve_memory(root: Path, engine: str, database_url: str | None, slug: str) -> dict[str, Any]:
    """VmRSS of a `pdfindex serve --no-watch` process after its start-up and after each
    kind of tool call (benchmarks.serve_rss's calls, on the measured document)."""
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    from benchmarks.serve_rss import CALLS, memory, server_pid

    env = dict(os.environ, PDFINDEX_ENGINE=engine, PDFINDEX_OCR="false")
    env["PDFINDEX_ELEMENTS"] = "false"
    if database_url:
        env["PDFINDEX_DATABASE_URL"] = database_url
    calls = [
        (name, {k: slug if v == DOCUMENT else v for k, v in arguments.items()})
        for name, arguments in CALLS
    ]
    out: dict[str, Any] = {}

    async def tour() -> None:
        args = ["-m", "pdfindex", "serve", "--root", str(root), "--no-watch"]
        params = StdioServerParameters(command=sys.executable, args=args, env=env)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            pid = server_pid()
            while True:  # until the start-up scan is over (its own peak is not the size)
                status = str((await session.call_tool("get_library_status", {})).content)
                if "scanning" not in status and "Pending changes: none" in status:
                    break
                await anyio.sleep(0.2)
            await idle(pid)  # the start-up scan's follow-ups (the document names) too
            out["after_start_mb"] = round(memory(pid)["VmRSS"])
            for name, arguments in calls:
                begin = time.perf_counter()
                result = await session.call_tool(name, arguments)
                out[f"{name}_ms"] = round((time.perf_counter() - begin) * 1000)
                out[f"{name}_mb"] = round(memory(pid)["VmRSS"])
                if result.is_error:
                    out[f"{name}_error"] = str(result.content)[:200]
            fields = memory(pid)
            out["after_calls_mb"] = round(fields["VmRSS"])
            out["anonymous_mb"] = round(fields["RssAnon"])
            out["file_backed_mb"] = round(fields["RssFile"])

    anyio.run(tour)
    return out


def measure(args: argparse.Namespace) -> dict[str, Any]:
    settings = settings_for(args.root, args.engine, args.database_url)
    before = rss_mb()
    begin = time.perf_counter()
    index = PdfIndex(settings)
    opened = time.perf_counter() - begin
    index.search("hyphenation")
    first = time.perf_counter() - begin
    result: dict[str, Any] = {
        "engine": args.engine,
        "pages": index.stats()["pages"],
        "open_s": round(opened, 3),
        "open_and_first_search_s": round(first, 3),
        "rss_opened_mb": round(rss_mb() - before),
    }
    try:
        record = index.find_record(f"{marker(0)}/{args.document}")
        cases, _ = query_cases(index, record.slug, record.path)
        result["document"] = record.path
        result["queries"] = {}
        for name, call in cases:
            result["queries"][name] = latency(call, args.runs)
            log(f"{name}: {result['queries'][name]}")
        result["rss_after_queries_mb"] = round(rss_mb())
        result["one_file_commit"] = one_file_commits(index, args.commits)
        log(f"one-file commit: {result['one_file_commit']}")
        if args.live_runs:
            result["new_file_searchable"] = landed(index, args.root, args.live_runs, args.quiet)
            log(f"new file searchable: {result['new_file_searchable']}")
    finally:
        index.close()
    if not args.no_serve:
        result["serve"] = serve_memory(args.root, args.engine, args.database_url, record.slug)
        log(f"serve: {result['serve']}")
    result["loadavg"] = os.getloadavg()
    return result


def log(text: str) -> None:
    print(f"[million {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("build", "measure"):
        sub = commands.add_parser(name)
        sub.add_argument("root", type=Path)
        sub.add_argument("--engine", default="tantivy")
        sub.add_argument("--database-url", help="the postgres engine's database")
        sub.add_argument("--out", type=Path, help="write the figures there as JSON")
    build_cmd = commands.choices["build"]
    build_cmd.add_argument("--base", type=Path, required=True, help="an indexed project root")
    build_cmd.add_argument("--base-engine", default="tantivy", help="the base root's engine")
    build_cmd.add_argument("--base-files", type=Path, help="its files folder (BASE/files)")
    build_cmd.add_argument("--pages", type=int, default=1_000_000)
    build_cmd.add_argument(
        "--base-max-pages", type=int, default=0, help="only base files of at most N pages"
    )
    build_cmd.add_argument(
        "--append", action="store_true", help="add to ROOT's index up to --pages (same sequence)"
    )
    measure_cmd = commands.choices["measure"]
    measure_cmd.add_argument("--runs", type=int, default=20)
    measure_cmd.add_argument("--commits", type=int, default=5)
    measure_cmd.add_argument("--live-runs", type=int, default=5)
    measure_cmd.add_argument("--quiet", type=float, default=1.0, help="the watcher's quiet s")
    measure_cmd.add_argument("--no-serve", action="store_true", help="skip the serve process")
    measure_cmd.add_argument("--document", default=DOCUMENT, help="a long document's path stem")
    report_cmd = commands.add_parser("report")
    report_cmd.add_argument("folder", type=Path)
    report_cmd.add_argument("--name", default="million")
    args = parser.parse_args(argv)
    if args.command == "report":
        from benchmarks.million_report import write_report

        write_report(args.folder, args.name)
        return 0
    result = build(args) if args.command == "build" else measure(args)
    text = json.dumps(result, indent=2, ensure_ascii=False)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
