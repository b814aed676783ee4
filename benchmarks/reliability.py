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
    from pdfindex.config import SETTINGS
    from pdfindex.engine import embedded_engines

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = SETTINGS["engine"].default
    embedded = [default] + [e for e in embedded_engines() if e != default]
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
    parser.add_argument("--round3", action="store_true", help="only issue 31's classes")
    args = parser.parse_args()
    if args.round3:
        with scratch(args.scratch) as where:
            round3(args.out, where)
        return
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
        env = {**hostile_env(), "PDFINDEX_ENGINE": default}
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


# -- round 3: issue 31's defect classes, each tried against the real program ---------------

OUTCOMES = ("handled", "crash", "hang", "lost", "leak")


class Tally:
    """One class's attempts, each with its outcome, and a note with the key figure."""

    def __init__(self, name: str) -> None:
        self.name, self.attempts, self.note = name, [], ""

    def add(self, what: str, outcome: str, detail: Any = "") -> None:
        self.attempts.append({"what": what, "outcome": outcome, "detail": str(detail)[:300]})

    def row(self) -> dict[str, Any]:
        counts = {o: sum(a["outcome"] == o for a in self.attempts) for o in OUTCOMES}
        return {"class": self.name, "tried": len(self.attempts), **counts, "note": self.note}


class Serve:
    """`pdfindex serve` over raw stdio lines (tests/test_protocol_robustness.py's Wire);
    `ask` says why there is no answer: 'crash' (the process died) or 'hang'."""

    def __init__(self, root: Path, env: dict[str, str] | None = None) -> None:
        from tests.test_protocol_robustness import Wire

        self.wire, self.next = Wire(root, env), 100
        self.wire.handshake()

    def ask(self, tool: str, arguments: dict[str, Any], bound: float = 30.0) -> Any:
        self.next += 1
        try:
            self.wire.call(self.next, tool, arguments)
            answer = self.wire.wait(self.next, bound)
        except (AssertionError, OSError):
            return "crash" if self.wire.process.poll() is not None else "hang"
        return answer

    def found(self, name: str, query: str, bound: float = 120.0) -> float | None:
        """Seconds until search_pdf finds `query` in `name` (None: not within `bound`)."""
        began = time.monotonic()
        while time.monotonic() - began < bound:
            answer = self.ask("search_pdf", {"pdf_name": name, "query": query})
            if isinstance(answer, str):
                return None
            if answer.get("result", {}).get("structuredContent", {}).get("query_exists"):
                return time.monotonic() - began
            time.sleep(0.25)
        return None

    def close(self) -> None:
        self.wire.close()


def answer_text(answer: Any) -> str:
    if isinstance(answer, str):
        return answer
    if "error" in answer:
        return json.dumps(answer["error"])
    return "\n".join(c.get("text", "") for c in answer["result"].get("content", []))


def judge(tally: Tally, what: str, answer: Any, *words: str) -> None:
    """An answer is handled if it holds every word, lost if not; crash and hang as given."""
    if isinstance(answer, str):
        tally.add(what, answer)
    else:
        text = answer_text(answer)
        tally.add(what, "handled" if all(w in text for w in words) else "lost", text)


def run_cli(root: Path, *args: str, env: dict[str, str] | None = None, bound: float = 300.0):
    """`pdfindex ARGS --root ROOT`: (outcome so far, the completed process or None)."""
    command = [sys.executable, "-m", "pdfindex.cli", *args, "--root", str(root)]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=bound,
            stdin=subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
        )
    except subprocess.TimeoutExpired:
        return "hang", None
    return ("crash" if "Traceback" in done.stderr else ""), done


def record_of(root: Path, path: str, **overrides: Any) -> Any:
    from pdfindex.config import load_settings

    index = PdfIndex_(load_settings({"workers": 1, **overrides}, root=root))
    try:
        record = index.engine.catalog().get(path)
        return record, ("\n".join(index.engine.page_texts(record.slug)) if record else "")
    finally:
        index.close()


def PdfIndex_(settings: Any) -> Any:  # noqa: N802 - imported late: the CLI's start stays quick
    from pdfindex.api import PdfIndex

    return PdfIndex(settings)


