"""search_in_file skips a page with one whole-page search only when no line of it could
match: the page filter never hides a line match (a property over generated pages)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pdfindex.tools.grep import compile_pattern, page_filter

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
