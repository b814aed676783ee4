"""Every line of the library as a candidate, for fuzzy_search's fzf and regex modes.

The index narrows first: fzf mode reads only pages that hold every character of each
positive term (one regular expression per term over the lowered page: the term's
characters in order), then only the lines it finds, and scores those with fzf's rule
(`fzf.py`), unless a bound of their score says they cannot rank among those kept.
Regex mode reads only pages holding the words the pattern requires (the narrowing
`search_in_file` uses), as rga would find them. Line numbers count through the whole
file (seed 001, as rga does), from each file's stored line counts per page.

Only the lines an answer can show are kept, and a scan of the whole library stops at
SCAN_SHARE of the request's time and says how far it got.
"""

from __future__ import annotations

import heapq
import itertools
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pdfindex import deadline
from pdfindex.api import PdfIndex
from pdfindex.engine import PageCandidates
from pdfindex.errors import InvalidQuery
from pdfindex.models import PageRef
from pdfindex.search.regexwords import required_pieces, required_words
from pdfindex.tools import fzf
from pdfindex.tools.grep import TIME_LIMIT, compile_pattern, page_filter


@dataclass
class Line:
    file: str
    page: int
    line_number: int  # through the whole file
    line_in_page: int
    content: str
    lines: list[str]  # the page's lines, for the preview


class Numbering:
    """Lines of the pages before each page, per file (the catalog's counts, or counted
    from the file's stored pages when the record predates them)."""

    def __init__(self, index: PdfIndex) -> None:
        self.index = index
        self.before: dict[str, list[int]] = {}

    def first_line(self, path: str, page: int) -> int:
        if path not in self.before:
            record = self.index.engine.record(path)
            counts = record.page_lines if record else None
            if record and (counts is None or len(counts) != record.pages):
                counts = [len(t.splitlines()) for t in self.index.engine.page_texts(record.slug)]
            self.before[path] = list(itertools.accumulate(counts or [], initial=0))
        before = self.before[path]
        return before[page - 1] if page - 1 < len(before) else 0


T = TypeVar("T")

# A scan of every line of the library stops at this share of the request's time left and
# answers with what it found (a million pages are more than a time limit can read).
SCAN_SHARE = 0.7


class Best(Generic[T]):
    """The `keep` items of least key among all offered, and how many were offered: the
    matching lines of a whole library ranked without holding them all."""

    def __init__(self, keep: int) -> None:
        self.keep = max(0, keep)
        self.total = 0
        self._heap: list[_Kept[T]] = []

    def admits(self, key: tuple[Any, ...]) -> bool:
        """Count one more item; True when it ranks among the kept (then `add` it)."""
        self.total += 1
        return self.ranks(key)

    def ranks(self, key: tuple[Any, ...]) -> bool:
        """Whether an item of `key` would be kept now."""
        return len(self._heap) < self.keep or bool(self._heap) and key < self._heap[0].key

    def add(self, key: tuple[Any, ...], item: T) -> None:
        if len(self._heap) < self.keep:
            heapq.heappush(self._heap, _Kept(key, item))
        else:
            heapq.heapreplace(self._heap, _Kept(key, item))

    def ranked(self) -> list[T]:
        return [kept.item for kept in sorted(self._heap, key=lambda kept: kept.key)]


@dataclass
class _Kept(Generic[T]):
    key: tuple[Any, ...]
    item: T

    def __lt__(self, other: _Kept[T]) -> bool:  # the heap's root is the worst kept
        return self.key > other.key


@dataclass
class Scan:
    """How far a scan of the library's lines got before answering."""

    pages: int = 0  # pages read
    stopped: bool = False  # the request's time ran short: only those pages were searched
    stop_at: float | None = field(default_factory=lambda: deadline.soft_stop(SCAN_SHARE))

    def next_page(self) -> bool:
        """False when the scan should answer now; raises past the request's limit."""
        deadline.check()
        if self.stop_at is not None and self.pages and time.monotonic() >= self.stop_at:
            self.stopped = True
            return False
        self.pages += 1
        return True


