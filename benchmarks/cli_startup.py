"""What a person waits for one `pdfindex search` on an indexed root: the whole process
(interpreter, imports, opening the index, the search, printing), and where the imports'
time goes.

python -m benchmarks.cli_startup ROOT [--runs 15] [--query WORD ...] [--out FILE.md]

Runs the installed `pdfindex` console script (the one beside `sys.executable`; `-m
pdfindex` when there is none), so PYTHONPATH chooses which source tree it runs. Each
command runs `--runs` times, the commands taking turns, so a burst of load on a shared
machine hits them all alike; the table gives the median, the 95th percentile and the
fastest run in milliseconds. The processes may write bytecode caches (`__pycache__`),
as an installed package has them: PYTHONDONTWRITEBYTECODE is dropped from their
environment, since compiling pdfindex's sources costs each process ~50 ms more.
`python -c pass` is the floor: the interpreter and its site-packages' `.pth` files, which
no change to pdfindex can remove. The import table is `python -X importtime` of the
first query's search, the median of 3 runs per module.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_QUERIES = ["hyphenation", "page margins", '"font size"']


def pdfindex_command() -> list[str]:
    """The console script users run, else the module."""
    script = Path(sys.executable).parent / "pdfindex"
    if script.exists():
        return [str(script)]
    found = shutil.which("pdfindex")
    return [found] if found else [sys.executable, "-m", "pdfindex"]


def commands(root: Path, queries: list[str]) -> dict[str, list[str]]:
    """Label -> argv, the floor first."""
    base = pdfindex_command()
    table = {"python -c pass": [sys.executable, "-c", "pass"], "pdfindex --help": [*base, "--help"]}
    for query in queries:
        table[f"pdfindex search {query}"] = [*base, "search", query, "--root", str(root)]
    return table


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_once(argv: list[str]) -> float:
    """Wall milliseconds of one whole process; output discarded (not a terminal)."""
    start = time.perf_counter()
    done = subprocess.run(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV, check=False
    )
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode not in (0, 1):  # 1: nothing found, still a whole search
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode(errors='replace')}")
    return elapsed


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def time_commands(table: dict[str, list[str]], runs: int) -> dict[str, list[float]]:
    """Each command `runs` times, taking turns; one unmeasured warm-up round first."""
    for argv in table.values():
        run_once(argv)  # page cache, .pyc files
    times: dict[str, list[float]] = {label: [] for label in table}
    for _ in range(runs):
        for label, argv in table.items():
            times[label].append(run_once(argv))
    return times


def import_costs(argv: list[str], rounds: int = 3) -> tuple[dict[str, float], dict[str, float]]:
    """Module -> median cumulative and self milliseconds under `-X importtime`."""
    if Path(argv[0]).name == "pdfindex":  # the script's own interpreter, with -X
        argv = [sys.executable, "-X", "importtime", "-m", "pdfindex", *argv[1:]]
    else:
        argv = [argv[0], "-X", "importtime", *argv[1:]]
    cumulative: dict[str, list[float]] = {}
    own: dict[str, list[float]] = {}
    for _ in range(rounds):
        done = subprocess.run(argv, capture_output=True, text=True, env=ENV, check=False)
        for line in done.stderr.splitlines():
            if not line.startswith("import time:") or "imported package" in line:
                continue
            parts = line.removeprefix("import time:").split("|")
            if len(parts) != 3 or not parts[0].strip().isdigit():
                continue
            name = parts[2].strip()
            own.setdefault(name, []).append(int(parts[0]) / 1000)
            cumulative.setdefault(name, []).append(int(parts[1]) / 1000)
    return (
        {name: statistics.median(v) for name, v in cumulative.items()},
        {name: statistics.median(v) for name, v in own.items()},
    )


def report(
    root: Path,
    times: dict[str, list[float]],
    imports: tuple[dict[str, float], dict[str, float]],
    top: int,
) -> str:
    """The markdown tables."""
    lines = [
        f"Root: `{root}`; {len(next(iter(times.values())))} runs per command, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the end.",
        "",
        "| command | median ms | p95 ms | min ms |",
        "|---|---:|---:|---:|",
    ]
    for label, values in times.items():
        lines.append(
            f"| `{label}` | {statistics.median(values):.0f} | {percentile(values, 0.95):.0f} "
            f"| {min(values):.0f} |"
        )
    cumulative, own = imports
    lines += [
        "",
        f"Imports of the first search: {len(cumulative)} modules, "
        f"{sum(own.values()):.0f} ms in all (self times summed; `-X importtime` adds its own).",
        "",
        "| module | cumulative ms | self ms |",
        "|---|---:|---:|",
    ]
    ranked = sorted(cumulative.items(), key=lambda item: -item[1])[:top]
    lines += [f"| `{name}` | {ms:.1f} | {own[name]:.1f} |" for name, ms in ranked]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="an indexed project root")
    parser.add_argument("--runs", type=int, default=15, help="runs per command (default 15)")
    parser.add_argument("--query", action="append", help="a query (repeatable)")
    parser.add_argument("--top", type=int, default=20, help="modules in the import table")
    parser.add_argument("--out", type=Path, help="also write the tables to this file")
    args = parser.parse_args()
    queries = args.query or DEFAULT_QUERIES
    table = commands(args.root.resolve(), queries)
    times = time_commands(table, args.runs)
    imports = import_costs(table[f"pdfindex search {queries[0]}"])
    text = report(args.root.resolve(), times, imports, args.top)
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
