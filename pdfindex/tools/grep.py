"""Seed 001's search_in_file: a regular expression over one file's stored text, by line.

Uses the `regex` package for its time limit: a pattern that backtracks catastrophically
is stopped and reported, never left to hang the server.
"""

from __future__ import annotations

import bisect
import itertools
import time
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import Any

import regex

from pdfindex import deadline
from pdfindex.api import PdfIndex
from pdfindex.errors import InvalidQuery
from pdfindex.models import FileRecord
from pdfindex.search.regexsize import MAX_SIZE, compiled_size
from pdfindex.search.regexwords import looks_around, required_pieces, required_words
from pdfindex.tools.budget import fit, items_budget
from pdfindex.tools.names import find_document, readable
from pdfindex.tools.results import SearchInFileResult

MAX_PATTERN = 1000
CACHED_PATTERN = 200  # characters and compiled items of a pattern kept compiled
PageLines = tuple[int, str, int]  # page number, its text, lines of the pages before it
Span = tuple[int, int]  # a match's start and end
NO_MATCH = (-1, -1)
TIME_LIMIT = 2.0  # seconds of matching per call
SCAN_RATE = 1_000_000  # characters/s the regex engine reads at least, unless it backtracks


def compile_pattern(pattern: str, case_sensitive: bool) -> regex.Pattern:
    if not pattern:
        raise InvalidQuery("pattern is empty")
    if len(pattern) > MAX_PATTERN:
        raise InvalidQuery(f"pattern has {len(pattern)} characters; the limit is {MAX_PATTERN}")
    size = compiled_size(pattern)
    if size > MAX_SIZE:
        raise InvalidQuery(
            f"pattern: its counted repeats such as {{n}} unroll to {size:,} items when "
            f"compiled; the limit is {MAX_SIZE:,} (a range such as {{1,n}} is not unrolled)"
        )
    flags = regex.VERSION1 if case_sensitive else regex.VERSION1 | regex.IGNORECASE
    try:
        return _compiled(pattern, flags)
    except regex.error as exc:
        raise InvalidQuery(f"invalid regular expression {pattern!r}: {exc}") from exc


def page_filter(pattern: str, case_sensitive: bool) -> regex.Pattern | None:
    """The pattern over a whole page, to skip pages no line of which can match with one
    search instead of one per line. A match inside a line is a match inside its page, and
    lines end at non-word characters, so this holds for any pattern that does not look at
    line boundaries or around itself: with ^, $, \\A, \\Z, \\z, \\G or a (?...) group
    (lookarounds, flags), None, and every line is searched."""
    if looks_around(pattern):
        return None
    flags = regex.VERSION1 | (0 if case_sensitive else regex.IGNORECASE)
    return _compiled(pattern, flags)


def _compiled(pattern: str, flags: int) -> regex.Pattern:
    """A pattern compiled, kept for the next calls when it is short (compiling took a call
    ~1 ms): regex's own cache would keep hostile ones too (issue 31)."""
    if len(pattern) <= CACHED_PATTERN and compiled_size(pattern) <= CACHED_PATTERN:
        return _kept(pattern, flags)
    return regex.compile(pattern, flags, cache_pattern=False)


@lru_cache(maxsize=32)
def _kept(pattern: str, flags: int) -> regex.Pattern:
    return regex.compile(pattern, flags, cache_pattern=False)


def _pages_with_matches(
    whole_page: regex.Pattern,
    texts: list[str],
    joined: str,
    search: Callable[[regex.Pattern, str, int], Span],
) -> set[int]:
    """The pages (0-based) where a match of `whole_page` starts, found in one pass over
    `joined` (the pages joined by line breaks) instead of one search call per page.
    After a match the search goes on from the next page's start, so a match running
    across a page break cannot hide one inside the next page; such a page is kept too,
    which is harmless: its lines are searched one by one."""
    starts = list(itertools.accumulate((len(text) + 1 for text in texts), initial=0))
    found: set[int] = set()
    position = 0
    while position < len(joined):
        start = search(whole_page, joined, position)[0]
        if start < 0:
            break
        page = bisect.bisect_right(starts, start) - 1
        found.add(page)
        position = starts[page + 1]
    return found


