"""`python -m benchmarks.reliability`: issue 13's reliability suite at full size.

Three scenarios, each a function that tests/test_reliability.py runs small and this
benchmark runs large (one implementation, two sizes):

1. `kill_loop`: `pdfindex reindex` SIGKILLed at seeded random moments while files are
   added, changed and removed between kills, then run to completion; the index must
   equal a fresh build of the same files in a second root.
2. `hostile_session`: hostile PDFs (tests/hostile.py) dropped into `files/` while
   `pdfindex serve` runs, under the real MCP client: time to a status, memory, answers.
3. `concurrent_clients`: S `pdfindex serve` processes on one root, each with N calls at
   once; every answer compared with the same call made alone.

Writes `benchmarks/results/<date>-reliability.md` (and `.json`).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

from benchmarks.measure.process import TreeRss
from benchmarks.measure.stats import latency
from tests import hostile, pdfgen

RESULTS = Path(__file__).parent / "results"
REINDEX_GUARD = 600.0  # seconds the final, uninterrupted reindex may take
# Fields of tool answers that say when or which session, not what: left out when compared.
TIMING_KEYS = {"timestamp", "request_id", "session_id", "created_at", "processing_time"}


# -- 1. SIGKILL loop during reindex --------------------------------------------------


def write_document(path: Path, number: int, version: int = 0) -> Path:
    """A real PDF with a line of its own, then lorem pages (1 to 12 pages by number)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_document(number, version))
    return path


@functools.cache
def _document(number: int, version: int) -> bytes:
    """fpdf2 takes ~0.2 s a file (most of it loading the font): each is made once. One
    in eight is a report with figures and tables, so kills reach the elements pass too."""
    from tests.elementgen import report_pdf

    with tempfile.TemporaryDirectory() as folder:
        if number % 8 == 5:
            report_pdf(Path(folder) / "report.pdf")
            return (Path(folder) / "report.pdf").read_bytes()
        pages = pdfgen.lorem_pages(1 + (number * 7) % 12, seed=number * 31 + version)
        pages[0] = f"Document {number} version {version} lighthouse\n" + pages[0]
        return pdfgen.write_pdf(Path(folder) / "doc.pdf", pages).read_bytes()


def reindex_command(root: Path, engine: str | None) -> list[str]:
    command = [sys.executable, "-m", "pdfindex.cli", "reindex", "--root", str(root)]
    command += ["--workers", "1", "--commit-every", "0.1"]
    return command + (["--engine", engine] if engine else [])


