"""`python -m benchmarks.disk_bounds`: issue 31's defect 10 at full size — disk use stays
under its configured caps after 250,000 tool calls.

1. **Calls**: one process, a small library, the server's own tool functions (with their
   logging: a request and a response line per call) called in-process: `query_documents`
   without a session (each used to leave a 4 KB file for a week), a follow-up in a few
   conversations, `get_page_image` (80% a few hot images, else any page at any DPI: every
   image used to stay forever), `list_sessions` now and then (timed), and a server
   restart (a new session log) every `--restart-every` calls. The sessions folder, the
   page-image cache and the log folder are measured every `--measure-every` calls; the
   largest figures must stay under the caps.
2. **Legacy folder**: `--legacy` session files (4 KB each) as a version without a cap left
   them; `list_sessions` and a new session's write in turn, under the 10 s request limit,
   until the folder is under the cap: each call's time.

Writes `benchmarks/results/<date>-disk-bounds.md` (and `.json`) unless `--no-write`.
`tests/test_disk_bounds.py` runs the same rules small.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import shutil
import sys
import tempfile
import time
import uuid
from datetime import date
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pdfindex import deadline
from pdfindex.config import load_settings
from pdfindex.logs import log_limits, setup_logging
from pdfindex.tools.render import MAX_DPI, MIN_DPI
from tests import pdfgen

RESULTS = Path(__file__).parent / "results"
HOT_IMAGES = [(1, 72), (1, 150), (2, 150), (3, 150)]  # what clients mostly ask for
HOT_SHARE = 0.8
SESSION_FILE = 4_000  # bytes of an old session file (20 queries)
PAGES = [
    "Attention heads and budgets, a page about transformers. " * 30,
    "Second page: storage reports, budgets and the attention span of readers. " * 30,
    "Third page: a short one about indexes.",
]


def usage(folder: Path) -> tuple[int, int]:
    """(files, bytes) under `folder`, from its listing."""
    files = size = 0
    for parent, _, names in os.walk(folder):
        for name in names:
            try:
                size += os.stat(os.path.join(parent, name)).st_size
                files += 1
            except OSError:
                continue
    return files, size


class Context(SimpleNamespace):
    """What the server's tool functions read of an MCP request: the open AppContext."""

    def __init__(self, app: Any) -> None:
        super().__init__(request_context=SimpleNamespace(lifespan_context=app))


def structured(answer: Any) -> dict[str, Any]:
    """The JSON answer of a seed-002 tool as the client gets it."""
    data = getattr(answer, "structured_content", None)
    return data if data is not None else answer


