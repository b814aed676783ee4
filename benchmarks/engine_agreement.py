"""`python -m benchmarks.engine_agreement --tantivy ROOT --whoosh ROOT --files-dir DIR`:
how alike the engines rank plain word queries on the same corpus (issue 11: "ranked
results agree on their top hits"): same top page, each top page in the other's first
three, and the overlap of their first ten pages."""

from __future__ import annotations

import argparse
import random
from pathlib import Path

WORDS = (
    "hyphenation margin font table figure caption package option command environment "
    "bibliography citation index glossary color graphics section chapter footnote theorem "
    "equation matrix align tikz node arrow page header footer layout column list item "
    "enumerate verbatim listing code language babel unicode encoding kerning ligature spacing"
).split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tantivy", type=Path, required=True, help="root indexed by tantivy")
    parser.add_argument("--whoosh", type=Path, required=True, help="root indexed by whoosh")
    parser.add_argument("--files-dir", type=Path, required=True)
    args = parser.parse_args()
    from pdfindex import PdfIndex, load_settings
    from pdfindex.search.ranked import ranked_search

    indexes = [
        PdfIndex(load_settings({"engine": name, "files_dir": args.files_dir}, root=root))
        for name, root in (("tantivy", args.tantivy), ("whoosh", args.whoosh))
    ]
    rng = random.Random(1)
    queries = WORDS + [" ".join(rng.sample(WORDS, 2)) for _ in range(40)]
    same = in_three = same_total = 0
    overlaps = []
    for query in queries:
        (total_a, hits_a), (total_b, hits_b) = (
            ranked_search(index.engine, query, limit=10) for index in indexes
        )
        same_total += total_a == total_b
        first = [(hit.path, hit.page) for hit in hits_a]
        second = [(hit.path, hit.page) for hit in hits_b]
        if not first or not second:
            continue
        same += first[0] == second[0]
        in_three += first[0] in second[:3] and second[0] in first[:3]
        overlaps.append(len(set(first) & set(second)) / max(len(first), len(second)))
    compared = len(overlaps)
    print(
        f"{compared} queries with hits: same top page {same}/{compared}, each top page in "
        f"the other's first three {in_three}/{compared}, top-10 overlap "
        f"{sum(overlaps) / compared:.2f} on average (min {min(overlaps):.2f}); same total "
        f"{same_total}/{len(queries)}"
    )
    for index in indexes:
        index.close()


if __name__ == "__main__":
    main()