def _mutate(files: Path, rng: random.Random, step: int) -> list[str]:
    """Before a run: a file added, a tenth of the files rewritten and (every third time)
    one removed, so that every run has work to be killed in."""
    existing = sorted(files.glob("*.pdf"))
    write_document(files / f"new{step:03d}.pdf", 1000 + step)
    done = [f"added new{step:03d}.pdf"]
    changed = rng.sample(existing, max(1, len(existing) // 10))
    for number, path in enumerate(changed):
        staged = path.with_suffix(".tmp")
        write_document(staged, 2000 + step * 100 + number, version=step)
        os.replace(staged, path)
    done.append(f"changed {len(changed)}")
    if step % 3 == 0:
        removed = rng.choice([p for p in existing if p not in changed])
        removed.unlink()
        done.append(f"removed {removed.name}")
    return done


def _calibrate(root: Path, engine: str | None, documents: int) -> tuple[float, float]:
    """Seconds a reindex takes before its first file (start-up, scan, hashing, a worker's
    start: a run with one changed file) and per file (a build of `documents`), measured
    on a throwaway root: kill moments scale with them."""
    for number in range(documents):
        write_document(root / "files" / f"doc{number:03d}.pdf", number)
    began = time.perf_counter()
    run_reindex(root, engine)
    build = time.perf_counter() - began
    write_document(root / "files" / "doc000.pdf", 0, version=1)
    began = time.perf_counter()
    run_reindex(root, engine)
    start = time.perf_counter() - began
    return start, max(0.001, (build - start) / max(1, documents - 1))


def kill_loop(
    root: Path,
    fresh: Path,
    documents: int,
    kills: int,
    seed: int = 13,
    engine: str | None = None,
    spread: tuple[float, float] = (0.3, 1.6),
) -> dict[str, Any]:
    """`reindex` run until it was SIGKILLed `kills` times at seeded random moments (files
    added, changed and removed before each run but the first; a run may finish before
    its moment), then run to completion; then the same files built fresh in `fresh`.
    Returns both snapshots and what each run did (at most 3 × `kills` runs).

    A moment is a random share (`spread`) of the run's expected length, from a calibration
    build (and from runs that finished first), so most kills land in the work (extraction,
    commits, the elements pass) rather than in Python's start-up or after the end."""
    start, per_file = _calibrate(root.with_name(root.name + "-calibration"), engine, documents)
    rng = random.Random(seed)
    files = root / "files"
    files.mkdir(parents=True)
    for number in range(documents):
        write_document(files / f"doc{number:03d}.pdf", number)
    events: list[dict[str, Any]] = []
    run = 0
    while sum(not e["finished_before_kill"] for e in events) < kills and run < 3 * kills:
        changes = _mutate(files, rng, run) if run else []
        run += 1
        indexed = events[-1]["indexed_after"] if events else 0
        work = len(list(files.glob("*.pdf"))) - indexed + len(files_changed(changes))
        delay = rng.uniform(*spread) * (start + per_file * work)
        process = subprocess.Popen(
            reindex_command(root, engine),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        began = time.perf_counter()
        try:
            process.wait(delay)
            finished = True
            # it ran shorter than expected (the calibration met a busier machine): expect less
            start = max(0.05, min(start, time.perf_counter() - began - per_file * work))
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
            process.wait()
            finished = False
        stderr = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
        if process.stderr:
            process.stderr.close()
        indexed, damaged = catalog_state(root, engine)
        events.append(
            {
                "delay_s": round(delay, 2),
                "finished_before_kill": finished,
                "exit": process.returncode,
                "stderr": stderr[-500:],
                "changes": changes,
                "indexed_after": indexed,
                "damaged_after": damaged,
            }
        )
    began = time.perf_counter()
    final = run_reindex(root, engine)
    final_s = time.perf_counter() - began
    shutil.copytree(files, fresh / "files")
    began = time.perf_counter()
    fresh_run = run_reindex(fresh, engine)
    fresh_s = time.perf_counter() - began
    words = ["lighthouse", "Document 3 version", "marker", "page marker p0002"]
    return {
        "kills": kills,
        "calibration": {"start_s": round(start, 3), "per_file_s": round(per_file, 4)},
        "events": events,
        "final": final,
        "final_s": round(final_s, 2),
        "fresh": fresh_run,
        "fresh_s": round(fresh_s, 2),
        "files": len(list(files.glob("*.pdf"))),
        "killed": snapshot(root, words, engine),
        "built": snapshot(fresh, words, engine),
    }


def files_changed(changes: list[str]) -> list[str]:
    """The files a run must read after `_mutate`'s changes (added and rewritten)."""
    count = 0
    for change in changes:
        kind, _, what = change.partition(" ")
        count += int(what) if kind == "changed" else kind == "added"
    return ["?"] * count


def run_reindex(root: Path, engine: str | None) -> dict[str, Any]:
    done = subprocess.run(
        reindex_command(root, engine),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=REINDEX_GUARD,
    )
    return {"exit": done.returncode, "stdout": done.stdout[-500:], "stderr": done.stderr[-2000:]}


def _open(root: Path, engine: str | None) -> Any:
    from pdfindex.api import PdfIndex
    from pdfindex.config import load_settings

    return PdfIndex(load_settings({"workers": 1, "engine": engine}, root=root))


def catalog_state(root: Path, engine: str | None) -> tuple[int, str | None]:
    """How many documents the index holds, and why it was found damaged when opened (None:
    it was not; a damaged index is rebuilt from the extraction cache by this open)."""
    index = _open(root, engine)
    try:
        return len(index.engine.catalog()), index.engine.recovered
    finally:
        index.close()


def snapshot(root: Path, words: list[str], engine: str | None) -> dict[str, Any]:
    """What an index holds: each document's record facts, its page texts and the exact
    hits (path, page, offsets) of a few queries."""
    index = _open(root, engine)
    try:
        catalog = index.engine.catalog()
        documents = {
            path: {
                "sha256": r.sha256,
                "pages": r.pages,
                "status": r.status,
                "error": r.error,
                "elements_state": r.elements_state,
                "elements": dict(sorted(r.elements.items())),
            }
            for path, r in sorted(catalog.items())
        }
        texts = {path: index.engine.page_texts(r.slug) for path, r in sorted(catalog.items())}
        hits = {}
        for word in words:
            matches, more = index.exact(word, limit=200, context_length=0)
            hits[word] = {"more": more, "hits": [[m.path, m.page, m.start, m.end] for m in matches]}
        return {"documents": documents, "texts": texts, "hits": hits}
    finally:
        index.close()


# -- MCP over stdio --------------------------------------------------------------------


def serve_params(root: Path, env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "pdfindex.cli", "serve", "--root", str(root)],
        env={**os.environ, **env},
    )


def server_pids(root: Path) -> list[int]:
    """This process's children that serve `root` (the SDK spawns them; it hides the pid)."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry.name}/stat").read_text()
            command = Path(f"/proc/{entry.name}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        parent = int(stat[stat.rindex(")") + 2 :].split()[1])
        if parent == os.getpid() and b"serve" in command and os.fsencode(root) in command:
            found.append(int(entry.name))
    return found


def status_kb(pid: int, key: str) -> int:
    """A figure of /proc/PID/status in kB (VmHWM: the process's peak RSS)."""
    text = Path(f"/proc/{pid}/status").read_text()
    found = re.search(rf"^{key}:\s+(\d+) kB", text, re.MULTILINE)
    return int(found.group(1)) if found else 0


def text_of(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


def comparable(result: CallToolResult) -> Any:
    """What an answer says, without its timing fields: structured content, else text."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in TIMING_KEYS}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    body = result.structured_content
    if body is None:
        body = [c.text if c.type == "text" else c.type for c in result.content]
    return {"error": bool(result.is_error), "body": strip(body)}


# -- 2. hostile PDFs dropped into a running server -------------------------------------

NORMAL = "normal.pdf"
NORMAL_TEXT = "lighthouse keeper"
SETTLED = ("ok", "failed", "empty", "encrypted", "skipped")


async def _statuses(client: Client) -> dict[str, dict[str, Any]]:
    listed = await client.call_tool("list_searchable_files", {})
    files = (listed.structured_content or {}).get("files", [])
    return {f["path"]: f for f in files}


async def _normal_found(client: Client) -> bool:
    found = await client.call_tool("search_pdf", {"pdf_name": "normal", "query": NORMAL_TEXT})
    return bool((found.structured_content or {}).get("query_exists"))


async def _land(
    client: Client, root: Path, staged: list[Path], guard: float, pid: int
) -> dict[str, Any]:
    """Move `staged` files into files/ at once; poll until each has a status, checking
    the normal PDF stays searchable. Peak RSS of the server's process tree meanwhile."""
    sampler = TreeRss(pid)
    sampler.start()
    landed = time.monotonic()
    for path in staged:
        os.replace(path, root / "files" / path.name)
    names = {p.name for p in staged}
    settled: dict[str, dict[str, Any]] = {}
    seconds: dict[str, float] = {}
    checks = misses = 0
    try:
        while names - set(settled) and time.monotonic() - landed < guard:
            checks += 1
            misses += not await _normal_found(client)
            for path, entry in (await _statuses(client)).items():
                if path in names and path not in settled and entry["status"] in SETTLED:
                    settled[path] = entry
                    seconds[path] = round(time.monotonic() - landed, 2)
            await asyncio.sleep(0.2)
    finally:
        sampler.stop()
    return {
        "settled": settled,
        "seconds": seconds,
        "normal_checks": checks,
        "normal_misses": misses,
        "tree_peak_mb": round(sampler.peak_kb / 1024),
    }


async def _hostile_calls(client: Client, names: list[str]) -> dict[str, dict[str, Any]]:
    """search_documents, search_pdf and read_pdf on each hostile file."""
    answers: dict[str, dict[str, Any]] = {}
    for name in names:
        stem = name.removesuffix(".pdf")
        calls = {
            "search_documents": {"query": "page", "document_slug": stem},
            "search_pdf": {"pdf_name": stem, "query": "page"},
            "read_pdf": {"sources": [{"path": name, "pages": "1"}]},
        }
        answers[name] = {}
        for tool, arguments in calls.items():
            result = await client.call_tool(tool, arguments)
            answers[name][tool] = {"error": bool(result.is_error), "text": text_of(result)[:400]}
    return answers


async def hostile_session(
    root: Path, env: dict[str, str], one_at_a_time: bool = False, guard: float = 300.0
) -> dict[str, Any]:
    """Serve `root` (files/ holding NORMAL), drop the hostile PDFs in (all at once, or
    one at a time for a figure per file) and report statuses, answers and memory."""
    staging = root / "staging"
    staging.mkdir()
    staged = hostile.write_all(staging)
    out: dict[str, Any] = {"landings": []}
    async with Client(serve_params(root, env)) as client:
        (pid,) = server_pids(root)
        began = time.monotonic()
        while not await _normal_found(client) and time.monotonic() - began < guard:
            await asyncio.sleep(0.2)
        out["server_start_kb"] = status_kb(pid, "VmHWM")
        for group in [[p] for p in staged] if one_at_a_time else [staged]:
            out["landings"].append(await _land(client, root, group, guard, pid))
        out["settled"] = {k: v for land in out["landings"] for k, v in land["settled"].items()}
        out["answers"] = await _hostile_calls(client, [p.name for p in staged])
        image = await client.call_tool(
            "get_page_image", {"document_slug": "huge-14400", "page_number": 1, "dpi": 150}
        )
        out["image"] = {
            "error": bool(image.is_error),
            "caption": text_of(image)[:400],
            "kinds": [c.type for c in image.content],
        }
        out["library_status"] = text_of(await client.call_tool("get_library_status", {}))
        out["server_hwm_kb"] = status_kb(pid, "VmHWM")
    return out


# -- 3. concurrent clients ----------------------------------------------------------------


def concurrent_corpus(files: Path) -> None:
    """A few documents with known words, one with figures and tables (elementgen)."""
    from tests.elementgen import report_pdf

    for number in range(6):
        write_document(files / f"doc{number:03d}.pdf", number)
    report_pdf(files / "report.pdf")


MIXED_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_pdf", {"pdf_name": "doc001", "query": "page marker", "topk": 5}),
    ("search_documents", {"query": "lighthouse document", "limit": 5}),
    ("fuzzy_search", {"query": "lighthuose", "max_results": 10}),
    ("search_in_file", {"file": "doc002", "pattern": r"marker P000\d"}),
    ("read_pdf", {"sources": [{"path": "doc003.pdf", "pages": "1-2"}]}),
    ("get_document_info", {"document_slug": "report"}),
    ("find_document", {"query": "doc004"}),
    ("list_documents_paginated", {"page": 1, "page_size": 5, "sort_by": "page_count"}),
    ("search_visual_elements", {"query": "storage table", "limit": 5}),
    ("list_searchable_files", {}),
    ("query_documents", {"query": "what does the lighthouse document say?", "top_k": 3}),
    ("search_pdf", {"pdf_name": "doc005", "query": "version 0 lighthouse"}),
]


def call_plan(client: int, calls: int) -> list[int]:
    """Which of MIXED_CALLS client `client` makes: each client starts at its own place."""
    return [(client * 5 + n) % len(MIXED_CALLS) for n in range(calls)]


async def _client_run(root: Path, env: dict[str, str], plan: list[int]) -> list[dict[str, Any]]:
    """One server, all of `plan`'s calls at once; each answer with its latency."""
    async with Client(serve_params(root, env)) as client:
        await client.call_tool("list_documents_paginated", {})  # started and answering

        async def one(which: int) -> dict[str, Any]:
            tool, arguments = MIXED_CALLS[which]
            began = time.perf_counter()
            try:
                result = await client.call_tool(tool, arguments)
            except Exception as exc:  # a transport failure is an error figure, not a crash
                return {"call": which, "s": time.perf_counter() - began, "raised": repr(exc)}
            return {"call": which, "s": time.perf_counter() - began, "answer": comparable(result)}

        return list(await asyncio.gather(*(one(which) for which in plan)))


async def _alone(root: Path, env: dict[str, str]) -> list[Any]:
    """Each of MIXED_CALLS once, one after the other, on a server of its own."""
    async with Client(serve_params(root, env)) as client:
        return [comparable(await client.call_tool(t, a)) for t, a in MIXED_CALLS]


async def concurrent_clients(
    root: Path, env: dict[str, str], servers: int, calls: int
) -> dict[str, Any]:
    """`servers` serve processes on `root` at once, each making `calls` calls at once;
    the answers compared with MIXED_CALLS made alone. `root` must be indexed already."""
    began = time.perf_counter()
    runs = await asyncio.gather(
        *(_client_run(root, env, call_plan(n, calls)) for n in range(servers))
    )
    wall = time.perf_counter() - began
    alone = await _alone(root, env)
    answers = [answer for run in runs for answer in run]
    differing = [
        {"call": a["call"], "tool": MIXED_CALLS[a["call"]][0], "got": a.get("answer")}
        for a in answers
        if "raised" in a or a["answer"] != alone[a["call"]]
    ]
    return {
        "servers": servers,
        "calls_per_server": calls,
        "answers": len(answers),
        "raised": [a["raised"] for a in answers if "raised" in a],
        "errors": sum(1 for a in answers if a.get("answer", {}).get("error")),
        "alone_errors": [MIXED_CALLS[n][0] for n, a in enumerate(alone) if a["error"]],
        "alone": {f"{n} {MIXED_CALLS[n][0]}": answer for n, answer in enumerate(alone)},
        "differing": differing,
        "latency": latency([a["s"] for a in answers]),
        "wall_s": round(wall, 2),
        **writer_turns(root / "logs"),
    }


def writer_turns(logs: Path) -> dict[str, Any]:
    """From the servers' session logs: each start-up scan holds the writer lock in turn
    (the others wait up to `lock_timeout`), or is postponed if the wait runs out."""
    scans, postponed = [], 0
    for log in logs.glob("*.log"):
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            if "catch-up scan: " in line:
                scans.append(float(line.rsplit(", ", 1)[1].removesuffix(" s")))
            postponed += "catch-up scan postponed" in line
    return {"scans": len(scans), "scan_s": sorted(scans), "scans_postponed": postponed}


# -- the benchmark ------------------------------------------------------------------------


@contextmanager
def scratch(folder: Path | None) -> Iterator[Path]:
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        yield Path(tempfile.mkdtemp(dir=folder))
        return
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


def hostile_env() -> dict[str, str]:
    return {"PDFINDEX_TIMEOUT": "10", "PDFINDEX_MEMORY_MB": "600", "PDFINDEX_WORKERS": "2"}


def main() -> None:
    from pdfindex.engine import DEFAULT_ENGINE, embedded_engines

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    embedded = [DEFAULT_ENGINE] + [e for e in embedded_engines() if e != DEFAULT_ENGINE]
    parser.add_argument(
        "--engines",
        default=",".join(embedded),
        help="comma-separated (default: the embedded ones; postgres, which keeps one index "
        "per database, would need a database for each of the two roots compared)",
    )
    parser.add_argument("--documents", type=int, default=100, help="PDFs before the kills")
    parser.add_argument("--kills", type=int, default=18)
    parser.add_argument("--servers", type=int, default=8)
    parser.add_argument("--calls", type=int, default=50, help="concurrent calls per server")
    parser.add_argument("--scratch", type=Path, default=None, help="folder for the roots")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    names = args.engines.split(",")
    figures: dict[str, Any] = {"date": str(date.today()), "engines": names, "by_engine": {}}
    figures["machine"] = {"cores": os.cpu_count(), "load_start": os.getloadavg()}
    with scratch(args.scratch) as where:
        for name in names:
            print(f"{name}: 1. kill loop", file=sys.stderr)
            kill = kill_loop(
                where / name / "killed",
                where / name / "fresh",
                args.documents,
                args.kills,
                engine=name,
            )
            print(f"{name}: 3. concurrent clients", file=sys.stderr)
            root = where / name / "concurrent"
            concurrent_corpus(root / "files")
            run_reindex(root, name)
            serve_env = {"PDFINDEX_ENGINE": name, "PDFINDEX_WORKERS": "1"}
            load = asyncio.run(concurrent_clients(root, serve_env, args.servers, args.calls))
            kill["equal"] = kill.pop("killed") == kill.pop("built")  # the JSON stays small
            figures["by_engine"][name] = {"kill_loop": kill, "concurrent": load}
        print("2. hostile PDFs", file=sys.stderr)
        root = where / "hostile"
        pdfgen.write_pdf(root / "files" / NORMAL, [f"The {NORMAL_TEXT}."])
        env = {**hostile_env(), "PDFINDEX_ENGINE": DEFAULT_ENGINE}
        figures["hostile"] = asyncio.run(hostile_session(root, env, one_at_a_time=True))
    figures["machine"]["load_end"] = os.getloadavg()
    name = f"{date.today()}-reliability"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{name}.json").write_text(json.dumps(figures, indent=1, default=str) + "\n")
    report = markdown(figures)
    (args.out / f"{name}.md").write_text(report)
    print(report)


def markdown(figures: dict[str, Any]) -> str:
    """The figures as the results page."""
    load = figures["machine"]
    kills = next(iter(figures["by_engine"].values()))["kill_loop"]["kills"]
    lines = [
        f"# Reliability suite ({figures['date']})",
        "",
        "Command: `python -m benchmarks.reliability` (issue 13; the same functions run small "
        "in `tests/test_reliability.py`). Engines: " + ", ".join(figures["engines"]) + ". "
        f"{load['cores']} cores; load average {load['load_start'][0]:.1f} at the start, "
        f"{load['load_end'][0]:.1f} at the end (other work shared the machine).",
        "",
        "## 1. SIGKILL during `reindex`, then compared with a fresh build",
        "",
        "`pdfindex reindex --workers 1 --commit-every 0.1` as a process, run again and again "
        f"until {kills} runs have been SIGKILLed, each at a seeded random moment (a random share, "
        "0.3-1.6, of the run's expected length from a calibration build; a run may finish "
        "first); the PDFs have 1 to 12 pages, and one in eight is a report with "
        "figures and tables, so kills reach the elements pass too. Before each run but the "
        "first, a file added, a tenth of the "
        "files rewritten and (every third run) one removed. After every kill the index is "
        "opened and checked (a damaged one would be rebuilt from the cache: `damaged`). Then "
        "one reindex to completion, and a fresh build of a copy of the folder in a second "
        "root. Compared: every document (path, sha256, pages, status, error, elements), "
        "every page text, and exact hits with their offsets for 4 queries.",
        "",
        "| engine | runs | SIGKILLed mid-run | damaged after a kill | files at the end "
        "| final reindex | equals the fresh build |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    for name, by in figures["by_engine"].items():
        kill = by["kill_loop"]
        killed = sum(not e["finished_before_kill"] for e in kill["events"])
        damaged = sum(bool(e["damaged_after"]) for e in kill["events"])
        same = "**yes**" if kill["equal"] else "**NO**"
        lines.append(
            f"| {name} | {len(kill['events'])} | {killed} | {damaged} | {kill['files']} | "
            f"exit {kill['final']['exit']}, {kill['final_s']} s | {same} |"
        )
    for name, by in figures["by_engine"].items():
        kill = by["kill_loop"]
        lines += [
            "",
            f"{name}, run by run (calibration: start {kill['calibration']['start_s']} s, "
            f"{kill['calibration']['per_file_s']} s a file):",
            "",
            "| run | kill after s | killed | documents in the index after | changes before |",
            "|---:|---:|---|---:|---|",
        ]
        for n, e in enumerate(kill["events"], start=1):
            state = "no (it had finished)" if e["finished_before_kill"] else "yes"
            lines.append(
                f"| {n} | {e['delay_s']} | {state} | {e['indexed_after']} | "
                f"{', '.join(e['changes'])} |"
            )
    lines += hostile_markdown(figures["hostile"])
    lines += [
        "",
        "## 3. Concurrent clients",
        "",
        "S `pdfindex serve` processes on one indexed root at once, each driven by its own "
        "MCP client (the SDK's stdio "
        f"client) making N calls at once (asyncio.gather) from a mix of {len(MIXED_CALLS)} "
        "tool calls; each answer compared with the same call made alone on a fresh server "
        "(structured content, or text, without timestamps and session ids). Latency: from "
        "the call to its answer, all calls of all clients; wall: server start-up included. "
        "Each server's start-up scan takes the index's writer lock in turn while the others "
        "wait for it (`lock_timeout`) and already answer calls: `scans` is how many scans "
        "the session logs show (the servers and the one of the calls alone), their times "
        "growing as they queue for the lock.",
        "",
        "| engine | S × N | answers | transport failures | tool errors | differ from alone "
        "| p50 ms | p95 ms | max ms | wall s | scans (s) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, by in figures["by_engine"].items():
        c = by["concurrent"]
        lines.append(
            f"| {name} | {c['servers']} × {c['calls_per_server']} | {c['answers']} | "
            f"{len(c['raised'])} | {c['errors']} | {len(c['differing'])} | "
            f"{c['latency']['p50_ms']} | {c['latency']['p95_ms']} | "
            f"{c['latency']['max_ms']} | {c['wall_s']} | {c.get('scans')} "
            f"({min(c.get('scan_s') or [0])}-{max(c.get('scan_s') or [0])}) |"
        )
    return "\n".join(lines) + "\n"


def hostile_markdown(hold: dict[str, Any]) -> list[str]:
    lines = [
        "",
        "## 2. Hostile PDFs dropped into a running `pdfindex serve`",
        "",
        "Files from `tests/hostile.py`. Settings: `timeout` 10 s, `memory_mb` 600, `workers` "
        "2. Each file moved into `files/` alone, then `list_searchable_files` polled every "
        "0.2 s (with a `search_pdf` of a normal PDF each time) until the file has a status; "
        "the time includes the watcher's 1 s debounce. Memory: the peak of the summed RSS "
        "of the server and its workers meanwhile (sampled every 50 ms).",
        "",
        "| file | bytes | status | cause | s to a status | peak RSS of server + workers, MB |",
        "|---|---:|---|---|---:|---:|",
    ]
    for land in hold["landings"]:
        for name, entry in land["settled"].items():
            lines.append(
                f"| {name} | {entry.get('size')} | {entry['status']} | "
                f"{entry.get('error') or ''} | {land['seconds'][name]} | "
                f"{land['tree_peak_mb']} |"
            )
    checks = sum(land["normal_checks"] for land in hold["landings"])
    misses = sum(land["normal_misses"] for land in hold["landings"])
    bare = [
        f"{name} {tool}"
        for name, tools in hold["answers"].items()
        for tool, answer in tools.items()
        if "Error executing tool" in answer["text"]
    ]
    caption = hold["image"]["caption"].replace("\n", " / ")
    lines += [
        "",
        f"- The normal PDF was found by {checks - misses} of the {checks} `search_pdf` calls "
        "made meanwhile.",
        f"- The server process's peak RSS (VmHWM; its workers are other processes): "
        f"{hold['server_start_kb'] // 1024} MB once started, {hold['server_hwm_kb'] // 1024} "
        "MB at the end, after everything above and a `get_page_image` of the 14,400 pt page.",
        "- `search_documents`, `search_pdf` and `read_pdf` on each hostile file: "
        f"{len(bare)} bare 'Error executing tool' answers.",
        f"- `get_page_image` of the 14,400 pt page asked at 150 dpi: {caption}.",
    ]
    return lines


if __name__ == "__main__":
    main()
