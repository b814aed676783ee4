"""5 and 7 over MCP: `pdfindex serve` under the official SDK's stdio client, as an agent
would use it. Each query kind goes through the tool the server has for it; then the
mixed `search_pdf` calls one at a time and `plan.clients` at once on one session."""

from __future__ import annotations

import sys
import time
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from benchmarks.measure.common import RANKED_KINDS, Plan, log
from benchmarks.measure.load import load_figures, mixed_calls
from benchmarks.measure.queries import Queries
from benchmarks.measure.stats import Sampler
from benchmarks.measure.workspace import Workspace


def server_params(ws: Workspace, plan: Plan) -> StdioServerParameters:
    """`python -m pdfindex.cli serve` on the workspace, with the benchmark's environment."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "pdfindex.cli", "serve", "--root", str(ws.root)],
        env=ws.env(plan.workers),
    )


def measure_mcp(ws: Workspace, queries: Queries, plan: Plan) -> dict[str, Any]:
    """Start `pdfindex serve` under the official SDK's stdio client; time each query kind
    through its tool, and search_pdf alone and with `plan.clients` concurrent calls."""
    return anyio.run(_mcp_async, ws, queries, plan)


def mcp_calls(queries: Queries) -> list[tuple[str, str, dict[str, Any]]]:
    """(kind, tool, arguments) for each query kind an MCP tool answers; exact_all_docs has
    none (search_pdf searches one document)."""
    pattern = queries.texts["regex_one_doc"]
    return [
        (
            "exact_one_doc",
            "search_pdf",
            {"pdf_name": queries.document, "query": queries.texts["exact_one_doc"], "topk": 10},
        ),
        # ranked; search_documents OR-s its words (any word may match)
        *(
            (kind, "search_documents", {"query": queries.texts[kind], "limit": 10})
            for kind in RANKED_KINDS
        ),
        ("regex_one_doc", "search_in_file", {"file": queries.document_path, "pattern": pattern}),
    ]


async def _mcp_async(ws: Workspace, queries: Queries, plan: Plan) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with open(ws.root / "server-stderr.log", "w") as errlog:
        started = time.perf_counter()
        async with (
            stdio_client(server_params(ws, plan), errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            out["startup_s"] = round(time.perf_counter() - started, 3)

            async def tool(name: str, args: dict[str, Any]) -> Any:
                result = await session.call_tool(name, args)
                data = result.structured_content or {}
                if result.is_error or (isinstance(data, dict) and "error" in data):
                    raise RuntimeError(f"{name}({args}) failed: {result}")
                return data

            async def call(name: str, query: str) -> dict[str, Any]:
                return await tool("search_pdf", {"pdf_name": name, "query": query, "topk": 10})

            text = queries.texts["exact_one_doc"]
            start = time.perf_counter()
            first_result = await call(queries.document, text)
            out["first_call_s"] = round(time.perf_counter() - start, 3)
            for _ in range(3):  # the start-up catch-up scan may still be finishing
                await call(queries.document, text)
            out["tools"] = sorted(t.name for t in (await session.list_tools()).tools)
            kinds: dict[str, dict[str, Any]] = {}
            for kind, name, args in mcp_calls(queries):
                log(f"queries (MCP): {kind} through {name}")
                sampler = Sampler(plan)
                for _ in sampler:
                    await tool(name, args)
                kinds[kind] = {"tool": name, "latency": sampler.latency()}
            out["kinds"] = kinds
            out["exact_one_doc_hits"] = len(first_result.get("matches", []))

            mixed = mixed_calls(queries, plan)
            calls = len(mixed)
            log(f"concurrency (MCP): {calls} calls sequential, then {plan.clients} at once")
            seq: list[float] = []
            began = time.perf_counter()
            for name, query in mixed:
                start = time.perf_counter()
                await call(name, query)
                seq.append(time.perf_counter() - start)
            seq_wall = time.perf_counter() - began

            conc: list[float] = []

            async def client(number: int) -> None:
                for i in range(plan.calls_per_client):
                    name, query = mixed[(number * plan.calls_per_client + i) % len(mixed)]
                    start = time.perf_counter()
                    await call(name, query)
                    conc.append(time.perf_counter() - start)

            began = time.perf_counter()
            async with anyio.create_task_group() as group:
                for number in range(plan.clients):
                    group.start_soon(client, number)
            conc_wall = time.perf_counter() - began
            out["concurrency"] = load_figures(plan, calls, seq, seq_wall, conc, conc_wall)
    return out
