"""8. Whole process: `pdfindex search QUERY --root R` as a command per query kind, Python
start-up and imports included; what a shell user or a script running one query per
process waits for, and the memory it takes. Set next to `recollq` (see `recoll`), which
is measured the same way (`run_short`)."""

from __future__ import annotations

import shlex
from typing import Any

from benchmarks.measure.common import QUERY_KINDS, RANKED_KINDS, Plan, log, not_available
from benchmarks.measure.process import run_short
from benchmarks.measure.queries import Queries
from benchmarks.measure.stats import summary
from benchmarks.measure.workspace import Workspace

NO_CLI_REGEX = "no CLI command for regular expressions (search_in_file is an MCP tool)"


def search_command(ws: Workspace, queries: Queries, kind: str) -> list[str] | None:
    """The `pdfindex search` command answering `kind` (the library's call, as a process);
    None for the regex, which only MCP's search_in_file answers."""
    text = queries.texts[kind]
    if kind in RANKED_KINDS:
        return ws.cli("search", text, "--limit", "10")
    if kind == "exact_one_doc":
        return ws.cli("search", text, "--exact", "--doc", queries.document, "--limit", "10")
    if kind == "exact_all_docs":
        return ws.cli("search", text, "--exact", "--limit", "10")
    return None


def measure_process_search(ws: Workspace, queries: Queries, plan: Plan) -> dict[str, dict]:
    """Per query kind: `plan.process_runs` whole `pdfindex search` processes (wall and
    peak RSS, min/median/max), with this workspace's engine."""
    env = ws.env(plan.workers)
    out: dict[str, dict] = {}
    log(f"whole process ({ws.engine}): `pdfindex search` x{plan.process_runs} per query kind")
    for kind in QUERY_KINDS:
        entry: dict[str, Any] = {}
        cmd = search_command(ws, queries, kind)
        if cmd is None:
            not_available(entry, "process", NO_CLI_REGEX)
            out[kind] = entry
            continue
        runs = [run_short(cmd, env, ok=(0, 1)) for _ in range(plan.process_runs)]
        # As typed by hand: the console script, without the interpreter and the root.
        shown = ["pdfindex", *cmd[3:]]
        root = shown.index("--root")
        del shown[root : root + 2]
        entry["process"] = {
            "command": shlex.join(shown),
            "wall_s": summary([r["wall_s"] for r in runs]),
            "peak_rss_mb": summary([r["peak_rss_mb"] for r in runs], 1),
            "found": runs[-1]["exit_code"] == 0,
        }
        out[kind] = entry
    return out
