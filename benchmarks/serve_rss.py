"""The memory of one `pdfindex serve` process over an indexed root, through the SDK's
stdio client: VmRSS, its anonymous and file-backed parts, after start-up and after each
kind of tool call (issue 11: a serving process under 150 MB at 48,000 pages).

python -m benchmarks.serve_rss ROOT [--files-dir DIR]

Serves with --no-watch (the index is not changed); reads /proc/PID/status of the server.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_documents", {"query": "how do I change the page margins", "limit": 10}),
    ("search_pdf", {"pdf_name": "generic_pgf_pgfmanual", "query": "node distance", "topk": 5}),
    ("search_in_file", {"file": "generic_pgf_pgfmanual", "pattern": r"node\s+distance"}),
    ("query_documents", {"query": "hyphenation of compound words"}),
    ("fuzzy_search", {"query": "hypenaton", "max_results": 10}),
]


def memory(pid: int) -> dict[str, float]:
    """VmRSS, RssAnon and RssFile of `pid` in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile"):
            fields[key] = int(value.split()[0]) / 1024
    return fields


def server_pid() -> int:
    """The newest `pdfindex serve` process of this user (the one this client started)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().split(b"\0")
                started = (entry / "stat").read_text().split()[21]
            except OSError:
                continue
            if b"serve" in command and any(b"pdfindex" in part for part in command):
                found.append((int(started), int(entry.name)))
    if not found:
        raise SystemExit("no pdfindex serve process found")
    return max(found)[1]


async def tour(root: Path, files_dir: Path | None) -> None:
    args = ["-m", "pdfindex", "serve", "--root", str(root), "--no-watch"]
    if files_dir:
        args += ["--files-dir", str(files_dir)]
    params = StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        pid = server_pid()
        while "scanning" in str((await session.call_tool("get_library_status", {})).content):
            await anyio.sleep(0.2)
        print("| after | VmRSS | anonymous | file-backed | call ms |\n|---|---:|---:|---:|---:|")
        show("start (start-up scan done)", memory(pid), 0.0)
        for name, arguments in CALLS:
            started = time.perf_counter()
            result = await session.call_tool(name, arguments)
            took = (time.perf_counter() - started) * 1000
            if result.is_error:
                print(f"{name}: {result.content}", file=sys.stderr)
            show(f"`{name}`", memory(pid), took)


def show(label: str, fields: dict[str, float], took: float) -> None:
    print(
        f"| {label} | {fields['VmRSS']:.0f} MB | {fields['RssAnon']:.0f} MB "
        f"| {fields['RssFile']:.0f} MB | {took:.0f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--files-dir", type=Path)
    options = parser.parse_args()
    anyio.run(tour, options.root, options.files_dir)


if __name__ == "__main__":
    main()
