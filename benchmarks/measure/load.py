"""7. Load: `plan.clients` clients issuing mixed `search_pdf` calls at once, against the
same calls one at a time. This module has the library's threads; MCP's concurrent calls
on one session run in `mcp_stdio` and are summed up here too."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from benchmarks.measure.common import Plan, log
from benchmarks.measure.queries import Queries
from benchmarks.measure.stats import latency
from pdfindex.api import PdfIndex
from pdfindex.tools.exact import search_pdf


def load_figures(
    plan: Plan, calls: int, seq: list[float], seq_wall: float, conc: list[float], conc_wall: float
) -> dict[str, Any]:
    """Throughput and latency at once and one at a time, for either front."""
    return {
        "clients": plan.clients,
        "calls": calls,
        "throughput_qps": round(calls / conc_wall, 1),
        "latency": latency(conc),
        "sequential_throughput_qps": round(calls / seq_wall, 1),
        "sequential_latency": latency(seq),
        "speedup_vs_sequential": round(seq_wall / conc_wall, 2),
    }


def mixed_calls(queries: Queries, plan: Plan) -> list[tuple[str, str]]:
    """The (pdf_name, query) pairs both fronts issue, `calls_per_client` per client."""
    calls = plan.calls_per_client * plan.clients
    return [queries.mixed[i % len(queries.mixed)] for i in range(calls)]


def measure_threads(index: PdfIndex, queries: Queries, plan: Plan) -> dict[str, Any]:
    """`plan.clients` threads calling PdfIndex.search_pdf at once, and one thread alone."""
    mixed = mixed_calls(queries, plan)
    calls = len(mixed)
    for name, query in queries.mixed:
        search_pdf(index, name, query)  # warm-up
    log(f"concurrency (API): {calls} calls sequential, then {plan.clients} threads")
    seq: list[float] = []
    began = time.perf_counter()
    for name, query in mixed:
        start = time.perf_counter()
        search_pdf(index, name, query)
        seq.append(time.perf_counter() - start)
    seq_wall = time.perf_counter() - began

    def client(number: int) -> list[float]:
        times = []
        for i in range(plan.calls_per_client):
            name, query = mixed[(number * plan.calls_per_client + i) % len(mixed)]
            start = time.perf_counter()
            search_pdf(index, name, query)
            times.append(time.perf_counter() - start)
        return times

    began = time.perf_counter()
    with ThreadPoolExecutor(plan.clients) as pool:
        conc = [t for times in pool.map(client, range(plan.clients)) for t in times]
    conc_wall = time.perf_counter() - began
    return load_figures(plan, calls, seq, seq_wall, conc, conc_wall)
