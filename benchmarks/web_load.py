"""50 concurrent HTTP clients against `pdfindex web`: searches and page images through
MCP over Streamable HTTP (`/mcp`), at p50/p95, errors counted, the server's memory
sampled. The server is a separate process; the clients share this one (asyncio +
httpx2, raw JSON-RPC, so the client costs little of the machine's CPU).

python -m benchmarks.web_load [--corpus /work/corpus/medium] [--root DIR]
                              [--clients 50] [--seconds 30] [--out FILE.md]

The index of the corpus is built in ROOT (default: a folder under /tmp kept between runs)
when it is missing. Page images are rendered once before the load (their cold cost is
reported) so that the load reads them from the page-image cache, as the issue's target
says. The rate limit is off for the run (`--web-rate 0`): every client is 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2

QUERIES = [
    "font encoding", "hyphenation patterns", "bibliography style", "table of contents",
    "math mode", "package options", "color", "graphics", "unicode", "footnote",
    "page layout", "citation", "margin notes", "kanji", "symbols", "arrows", "index",
    "floating figures", "line spacing", "title page", "chapter headings", "fonts",
    "\"font size\"", "theorem", "algorithm", "tabular", "babel languages", "beamer",
    "cross references", "document class",
]  # fmt: skip
PROTOCOL = "2025-06-18"
STARTED = re.compile(r"at (https?://\S+/) \(MCP at")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def memory_kb(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of `pid`, and the RSS of its child processes (page renders)."""
    out = {"rss": 0, "hwm": 0, "children_rss": 0}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                out["rss"] = int(line.split()[1])
            elif line.startswith("VmHWM:"):
                out["hwm"] = int(line.split()[1])
    except OSError:
        return out
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        fields = dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)
        if fields.get("PPid", "").strip() == str(pid):
            out["children_rss"] += int(fields.get("VmRSS", "0 kB").split()[0])
    return out


class Session:
    """One MCP session over raw HTTP: initialize, then tools/call requests."""

    def __init__(self, http: httpx2.AsyncClient, url: str) -> None:
        self.http, self.url, self.headers = (
            http,
            url,
            {
                "Accept": "application/json, text/event-stream",
                "Content-Type": "application/json",
                "MCP-Protocol-Version": PROTOCOL,
            },
        )
        self.next_id = 0

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        answer = await self.http.post(self.url, json=body, headers=self.headers)
        answer.raise_for_status()
        if "mcp-session-id" in answer.headers:
            self.headers["Mcp-Session-Id"] = answer.headers["mcp-session-id"]
        return _message(answer)

    async def open(self) -> None:
        await self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "web_load", "version": "1"},
            },
        )
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        (await self.http.post(self.url, json=note, headers=self.headers)).raise_for_status()

    async def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        reply = await self.request("tools/call", {"name": tool, "arguments": arguments})
        if "error" in reply or reply["result"].get("isError"):
            raise RuntimeError(json.dumps(reply)[:300])
        return reply["result"]


def _message(answer: httpx2.Response) -> dict[str, Any]:
    """The JSON-RPC answer of a POST: a JSON body or the last `data:` of an event stream."""
    if answer.headers.get("content-type", "").startswith("application/json"):
        return answer.json()
    data = [line[5:].strip() for line in answer.text.splitlines() if line.startswith("data:")]
    return json.loads(data[-1])


def start_server(root: Path, corpus: Path) -> tuple[subprocess.Popen[bytes], str]:
    log = (root / "web-stderr.txt").open("wb")
    command = [sys.executable, "-m", "pdfindex", "web", "--root", str(root)]
    command += ["--files-dir", str(corpus), "--port", "0", "--web-rate", "0"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log)
    log.close()
    ends = time.monotonic() + 300
    while time.monotonic() < ends:
        found = STARTED.search((root / "web-stderr.txt").read_text())
        if found:
            return server, found.group(1)
        if server.poll() is not None:
            raise SystemExit((root / "web-stderr.txt").read_text())
        time.sleep(0.2)
    raise SystemExit("pdfindex web did not start in 300 s")


async def pages_to_show(session: Session, count: int) -> list[tuple[str, int]]:
    """(slug, page) pairs the searches find, for the page images."""
    pairs: list[tuple[str, int]] = []
    for query in QUERIES:
        found = await session.call("search_documents", {"query": query, "limit": 5})
        text = "\n".join(c.get("text", "") for c in found["content"])
        for slug, page in re.findall(r"Document: (\S+)\n\s*Page: (\d+)", text):
            pairs.append((slug, int(page)))
    unique = list(dict.fromkeys(pairs))
    random.Random(7).shuffle(unique)
    return unique[:count]


