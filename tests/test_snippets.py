"""Snippets show the match (issue 28, item 4): a phrase's snippet holds the phrase, a
query's snippet the window with the most distinct query words. Checked against the
stored text of real generated PDFs, with brute force over every window as the oracle."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pdfindex.api import PdfIndex
from pdfindex.query import Phrase
from pdfindex.search.snippets import (
    LEAD,
    WIDTH,
    Unit,
    _casefolded,
    _scanned,
    _shared_lead,
    _terms_pattern,
    best_window,
    flattened,
    phrase_units,
    snippet,
    term_units,
)
from pdfindex.text.index import JOINABLE, index_word_spans
from pdfindex.text.words import word_spans, words
from tests import pdfgen
from tests.conftest import make_settings

VOCABULARY = (
    "page margins header footer geometry layout column float figure table caption "
    "font size style number list item section chapter index entry note the of and"
).split()
REACH = WIDTH - LEAD  # the window a snippet is chosen by (the rest is context before it)
MARK = re.compile(r"\*\*(.+?)\*\*")


def _page(rng: random.Random) -> str:
    """A page of random vocabulary words, in lines a PDF line holds."""
    chosen = [rng.choice(VOCABULARY) for _ in range(rng.randint(60, 160))]
    return "\n".join(" ".join(chosen[i : i + 10]) for i in range(0, len(chosen), 10))


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Iterator[PdfIndex]:
    root: Path = tmp_path_factory.mktemp("snippets")
    rng = random.Random(28)
    (root / "files").mkdir()
    pdfgen.write_pdf(root / "files" / "words.pdf", [_page(rng) for _ in range(12)])
    opened = PdfIndex(make_settings(root))
    opened.reindex()
    yield opened
    opened.close()


def _stored_pages(index: PdfIndex) -> list[str]:
    return [text for _, text in index.page_texts("words", None)[1]]


def _holds_in_order(found: list[str], wanted: list[str]) -> bool:
    return any(found[i : i + len(wanted)] == wanted for i in range(len(found)))


def _marked_words(shown: str) -> set[str]:
    return {word for mark in MARK.findall(shown) for word in words(mark)}


def _most_distinct(text: str, wanted: set[str], reach: int = REACH) -> int:
    """Brute force: the most distinct wanted words wholly inside any window of `reach`
    characters of the flattened text, over every window start."""
    flat = " ".join(text.split())
    found = [(s, e, w) for w, s, e in word_spans(flat) if w in wanted]
    return max(
        len({w for s, e, w in found if s >= start and e <= start + reach})
        for start in range(max(1, len(flat) - reach + 1))
    )


# -- against the stored text of a real index ---------------------------------------------


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_every_phrase_snippet_contains_the_phrase(index: PdfIndex, data: st.DataObject) -> None:
    pages = _stored_pages(index)
    page = words(pages[data.draw(st.integers(0, len(pages) - 1), label="page")])
    length = data.draw(st.integers(2, 4), label="length")
    at = data.draw(st.integers(0, len(page) - length), label="at")
    phrase = page[at : at + length]
    total, hits = index.search('"' + " ".join(phrase) + '"', limit=20)
    assert total >= 1
    for hit in hits:
        marks = [words(mark) for mark in MARK.findall(hit.snippet)]
        assert any(_holds_in_order(mark, phrase) for mark in marks), (phrase, hit.snippet)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    chosen=st.lists(st.sampled_from(VOCABULARY[:22]), min_size=2, max_size=4, unique=True),
    any_word=st.booleans(),
)
def test_a_query_snippet_holds_the_most_distinct_query_words(
    index: PdfIndex, chosen: list[str], any_word: bool
) -> None:
    query = (" OR " if any_word else " ").join(chosen)
    _, hits = index.search(query, limit=5)
    for hit in hits:
        best = _most_distinct(hit.text, set(chosen))
        assert len(_marked_words(hit.snippet) & set(chosen)) >= best, (query, hit.snippet)


def test_the_issue_s_phrase_is_shown_not_the_first_lone_words(tmp_path: Path) -> None:
    """The issue's case: `"page margins"` showed the page's first **page** words."""
    text = (
        "Put the number on the page. If you add page numbers, the page style decides "
        "where they go. " + "Filler words that say little at all. " * 8 + "Finally, "
        "the effective page margins are set by the geometry package, page by page."
    )
    pdfgen.write_pdf(tmp_path / "files" / "layout.pdf", [text])
    pdfgen.write_hyphenated_pdf(
        tmp_path / "files" / "split.pdf", "how page", "margins", 4, "are set " * 40
    )
    index = PdfIndex(make_settings(tmp_path))
    try:
        index.reindex()
        _, hits = index.search('"page margins"')
    finally:
        index.close()
    shown = {hit.path: hit.snippet for hit in hits}
    assert "the effective **page margins** are set" in shown["layout.pdf"]
    assert "**page**" not in shown["layout.pdf"]  # a word of the phrase alone is not marked
    # A phrase the index matched across a line-end hyphen (`marg-\nins`) is marked too.
    assert shown["split.pdf"].startswith("how **page marg- ins** are set")


# -- the rule on its own -----------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    text=st.lists(st.sampled_from(["a", "b", "c", "d", "a.", "B", "xx"]), min_size=2, max_size=300),
    data=st.data(),
)
def test_a_phrase_found_in_any_text_is_marked_whole(text: list[str], data: st.DataObject) -> None:
    page = "".join(word + data.draw(st.sampled_from([" ", "\n", " \t\r\n  "])) for word in text)
    found = words(page)
    length = data.draw(st.integers(2, min(4, len(found))))
    at = data.draw(st.integers(0, len(found) - length))
    phrase = found[at : at + length]
    shown = snippet(page, set(phrase), [Phrase(tuple(phrase))], width=60)
    assert any(_holds_in_order(words(mark), phrase) for mark in MARK.findall(shown)), shown


PIECES = ["a", "b", "ab", "Straße", "STRASSE", "日", "本", "marg", "ins", "x_y", "e.g."]
GAPS = [" ", "\n", "-\n", "- \n  ", "  \t", ", ", "", "\u00ad\n", "\r\n"]


@settings(max_examples=400, deadline=None)
@given(
    pieces=st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from(GAPS)), max_size=60),
    lead=st.sampled_from(["", " ", "\n\n  "]),
    data=st.data(),
)
def test_phrase_units_equal_a_scan_of_the_page_s_words(
    pieces: list[tuple[str, str]], lead: str, data: st.DataObject
) -> None:
    """The regex over the joined page (issue 30) finds the occurrences the scan of its word
    list finds, at the same places: hyphens at line ends, CJK, ß, whitespace runs. Where a
    line-end join holds several words (`a-\\n日`), the scan places each over the whole join,
    the regex on the word's own characters."""
    page = lead + "".join(word + gap for word, gap in pieces)
    found = [word for word, _, _ in index_word_spans(page)]
    if len(found) < 2:
        return
    length = data.draw(st.integers(2, min(4, len(found))))
    at = data.draw(st.integers(0, len(found) - length))
    phrase = [Phrase(tuple(found[at : at + length]))]
    found_units, scanned = sorted(phrase_units(page, phrase)), sorted(_scanned(page, phrase))
    cased = _casefolded(" ".join(page.split()))  # as snippet() hands it over
    assert sorted(phrase_units(page, phrase, cased)) == found_units
    assert len(found_units) == len(scanned)
    for unit, whole in zip(found_units, scanned, strict=True):
        assert unit.key == whole.key
        assert whole.start <= unit.start < unit.end <= whole.end
        if not JOINABLE.search(page):  # no line-end joins: each word at its own place
            flat = " ".join(page.split())  # where the snippet cuts and marks
            assert flat[unit.start].casefold().startswith(unit.key[0][0])
            assert flat[unit.end - 1].casefold().endswith(unit.key[-1][-1])


