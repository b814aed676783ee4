"""search_in_file skips a page with one whole-page search only when no line of it could
match: the page filter never hides a line match (a property over generated pages)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pdfindex.tools.grep import (
    _hopeful_lines,
    _line_counter,
    _pages_with_matches,
    compile_pattern,
    page_filter,
)

WORDS = ["node", "distance", "Node", "dist", "a", "aa", "x1", "_y", "née", "ǅz"]
SEPARATORS = ["\n", "\r\n", "\r", "\x0c", "\x0b", "\u2028", " ", "  ", "\t", "-"]
PATTERNS = [
    r"node",
    r"node\s+distance",
    r"\bnode\b",
    r"\Bode",
    r"n.de",
    r"[a-z]+\s[A-Z]",
    r"\w+\W+\w+",
    r"a|aa",
    r"x\d",
    r"e$",
    r"^d",
    r"(?<!a)a",
    r"[^a]a",
    r"\s",
    r"é",
]


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)), max_size=12),
    pattern=st.sampled_from(PATTERNS),
    case_sensitive=st.booleans(),
)
def test_the_page_filter_never_hides_a_matching_line(
    parts: list[tuple[str, str]], pattern: str, case_sensitive: bool
) -> None:
    page = "".join(word + separator for word, separator in parts)
    line_pattern = compile_pattern(pattern, case_sensitive)
    any_line = any(line_pattern.search(line) for line in page.splitlines())
    whole_page = page_filter(pattern, case_sensitive)
    if whole_page is None:
        assert any(mark in pattern for mark in ("^", "$", "(?"))
    elif any_line:
        assert whole_page.search(page) is not None, (page, pattern)


def _find(target: Any, text: str, position: int = 0) -> int:
    found = target.search(text, position)
    return -1 if found is None else found.start()


@settings(max_examples=300, deadline=None)
@given(
    pages=st.lists(
        st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)), max_size=10),
        max_size=5,
    ),
    pattern=st.sampled_from(PATTERNS),
    case_sensitive=st.booleans(),
)
def test_matching_lines_and_line_numbers_equal_a_line_by_line_scan(
    pages: list[list[tuple[str, str]]], pattern: str, case_sensitive: bool
) -> None:
    """The one pass over the joined pages and the line-to-line search of a page find
    exactly the lines a search of every line finds, and the line counts are splitlines'."""
    texts = ["".join(word + separator for word, separator in parts) for parts in pages]
    line_pattern = compile_pattern(pattern, case_sensitive)
    whole_page = page_filter(pattern, case_sensitive)
    if whole_page is None:
        return
    joined = "\n".join(texts)
    hopeful = _pages_with_matches(whole_page, texts, joined, _find)
    count = _line_counter(joined)
    for number, text in enumerate(texts):
        lines = text.splitlines()
        assert count(text) == len(lines)
        expected = [n for n, line in enumerate(lines, start=1) if line_pattern.search(line)]
        if expected:
            assert number in hopeful
        found = _hopeful_lines(whole_page, text, len(lines), _find)
        assert [n for n in found if line_pattern.search(lines[n - 1])] == expected
