"""`python -m benchmarks.query_splits ROOT [--rounds 5] [--runs 15]`: Tantivy's two
cheaper query forms of issue 30's fifth session, each timed on and off in turns in one
process (what a noisy machine does to one, it does to the other):

- a broad prefix alone, `con*`: ranked by its commonest words and counted by the prefix
  apart (`compiler.broad_prefix`), or as one query that scores every page it matches;
- a question as the tools read it: coordination bonuses found from each word's stem alone
  (`compiler._Compiler.matching`), or from the word and its stem;
- a typo, `hypenaton~2` (sixth session): matched as its words, found from the
  vocabulary's character pairs (`engine._typos`), or by Tantivy's automaton over each
  segment's words.

Each is `ranked_search` as the tools call it (snippets included); the table gives the
median over rounds of each round's p50, in ms, and the fastest round's."""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from benchmarks.million import latency
from pdfindex import PdfIndex, load_settings
from pdfindex.engine.tantivy import compiler
from pdfindex.engine.tantivy import engine as tantivy_engine
from pdfindex.search.ranked import ranked_search
from pdfindex.search.understand import understand

QUESTION = "how do I change the page margins of my document"


@contextmanager
def replaced(owner: Any, name: str, value: Any) -> Iterator[None]:
    """`owner.name` is `value` inside: the code as it was before the change."""
    kept = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, kept)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    index = PdfIndex(load_settings({}, root=args.root))
    tree = understand(QUESTION)
    cases = [
        (
            "prefix `con*`",
            lambda: ranked_search(index.engine, "con*", limit=10),
            lambda: replaced(tantivy_engine, "broad_prefix", lambda *_args: None),
        ),
        (
            "question, as the tools read it",
            lambda: ranked_search(index.engine, tree, limit=10),
            lambda: replaced(compiler._Compiler, "matching", lambda _s, _n, compiled: compiled),
        ),
        (
            "typo `hypenaton~2`",
            lambda: ranked_search(index.engine, "hypenaton~2", limit=10),
            lambda: replaced(index.engine, "_typos", lambda *_args: lambda _w, _d: None),
        ),
    ]
    index.engine.similar_terms("hyphenation", 1)  # the vocabulary a lasting process reads
    print("| query | now p50 ms (fastest round) | before (fastest round) |")
    print("|---|---:|---:|")
    for name, call, before in cases:
        now, then = [], []
        for _ in range(args.rounds):
            with nullcontext():
                now.append(latency(call, args.runs)["p50_ms"])
            with before():
                then.append(latency(call, args.runs)["p50_ms"])
        print(
            f"| {name} | {statistics.median(now):.2f} ({min(now):.2f}) "
            f"| {statistics.median(then):.2f} ({min(then):.2f}) |"
        )
    index.close()


if __name__ == "__main__":
    main()