# Every kind of whitespace, and characters that are not printable without being spaces.
SPACES = [" ", "\n", "\t", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\u00a0", "\u2009", "\u2028"]
ODD = ["\u00ad", "\ue000", "\x00", "\u200b"]


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.one_of(st.sampled_from(SPACES + ODD), st.text(min_size=1, max_size=5)), max_size=30)
)
def test_a_page_is_flattened_as_split_and_join_flatten_it(parts: list[str]) -> None:
    """The shortcut for pages of lone spaces and newlines (issue 30) changes no page."""
    text = "".join(parts)
    assert flattened(text) == " ".join(text.split())


TERM_PIECES = ["ab", "abc", "b", "c_1", "é", "ß", "日本", "x", "42"]


@settings(max_examples=400, deadline=None)
@given(
    pieces=st.lists(
        st.tuples(st.sampled_from(TERM_PIECES), st.sampled_from(["", " ", "-", "\n", "é"])),
        max_size=40,
    ),
    terms=st.sets(st.sampled_from(TERM_PIECES + ["abcx", "bc", "c"]), min_size=1, max_size=4),
)
def test_term_units_equal_the_regex_with_word_boundaries(
    pieces: list[tuple[str, str]], terms: set[str]
) -> None:
    """Terms of word characters are found without boundary tests, an occurrence inside a
    longer word then left out (issue 30): the same units as the one regex with them."""
    flat = " ".join("".join(word + gap for word, gap in pieces).split())
    wanted = tuple(sorted(terms, key=len, reverse=True))
    pattern, _bare, _whole = _terms_pattern(wanted)
    folded = flat.casefold() if len(flat.casefold()) == len(flat) else flat.lower()
    expected = [(m.start(), m.end(), m.group()) for m in pattern.finditer(folded)]
    assert [tuple(unit) for unit in term_units(flat, terms)] == expected


