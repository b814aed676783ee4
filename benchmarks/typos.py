"""`python -m benchmarks.typos ROOT [--typos 300] [--seed 5]`: a typo's words on a Tantivy
index (issue 30, sixth session), measured and checked:

- the vocabulary: words, time to read them and to build their character pairs, the
  arrays' size;
- `Vocabulary.within` for random typos of the index's own words (an edit or two:
  insert, delete, replace, swap) against comparing the typo with every word of a near
  length: p50/p95 ms each way, and how many answers differ (none should);
- `engine.ranked` of each typo with its words from the vocabulary and with Tantivy's
  automaton: how many differ in total, pages or scores (none should), and p50 ms of
  both for a few.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from pdfindex import PdfIndex, load_settings
from pdfindex.engine.vocabulary import Vocabulary, within
from pdfindex.query import Fuzzy

TIMED = ["hypenaton", "documnet", "exmaple", "intergral", "bondingbox"]  # distance 2


def typo(rng: random.Random, word: str) -> str:
    """`word` with up to two edits of the kinds a typo makes."""
    letters = list(word)
    for _ in range(rng.randint(0, 2)):
        at = rng.randint(0, len(letters))
        edit, letter = rng.choice("idrs"), rng.choice("aeiourstn")
        if edit == "i":
            letters.insert(at, letter)
        elif edit == "d" and len(letters) > 1:
            del letters[min(at, len(letters) - 1)]
        elif edit == "r":
            letters[min(at, len(letters) - 1)] = letter
        elif at + 1 < len(letters):
            letters[at], letters[at + 1] = letters[at + 1], letters[at]
    return "".join(letters)


def p50_p95(times: list[float]) -> str:
    ordered = sorted(times)
    return f"{statistics.median(ordered):.2f} / {ordered[int(len(ordered) * 0.95)]:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("root", type=Path)
    parser.add_argument("--files-dir", type=Path)
    parser.add_argument("--typos", type=int, default=300)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    values = {"files_dir": args.files_dir} if args.files_dir else {}
    index = PdfIndex(load_settings(values, root=args.root))
    engine = index.engine
    searcher = engine._searcher()  # type: ignore[attr-defined]

    begin = time.perf_counter()
    words = [word for word, _ in searcher.terms_with_prefix("content", "", limit=None)]
    read_s = time.perf_counter() - begin
    begin = time.perf_counter()
    vocabulary = Vocabulary(words, narrowed=True)
    build_s = time.perf_counter() - begin
    pairs = vocabulary._pairs
    arrays = [pairs._lengths, pairs._starts, pairs._owners, pairs._pair_starts, pairs._pairs]  # type: ignore[union-attr]
    size_mb = (sum(a.nbytes for a in arrays) + len(vocabulary._utf8)) / 1e6
    print(
        f"| vocabulary | {len(words):,} words | read {read_s:.2f} s | pairs built {build_s:.2f} s "
        f"| {size_mb:.1f} MB |\n"
    )

    by_length: dict[int, list[str]] = {}
    for word in words:
        by_length.setdefault(len(word), []).append(word)
    rng = random.Random(args.seed)
    cases = [(typo(rng, rng.choice(words)), rng.choice([1, 2])) for _ in range(args.typos)]
    cases = [(text, distance) for text, distance in cases if text]
    narrowed, scanned, differ = [], [], 0
    for text, distance in cases:
        begin = time.perf_counter()
        found = vocabulary.within(text, distance)
        narrowed.append((time.perf_counter() - begin) * 1000)
        near = [
            w
            for n in range(len(text) - distance, len(text) + distance + 1)
            for w in by_length.get(n, [])
        ]
        begin = time.perf_counter()
        expected = within(near, text, distance)
        scanned.append((time.perf_counter() - begin) * 1000)
        differ += found != expected
    print("| typo's words | p50 / p95 ms | answers that differ |")
    print("|---|---:|---:|")
    print(f"| narrowed by pairs ({len(cases)} typos) | {p50_p95(narrowed)} | {differ} |")
    print(f"| every word of a near length | {p50_p95(scanned)} | |\n")

    engine._vocabulary.get(searcher, engine._generation())  # type: ignore[attr-defined]
    typos = engine._typos  # type: ignore[attr-defined]

    def automaton(_searcher: object, _generation: int) -> object:
        return lambda _word, _distance: None

    def ranked(query: Fuzzy, with_words: bool) -> object:
        engine._typos = typos if with_words else automaton  # type: ignore[attr-defined]
        try:
            return engine.ranked(query, 10)
        finally:
            engine._typos = typos  # type: ignore[attr-defined]

    differ = 0
    queries = [Fuzzy(text, distance) for text, distance in cases if len(text) > 1]
    for query in queries:
        got, want = ranked(query, True), ranked(query, False)
        same = got.total == want.total and [  # type: ignore[attr-defined]
            (h.path, h.page, h.score)
            for h in got.hits  # type: ignore[attr-defined]
        ] == [(h.path, h.page, h.score) for h in want.hits]  # type: ignore[attr-defined]
        differ += not same
    print(
        f"ranked with the vocabulary's words and with the automaton: {len(queries)} typos, "
        f"{differ} differ (total, pages or scores)\n"
    )
    print("| engine.ranked, distance 2 | words p50 ms | automaton p50 ms |")
    print("|---|---:|---:|")
    for text in TIMED:
        query = Fuzzy(text, 2)
        times: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(9):
            for with_words in (True, False):
                begin = time.perf_counter()
                ranked(query, with_words)
                times[with_words].append((time.perf_counter() - begin) * 1000)
        print(
            f"| `{text}~2` | {statistics.median(times[True]):.2f} "
            f"| {statistics.median(times[False]):.2f} |"
        )
    index.close()


if __name__ == "__main__":
    main()
