"""Every line of the library as a candidate, for fuzzy_search's fzf and regex modes.

The index narrows first: fzf mode reads only pages that hold every character of each
positive term (one `in` test per character on the stored, casefolded page), then only
the lines one regular expression per term finds (the term's characters in order), and
scores those with fzf's rule (`fzf.py`). Regex mode reads only pages holding the words
the pattern requires (the narrowing `search_in_file` uses), as rga would find them.
Line numbers count through the whole file (seed 001, as rga does), from each file's
stored line counts per page.
"""

from __future__ import annotations

import bisect
import itertools
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pdfindex import deadline
from pdfindex.api import PdfIndex
from pdfindex.errors import InvalidQuery
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


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def fzf_lines(
    index: PdfIndex, query: str, scope: str | None, wanted: Callable[[str], bool]
) -> list[tuple[int, Line]]:
    """Lines fzf would keep for `query` (extended syntax), best first as `fzf --filter`
    ranks them: score, then length, then library order (path, page, line)."""
    sets = fzf.parse(query)
    if not sets:
        raise InvalidQuery("query has nothing to match")
    needs = [re.compile(p) for p in fzf.narrowing(sets)]
    chars = {c for p in fzf.narrowing_chars(sets) for c in p}
    found = index.engine.candidates(path=scope)
    numbering = Numbering(index)
    scored: list[tuple[int, int, Line]] = []
    order = 0
    for ref in found.refs:
        if not wanted(ref.path):
            continue
        deadline.check()  # a page at a time: a request past its limit stops here
        text = found.text(ref)
        folded = fzf.normalize(text.lower())
        if any(c not in folded for c in chars):
            order += text.count("\n") + 1
            continue
        lines = text.splitlines()
        hopeful: set[int] | None = None
        if needs:
            starts = _line_starts(folded)
            for need in needs:
                hits = _hit_lines(need, folded, starts)
                hopeful = hits if hopeful is None else hopeful & hits
                if not hopeful:
                    break
        first = numbering.first_line(ref.path, ref.page)
        for number in sorted(hopeful) if hopeful is not None else range(len(lines)):
            score = fzf.score_line(lines[number], sets)
            if score is not None:
                at = first + number + 1
                line = Line(ref.path, ref.page, at, number + 1, lines[number], lines)
                scored.append((score, order + number, line))
        order += len(lines)
    if fzf.sortable(sets):
        scored.sort(key=lambda s: fzf.rank_key(s[0], s[2].content, s[1]))
    return [(score, line) for score, _, line in scored]


def _hit_lines(need: re.Pattern[str], folded: str, starts: list[int]) -> set[int]:
    """Lines (0-based) where `need` matches; after a hit the search goes on at the next
    line, so a page costs at most one search per matching line."""
    hits: set[int] = set()
    position = 0
    while True:
        found = need.search(folded, position)
        if found is None:
            return hits
        number = bisect.bisect_right(starts, found.start()) - 1
        hits.add(number)
        if number + 1 >= len(starts):
            return hits
        position = starts[number + 1]


def smart_case(pattern: str) -> bool:
    """rg --smart-case: case-sensitive when the pattern has an upper-case letter."""
    return pattern != pattern.lower()


def regex_lines(
    index: PdfIndex, pattern: str, scope: str | None, wanted: Callable[[str], bool]
) -> Iterator[Line]:
    """Lines matching `pattern` in library order, as `rga --smart-case PATTERN` prints them."""
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

    for ref in found.refs:
        if not wanted(ref.path):
            continue
        deadline.check()
        text = found.text(ref)
        if whole_page is not None and not matches(whole_page, text):
            continue
        lines = text.splitlines()
        first = numbering.first_line(ref.path, ref.page)
        for number, line in enumerate(lines):
            if matches(compiled, line):
                yield Line(ref.path, ref.page, first + number + 1, number + 1, line, lines)
