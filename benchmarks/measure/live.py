"""4. Live updates: a file landed in files/ until `search_pdf` over MCP finds it, with
`pdfindex serve` watching: how soon an agent sees a new document."""

from __future__ import annotations

import time
from typing import Any

import anyio
from mcp import ClientSession, stdio_client

from benchmarks.measure.common import Plan, log, not_available, pdf_name
from benchmarks.measure.mcp_stdio import server_params
from benchmarks.measure.stats import summary
from benchmarks.measure.workspace import Workspace
from benchmarks.pdfwriter import write_pdf

LIVE_WAIT = 30.0  # seconds a landed file may take to become searchable


def measure_live_update(ws: Workspace, plan: Plan) -> dict[str, Any]:
    """File landed in files/ -> found by search_pdf, with `pdfindex serve` watching.

    Each run writes a small new PDF with a unique word next to files/, moves it in (so it
    lands whole), and polls search_pdf over MCP every 20 ms until the word is found.
    """
    out: dict[str, Any] = {}
    runs = 2 if plan.quick else 5
    log(f"live update: {runs} files landing while `pdfindex serve` watches")
    times = anyio.run(_live_async, ws, plan, runs)
    if times is None:
        not_available(out, "latency_s", f"a landed file was not searchable within {LIVE_WAIT} s")
    else:
        out["latency_s"] = summary(times)
        out["method"] = "new 2-page PDF moved into files/, search_pdf polled every 20 ms over MCP"
    return out


async def _live_async(ws: Workspace, plan: Plan, runs: int) -> list[float] | None:
    times: list[float] = []
    with open(ws.root / "server-live-stderr.log", "w") as errlog:
        async with (
            stdio_client(server_params(ws, plan), errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.call_tool("search_pdf", {"pdf_name": pdf_name(ws.pdfs[0]), "query": "a"})
            for run in range(runs):
                marker = f"landedmarker{run:03d}q"
                name = f"zz-landed-{run:03d}"
                staged = write_pdf(ws.root / f"{name}.pdf", [f"{marker} arrives here", "page two"])
                target = ws.files / f"{name}.pdf"
                staged.replace(target)
                landed = time.perf_counter()
                while True:
                    result = await session.call_tool(
                        "search_pdf", {"pdf_name": name, "query": marker}
                    )
                    if (result.structured_content or {}).get("query_exists"):
                        times.append(time.perf_counter() - landed)
                        break
                    if time.perf_counter() - landed > LIVE_WAIT:
                        return None
                    await anyio.sleep(0.02)
                target.unlink()
                await anyio.sleep(1.5)  # let the watcher take the removal before the next run
    return times