def class_regex(where: Path) -> Tally:
    from tests.test_hostile_regex import HOSTILE, RSS_LIMIT_MB

    tally, root = Tally("1 hostile regexes in search_in_file"), where / "regex"
    pdfgen.write_pdf(root / "files" / "doc.pdf", ["alpha node distance\nbeta line", "gamma"])
    serve = Serve(root, {"PDFINDEX_WORKERS": "1"})
    try:
        serve.found("doc", "alpha")
        peak = 0
        for pattern in HOSTILE * 2:
            answer = serve.ask("search_in_file", {"file": "doc.pdf", "pattern": pattern})
            peak = max(peak, status_kb(serve.wire.process.pid, "VmHWM") // 1024)
            if peak >= RSS_LIMIT_MB and not isinstance(answer, str):
                tally.add(pattern, "leak", f"server VmHWM {peak} MB")
            else:
                judge(tally, pattern, answer, "the limit is 20,000")
        answer = serve.ask("search_in_file", {"file": "doc.pdf", "pattern": r"node\s+dist"})
        judge(tally, "an ordinary pattern after them", answer, "alpha node distance")
        tally.note = f"server peak RSS (VmHWM) {peak} MB, bound {RSS_LIMIT_MB} MB"
    finally:
        serve.close()
    return tally


def class_ocr(where: Path) -> Tally:
    tally, delays = Tally("2 OCR budget; a slow scan vs a small new file"), []
    for limit in (3, 6):
        root = where / f"ocr{limit}"
        pdfgen.write_image_only_pdf(root / "files" / "scan.pdf", pages=12)
        how, done = run_cli(root, "reindex", "--workers", "1", "--timeout", str(limit))
        record, _ = record_of(root, "scan.pdf") if done else (None, "")
        if how or not done:
            tally.add(f"12-page scan, timeout {limit}", how, done and done.stderr[-300:])
        elif record and record.ocr_missing and f"time limit of {limit} s" in str(record.notes):
            tally.add(f"12-page scan, timeout {limit}", "handled", record.notes)
        else:
            tally.add(f"12-page scan, timeout {limit}", "lost", record and record.notes)
    root = where / "slow"
    pdfgen.write_image_only_pdf(root / "files" / "big-scan.pdf", pages=60)
    serve = Serve(root, {"PDFINDEX_TIMEOUT": "300", "PDFINDEX_WORKERS": "2"})
    try:
        time.sleep(2)  # the scan is being read
        for n in range(3):
            pdfgen.write_pdf(where / f"small{n}.pdf", [f"a small zebrafinch{n} note"])
            shutil.move(where / f"small{n}.pdf", root / "files" / f"small{n}.pdf")
            took = serve.found(f"small{n}", f"zebrafinch{n}", bound=60)
            delays.append(round(took, 1) if took is not None else None)
            alive = serve.wire.process.poll() is None
            tally.add(f"small{n}.pdf", "handled" if took else ("hang" if alive else "crash"))
    finally:
        serve.close()
    tally.note = f"small file searchable after {delays} s while a 60-page scan was read"
    return tally


def class_shutdown(where: Path) -> Tally:
    tally, exits = Tally("3 a file being read at shutdown"), []
    for how in ("stdin-eof", "sigterm", "stdin-eof"):
        root = where / f"shutdown-{len(exits)}"
        pdfgen.write_pdf(root / "files" / "quick.pdf", ["quick text"])
        pdfgen.write_image_only_pdf(root / "files" / "scan.pdf", pages=40)
        serve = Serve(root, {"PDFINDEX_ELEMENTS": "false"})
        time.sleep(4)  # the scan is being read
        began = time.monotonic()
        process = serve.wire.process
        if how == "sigterm":
            process.send_signal(signal.SIGTERM)
        else:
            process.stdin.close()  # type: ignore[union-attr]
        try:
            code = process.wait(15)
        except subprocess.TimeoutExpired:
            code = None
        exits.append(round(time.monotonic() - began, 1))
        serve.close()
        before, _ = record_of(root, "scan.pdf")
        quick, _ = record_of(root, "quick.pdf")
        fail, done = run_cli(root, "reindex", "--timeout", "8", env={"PDFINDEX_ELEMENTS": "0"})
        after, _ = record_of(root, "scan.pdf")
        if code is None or fail:
            tally.add(how, "hang" if code is None else fail, f"exit {code}")
        elif code != 0:
            tally.add(how, "crash", f"serve exit code {code}")
        elif before is not None or quick is None or not after or after.status != "ok":
            tally.add(how, "lost", f"before {before}, quick {quick}, after {after}")
        else:
            tally.add(how, "handled", f"stopped in {exits[-1]} s")
    tally.note = f"serve exit seconds {exits} with a 40-page scan being read (bound 15 s)"
    return tally


def class_cache(where: Path) -> Tally:
    from pdfindex.indexer.progress import TEXT

    tally = Tally("4 cache poisoning by an in-place rewrite")
    for n, (a, b) in enumerate([("alphaword", "bravoword"), ("carbon", "delta"), ("echo", "fox")]):
        old, new = pdfgen.write_pdf(where / f"o{n}.pdf", [f"{a} holds this page"]), where / "n.pdf"
        pdfgen.write_pdf(new, [f"{b} holds this page"])
        root = where / f"cache{n}"
        target = root / "files" / "doc.pdf"
        target.parent.mkdir(parents=True)
        shutil.copy(old, target)

        def rewrite(step: Any, target: Path = target, new: Path = new) -> None:
            if (
                step.stage == TEXT
                and step.done == 0
                and target.stat().st_size != new.stat().st_size
            ):
                with open(target, "r+b") as handle:
                    handle.truncate(0)
                    handle.write(new.read_bytes())
                os.utime(target, (time.time(), target.stat().st_mtime + 5))

        from pdfindex.config import load_settings

        try:
            index = PdfIndex_(load_settings({"workers": 1, "elements": False}, root=root))
            try:
                index.reindex(progress=rewrite)
                shutil.copy(old, root / "files" / "copy.pdf")
                index.reindex()
                index.reindex(full=True)
            finally:
                index.close()
        except Exception as exc:  # noqa: BLE001 - the benchmark counts it
            tally.add(f"{a} -> {b}", "crash", repr(exc))
            continue
        _, doc = record_of(root, "doc.pdf")
        _, copy = record_of(root, "copy.pdf")
        good = b in doc and a not in doc and a in copy and b not in copy
        tally.add(f"{a} -> {b}", "handled" if good else "lost", f"doc {doc!r} copy {copy!r}")
    tally.note = "each rewrite then a copy of the old bytes: texts checked after a full rebuild"
    return tally


def class_folder(where: Path) -> Tally:
    tally, root = Tally("5 files folder replaced / removed under serve"), where / "folder"
    files = root / "files"
    pdfgen.write_pdf(files / "old.pdf", ["an oldfolder page"])
    serve = Serve(root)
    seconds = []
    try:
        serve.found("old", "oldfolder")
        files.rename(root / "files-before")
        pdfgen.write_pdf(files / "new.pdf", ["a newfolder page"])
        for name, word in (("new", "newfolder"), ("later", "laterpage")):
            if name == "later":
                pdfgen.write_pdf(root / "later.pdf", ["a laterpage page"])
                shutil.move(root / "later.pdf", files / "later.pdf")
            took = serve.found(name, word, bound=60)
            seconds.append(took and round(took, 1))
            tally.add(f"{name}.pdf in the new folder", "handled" if took else "hang")
        shutil.rmtree(files)
        began, status = time.monotonic(), ""
        while "is gone" not in status and time.monotonic() - began < 60:
            status = answer_text(serve.ask("get_library_status", {}))
            time.sleep(0.5)
        kept = serve.found("new", "newfolder", bound=5)
        outcome = "handled" if "is gone" in status and kept else "lost" if kept is None else "hang"
        tally.add("folder removed: said so, index kept", outcome, status[-200:])
    finally:
        serve.close()
    tally.note = f"files in the replacing folder searchable after {seconds} s"
    return tally


def class_caps(where: Path) -> Tally:
    from pdfindex.config import load_settings
    from pdfindex.memory import FLOOR_MB, PAGE_WORKERS, machine_memory_mb

    tally, half = Tally("6 worker memory caps"), machine_memory_mb() * 0.5  # type: ignore[operator]
    for workers in (1, 2, 16, 64):
        (where / f"caps{workers}" / "files").mkdir(parents=True, exist_ok=True)
        index = PdfIndex_(load_settings({"workers": workers}, root=where / f"caps{workers}"))
        try:
            count = index.settings.worker_count + PAGE_WORKERS
            total = index.indexer.new_pool().memory_mb * count
        finally:
            index.close()
        fits = total <= max(half, FLOOR_MB * count) and index.isolated.memory_mb * count == total
        tally.add(f"workers={workers}", "handled" if fits else "leak", f"{total} MB")
        tally.note += f"{workers}: {total:.0f} MB; "
    tally.note = f"all workers' caps together (half the machine: {half:.0f} MB) - {tally.note}"
    return tally


def class_lanes(where: Path) -> Tally:
    from tests.test_protocol_robustness import pipelined_page_images, slow_render_pdf

    tally, root = Tally("7/11 page-image lanes, limits from receipt"), where / "lanes"
    pdfgen.write_pdf(root / "files" / "doc.pdf", ["hello world on page one", "page two"])
    slow_render_pdf(root / "files" / "slow.pdf")
    serve = Serve(root, {"PDFINDEX_REQUEST_TIMEOUT": "4"})
    wire = serve.wire
    try:
        serve.found("slow", "slow to draw")
        serve.found("doc", "hello")
        sent = wire.write(pipelined_page_images("slow", 100))
        search = serve.ask("search_pdf", {"pdf_name": "doc", "query": "hello"}, bound=60)
        waited = (
            wire.answers[serve.next][0] - wire.sent[serve.next]
            if serve.next in wire.answers
            else None
        )
        if isinstance(search, str) or waited is None or waited > 5:
            tally.add(
                "search behind 100 page images",
                search if isinstance(search, str) else "hang",
                waited,
            )
        else:
            found = search.get("result", {}).get("structuredContent", {}).get("query_exists")
            tally.add("search behind 100 page images", "handled" if found else "lost", waited)
        for n in range(100):
            try:
                answer = wire.wait(1000 + n, 60)
            except AssertionError:
                tally.add(f"image {n}", "crash" if wire.process.poll() is not None else "hang")
                continue
            late, text = wire.answers[1000 + n][0] - sent, answer_text(answer)
            if late > 8.0:
                tally.add(f"image {n}", "hang", f"answered after {late:.1f} s")
            elif answer["result"].get("isError") and "4 s" not in text:
                tally.add(f"image {n}", "lost", text)
            else:
                tally.add(f"image {n}", "handled")
        last = max(
            at for key, (at, _) in wire.answers.items() if isinstance(key, int) and key >= 1000
        )
        tally.note = (
            f"search answered in {waited and round(waited, 2)} s; "
            f"last image {last - sent:.1f} s after sending (bound 8)"
        )
    finally:
        serve.close()
    return tally


def class_passwords(where: Path) -> Tally:
    from tests import pgserver
    from tests.test_db_errors import FORMS, Place, _leaks, _project, _serve

    tally = Tally("8 password fragments in output")
    try:
        server = pgserver.start_server()
    except pgserver.Unavailable as exc:
        tally.note = f"skipped: PostgreSQL cannot start here ({exc})"
        return tally
    try:
        for form in (
            "url plain",
            "url lone %",
            "url @ tcp",
            "conninfo",
            "conninfo unterminated",
            "read url misread",
        ):
            root = where / f"pg{len(tally.attempts)}"
            env = _project(root, FORMS[form](Place(server)))
            shown = []
            try:
                for args in (["stats"], ["reindex"], ["search", "lighthouse"]):
                    done = subprocess.run(
                        [sys.executable, "-m", "pdfindex.cli", "--root", str(root), *args],
                        env=env,
                        capture_output=True,
                        text=True,
                        timeout=120,
                    )
                    shown.append(done.stdout + done.stderr)
                shown.append(
                    json.dumps(
                        _serve(
                            root,
                            env,
                            [("get_library_status", {}), ("search_documents", {"query": "x"})],
                        )
                    )
                )
            except subprocess.TimeoutExpired:
                tally.add(form, "hang")
                continue
            text = "\n".join(shown)
            outcome = "leak" if _leaks(text) else "crash" if "Traceback" in text else "handled"
            tally.add(form, outcome, _leaks(text))
    finally:
        server.stop()
    tally.note = (
        "CLI stats/reindex/search and serve; fragments Pa55, W0rd looked for in all output and logs"
    )
    return tally


def class_disk(where: Path) -> Tally:
    from pdfindex.config import load_settings
    from tests.test_disk_bounds import usage

    tally, root = Tally("10 bounded disk (sessions, page cache)"), where / "disk"
    pdfgen.write_pdf(root / "files" / "doc.pdf", ["attention heads page", "budgets two", "three"])
    folder = load_settings(root=root).index_dir
    serve = Serve(root, {"PDFINDEX_MAX_SESSIONS": "10", "PDFINDEX_PAGE_CACHE_MB": "1"})
    most = [0, 0]
    try:
        serve.found("doc", "attention")
        calls = [("query_documents", {"query": f"budgets question {n}"}) for n in range(60)]
        calls += [
            ("get_page_image", {"document_slug": "doc", "page_number": p, "dpi": d})
            for d in range(84, 301, 24)
            for p in (1, 2, 3)
        ]
        for tool, arguments in calls:
            answer = serve.ask(tool, arguments)
            sessions, cache = usage(folder / "sessions")[0], usage(folder / "pages")[1]
            most = [max(most[0], sessions), max(most[1], cache)]
            if isinstance(answer, str) or sessions <= 10 and cache <= 1_000_000:
                judge(tally, tool, answer, "")
            else:
                tally.add(tool, "leak", f"{sessions} sessions, {cache} bytes of page cache")
    finally:
        serve.close()
    tally.note = (
        f"most sessions kept {most[0]} (cap 10); page cache peak {most[1]:,} bytes (cap 1 MB)"
    )
    return tally


def class_scale(where: Path, count: int) -> Tally:
    from tests.test_scale_calls import fill

    tally, root = Tally(f"12 calls at library scale ({count} files)"), where / "scale"
    fill(root / "files", count)
    run_reindex(root, None)
    serve = Serve(root, {"PDFINDEX_WORKERS": "1"})
    slowest = 0.0
    try:
        serve.ask("get_library_status", {}, bound=120)  # started and answering
        calls = [
            ("get_library_status", {}),
            ("query_documents", {"query": "change the margins"}),
            ("search_pdf", {"pdf_name": "nothing like it", "query": "x"}),
            ("find_document", {"query": "zzzz"}),
            ("list_documents_paginated", {}),
        ]
        for tool, arguments in calls * 3:
            began = time.monotonic()
            answer = serve.ask(tool, arguments, bound=2.0)
            slowest = max(slowest, time.monotonic() - began)
            judge(tally, tool, answer, "")
    finally:
        serve.close()
    tally.note = f"slowest answer {slowest:.2f} s (bound 2 s)"
    return tally


def class_text_bomb(where: Path) -> Tally:
    from tests import hostile

    tally, peaks = Tally("13 text bomb"), []
    for count in (100_000, 200_000):
        root = where / f"bomb{count}"
        hostile.many_objects(root / "files" / "wordy.pdf", count=count)
        how, done = run_cli(root, "reindex", "--workers", "1", env={"PDFINDEX_ELEMENTS": "0"})
        import resource

        peaks.append(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
        record, text = record_of(root, "wordy.pdf") if done else (None, "")
        if how or done is None:
            tally.add(f"{count} text objects", how, done and done.stderr[-300:])
        elif (
            record
            and record.status == "ok"
            and len(text) <= 200_000
            and "cut to" in str(record.notes)
        ):
            tally.add(f"{count} text objects", "handled", f"{len(text)} chars")
        else:
            tally.add(f"{count} text objects", "lost", record and (record.status, record.notes))
    tally.note = f"page text cut to 200,000 chars; largest child process peak RSS {peaks} MB"
    return tally


PROTOCOL_LINES = [
    (b"{not json\n", None, "-32700"),
    (b'\xff\xfe{"jsonrpc": \n', None, "-32700"),
    (b"[1, 2]\n", None, "-32600"),
    (b'{"jsonrpc": "2.0", "id": "m", "method": 5}\n', "m", "-32600"),
    (
        b'{"jsonrpc": "2.0", "id": "q", "method": "tools/call", "params": {"name": "search_pdf",'
        b' "arguments": {"pdf_name": "doc", "query": "hello \\ud800"}}}\n',
        "q",
        "lone surrogate",
    ),
    (
        b'{"jsonrpc": "2.0", "id": "s", "method": "tools/call", "params": '
        b'{"name": "get_page_image",'
        b' "arguments": {"document_slug": "\\udfffdoc", "page_number": 1}}}\n',
        "s",
        "lone surrogate",
    ),
    (
        b'{"jsonrpc": "2.0", "id": "r", "method": "tools/call", "params": {"name": "read_pdf",'
        b' "arguments": {"sources": [{"path": "doc.pdf"}, {"path": "x\\ud83d"}]}}}\n',
        "r",
        "sources[1].path",
    ),
    (
        b'{"jsonrpc": "2.0", "id": "u", "method": "resources/read", '
        b'"params": {"uri": "x\\udc00"}}\n',
        "u",
        "params.uri",
    ),
]
CAUSES = [
    ("get_page_image", {"document_slug": "doc", "page_number": 500}, "'doc' has 2 pages"),
    ("process_document", {"file_path": ".secret.pdf"}, "hidden"),
    ("search_in_file", {"file": "big.txt", "pattern": "."}, "amount of text"),
    (
        "search_in_file",
        {"file": "runaway.txt", "pattern": "^(a|aa)+$"},
        "catastrophic backtracking",
    ),
]


def class_protocol(where: Path) -> tuple[Tally, Tally]:
    from tests.test_protocol_robustness import RUNAWAY_LINE

    wire_tally, causes = (
        Tally("14 invalid JSON, lone surrogates"),
        Tally("16 errors name the cause"),
    )
    root, anonymous = where / "protocol", 0
    files = root / "files"
    pdfgen.write_pdf(files / "doc.pdf", ["hello world on page one", "page two"])
    pdfgen.write_pdf(files / ".secret.pdf", ["hidden words"])
    page = "\n".join(f"line {n}" for n in range(200))
    (files / "big.txt").write_text("\f".join(page for _ in range(2000)))
    (files / "runaway.txt").write_text(f"first line\n{RUNAWAY_LINE}\nlast line")
    serve = Serve(root)
    wire = serve.wire
    try:
        serve.found("doc", "hello")
        serve.found("runaway", "first line")
        serve.found("big", "line 199")
        for line, id_, words in PROTOCOL_LINES * 2:
            wire.write(line)
            try:
                if id_ is None:
                    anonymous += 1
                    answer = wire.wait_anonymous(anonymous)[-1]
                else:
                    answer = wire.wait(id_)
                    wire.answers.pop(id_)
            except AssertionError:
                wire_tally.add(
                    repr(line[:40]), "crash" if wire.process.poll() is not None else "hang"
                )
                continue
            judge(wire_tally, repr(line[:40]), answer, words)
        judge(
            wire_tally,
            "a search after them",
            serve.ask("search_pdf", {"pdf_name": "doc", "query": "hello"}),
            "true",
        )
        for tool, arguments, words in CAUSES * 2:
            judge(causes, f"{tool} {arguments}", serve.ask(tool, arguments, bound=60), words)
    finally:
        serve.close()
    wire_tally.note = "every bad line answered (parse error / invalid request / the argument named)"
    causes.note = "page out of range, hidden file, too much text, real backtracking: each named"
    return wire_tally, causes


BAD_SETTINGS = [
    ("toml", "timeout = inf", ["stats"], "timeout=inf"),
    ("toml", "workers = 2.5", ["stats"], "workers=2.5"),
    ("toml", "memory_mb = 1e30", ["stats"], "memory_mb"),
    ("toml", 'index_dir = "/proc"', ["reindex"], "pseudo-filesystem"),
    ("env", "PDFINDEX_TIMEOUT=nan", ["serve"], "env PDFINDEX_TIMEOUT"),
    ("env", "PDFINDEX_INDEX_DIR=/dev/pdfindex", ["stats"], "/dev"),
    ("flag", "", ["stats", "--timeout", "inf"], "flag --timeout"),
    ("flag", "", ["stats", "--index-dir", "/proc"], "flag --index-dir"),
]


def class_settings(where: Path) -> Tally:
    tally = Tally("15 bad settings")
    for n, (kind, value, args, word) in enumerate(BAD_SETTINGS):
        root = where / f"settings{n}"
        (root / "files").mkdir(parents=True)
        if kind == "toml":
            (root / "pdfindex.toml").write_text(value + "\n")
        env = dict([value.split("=", 1)]) if kind == "env" else {}
        how, done = run_cli(root, *args, env=env, bound=60)
        if how or done is None:
            tally.add(f"{kind} {value or args}", how, done and done.stderr[-300:])
            continue
        lines = done.stderr.strip().splitlines()
        good = done.returncode == 2 and len(lines) == 1 and word in lines[0]
        tally.add(f"{kind} {value or args}", "handled" if good else "lost", done.stderr[-300:])
    tally.note = "exit 2 and one line naming the setting and its source"
    return tally


def class_number(row: dict[str, Any]) -> int:
    first = row["class"].split()[0].split("/")[0]
    return int(first) if first.isdigit() else 99


def round3(out_dir: Path, where: Path, scale_files: int = 2000) -> dict[str, Any]:
    """Each class of issue 31 tried against the real program; a table of outcomes."""
    figures: dict[str, Any] = {"date": str(date.today()), "cores": os.cpu_count(), "classes": []}
    began = time.perf_counter()
    steps = [
        class_regex,
        class_ocr,
        class_shutdown,
        class_cache,
        class_folder,
        class_caps,
        class_lanes,
        class_passwords,
        class_disk,
        lambda w: class_scale(w, scale_files),
        class_text_bomb,
        class_protocol,
        class_settings,
    ]
    for step in steps:
        print(f"round 3: {getattr(step, '__name__', 'class_scale')}", file=sys.stderr, flush=True)
        try:
            found = step(where)
        except Exception as exc:  # noqa: BLE001 - a class that could not run is reported
            found = Tally(getattr(step, "__name__", "?"))
            found.add("the class itself", "crash", repr(exc))
        for tally in found if isinstance(found, tuple) else (found,):
            figures["classes"].append({**tally.row(), "attempts": tally.attempts})
    figures["classes"].sort(key=class_number)
    figures["seconds"] = round(time.perf_counter() - began)
    name = f"{date.today()}-reliability-round3"
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"{name}.json").write_text(json.dumps(figures, indent=1, default=str) + "\n")
    lines = [
        f"# Reliability suite, round 3 ({figures['date']})",
        "",
        "Command: `python -m benchmarks.reliability --round3` (issue 31). Each class tried "
        "against the real program (`pdfindex serve` over stdio, the CLI, or the library where "
        "the class is about its internals: 4, 6), several inputs each. Outcomes: handled; crash "
        "(process died or traceback); hang (no answer within the bound); lost (data missing "
        "or wrong afterwards; for 16, an error naming another cause); leak (memory over "
        f"bound, a password fragment, disk over cap). {figures['cores']} cores, "
        f"{figures['seconds']} s in all.",
        "",
        "| class | tried | handled | crash | hang | lost | leak | note |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for c in figures["classes"]:
        counts = " | ".join(str(c[o]) for o in ("tried", *OUTCOMES))
        lines.append(f"| {c['class']} | {counts} | {c['note']} |")
    report = "\n".join(lines) + "\n"
    (out_dir / f"{name}.md").write_text(report)
    print(report)
    return figures


if __name__ == "__main__":
    main()
