"""`python -m benchmarks.exact_ngrams ROOT [FILES_DIR]`: issue 30's exact-search and ranked
prefix/typo cases on an indexed root, in-process, 15 runs each after a warm-up; prints JSON
{case: [matches, p50 ms, best ms]}. Run the code before and after a change on the same
machine, alternating, and compare the best of each: a shared machine is noisy."""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable

DOCUMENT = "generic_pgf_pgfmanual"  # the corpus's longest document (1,321 pages)
RUNS = 15


def main() -> None:
    from pdfindex import PdfIndex, load_settings
    from pdfindex.search.ranked import ranked_search
    from pdfindex.tools.exact import search_pdf

    root = sys.argv[1]
    values = {"files_dir": sys.argv[2]} if len(sys.argv) > 2 else {}
    index = PdfIndex(load_settings(values, root=root))
    index.search("x")

    def exact(query: str) -> Callable[[], int]:
        return lambda: len(index.exact(query)[0])

    def in_document(query: str) -> Callable[[], int]:
        return lambda: len(search_pdf(index, DOCUMENT, query)["matches"])

    def ranked(query: str) -> Callable[[], int]:
        return lambda: ranked_search(index.engine, query, limit=10)[0]

    cases = {
        "exact `Note that`": exact("Note that"),
        "exact `bounding box`": exact("bounding box"),
        "exact `page margins`": exact("page margins"),
        "exact `クラスファイル`": exact("クラスファイル"),
        "exact absent `qzxv wkjp`": exact("qzxv wkjp"),
        "search_pdf `node distance`": in_document("node distance"),
        "search_pdf absent `qzxv wkjp`": in_document("qzxv wkjp"),
        "ranked `con*`": ranked("con*"),
        "ranked `hypenaton~2`": ranked("hypenaton~2"),
        "ranked `margin*`": ranked("margin*"),
    }
    out = {}
    for name, call in cases.items():
        found = call()
        times = []
        for _ in range(RUNS):
            begin = time.perf_counter()
            call()
            times.append((time.perf_counter() - begin) * 1000)
        out[name] = (found, statistics.median(times), min(times))
    print(json.dumps(out, ensure_ascii=False))
    index.close()


if __name__ == "__main__":
    main()