def run_calls(root: Path, calls: int, overrides: dict[str, Any], every: dict[str, int]) -> dict:
    """`calls` tool calls through the server's functions; the largest disk figures seen."""
    from pdfindex import server
    from pdfindex.server import tools as declared

    files = root / "files"
    files.mkdir(parents=True)
    pdfgen.write_pdf(files / "doc.pdf", PAGES)
    settings = load_settings({"elements": False, "ocr": False, **overrides}, root=root)
    setup_logging(settings.log_dir, stderr=False, **log_limits(settings))
    app = server.AppContext.open(settings, watch=False).start()
    try:
        assert app.live.caught_up.wait(300), "the catch-up scan did not finish"
        ctx = Context(app)
        caps = {
            "sessions_files": settings.max_sessions,
            "page_cache_bytes": int(settings.page_cache_mb * 1_000_000),
            "log_files": settings.log_keep * 3,
            "log_bytes": int(settings.log_keep * 3 * settings.log_file_mb * 1_000_000),
        }
        folders = {
            "sessions": settings.index_dir / "sessions",
            "page_cache": settings.index_dir / "pages",
            "logs": settings.log_dir,
        }
        images = [(p, d) for d in range(MIN_DPI, MAX_DPI + 1) for p in range(1, len(PAGES) + 1)]
        rng = random.Random(31)
        conversations: list[str] = []
        largest = {name: [0, 0] for name in folders}
        listing_seconds: list[float] = []
        call_seconds: dict[str, list[float]] = {}
        made = restarts = 0
        started = time.monotonic()

        def call(tool: str, **arguments: Any) -> Any:
            nonlocal made
            began = time.perf_counter()
            answer = getattr(declared, tool)(**arguments, ctx=ctx)
            call_seconds.setdefault(tool, []).append(time.perf_counter() - began)
            made += 1
            return answer

        n = 0
        while made < calls:
            n += 1
            if n % every["conversation"] == 0 and conversations:
                sid = conversations[n // every["conversation"] % len(conversations)]
                answer = structured(call("query_documents", query="and budgets?", session_id=sid))
                assert answer["status"] == "success", answer
            else:
                answer = structured(call("query_documents", query=f"budgets question {n % 997}"))
                assert answer["status"] == "success", answer
                if len(conversations) < 5:
                    conversations.append(answer["session_id"])
            if n % every["image"] == 0:  # mostly a few hot images, else any page at any DPI
                hot = rng.random() < HOT_SHARE
                page, dpi = rng.choice(HOT_IMAGES) if hot else rng.choice(images)
                result = call("get_page_image", document_slug="doc", page_number=page, dpi=dpi)
                assert not getattr(result, "is_error", False), result
            if n % every["listing"] == 0:
                began = time.perf_counter()
                listing = structured(call("list_sessions", page=1, page_size=50))
                listing_seconds.append(time.perf_counter() - began)
                assert listing["status"] == "success", listing
            if n % every["restart"] == 0:  # a new server session: a new log
                setup_logging(settings.log_dir, stderr=False, **log_limits(settings))
                restarts += 1
            if n % every["measure"] == 0 or made >= calls:
                for name, folder in folders.items():
                    found = usage(folder)
                    largest[name] = [max(a, b) for a, b in zip(largest[name], found, strict=True)]
        elapsed = time.monotonic() - started
        final = {name: usage(folder) for name, folder in folders.items()}
    finally:
        app.close()
        logging.getLogger().handlers.clear()
    within = {
        "sessions": largest["sessions"][0] <= caps["sessions_files"],
        "page_cache": largest["page_cache"][1] <= caps["page_cache_bytes"],
        "logs": largest["logs"][0] <= caps["log_files"] and largest["logs"][1] <= caps["log_bytes"],
    }
    return {
        "calls": made,
        "seconds": round(elapsed, 1),
        "restarts": restarts,
        "caps": caps,
        "largest": {k: {"files": v[0], "bytes": v[1]} for k, v in largest.items()},
        "final": {k: {"files": v[0], "bytes": v[1]} for k, v in final.items()},
        "within_caps": within,
        "list_sessions_seconds": {
            "count": len(listing_seconds),
            "max": round(max(listing_seconds, default=0.0), 4),
            "mean": round(sum(listing_seconds) / max(1, len(listing_seconds)), 4),
        },
        "mean_ms_per_call": {
            tool: round(1000 * sum(times) / len(times), 2) for tool, times in call_seconds.items()
        },
        "calls_per_tool": {tool: len(times) for tool, times in call_seconds.items()},
    }


def legacy_folder(root: Path, count: int, max_sessions: int, limit: float) -> dict[str, Any]:
    """`count` 4 KB session files as an uncapped version left them; then list_sessions
    and a new session's record (query_documents' write), in turn under the request time
    limit, until the folder is under the cap: each call's time."""
    from pdfindex.tools import passages
    from pdfindex.tools.sessions import SessionStore

    folder = root / "sessions"
    folder.mkdir(parents=True)
    now = time.time()
    body = "x" * 150
    began = time.monotonic()
    for n in range(count):
        at = now - 3600 - (count - n)
        sid = str(uuid.UUID(int=n + 1))
        queries = [{"query": f"q{n} {body}", "at": at, "cited": ["doc"]}] * 20
        data = {"session_id": sid, "created_at": at, "last_activity": at, "queries": queries}
        path = folder / f"{sid}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        os.utime(path, (at, at))
    written = time.monotonic() - began
    before = usage(folder)
    store = SessionStore(folder, max_sessions=max_sessions)
    timings: dict[str, list[float]] = {"list_sessions": [], "record": []}
    began = time.monotonic()
    while len(timings["list_sessions"]) < 2_000:
        with deadline.limit(limit):
            started = time.monotonic()
            answer = passages.list_sessions(store, 40_000, page=1, page_size=50)
            timings["list_sessions"].append(time.monotonic() - started)
        assert answer["status"] == "success"
        assert answer["total_count"] <= max_sessions
        with deadline.limit(limit):
            started = time.monotonic()
            store.record(store.new(), "a new question", ["doc"])
            timings["record"].append(time.monotonic() - started)
        if len(os.listdir(folder)) <= max_sessions:
            break
    cleared = time.monotonic() - began
    after = usage(folder)
    return {
        "sessions_written": count,
        "seconds_to_write": round(written, 1),
        "before": {"files": before[0], "bytes": before[1]},
        "calls_until_under_the_cap": {k: len(v) for k, v in timings.items()},
        "seconds_until_under_the_cap": round(cleared, 1),
        "first_call_s": {k: round(v[0], 3) for k, v in timings.items()},
        "max_call_s": {k: round(max(v), 3) for k, v in timings.items()},
        "mean_call_s": {k: round(sum(v) / len(v), 3) for k, v in timings.items()},
        "after": {"files": after[0], "bytes": after[1]},
        "request_limit_s": limit,
    }


def markdown(figures: dict[str, Any]) -> str:
    run = figures["calls"]
    lines = [
        f"# Disk use after {run['calls']:,} tool calls ({figures['date']})",
        "",
        f"`python -m benchmarks.disk_bounds {figures['argv']}`".replace(" `", "`"),
        "",
        f"{run['calls']:,} calls in {run['seconds']} s ({run['calls_per_tool']}), "
        f"{run['restarts']} server restarts (a new session log each).",
        "",
        "| folder | cap | largest seen | at the end | within the cap |",
        "|---|---|---|---|---|",
    ]
    caps = run["caps"]
    shown_caps = {
        "sessions": f"{caps['sessions_files']:,} files",
        "page_cache": f"{caps['page_cache_bytes'] / 1e6:g} MB",
        "logs": f"{caps['log_files']} files, {caps['log_bytes'] / 1e6:g} MB",
    }
    for name, cap in shown_caps.items():
        big, end = run["largest"][name], run["final"][name]
        lines.append(
            f"| {name} | {cap} | {big['files']:,} files, {big['bytes'] / 1e6:.2f} MB | "
            f"{end['files']:,} files, {end['bytes'] / 1e6:.2f} MB | "
            f"{'yes' if run['within_caps'][name] else 'NO'} |"
        )
    listing = run["list_sessions_seconds"]
    lines += [
        "",
        f"list_sessions during the run: {listing['count']} calls, mean {listing['mean']} s, "
        f"max {listing['max']} s. Mean ms per call: {run['mean_ms_per_call']}.",
    ]
    legacy = figures.get("legacy")
    if legacy:
        calls = legacy["calls_until_under_the_cap"]
        lines += [
            "",
            f"A folder of {legacy['sessions_written']:,} session files an uncapped version "
            f"left ({legacy['before']['bytes'] / 1e6:.0f} MB), then list_sessions and a new "
            f"session's write in turn (request limit {legacy['request_limit_s']:g} s): "
            f"under the cap after {calls['list_sessions']} + {calls['record']} calls "
            f"({legacy['seconds_until_under_the_cap']} s); first call "
            f"{legacy['first_call_s']}, slowest {legacy['max_call_s']}, mean "
            f"{legacy['mean_call_s']} s. The folder then held "
            f"{legacy['after']['files']:,} files, {legacy['after']['bytes'] / 1e6:.1f} MB.",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=250_000)
    parser.add_argument("--legacy", type=int, default=250_000, help="0: skip part 2")
    parser.add_argument("--page-cache-mb", type=float, default=20.0)
    parser.add_argument("--max-sessions", type=int, default=1000)
    parser.add_argument("--log-file-mb", type=float, default=5.0)
    parser.add_argument("--log-keep", type=int, default=10)
    parser.add_argument("--image-every", type=int, default=50)
    parser.add_argument("--listing-every", type=int, default=5_000)
    parser.add_argument("--restart-every", type=int, default=20_000)
    parser.add_argument("--measure-every", type=int, default=1_000)
    parser.add_argument("--scratch", type=Path, default=None)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    overrides = {
        "page_cache_mb": args.page_cache_mb,
        "max_sessions": args.max_sessions,
        "log_file_mb": args.log_file_mb,
        "log_keep": args.log_keep,
    }
    every = {
        "conversation": 10,
        "image": args.image_every,
        "listing": args.listing_every,
        "restart": args.restart_every,
        "measure": args.measure_every,
    }
    scratch = Path(tempfile.mkdtemp(prefix="disk-bounds-", dir=args.scratch))
    try:
        figures: dict[str, Any] = {
            "date": date.today().isoformat(),
            "argv": " ".join(sys.argv[1:] if argv is None else argv),
            "calls": run_calls(scratch / "calls", args.calls, overrides, every),
        }
        print(json.dumps(figures["calls"], indent=1), file=sys.stderr)
        if args.legacy:
            figures["legacy"] = legacy_folder(
                scratch / "legacy", args.legacy, args.max_sessions, 10.0
            )
            print(json.dumps(figures["legacy"], indent=1), file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    text = markdown(figures)
    print(text)
    if not args.no_write:
        RESULTS.mkdir(exist_ok=True)
        stem = RESULTS / f"{figures['date']}-disk-bounds"
        stem.with_suffix(".json").write_text(json.dumps(figures, indent=1) + "\n")
        stem.with_suffix(".md").write_text(text)
    return 0 if all(figures["calls"]["within_caps"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