def fzf_lines(
    index: PdfIndex, query: str, scope: str | None, wanted: Callable[[str], bool], keep: int
) -> tuple[list[tuple[int, Line]], int, Scan]:
    """The `keep` best lines fzf would keep for `query` (extended syntax), as `fzf
    --filter` ranks them (score, then length, then library order: path, page, line), how
    many lines match, and how far the scan got."""
    sets = fzf.parse(query)
    if not sets:
        raise InvalidQuery("query has nothing to match")
    needs = [re.compile(p) for p in fzf.narrowing(sets)]
    numbering = Numbering(index)
    best: Best[tuple[int, Line]] = Best(keep)
    sortable = fzf.sortable(sets)
    capped = fzf.score_bound(sets)
    scan = Scan()
    for ref, text in pages(index.engine.candidates(path=scope), wanted, scan):
        folded = text.lower()
        if any(not need.search(folded) for need in needs):
            continue
        lines = text.splitlines()
        hopeful: set[int] | None = None
        for need in needs:
            hits = _hit_lines(need, folded)
            hopeful = hits if hopeful is None else hopeful & hits
            if not hopeful:
                break
        first = numbering.first_line(ref.path, ref.page)
        for number in sorted(hopeful) if hopeful is not None else range(len(lines)):
            content, at = lines[number], (ref.path, ref.page, number)  # library order
            if capped is not None and content.isascii():
                # Most lines cannot rank among the kept: their bound says so without
                # scoring them (fzf's matrix, in Python, is most of a scan's time).
                most = fzf.bound(content.lower(), capped)
                if most is None or not best.admits(fzf.rank_key(most, content, at)):
                    continue
                score = fzf.score_line(content, sets)
                assert score is not None
                assert score <= most
                key = fzf.rank_key(score, content, at)
                if not best.ranks(key):
                    continue
            else:
                score = fzf.score_line(content, sets)
                if score is None:
                    continue
                key = fzf.rank_key(score, content, at) if sortable else at
                if not best.admits(key):
                    continue
            line = Line(ref.path, ref.page, first + number + 1, number + 1, content, lines)
            best.add(key, (score, line))
    return best.ranked(), best.total, scan


def pages(
    found: PageCandidates, wanted: Callable[[str], bool], scan: Scan
) -> Iterator[tuple[PageRef, str]]:
    """The candidates of a wanted path in order, with their texts, while `scan` goes on;
    then what reading them held is let go of."""
    try:
        for ref in found.refs:
            if not wanted(ref.path):
                continue
            if not scan.next_page():
                return
            yield ref, found.text(ref)
    finally:
        found.finished()


def _hit_lines(need: re.Pattern[str], folded: str) -> set[int]:
    """Lines (0-based, by \\n) where `need` matches; after a hit the search goes on at the
    next line, so a page costs at most one search per matching line."""
    hits: set[int] = set()
    position = line = 0
    while True:
        found = need.search(folded, position)
        if found is None:
            return hits
        line += folded.count("\n", position, found.start())
        hits.add(line)
        position = folded.find("\n", found.start()) + 1
        if position == 0:
            return hits
        line += 1


def smart_case(pattern: str) -> bool:
    """rg --smart-case: case-sensitive when the pattern has an upper-case letter."""
    return pattern != pattern.lower()


def regex_lines(
    index: PdfIndex, pattern: str, scope: str | None, wanted: Callable[[str], bool], keep: int
) -> tuple[list[Line], int, Scan]:
    """The first `keep` lines matching `pattern` in library order, as `rga --smart-case
    PATTERN` prints them, how many lines match, and how far the scan got."""
    case_sensitive = smart_case(pattern)
    compiled = compile_pattern(pattern, case_sensitive)
    whole_page = page_filter(pattern, case_sensitive)
    words, starts = required_words(pattern) if whole_page else ([], [])
    pieces = required_pieces(pattern) if whole_page else []
    found = index.engine.candidates(
        path=scope, terms=words or None, prefixes=starts or None, pieces=pieces or None
    )
    numbering = Numbering(index)
    stop_at = time.monotonic() + TIME_LIMIT

    def matches(target: object, text: str) -> bool:
        left = stop_at - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            return target.search(text, timeout=left) is not None  # type: ignore[attr-defined]
        except TimeoutError as exc:
            raise InvalidQuery(
                f"pattern {pattern!r} ran out of its {TIME_LIMIT:g} s over the library: "
                "narrow it (a word it requires lets the index read only pages that have it) "
                "or give a path"
            ) from exc

    kept: list[Line] = []
    total = 0
    scan = Scan()
    for ref, text in pages(found, wanted, scan):
        if whole_page is not None and not matches(whole_page, text):
            continue
        lines = text.splitlines()
        first = numbering.first_line(ref.path, ref.page)
        for number, line in enumerate(lines):
            if matches(compiled, line):
                total += 1
                if len(kept) < keep:
                    kept.append(
                        Line(ref.path, ref.page, first + number + 1, number + 1, line, lines)
                    )
    return kept, total, scan
