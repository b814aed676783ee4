"""The figures: build, limits, rescans, live updates, query latency, baselines, load.

One module per numbered measurement (see benchmarks/README.md), plus what they share:

- `common` the plan of repetitions, query kinds, "not available"; `stats` summaries and
  the latency sampler; `machine`; `workspace` (the temporary project root); `process`
  (wall, CPU and peak memory of a process tree)
- 1 `build`, 2 `limits`, 3 `rescan`, 4 `live`, `queries` (what each kind asks),
  5 `latency` (library) and `mcp_stdio` (MCP, with its part of 7), 6 `baselines`,
  7 `load` (library threads), 8 `whole_process` (`pdfindex search` as a command) and
  `recoll` (the peer, when installed)

The index-engine figures (1, the writer of 2, 3, 4, 5, 7, 8's `pdfindex search`) are
measured once per engine, each in a workspace of its own; the corpus, the queries, the
extraction limits, the baselines and recoll once, shared.

Every figure is a plain JSON value. A figure that cannot be measured is None with a
sibling `<key>_note` saying why (see `not_available`). Timings are wall-clock seconds
(`perf_counter`) unless a key says otherwise; summaries are min/median/max over runs,
latencies p50/p95/p99 in milliseconds.
"""

from benchmarks.measure.baselines import measure_baselines
from benchmarks.measure.build import measure_build
from benchmarks.measure.common import (
    EXACT_ONLY,
    NO_MCP_NOTE,
    PDFGREP_MISSING,
    QUERY_KINDS,
    RANKED_KINDS,
    RECOLL_MISSING,
    Plan,
    catalog,
    log,
    not_available,
)
from benchmarks.measure.latency import measure_queries_api
from benchmarks.measure.limits import WriterSample, measure_extraction, measure_writer
from benchmarks.measure.live import measure_live_update
from benchmarks.measure.load import measure_threads
from benchmarks.measure.machine import machine
from benchmarks.measure.mcp_stdio import measure_mcp
from benchmarks.measure.process import rss_floor_mb
from benchmarks.measure.queries import Queries, choose_queries
from benchmarks.measure.recoll import measure_recoll
from benchmarks.measure.rescan import measure_rescans
from benchmarks.measure.stats import Sampler, latency, sample_call, summary
from benchmarks.measure.whole_process import measure_process_search
from benchmarks.measure.workspace import Workspace, make_workspace

__all__ = [
    "EXACT_ONLY",
    "NO_MCP_NOTE",
    "PDFGREP_MISSING",
    "QUERY_KINDS",
    "RANKED_KINDS",
    "RECOLL_MISSING",
    "Plan",
    "Queries",
    "Sampler",
    "Workspace",
    "WriterSample",
    "catalog",
    "choose_queries",
    "latency",
    "log",
    "machine",
    "make_workspace",
    "measure_baselines",
    "measure_build",
    "measure_extraction",
    "measure_live_update",
    "measure_mcp",
    "measure_process_search",
    "measure_queries_api",
    "measure_recoll",
    "measure_rescans",
    "measure_threads",
    "measure_writer",
    "not_available",
    "rss_floor_mb",
    "sample_call",
    "summary",
]
