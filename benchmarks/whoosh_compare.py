"""Compare Whoosh packages on pdfindex's own schema: build rate and query latency.

Run it once per package, e.g.:
    python -m benchmarks.whoosh_compare                       # installed whoosh-reloaded
    pip install --target /tmp/w274 --no-deps whoosh==2.7.4
    PYTHONPATH=/tmp/w274:. python -m benchmarks.whoosh_compare
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable

import whoosh

from benchmarks.pdfwriter import lorem_pages
from pdfindex.config import index_settings
from pdfindex.engine import open_engine
from pdfindex.models import FileRecord
from pdfindex.search.exact import exact_search
from pdfindex.search.ranked import ranked_search
from pdfindex.text.index import index_text

PAGES = 3000
PER_DOC = 30


def median_ms(fn: Callable[[], object], runs: int = 30) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 1)


def main() -> None:
    pages = lorem_pages(PAGES, seed=3)
    store = open_engine(index_settings(tempfile.mkdtemp(), "whoosh"))
    start = time.perf_counter()
    with store.writer(timeout=1) as writer:
        for first in range(0, PAGES, PER_DOC):
            chunk = pages[first : first + PER_DOC]
            record = FileRecord(
                path=f"d{first}.pdf",
                slug=f"d{first}",
                title="t",
                pages=len(chunk),
                size=1,
                mtime=0.0,
                sha256="0",
                status="ok",
                error=None,
                indexed_at=0.0,
                extractor="x",
            )
            writer.add_file(record, chunk, [index_text(p) for p in chunk])
    build = time.perf_counter() - start
    queries: dict[str, Callable[[], object]] = {
        "term": lambda: ranked_search(store, "people", 10),
        "phrase": lambda: ranked_search(store, '"of the"', 10),
        "fuzzy~2": lambda: ranked_search(store, "peeple~2", 10),
        "prefix": lambda: ranked_search(store, "pe*", 10),
        "exact, one document": lambda: exact_search(store, "the people", slug="d300", limit=10),
        "exact, all documents": lambda: exact_search(store, "the people", limit=10),
    }
    print(f"whoosh {whoosh.versionstring()} from {whoosh.__file__}")
    print(f"build: {PAGES / build:.0f} pages/s")
    for name, fn in queries.items():
        print(f"{name}: {median_ms(fn)} ms median")
    store.close()


if __name__ == "__main__":
    main()
