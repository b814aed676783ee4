"""What a person waits for one `pdfindex search` on an indexed root: the whole process
(interpreter, imports, opening the index, the search, printing), and where the imports'
time goes.

python -m benchmarks.cli_startup ROOT [--runs 15] [--query WORDS ...] [--files-dir DIR]
    [--tree LABEL=SOURCE_DIR ...] [--resident] [--out FILE.md]

Runs the installed `pdfindex` console script (the one beside `sys.executable`; `-m
pdfindex` when there is none), with PYTHONPATH choosing which source tree it runs: the
current one, or each `--tree` (e.g. `--tree before=/tmp/old-checkout --tree after=.`),
so two versions are compared under the same load. Each command runs `--runs` times, all
commands and trees taking turns, so a burst of load on a shared machine hits them all
alike. The table gives the wall-clock median, 95th percentile and fastest run, and the
median CPU time (user + system) of the process, which a busy machine inflates less than
the wall clock. The processes may write bytecode caches (`__pycache__`), as an installed
package has them: PYTHONDONTWRITEBYTECODE is dropped from their environment, since
compiling pdfindex's sources costs each process ~50 ms more. `python -c pass` is the
floor: the interpreter and its site-packages' `.pth` files, which no change to pdfindex
can remove. The import table is `python -X importtime` of the first query's search
(each tree's), the fastest of 5 runs per module (the least disturbed by other load).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from pdfindex.quick import OPT_OUT

DEFAULT_QUERIES = ["hyphenation", "page margins", '"font size"']
BASE_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def pdfindex_command() -> list[str]:
    """The console script users run, else the module."""
    script = Path(sys.executable).parent / "pdfindex"
    if script.exists():
        return [str(script)]
    found = shutil.which("pdfindex")
    return [found] if found else [sys.executable, "-m", "pdfindex"]


def commands(root: Path, queries: list[str], extra: list[str]) -> dict[str, list[str]]:
    """Label -> argv, the floor first."""
    base = pdfindex_command()
    table = {"python -c pass": [sys.executable, "-c", "pass"], "pdfindex --help": [*base, "--help"]}
    for query in queries:
        argv = [*base, "search", query, "--root", str(root), *extra]
        table[f"pdfindex search {query}"] = argv
    return table


def tree_env(source: str | None) -> dict[str, str]:
    """The environment that makes the processes run the source tree `source` (None: as
    this process finds pdfindex): it comes first on PYTHONPATH."""
    env = dict(BASE_ENV)
    if source is not None:
        paths = [str(Path(source).resolve()), *filter(None, [env.get("PYTHONPATH")])]
        env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall ms, CPU ms) of one whole process; output discarded (not a terminal)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd="/"
    )  # not the current folder: `-m pdfindex` would run the source tree found there
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    if done.returncode not in (0, 1):  # 1: nothing found, still a whole search
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode(errors='replace')}")
    return wall, cpu


def check_resident(argv: list[str], env: dict[str, str]) -> None:
    """Stop unless a resident process answers this search (pdfindex.quick)."""
    asks = f"from pdfindex.quick import handed_over; print(handed_over({argv[1:]!r}))"
    done = subprocess.run([sys.executable, "-c", asks], capture_output=True, text=True, env=env)
    if done.stdout.strip().splitlines()[-1:] in ([], ["None"]):
        raise SystemExit(f"no resident process answers {argv[1:]}: start `pdfindex watch` first")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


Runs = dict[tuple[str, str], list[tuple[float, float]]]  # (tree, command) -> (wall, cpu)


def time_commands(table: dict[str, list[str]], trees: dict[str, dict[str, str]], runs: int) -> Runs:
    """Each command of each tree `runs` times, taking turns; an unmeasured round first
    (page cache, bytecode caches)."""
    for env in trees.values():
        for argv in table.values():
            run_once(argv, env)
    times: Runs = {(tree, label): [] for label in table for tree in trees}
    for _ in range(runs):
        for label, argv in table.items():
            for tree, env in trees.items():
                times[tree, label].append(run_once(argv, env))
    return times


def import_costs(
    argv: list[str], env: dict[str, str], rounds: int = 5
) -> tuple[dict[str, float], dict[str, float]]:
    """Module -> fastest cumulative and self milliseconds under `-X importtime`."""
    if Path(argv[0]).name == "pdfindex":  # the script's own interpreter, with -X
        argv = [sys.executable, "-X", "importtime", "-m", "pdfindex", *argv[1:]]
    else:
        argv = [argv[0], "-X", "importtime", *argv[1:]]
    cumulative: dict[str, list[float]] = {}
    own: dict[str, list[float]] = {}
    for _ in range(rounds):
        done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd="/")
        for line in done.stderr.splitlines():
            parts = line.removeprefix("import time:").split("|")
            if not line.startswith("import time:") or not parts[0].strip().isdigit():
                continue  # the header, or the program's own output
            name = parts[2].strip()
            own.setdefault(name, []).append(int(parts[0]) / 1000)
            cumulative.setdefault(name, []).append(int(parts[1]) / 1000)
    return (
        {name: min(v) for name, v in cumulative.items()},
        {name: min(v) for name, v in own.items()},
    )


def report(
    root: Path,
    times: Runs,
    imports: dict[str, tuple[dict[str, float], dict[str, float]]],
    runs: int,
    top: int,
) -> str:
    """The markdown tables."""
    many = len(imports) > 1
    lines = [
        f"Root: `{root}`; {runs} runs per command, {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.2f} at the end.",
        "",
        f"| command |{' tree |' if many else ''} median ms | p95 ms | min ms | CPU ms |",
        f"|---|{'---|' if many else ''}---:|---:|---:|---:|",
    ]
    for (tree, label), values in times.items():
        wall = [w for w, _ in values]
        cpu = statistics.median(c for _, c in values)
        column = f" {tree} |" if many else ""
        lines.append(
            f"| `{label}` |{column} {statistics.median(wall):.0f} | {percentile(wall, 0.95):.0f}"
            f" | {min(wall):.0f} | {cpu:.0f} |"
        )
    for tree, (cumulative, own) in imports.items():
        lines += [
            "",
            f"Imports of the first search{f' ({tree})' if many else ''}: {len(own)} modules, "
            f"{sum(own.values()):.0f} ms of self time in all (fastest of 5 runs each; "
            "`-X importtime` adds its own).",
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
    parser.add_argument("--files-dir", help="passed to pdfindex (a root without files/)")
    parser.add_argument(
        "--tree", action="append", default=[], help="LABEL=DIR: a source tree (repeatable)"
    )
    parser.add_argument(
        "--resident",
        action="store_true",
        help="compare each search answered by a running `pdfindex watch` of the root (start "
        "one first, with the same flags) with the same search in its own process "
        "(PDFINDEX_RESIDENT=0)",
    )
    parser.add_argument("--top", type=int, default=20, help="modules in each import table")
    parser.add_argument("--out", type=Path, help="also write the tables to this file")
    args = parser.parse_args()
    queries = args.query or DEFAULT_QUERIES
    extra = ["--files-dir", args.files_dir] if args.files_dir else []
    table = commands(args.root.resolve(), queries, extra)
    pairs = [tree.split("=", 1) for tree in args.tree]
    trees = {label: tree_env(source) for label, source in pairs} or {"": tree_env(None)}
    if args.resident:
        check_resident(table[f"pdfindex search {queries[0]}"], tree_env(None))
        trees = {"resident": tree_env(None), "own process": {**tree_env(None), OPT_OUT: "0"}}
    times = time_commands(table, trees, args.runs)
    first = table[f"pdfindex search {queries[0]}"]
    imports = {tree: import_costs(first, env) for tree, env in trees.items()}
    text = report(args.root.resolve(), times, imports, args.runs, args.top)
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
