"""`python -m benchmarks.exact_order ROOT [--files-dir DIR] [--rounds 5] [--runs 9]`:
exact search over a whole Tantivy library with its candidates ordered by the files'
places (pdfindex.engine.tantivy.places) and by the text key `<path>\\0<page>` (what an
index without places falls back to), in turns in one process on the same index; the
matches are checked to be the same. Prints a Markdown table: median of the rounds' p50
(ms), the fastest round in brackets (issue 30, seventh session).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

from pdfindex import PdfIndex, load_settings

QUERIES = [
    "page margins",
    "Note that",
    "bounding box",
    "クラスファイル",
    "for example",
    "qzxv wkjp",
]


class _Unplaced:
    """Stands in for the engine's per-generation answer to "has every file a place?"."""

    def get(self, *_: Any) -> bool:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--files-dir", type=Path, help="files folder (default ROOT/files)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    values: dict[str, object] = {"engine": "tantivy"}
    if args.files_dir:
        values["files_dir"] = args.files_dir
    index = PdfIndex(load_settings(values, root=args.root))
    engine: Any = index.engine
    index.search("hyphenation")
    placed = engine._placed
    if not placed.get(engine._searcher(), engine.generation()):
        raise SystemExit("a file of this index has no place: it is ordered by the text key")
    times: dict[tuple[str, str], list[float]] = {}
    found: dict[tuple[str, str], list[tuple[str, int, int]]] = {}
    for _round in range(args.rounds):
        for way in ("text key", "places"):
            engine._placed = _Unplaced() if way == "text key" else placed
            for query in QUERIES:
                index.exact(query)  # warm-up
                taken = []
                for _ in range(args.runs):
                    begin = time.perf_counter()
                    matches = index.exact(query)[0]
                    taken.append((time.perf_counter() - begin) * 1000)
                times.setdefault((query, way), []).append(statistics.median(taken))
                found[(query, way)] = [(m.path, m.page, m.start) for m in matches]
    engine._placed = placed
    print("| exact, all documents | text key | places |")
    print("|---|---:|---:|")
    for query in QUERIES:
        if found[(query, "text key")] != found[(query, "places")]:
            raise SystemExit(f"{query!r}: the two orders found different matches")
        cells = [times[(query, way)] for way in ("text key", "places")]
        shown = " | ".join(f"{statistics.median(t):.2f} ({min(t):.2f})" for t in cells)
        print(f"| `{query}` | {shown} |")
    index.close()


if __name__ == "__main__":
    main()
