"""`python -m benchmarks.postgres_narrowing ROOT [--files-dir DIR]`: the postgres engine's
two ways of reading less (issue 30), each timed with and without, in turns in one
process, the answers checked equal:

- exact search over all documents with and without the query's bridges
  (`pdfindex.engine.postgres.grams.bridges`);
- ranked phrases bounded by all their words' postings or by their rarer words'
  (`pdfindex.engine.postgres.postings.rarest_words`).

ROOT is an indexed project root whose `pdfindex.toml` (or PDFINDEX_DATABASE_URL) names the
database. Prints a Markdown table: the median of the rounds' p50 in ms, each round's in
brackets.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

EXACT = ["page margins", "Note that", "bounding box", "for example", "the name of the"]
PHRASES = ['"the name of the"', '"Note that"', '"of the"', '"bounding box"']


def timed(call: Callable[[], Any], runs: int) -> tuple[float, Any]:
    """(p50 in ms, the last answer)."""
    answer = call()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        answer = call()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), answer


def in_turns(
    name: str,
    call: Callable[[], Any],
    without: Callable[[], None],
    with_: Callable[[], None],
    rounds: int,
    runs: int,
) -> str:
    """A table row: `call` timed without the change and with it, round after round."""
    pairs = []
    for _ in range(rounds):
        without()
        before, answer_before = timed(call, runs)
        with_()
        after, answer_after = timed(call, runs)
        if answer_before != answer_after:
            raise SystemExit(f"{name}: the answers differ with and without the change")
        pairs.append((before, after))

    def cell(side: int) -> str:
        values = [pair[side] for pair in pairs]
        each = " / ".join(f"{value:.2f}" for value in values)
        return f"{statistics.median(values):.2f} ({each})"

    return f"| {name} | {cell(0)} | {cell(1)} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--files-dir", type=Path, help="files folder (default ROOT/files)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    from pdfindex import PdfIndex, load_settings
    from pdfindex.engine.postgres import grams, postings
    from pdfindex.query import parse

    values: dict[str, object] = {"engine": "postgres"}
    if args.files_dir:
        values["files_dir"] = args.files_dir
    index = PdfIndex(load_settings(values, root=args.root))
    real_bridges, spread = grams.bridges, postings.BOUND_SPREAD

    def no_bridges() -> None:
        grams.bridges = lambda _plain: set()

    def bridges() -> None:
        grams.bridges = real_bridges

    print("| exact, all documents | without bridges ms | with bridges ms |")
    print("|---|---:|---:|")
    for query in EXACT:

        def exact(query: str = query) -> list[tuple[str, int, int]]:
            return [(m.path, m.page, m.start) for m in index.exact(query)[0]]

        print(in_turns(f"`{query}`", exact, no_bridges, bridges, args.rounds, args.runs))
    bridges()

    def all_words() -> None:
        postings.BOUND_SPREAD = 10**12

    def rarer_words() -> None:
        postings.BOUND_SPREAD = spread

    print()
    print("| ranked phrase | all words' postings ms | rarer words' ms |")
    print("|---|---:|---:|")
    for text in PHRASES:
        tree = parse(text)

        def ranked(tree: Any = tree) -> list[tuple[str, int, float]]:
            found = index.engine.ranking(tree, 10)  # type: ignore[attr-defined]
            return [(hit.path, hit.page, hit.score) for hit in found.pages.hits]

        print(in_turns(f"`{text}`", ranked, all_words, rarer_words, args.rounds, args.runs))
    rarer_words()
    index.close()


if __name__ == "__main__":
    main()
