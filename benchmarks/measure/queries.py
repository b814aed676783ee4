"""What each query kind asks, chosen deterministically from the indexed text itself, so
any corpus gets queries that find something and a run can be repeated by hand."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

from benchmarks.measure.common import WORD, catalog, evenly, pdf_name
from pdfindex.api import PdfIndex


@dataclass
class Queries:
    """What each query kind asks, chosen deterministically from the indexed text."""

    document: str  # search_pdf name (path under files/ without .pdf)
    document_pages: int
    document_path: str
    texts: dict[str, str]
    mixed: list[tuple[str, str]]  # (pdf_name, query) pairs for the load test

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _typo(word: str, positions: list[int]) -> str:
    letters = list(word)
    for pos in positions:
        ch = letters[pos]
        letters[pos] = "e" if ch != "e" else "a"
        if letters[pos] == ch or (pos > 0 and letters[pos - 1] == letters[pos]):
            letters[pos] = "x" if ch != "x" else "z"
    return "".join(letters)


def _line_windows(text: str, size: int) -> list[list[str]]:
    """Runs of `size` plain words (letters only, 3+ characters) within one line."""
    windows = []
    for line in text.splitlines():
        tokens = line.split()
        for i in range(len(tokens) - size + 1):
            run = tokens[i : i + size]
            if all(t.isalpha() and len(t) >= 3 for t in run):
                windows.append(run)
    return windows


def choose_queries(index: PdfIndex, sample_docs: int = 40) -> Queries:
    """Most frequent word, a word on one or two pages, real 2- and 4-word runs from a
    page, typo'd words, a prefix and a boolean query, all from the indexed text."""
    records = [r for r in catalog(index) if r.status == "ok"]
    median_pages = statistics.median(r.pages for r in records)
    doc = min(records, key=lambda r: (abs(r.pages - median_pages), r.path))
    page_freq: Counter[str] = Counter()
    total: Counter[str] = Counter()
    mixed: list[tuple[str, str]] = []
    for record in evenly(records, sample_docs):
        _, pages = index.page_texts(record.path)
        for _number, text in pages:
            words = [w.casefold() for w in WORD.findall(text)]
            total.update(words)
            page_freq.update(set(words))
        middle = pages[len(pages) // 2][1]
        windows = _line_windows(middle, 2)
        if windows and len(mixed) < 16:
            mixed.append((pdf_name(record.path), " ".join(windows[len(windows) // 2])))
    _, doc_pages = index.page_texts(doc.path)
    middle = doc_pages[len(doc_pages) // 2][1]
    fours = _line_windows(middle, 4) or _line_windows(middle, 3) or [["the", "of", "and", "to"]]
    twos = _line_windows(middle, 2) or [fours[0][:2]]
    phrase4 = " ".join(fours[len(fours) // 3])
    phrase2 = " ".join(twos[(2 * len(twos)) // 3])

    alpha = [w for w, _ in sorted(total.items(), key=lambda kv: (-kv[1], kv[0])) if w.isalpha()]
    common = alpha[0]
    mid = [w for w in alpha if len(w) >= 5 and w.isascii()]
    mid = mid[len(mid) // 20 :] or mid or alpha
    fuzzy_base = next((w for w in mid if 6 <= len(w) <= 12), mid[0])
    rare = _rare_word(index, page_freq)
    boolean = (
        f"{mid[0]} AND ({mid[1 % len(mid)]} OR {mid[2 % len(mid)]}) AND NOT {mid[3 % len(mid)]}"
    )
    return Queries(
        document=pdf_name(doc.path),
        document_pages=doc.pages,
        document_path=doc.path,
        texts={
            "common_word": common,
            "rare_word": rare,
            "phrase_2": f'"{phrase2}"',
            "phrase_4": f'"{phrase4}"',
            "fuzzy_1": f"{_typo(fuzzy_base, [2])}~1",
            "fuzzy_2": f"{_typo(fuzzy_base, [2, len(fuzzy_base) - 2])}~2",
            "prefix": f"{fuzzy_base[:3]}*",
            "boolean": boolean,
            "exact_one_doc": phrase2,
            "exact_all_docs": phrase4,
            "regex_one_doc": rf"{phrase2.split()[0]}\s+\w+",
        },
        mixed=mixed or [(pdf_name(doc.path), phrase2)],
    )


def _rare_word(index: PdfIndex, page_freq: Counter[str]) -> str:
    """A word on exactly one or two pages of the whole index (the first that is)."""
    candidates = sorted(w for w, n in page_freq.items() if n == 1 and w.isalpha() and len(w) >= 5)
    best, best_hits = None, None
    for word in evenly(candidates, 60):
        hits, _ = index.search(word, limit=1)
        if hits in (1, 2):
            return word
        if hits and (best_hits is None or hits < best_hits):
            best, best_hits = word, hits
    return best or (candidates[0] if candidates else "the")
