"""search_in_file skips a page with one whole-page search only when no line of it could
match: the page filter never hides a line match (a property over generated pages); the
index words a pattern requires are on every page it matches (a property too), and a
search that reads only those pages finds what a scan of every line finds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from pdfindex.api import PdfIndex
from pdfindex.search.regexwords import required_pieces, required_words
from pdfindex.text.index import index_text
from pdfindex.text.substrings import plain_form
from pdfindex.text.words import words
from pdfindex.tools.grep import (
    _hopeful_lines,
    _line_counter,
    _narrowed,
    _pages_with_matches,
    compile_pattern,
    page_filter,
    search_in_file,
)

WORDS = ["node", "distance", "Node", "dist", "a", "aa", "x1", "_y", "née", "ǅz"]
SEPARATORS = ["\n", "\r\n", "\r", "\x0c", "\x0b", "\u2028", " ", "  ", "\t", "-", "-\n", " \u00a0"]
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
    r"a*",  # matches the empty string, after the last line break too
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


def _find(target: Any, text: str, position: int = 0) -> tuple[int, int]:
    found = target.search(text, position)
    return (-1, -1) if found is None else found.span()


def _spans(target: Any, text: str, position: int = 0) -> Iterator[tuple[int, int]]:
    return (found.span() for found in target.finditer(text, position))


@settings(max_examples=300, deadline=None)
# a match running into the next line, which holds one of its own that starts before its end
@example(
    pages=[[("node", "\n"), ("a", " "), ("aa", "")]], pattern=r"\w+\W+\w+", case_sensitive=True
)
# the same from a match passed over in a line already found (`node\nnode` hid `node node`)
@example(
    pages=[[("node", " "), ("node", " "), ("node", "\n"), ("node", " "), ("node", "\n")]],
    pattern=r"\w+\W+\w+",
    case_sensitive=False,
)
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
        found = list(_hopeful_lines(whole_page, text, _spans))
        assert [n for n, _ in found if line_pattern.search(lines[n - 1])] == expected
        # a line said to match surely does, searched on its own
        assert all(line_pattern.search(lines[n - 1]) for n, sure in found if sure)


NARROWED = [
    r"node\s+distance",
    r" node ",
    r"node[ \t]dist",
    r"(no)de\s+x1",
    r"a\s+aa-",
    r"colou?r\s+node",
    r"_y\s+née",
    r"x1{1,2}\s+a",
    r"[-\s]+node\s",
    r"Node\s*distance",
    r"(node|a)\s+dist",
    r"node\s+a\s+x1",
    r"e\s+\s+d",
    r"aa[ \t]+node",
]


@settings(max_examples=400, deadline=None)
@example(parts=[("Node", ""), ("distance", " ")], pattern=r"Node\s*distance", case_sensitive=False)
@example(parts=[("a", " "), ("node", "_y ")], pattern=r" node ", case_sensitive=True)
@given(
    parts=st.lists(
        st.tuples(st.sampled_from(WORDS), st.sampled_from([*SEPARATORS, ""])), max_size=12
    ),
    pattern=st.sampled_from(NARROWED + PATTERNS),
    case_sensitive=st.booleans(),
)
def test_every_page_a_pattern_matches_holds_the_words_it_requires(
    parts: list[tuple[str, str]], pattern: str, case_sensitive: bool
) -> None:
    """What the index holds of a page (casefolded \\w+ words of its index text): each
    required word, and a word starting with each required start, whenever a line matches."""
    page = "".join(word + separator for word, separator in parts)
    line_pattern = compile_pattern(pattern, case_sensitive)
    if not any(line_pattern.search(line) for line in page.splitlines()):
        return
    held = set(words(index_text(page)))
    whole, starts = required_words(pattern)
    assert set(whole) <= held, (page, pattern)
    for start in starts:
        assert any(word.startswith(start) for word in held), (page, pattern, start)
    for piece in required_pieces(pattern):  # what n-gram engines narrow by
        assert piece in plain_form(page), (page, pattern, piece)


def test_required_words_of_patterns() -> None:
    assert required_words(r"node\s+distance") == ([], ["distance"])
    assert required_words(r"\\usepackage\{geometry\}") == (["geometry", "usepackage"], [])
    assert required_words(r"(node|edge) of") == ([], ["of"])
    assert required_words(r"node\s*distance") == ([], [])  # nothing may stand between
    for unsure in (r"node", r"^ node ", r"(?i) node ", r" x{e<=1} ", r"[[a-z]--[q]] node "):
        assert required_words(unsure) == ([], []), unsure
        assert required_pieces(unsure) == [], unsure


def test_required_pieces_of_patterns() -> None:
    assert required_pieces(r"Node\s+distance") == ["node distance"]
    assert required_pieces(r"a[ \t]+b\s\s+c") == ["a b c"]
    assert required_pieces(r"node\s*distance") == []  # nothing may stand between
    assert required_pieces(r"(node)\s+x") == []  # cut at what it cannot see into
    assert required_pieces(r"node distance") == ["node distance"]


def _every_line(index: PdfIndex, slug: str, pattern: str) -> list[tuple[int, int, int, str]]:
    """(page, line in file, line in page, line) of each matching line: a scan of them all."""
    line_pattern = compile_pattern(pattern, False)
    found, before = [], 0
    for page, text in enumerate(index.engine.page_texts(slug), start=1):
        lines = text.splitlines()
        for number, line in enumerate(lines, start=1):
            if line_pattern.search(line):
                found.append((page, before + number, number, line))
        before += len(lines)
    return found


def test_a_search_of_the_pages_the_index_names_equals_a_scan_of_every_line(
    indexed: PdfIndex,
) -> None:
    record = indexed.engine.record("large.pdf")
    assert record is not None
    assert record.page_lines is not None
    assert len(record.page_lines) == record.pages == 320
    vocabulary = sorted(set(words(indexed.engine.page_texts(record.slug)[7])))
    rare, common = vocabulary[len(vocabulary) // 3], vocabulary[-1]
    patterns = [rf"\s{rare}\s", rf"{common}\s+\w+", rf"{rare}\W", r"marker\s+p00[12]", "page"]
    for pattern in patterns:
        result = search_in_file(indexed, "large.pdf", pattern, context_lines=0)
        got = [
            (m["page"], m["line_number"], m["line_in_page"], m["content"])
            for m in result["matches"]
        ]
        assert got == _every_line(indexed, record.slug, pattern)[: len(got)], pattern
        assert result["total_matches"] == len(_every_line(indexed, record.slug, pattern))
    narrowed = _narrowed(indexed, record, r"marker\s+p001")
    assert narrowed is not None
    assert 0 < len(list(narrowed)) < record.pages
