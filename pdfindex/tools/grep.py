"""Seed 001's search_in_file: a regular expression over one file's stored text, by line.

Uses the `regex` package for its time limit: a pattern that backtracks catastrophically
is stopped and reported, never left to hang the server.
"""

from __future__ import annotations

import time
from typing import Any

import regex

from pdfindex.api import PdfIndex
from pdfindex.errors import DocumentNotFound, InvalidQuery
from pdfindex.tools.budget import fit
from pdfindex.tools.results import SearchInFileResult

MAX_PATTERN = 1000
TIME_LIMIT = 2.0  # seconds of matching per call


def compile_pattern(pattern: str, case_sensitive: bool) -> regex.Pattern:
    if not pattern:
        raise InvalidQuery("pattern is empty")
    if len(pattern) > MAX_PATTERN:
        raise InvalidQuery(f"pattern has {len(pattern)} characters; the limit is {MAX_PATTERN}")
    flags = regex.VERSION1 if case_sensitive else regex.VERSION1 | regex.IGNORECASE
    try:
        return regex.compile(pattern, flags)
    except regex.error as exc:
        raise InvalidQuery(f"invalid regular expression {pattern!r}: {exc}") from exc


def page_filter(pattern: str, case_sensitive: bool) -> regex.Pattern | None:
    """The pattern over a whole page, to skip pages no line of which can match with one
    search instead of one per line. A match inside a line is a match inside its page, and
    lines end at non-word characters, so this holds for any pattern that does not look at
    line boundaries or around itself: with ^, $, \\A, \\Z, \\z, \\G or a (?...) group
    (lookarounds, flags), None, and every line is searched."""
    if any(mark in pattern for mark in ("(?", "^", "$", "\\A", "\\Z", "\\z", "\\G")):
        return None
    flags = regex.VERSION1 | (0 if case_sensitive else regex.IGNORECASE)
    return regex.compile(pattern, flags)


def search_in_file(
    index: PdfIndex,
    file: str,
    pattern: str,
    context_lines: int = 2,
    case_sensitive: bool = False,
    offset: int = 0,
) -> SearchInFileResult:
    """Every line matching `pattern`, with page, line number within the page, context."""
    compiled = compile_pattern(pattern, case_sensitive)
    _, rel = index.resolve(file)
    record = index.engine.record(rel)
    if record is None:
        raise DocumentNotFound(f"{file!r} is not an indexed file; list_searchable_files shows them")
    matches: list[dict[str, Any]] = []
    deadline = time.monotonic() + TIME_LIMIT
    whole_page = page_filter(pattern, case_sensitive)

    def search(target: regex.Pattern, text: str) -> bool:
        remaining = deadline - time.monotonic()
        try:
            if remaining <= 0:
                raise TimeoutError
            return target.search(text, timeout=remaining) is not None
        except TimeoutError as exc:
            raise InvalidQuery(
                f"pattern {pattern!r} took over {TIME_LIMIT:g} s (catastrophic backtracking?); "
                "simplify it, e.g. avoid nested quantifiers like (a+)+"
            ) from exc

    for page_number, text in enumerate(index.engine.page_texts(record.slug), start=1):
        if whole_page is not None and not search(whole_page, text):
            continue  # no line of this page can match
        lines = text.splitlines()
        for number, line in enumerate(lines, start=1):
            if search(compiled, line):
                matches.append(
                    {
                        "page": page_number,
                        "line_number": number,
                        "content": line,
                        "context_before": lines[max(0, number - 1 - context_lines) : number - 1],
                        "context_after": lines[number : number + context_lines],
                    }
                )
    kept, truncated = fit(matches[offset:], index.settings.max_response_chars)
    result: dict[str, Any] = {"file": record.path, "matches": kept, "total_matches": len(matches)}
    if truncated:
        result.update(truncated=True, next_offset=offset + len(kept))
    return result