def _hopeful_lines(
    whole_page: regex.Pattern, text: str, spans: Callable[..., Iterator[Span]]
) -> Iterable[tuple[int, bool]]:
    """Line numbers (1-based) of `text` where a match of `whole_page` starts, searching
    the page from line to line instead of each of its lines. A line that matches on its
    own is a place the page matches too, so the leftmost match from any earlier line
    start lies at or before it: no matching line is skipped. Lines as splitlines() makes
    them (all lines, when the two disagree). A page without a match costs one search.
    `spans(pattern, text, position)`: the matches from `position` on, in order.

    With each, whether it surely matches: the page's match lies inside the line, and the
    pattern looks at nothing outside its match but at word boundaries, where a line's
    break and a string's end look alike (page_filter refuses the rest). The line need not
    be searched again (76 of the 186 searches of `node\\s+distance` in pgfmanual)."""
    if not _other_breaks(text):  # lines end at \n only: count them where needed
        yield from _hopeful_lf_lines(whole_page, text, spans)
        return
    start, stop = next(spans(whole_page, text, 0), NO_MATCH)
    if start < 0:
        return
    count = len(text.splitlines())
    starts = [0] + [found.end() for found in _LINE_BREAK.finditer(text)]
    if starts[-1] == len(text) and len(starts) > 1:
        starts.pop()  # a final line break ends the last line, it starts no new one
    if len(starts) != count:
        yield from ((number, False) for number in range(1, count + 1))
        return
    while start >= 0:
        number = bisect.bisect_right(starts, start)
        yield number, _LINE_BREAK.search(text, start, stop) is None
        if number >= count:
            return
        start, stop = next(spans(whole_page, text, starts[number]), NO_MATCH)


def _hopeful_lf_lines(
    whole_page: regex.Pattern, text: str, spans: Callable[..., Iterator[Span]]
) -> Iterator[tuple[int, bool]]:
    """_hopeful_lines of a page whose lines end at \\n only, from one pass of matches: a
    search call per line cost more than the matching (`node\\s+distance` in 34 pages of
    pgfmanual: 0.63 ms, one pass 0.25). The pass starts again at the next line's start
    where a match runs past its line's break, whether its line was found by it or before
    (a match starting before its end would be hidden), and after SAME_LINE matches more
    in a line already found (`\\w+`: a search from the next line costs less than every
    word)."""
    count = text.count("\n") + (1 if text and text[-1] != "\n" else 0)  # splitlines()'s
    position, number, line_start = 0, 1, 0  # the line counted last and where it starts
    while True:
        passed = 0
        for start, stop in spans(whole_page, text, position):
            if start < position:  # in the line found last
                if stop > position:  # into the next line: a match there may be hidden
                    break  # (`\w+\W+\w+` over `a b c\nd e`: `c\nd` hid `d e`)
                passed += 1
                if passed <= SAME_LINE:
                    continue
                break
            number += text.count("\n", line_start, start)
            if number > count:  # an empty match after the last line break: no line
                return
            end = text.find("\n", start)  # the end of the line this match starts in
            yield number, end < 0 or stop <= end
            if end < 0:
                return
            number, line_start = number + 1, end + 1
            position, passed = end + 1, 0
            if stop > position:  # it ran into the next line: search again from there
                break
        else:
            return


SAME_LINE = 2  # matches passed over in a line already found before searching from the next