LEAD_ENDS = ["", "n", "nt", "ns", "é", "ß", "_1", "42", "nstant", "ntext", "日"]


@settings(max_examples=400, deadline=None)
@given(
    pieces=st.lists(
        st.tuples(
            st.sampled_from(["co", "xco", "cо", "c", "Co", "CO", "coco", "日co"]),
            st.sampled_from(LEAD_ENDS),
            st.sampled_from(["", " ", "-", "\n", "é", "日"]),
        ),
        max_size=40,
    ),
    ends=st.sets(st.sampled_from(LEAD_ENDS + ["ncat", "nstan", "x"]), min_size=8, max_size=12),
)
def test_a_prefix_s_words_are_found_as_the_regex_of_them_all_finds_them(
    pieces: list[tuple[str, str, str]], ends: set[str]
) -> None:
    """Many terms of one lead (a prefix's words) are found by the regex of a word so led,
    kept where the word is a term (snippets._shared_lead): the units of the alternation of
    them all with word boundaries."""
    flat = " ".join("".join(lead + end + gap for lead, end, gap in pieces).split())
    terms = {"co" + end for end in ends}
    wanted = tuple(sorted(terms, key=len, reverse=True))
    assert _shared_lead(wanted) is not None
    pattern, _bare, _whole = _terms_pattern(wanted)
    folded = flat.casefold() if len(flat.casefold()) == len(flat) else flat.lower()
    expected = [(m.start(), m.end(), m.group()) for m in pattern.finditer(folded)]
    assert [tuple(unit) for unit in term_units(flat, terms)] == expected


def test_a_sloppy_phrase_is_shown_with_the_words_between() -> None:
    page = "margins alone. " * 30 + "page and its margins. " + "page alone. " * 30
    shown = snippet(page, {"page", "margins"}, [Phrase(("page", "margins"), slop=3)])
    assert "**page and its margins**" in shown


def test_a_phrase_longer_than_the_window_is_shown_whole() -> None:
    phrase = ("word " * 80).split()
    page = "other " * 100 + " ".join(phrase) + " after"
    shown = snippet(page, {"word"}, [Phrase(tuple(phrase), slop=1)], width=100)
    assert "**" + " ".join(phrase) + "**" in shown


def _score(units: list[Unit], start: int, reach: int) -> tuple[int, int]:
    inside = [u for u in units if u.start >= start and u.end <= start + reach]
    return len({u.key for u in inside}), len(inside)


def test_best_window_is_what_brute_force_over_every_window_finds() -> None:
    """The sweep picks the first window with the most distinct keys, then the most
    units; with phrases, among the windows starting at a phrase. One key alone (a word's
    or a phrase's units, counted by bisection) too."""
    rng = random.Random(13)
    for round in range(1200):
        keys = "abcdeP" if round % 2 else rng.choice(["a", "P"])
        units = sorted(
            Unit(s, s + (rng.randint(1, 12) if keys == "abcdeP" else 3), rng.choice(keys))
            for s in rng.sample(range(400), rng.randint(1, 40))
        )
        units = [u._replace(key=("p", "q")) if u.key == "P" else u for u in units]
        reach = max(rng.randint(5, 150), *(u.end - u.start for u in units))
        starts = [u.start for u in units if isinstance(u.key, tuple)] or range(401)
        best = max(_score(units, s, reach) for s in starts)
        chosen = units[best_window(units, reach)]
        assert _score(units, chosen.start, reach) == best
        firsts = (u.start for u in units if u.start in starts)
        first = [s for s in firsts if _score(units, s, reach) == best]
        assert chosen.start == first[0]


@pytest.mark.timeout(30)
def test_a_word_found_40000_times_costs_one_sweep() -> None:
    text = "alpha beta " * 40000
    shown = snippet(text, {"alpha", "beta"}, [Phrase(("beta", "alpha"))])
    assert shown.startswith("**alpha** **beta alpha**")
    assert shown.endswith("…")
