"""Where a query's time goes on a big Tantivy root (benchmarks.million's analysis): the
raw Tantivy search of a ranked query (counting its matches or not) against the engine's
`ranked`, and the candidates that exact search reads. CPU time of this process, p50 of 7
after a warm-up (the machine is shared: wall time holds the waits for a core).

    python -m benchmarks.million_diag ROOT [--document SLUG]

It reaches into the Tantivy engine's private searcher and schema on purpose: the point
is to tell Tantivy's own cost from pdfindex's around it. Not part of the tests.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tantivy import Occur, Query

from benchmarks.million import settings_for
from pdfindex.api import PdfIndex
from pdfindex.engine.tantivy.compiler import compile_query
from pdfindex.query import parse

RANKED = ("hyphenation", "the", '"of the"', '"the name of the"', "con*")


def cpu_ms(call: Callable[[], Any], runs: int = 7) -> float:
    call()
    times = []
    for _ in range(runs):
        begin = time.process_time()
        call()
        times.append((time.process_time() - begin) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--document", default="copy00000_generic_pgf_pgfmanual")
    args = parser.parse_args()
    index = PdfIndex(settings_for(args.root, "tantivy", None))
    engine: Any = index.engine
    searcher = engine._searcher()
    print(f"documents {searcher.num_docs:,}, segments {engine.segment_count()}")
    for text in RANKED:
        compiled = compile_query(parse(text), engine._schema, {"content": 1.0}, stems=True)
        query = Query.boolean_query(
            [(Occur.Must, compiled), (Occur.Must, engine._term("kind", "page"))]
        )
        counted = cpu_ms(lambda q=query: searcher.search(q, limit=10, count=True))
        uncounted = cpu_ms(lambda q=query: searcher.search(q, limit=10, count=False))
        ranked = cpu_ms(lambda t=text: engine.ranked(parse(t), 10))
        print(
            f"{text}: Tantivy top 10 {counted:.1f} ms counted, {uncounted:.1f} ms not; "
            f"engine.ranked {ranked:.1f} ms"
        )
    phrase = engine.candidates(phrases=[["page", "margins"]])
    print(
        f"candidates of the phrase `page margins`: {len(phrase.refs):,} pages, "
        f"{cpu_ms(lambda: engine.candidates(phrases=[['page', 'margins']])):.1f} ms; "
        f"of one document: {cpu_ms(lambda: engine.candidates(slug=args.document)):.1f} ms; "
        f"exact `page margins` over all documents: "
        f"{cpu_ms(lambda: index.exact('page margins')):.1f} ms"
    )
    index.close()


if __name__ == "__main__":
    main()