_LINE_BREAK = regex.compile("\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _line_counter(joined: str) -> Callable[[str], int]:
    """len(text.splitlines()) for each of these pages, without building their lines when
    \n is their only line break (stored text: extract/text.py drops \r and the other
    controls splitlines() also breaks at; U+2028 and U+2029 are looked for once)."""
    if _other_breaks(joined):
        return lambda text: len(text.splitlines())
    return lambda text: text.count("\n") + (1 if text and text[-1] != "\n" else 0)


_OTHER_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # where splitlines() breaks but at \n


def _other_breaks(text: str) -> bool:
    """Whether `text` holds a line break other than \\n: a look for each (0.5 µs a page of
    2,300 characters, where a regex of them scanned it in 5.8)."""
    return any(char in text for char in _OTHER_BREAKS)


def _narrowed(index: PdfIndex, record: FileRecord, pattern: str) -> Iterator[PageLines] | None:
    """The pages the index says can hold a match (they have every word the pattern
    requires), with the lines of the pages before each from the catalog record, so the
    other pages are never read; None when the pattern requires no word or the record
    predates its line counts."""
    counts = record.page_lines
    if counts is None or len(counts) != record.pages:
        return None
    words, starts, pieces = _required(pattern)
    if not words and not starts:
        return None
    found = index.engine.candidates(
        slug=record.slug, terms=list(words), prefixes=list(starts), pieces=list(pieces) or None
    )
    before = list(itertools.accumulate(counts, initial=0))
    # Read as the search goes: the request's time limit is checked between pages.
    return ((ref.page, found.text(ref), before[ref.page - 1]) for ref in found.refs)


@lru_cache(maxsize=32)
def _required(pattern: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The words, word starts and pieces (`node\\s+distance`: pages with `node distance`)
    every match of `pattern` holds, parsed once for the next calls (0.03 ms a call)."""
    words, starts = required_words(pattern)
    return tuple(words), tuple(starts), tuple(required_pieces(pattern))


def _every_page(
    texts: list[str], whole_page: regex.Pattern | None, find: Callable[..., int]
) -> Iterable[PageLines]:
    """Every page that can hold a match (all of them without a page filter), with the
    lines of the pages before it, counted from the texts."""
    joined = "\n".join(texts)
    hopeful = _pages_with_matches(whole_page, texts, joined, find) if whole_page else None
    line_count = _line_counter(joined)
    lines_before = 0  # lines of the earlier pages: the file is its pages, one after another
    for page_number, text in enumerate(texts, start=1):
        if hopeful is None or page_number - 1 in hopeful:
            yield page_number, text, lines_before
        lines_before += line_count(text)


def out_of_time(
    pattern: str, record: FileRecord, reached: list[int], spent: float, chars: int
) -> str:
    """Why matching ran out of TIME_LIMIT, `reached` = [page, characters of text up to
    its end]. One search call that took most of it on a text the regex engine reads in a
    blink (SCAN_RATE) is the pattern backtracking; time spent over many quick calls, or
    on a long text, is the amount of text."""
    if spent >= TIME_LIMIT / 2 and chars < spent * SCAN_RATE:
        return (
            f"pattern {pattern!r} took over {TIME_LIMIT:g} s on {chars:,} characters "
            "(catastrophic backtracking); simplify it, e.g. avoid nested quantifiers like "
            "(a+)+ and overlapping alternatives like (a|aa)+"
        )
    page, text = reached
    where = (
        f"at page {page} of {record.pages}, after {text / 1e6:.1f} MB of text"
        if page
        else f"while finding which of its {record.pages} pages match"
    )
    return (
        f"matching {pattern!r} ran out of its {TIME_LIMIT:g} s on a file of "
        f"{record.size / 1e6:.1f} MB (stopped {where}): the time went on the amount of "
        "text, not on the pattern; narrow the pattern so that fewer lines "
        "match (a word the file holds lets the index read only the pages that have it), "
        "or search a smaller file"
    )


def search_in_file(
    index: PdfIndex,
    file: str,
    pattern: str,
    context_lines: int = 2,
    case_sensitive: bool = False,
    offset: int = 0,
) -> SearchInFileResult:
    """Every line matching `pattern`, with its line number in the file (seed 001), its
    page and line number within that page, and context lines."""
    compiled = compile_pattern(pattern, case_sensitive)
    record = readable(find_document(index, file))
    matches: list[dict[str, Any]] = []
    stop_at = time.monotonic() + TIME_LIMIT  # the pattern's own limit
    whole_page = page_filter(pattern, case_sensitive)
    reached = [0, 0]  # the page being searched and the characters up to its end

    def spans(target: regex.Pattern, text: str, position: int = 0) -> Iterator[Span]:
        """Where each match at or after `position` starts and ends, in order, as long as
        the pattern's time lasts."""
        started = time.monotonic()
        try:
            if stop_at <= started:
                raise TimeoutError
            for found in target.finditer(text, position, timeout=stop_at - started):
                yield found.span()
        except TimeoutError as exc:
            spent = time.monotonic() - started
            why = out_of_time(pattern, record, reached, spent, len(text) - position)
            raise InvalidQuery(why) from exc

    def find(target: regex.Pattern, text: str, position: int = 0) -> Span:
        """Where the first match at or after `position` starts and ends; (-1, -1) when
        there is none."""
        return next(spans(target, text, position), NO_MATCH)

    pages = _narrowed(index, record, pattern) if whole_page else None
    if pages is None:
        pages = _every_page(index.engine.page_texts(record.slug), whole_page, find)
    for page_number, text, before in pages:
        deadline.check()  # a page at a time: a request past its limit stops here
        reached[0], reached[1] = page_number, reached[1] + len(text)
        numbers = list(_hopeful_lines(whole_page, text, spans)) if whole_page else None
        if numbers == []:
            continue  # no line of this page matches
        lines = text.splitlines()
        if numbers is None:
            numbers = [(number, False) for number in range(1, len(lines) + 1)]
        for number, sure in numbers:
            line = lines[number - 1]
            if sure or find(compiled, line)[0] >= 0:
                matches.append(
                    {
                        "page": page_number,
                        "line_number": before + number,
                        "line_in_page": number,
                        "content": line,
                        "context_before": lines[max(0, number - 1 - context_lines) : number - 1],
                        "context_after": lines[number : number + context_lines],
                    }
                )
    kept, truncated = fit(matches[offset:], items_budget(index.settings.max_response_chars))
    result: dict[str, Any] = {"file": record.path, "matches": kept, "total_matches": len(matches)}
    if truncated:
        result.update(truncated=True, next_offset=offset + len(kept))
    return result
