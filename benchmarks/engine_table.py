"""`python -m benchmarks.engine_table ROOT --engine NAME`: the latency table of issue 11
(rare and common words, phrases of common words, a prefix, a typo, a question, boolean,
exact search, search_pdf and a regex in one long document) on an already indexed root,
in-process, with the process's RSS before and after opening a searcher. `--engine` given
several times measures each engine in turn, one column pair each (the same root).

For a ≥ 40,000-page real corpus: `../shared/tools/make-corpus.sh` (CORPUS=DIR), then
`pdfindex reindex --root ROOT --files-dir DIR/full --engine NAME`, then this. The postgres
engine also takes `--database-url postgresql://…` (or PDFINDEX_DATABASE_URL), in both.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pdfindex import PdfIndex
    from pdfindex.query import Node

QUESTION = "how do I change the page margins of my document"


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument(
        "--engine",
        action="append",
        help="an index engine (repeat for several, side by side; default tantivy)",
    )
    parser.add_argument("--files-dir", type=Path, help="files folder (default ROOT/files)")
    parser.add_argument("--database-url", help="the postgres engine's database")
    parser.add_argument("--document", default="generic_pgf_pgfmanual", help="a long PDF's name")
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument(
        "--questions",
        action="store_true",
        help="also time every query of benchmarks/relevance as the tools read it, once "
        "each after a warm-up pass: one row, p50 and max over the queries",
    )
    args = parser.parse_args()
    engines = args.engine or ["tantivy"]
    tables = [measure(args, engine) for engine in engines]
    head = " | ".join(f"{e} p50 ms | {e} max ms" for e in engines)
    print(f"| query | pages / matches | {head} |")
    print("|---|---:|" + "---:|---:|" * len(engines))
    for row, name in enumerate(name for name, *_ in tables[0][0]):
        counts = {f"{t[0][row][1]:,}" for t in tables}
        cells = " | ".join(f"{t[0][row][2]:.2f} | {t[0][row][3]:.2f}" for t in tables)
        print(f"| {name} | {' / '.join(sorted(counts))} | {cells} |")
    print()
    for engine, (_, rss) in zip(engines, tables, strict=True):
        print(f"RSS ({engine}): {rss}")


def measure(
    args: argparse.Namespace, engine: str
) -> tuple[list[tuple[str, int, float, float]], str]:
    """Each case's count, p50 and max (ms) on `engine`, and what the process's RSS was."""
    started = rss_mb()
    from pdfindex import PdfIndex, load_settings

    values: dict[str, object] = {"engine": engine}
    if args.files_dir:
        values["files_dir"] = args.files_dir
    if args.database_url:
        values["database_url"] = args.database_url
    index = PdfIndex(load_settings(values, root=args.root))
    imported = rss_mb()
    index.search("hyphenation")
    # A lasting process reads the vocabulary in a thread after the first typo of each
    # commit (pdfindex/engine/vocabulary.py): read here, to time the typo as it is then.
    index.engine.similar_terms("hyphenation", 1)
    opened = rss_mb()

    cases, trees = query_cases(index, args.document)
    rows = []
    for name, call in cases:
        found = call()  # warm-up
        times = []
        for _ in range(args.runs):
            begin = time.perf_counter()
            call()
            times.append((time.perf_counter() - begin) * 1000)
        rows.append((name, found, statistics.median(times), max(times)))
        if engine == "postgres" and call in trees:  # postgres: which way it ranked
            how = index.engine.ranking(trees[call], 10).strategy  # type: ignore[attr-defined]
            print(f"{engine}: {name} ranked by {how}")
    if args.questions:
        rows += relevance_queries(index.engine)
    rss = (
        f"{started:.0f} MB before opening, {imported:.0f} MB with the index open, "
        f"{opened:.0f} MB after the first search, {rss_mb():.0f} MB at the end"
    )
    index.close()
    return rows, rss


def query_cases(
    index: PdfIndex, document: str, file: str | None = None
) -> tuple[list[tuple[str, Callable[[], int]]], dict[Callable[[], int], Node]]:
    """The table's cases on `index` (each a name and a call returning its count), and the
    query tree of each ranked one: shared with benchmarks.million."""
    from pdfindex.query import parse
    from pdfindex.search.ranked import ranked_search
    from pdfindex.search.understand import understand
    from pdfindex.tools.exact import search_pdf
    from pdfindex.tools.grep import search_in_file

    trees: dict[Callable[[], int], Node] = {}  # each ranked case's query

    def ranked(text: str, any_word: bool = False) -> Callable[[], int]:
        def call() -> int:
            return ranked_search(index.engine, text, limit=10, any_word=any_word)[0]

        trees[call] = parse(text, any_word=any_word)
        return call

    def asked(text: str) -> Callable[[], int]:
        tree = understand(text)  # function words dropped, stems, coordination (issue 14)

        def call() -> int:
            return ranked_search(index.engine, tree, limit=10)[0]

        trees[call] = tree
        return call

    doc, path = document, file or f"{document}.pdf"
    cases: list[tuple[str, Callable[[], int]]] = [
        ("rare word `hyphenation`", ranked("hyphenation")),
        ("common word `the`", ranked("the")),
        ('`"of the"`', ranked('"of the"')),
        ('`"the name of the"`', ranked('"the name of the"')),
        ('`"Note that"`', ranked('"Note that"')),
        ("prefix `con*`", ranked("con*")),
        ("fuzzy `hypenaton~2`", ranked("hypenaton~2")),
        (
            "boolean `font AND (encoding OR glyph) AND NOT math`",
            ranked("font AND (encoding OR glyph) AND NOT math"),
        ),
        ("question, any word", ranked(QUESTION, any_word=True)),
        ("question, as the tools read it", asked(QUESTION)),
        ("exact, all documents `page margins`", lambda: len(index.exact("page margins")[0])),
        # no required whole word: either end may be part of a longer word (issue 30)
        ("exact, all documents `Note that`", lambda: len(index.exact("Note that")[0])),
        ("exact, all documents `bounding box`", lambda: len(index.exact("bounding box")[0])),
        ("exact, all documents, absent `qzxv wkjp`", lambda: len(index.exact("qzxv wkjp")[0])),
        # Japanese inside runs of text (the corpus's texlive-lang-japanese manuals)
        ("Japanese word `クラスファイル`", ranked("クラスファイル")),
        ("exact, all documents `クラスファイル`", lambda: len(index.exact("クラスファイル")[0])),
        (f"`search_pdf` in {doc}", lambda: len(search_pdf(index, doc, "node distance")["matches"])),
        (
            f"`search_pdf` in {doc}, absent `qzxv wkjp`",
            lambda: len(search_pdf(index, doc, "qzxv wkjp")["matches"]),
        ),
        (
            f"regex `node\\s+distance` in {doc}",
            lambda: search_in_file(index, path, r"node\s+distance")["total_matches"],
        ),
    ]
    return cases, trees


def relevance_queries(engine: object) -> list[tuple[str, int, float, float]]:
    """The relevance set's queries as search_documents reads them, questions and keyword
    lists apart: a spread of real queries rather than one, timed once each."""
    import json

    from pdfindex.search.ranked import ranked_pages
    from pdfindex.search.understand import understand

    folder = Path(__file__).parent / "relevance"
    labelled = [
        json.loads(line)
        for name in ("tuning.jsonl", "heldout.jsonl")
        for line in (folder / name).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    rows = []
    for kind, label in (("question", "questions"), ("keywords", "keyword lists")):
        trees = [understand(item["query"]) for item in labelled if item["kind"] == kind]
        for tree in trees:  # warm-up
            ranked_pages(engine, tree, 10)  # type: ignore[arg-type]
        times = []
        for tree in trees:
            begin = time.perf_counter()
            ranked_pages(engine, tree, 10)  # type: ignore[arg-type]
            times.append((time.perf_counter() - begin) * 1000)
        name = f"{len(trees)} {label} of benchmarks/relevance as the tools read them (p50, max)"
        rows.append((name, len(trees), statistics.median(times), max(times)))
    return rows


if __name__ == "__main__":
    main()