async def load(url: str, clients: int, seconds: float, pairs: list[tuple[str, int]],
               pid: int) -> dict[str, Any]:  # fmt: skip
    times: dict[str, list[float]] = {"search": [], "page_image": []}
    errors: list[str] = []
    peak = {"rss": 0, "hwm": 0, "children_rss": 0}
    limits = httpx2.Limits(max_connections=clients + 5)
    async with httpx2.AsyncClient(timeout=120, limits=limits) as http:
        sessions = [Session(http, url + "mcp") for _ in range(clients)]
        await asyncio.gather(*(s.open() for s in sessions))
        ends = time.monotonic() + seconds

        async def client(n: int, session: Session) -> None:
            rng = random.Random(n)
            while time.monotonic() < ends:
                kind = "search" if rng.random() < 0.7 else "page_image"
                started = time.perf_counter()
                try:
                    if kind == "search":
                        query = rng.choice(QUERIES)
                        await session.call("search_documents", {"query": query, "limit": 10})
                    else:
                        slug, page = rng.choice(pairs)
                        args = {"document_slug": slug, "page_number": page}
                        await session.call("get_page_image", args)
                except Exception as exc:  # noqa: BLE001 - every failure is counted
                    errors.append(f"{kind}: {exc}"[:300])
                    continue
                times[kind].append((time.perf_counter() - started) * 1000)

        async def sample() -> None:
            while time.monotonic() < ends:
                now = await asyncio.to_thread(memory_kb, pid)
                for key in peak:
                    peak[key] = max(peak[key], now[key])
                await asyncio.sleep(0.5)

        await asyncio.gather(sample(), *(client(n, s) for n, s in enumerate(sessions)))
    return {"times": times, "errors": errors, "memory_kb": peak}


async def warm(
    url: str, pairs_wanted: int
) -> tuple[list[tuple[str, int]], list[float], list[float]]:
    """Pages to show, their cold render times, and warm searches (one client)."""
    async with httpx2.AsyncClient(timeout=120) as http:
        session = Session(http, url + "mcp")
        await session.open()
        pairs = await pages_to_show(session, pairs_wanted)
        cold = []
        for slug, page in pairs:
            started = time.perf_counter()
            await session.call("get_page_image", {"document_slug": slug, "page_number": page})
            cold.append((time.perf_counter() - started) * 1000)
        single = []
        for query in QUERIES:
            started = time.perf_counter()
            await session.call("search_documents", {"query": query, "limit": 10})
            single.append((time.perf_counter() - started) * 1000)
    return pairs, cold, single


def report(result: dict[str, Any], args: argparse.Namespace, pages: int, cold: list[float],
           single: list[float], idle: dict[str, int]) -> str:  # fmt: skip
    lines = [
        "# pdfindex web under load (MCP over Streamable HTTP)",
        "",
        f"`python -m benchmarks.web_load --corpus {args.corpus} --clients {args.clients} "
        f"--seconds {args.seconds:g}`, {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores "
        f"(shared with other work), engine tantivy, {pages:,} pages; server and clients on "
        "one machine, the clients in one asyncio process (httpx2, raw JSON-RPC), each with "
        "its own MCP session; 70% `search_documents` (limit 10, 30 queries), 30% "
        f"`get_page_image` over {len(cold)} pages rendered once before (read from the "
        "page-image cache). Rate limit off (`--web-rate 0`: every client is 127.0.0.1).",
        "",
        "| kind | requests | p50 ms | p95 ms | max ms | per second |",
        "|---|---|---|---|---|---|",
    ]
    for kind, values in result["times"].items():
        lines.append(
            f"| {kind} ({args.clients} clients) | {len(values)} | {percentile(values, 50):.0f} | "
            f"{percentile(values, 95):.0f} | {max(values, default=0):.0f} | "
            f"{len(values) / args.seconds:.1f} |"
        )
    lines.append(
        f"| search, one client alone | {len(single)} | {percentile(single, 50):.1f} | "
        f"{percentile(single, 95):.1f} | {max(single):.1f} | |"
    )
    lines.append(
        f"| page image, first render (cold) | {len(cold)} | {percentile(cold, 50):.0f} | "
        f"{percentile(cold, 95):.0f} | {max(cold):.0f} | |"
    )
    memory = result["memory_kb"]
    lines += [
        "",
        f"Errors: {len(result['errors'])}"
        + (f" (first: {result['errors'][0]})" if result["errors"] else "") + ".",
        f"Server memory: RSS {idle['rss'] / 1024:.0f} MB before the load; during it peak "
        f"RSS {memory['rss'] / 1024:.0f} MB, high-water mark {memory['hwm'] / 1024:.0f} MB, "
        f"its child processes (page renders) at most {memory['children_rss'] / 1024:.0f} MB.",
    ]  # fmt: skip
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpus/medium"))
    parser.add_argument("--root", type=Path, default=Path("/tmp/pdfindex-web-load"))
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--pages", type=int, default=40, help="page images in the mix")
    parser.add_argument("--out", type=Path, default=None, help="write the Markdown here")
    args = parser.parse_args(argv)
    args.root.mkdir(parents=True, exist_ok=True)
    corpus = args.corpus.resolve()
    if not (args.root / "index").exists():
        print(f"building the index of {corpus} in {args.root} ...", file=sys.stderr)
        subprocess.run(
            [sys.executable, "-m", "pdfindex", "reindex", "--root", str(args.root),
             "--files-dir", str(corpus)],
            check=True, env={**os.environ, "PDFINDEX_ELEMENTS": "false"},
        )  # fmt: skip
    server, url = start_server(args.root, corpus)
    try:
        stats = subprocess.run(
            [sys.executable, "-m", "pdfindex", "stats", "--json", "--root", str(args.root),
             "--files-dir", str(corpus)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        pages = json.loads(stats.stdout).get("pages", 0) if stats.returncode == 0 else 0
        pairs, cold, single = asyncio.run(warm(url, args.pages))
        idle = memory_kb(server.pid)
        result = asyncio.run(load(url, args.clients, args.seconds, pairs, server.pid))
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(60)
    text = report(result, args, pages, cold, single, idle)
    print(text)
    if args.out:
        args.out.write_text(text)
    return 1 if result["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
