"""Exact matching equals an independent brute-force scan (property-based)."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from pdfindex.errors import InvalidQuery
from pdfindex.search.textmatch import (
    compile_query,
    find_spans,
    fold,
    required_phrases,
    required_prefixes,
    required_terms,
    to_original,
)
from pdfindex.text import substrings
from pdfindex.text.index import index_text
from pdfindex.text.substrings import grams, plain_form, query_pieces
from pdfindex.text.words import normalize_query, words
from tests.brute import brute_force

ALPHABET = "abcAB xyz019.+-_,;:()'\n\t\r\u00ad\u2010ßİﬁéΣσ"
PIECES = [
    "word",
    "Word",
    "ab",
    "c++",
    "e.g.",
    "3.14",
    " ",
    "  ",
    "\n",
    "\r\n",
    "-\n",
    "-\r\n  ",
    "\u00ad\n",
    "- \n\t",
    "-",
    ".",
    "Straße",
    "STRASSE",
    "ﬁn",
]
text_strategy = st.lists(
    st.sampled_from(PIECES)
    | st.text(alphabet=ALPHABET, max_size=3)
    | st.text(alphabet="abcdefghijkXYZ", min_size=1, max_size=5),
    max_size=40,
).map("".join)


def fast(text: str, query: str) -> list[tuple[int, int]]:
    folded, offsets = fold(text)
    return [to_original(offsets, *span) for span in find_spans(compile_query(query), folded)]


def query_from(text: str, data: st.DataObject) -> str:
    """A query that is often a (mutated) slice of the text, sometimes anything."""
    if text and data.draw(st.booleans()):
        start = data.draw(st.integers(0, len(text) - 1))
        end = data.draw(st.integers(start + 1, min(len(text), start + 25)))
        query = text[start:end]
        if data.draw(st.booleans()):
            query = query.swapcase()
        mode = data.draw(st.sampled_from(["keep", "join", "hyphen"]))
        if mode == "join":  # what a reader types for a word hyphenated at a line end
            query = re.sub(r"[-\u00ad\u2010][ \t]*(\r\n|\r|\n)\s*", "", query)
        elif mode == "hyphen":  # a real hyphen that fell at a line end
            query = re.sub(r"-[ \t]*(\r\n|\r|\n)\s*", "-", query)
        if data.draw(st.booleans()):
            query = re.sub(r"\s+", data.draw(st.sampled_from([" ", "\n", "  \t"])), query)
        return query
    return data.draw(st.text(alphabet=ALPHABET, min_size=1, max_size=8))


@settings(max_examples=600, deadline=None)
@given(text=text_strategy, data=st.data())
@example(text="architec-\nture", data=None)
def test_regex_equals_brute_force(text: str, data: st.DataObject | None) -> None:
    query = query_from(text, data) if data is not None else "architecture"
    assume(query.strip())
    expected = brute_force(text, query)
    got = fast(text, query)
    assert [s for s, _ in got] == [s for s, _ in expected]
    for (start, end), (_, ends) in zip(got, expected, strict=True):
        assert end in ends, (start, end, ends)


@settings(max_examples=300, deadline=None)
@given(text=text_strategy, data=st.data())
def test_required_terms_are_index_terms_of_every_matching_text(
    text: str, data: st.DataObject
) -> None:
    """Narrowing by terms never drops a page that the text scan would match."""
    query = query_from(text, data)
    assume(query.strip())
    if fast(text, query):
        indexed = set(words(index_text(text)))
        assert set(required_terms(query)) <= indexed
        for prefix in required_prefixes(query, min_length=1):
            assert any(word.startswith(prefix) for word in indexed), prefix
        tokens = words(index_text(text))
        for phrase in required_phrases(query):
            assert any(tokens[i : i + len(phrase)] == phrase for i in range(len(tokens))), phrase


cjk_text_strategy = st.lists(
    st.sampled_from([*PIECES, "日本", "語", "クラス", "\n", " \n ", "-\n", "　"])
    | st.text(alphabet=ALPHABET + "日本語クラ", max_size=3),
    max_size=40,
).map("".join)


@settings(max_examples=600, deadline=None)
@given(text=cjk_text_strategy, data=st.data())
@example(text="architec-\nture", data=None)
def test_query_pieces_are_in_the_plain_form_of_every_matching_text(
    text: str, data: st.DataObject | None
) -> None:
    """Narrowing by n-grams never drops a page that the text scan would match."""
    query = query_from(text, data) if data is not None else "architecture"
    assume(query.strip())
    if fast(text, query):
        plain = plain_form(text)
        for piece in query_pieces(query):
            assert piece in plain, (piece, plain)
            assert all(gram in plain for gram in grams(piece))


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("architec-\nture", "architecture"),
        ("e-\n mail", "e- mail"),
        ("日本\n語", "日本 語"),
        ("日本 \n 語", "日本語"),
        ("Note\n\tthat", "note that"),
        ("STRASSE", "straße"),
    ],
)
def test_query_pieces_edge_cases(text: str, query: str) -> None:
    assert fast(text, query)
    assert all(piece in plain_form(text) for piece in query_pieces(query))


def test_query_pieces_of_an_absent_string_narrow() -> None:
    assert query_pieces("Note that") == ["note that"]
    assert query_pieces("e-mail") == ["mail"]
    assert query_pieces("ab") == []  # shorter than a gram: narrows nothing


@pytest.mark.parametrize(
    ("text", "query", "count"),
    [
        ("The Transformer architecture", "transformer ARCHITECTURE", 1),
        ("transformer\n  architecture", "transformer architecture", 1),
        ("the architec-\nture of", "architecture", 1),
        ("the architec-\r\n  ture of", "architecture", 1),
        ("state-of-the-\nart", "state-of-the-art", 1),
        ("aaaa", "aa", 3),  # overlapping occurrences all count
        ("c++ and C++", "c++", 2),
        ("e.g. and E.G.", "e.g.", 2),
        ("pi is 3.14159", "3.14", 1),
        ("STRASSE and straße", "Strasse", 2),
        ("ﬁnancial", "financial", 1),
        ("word", "wordy", 0),
        ("at the end", "end", 1),
        ("start here", "start", 1),
    ],
)
def test_examples(text: str, query: str, count: int) -> None:
    assert len(fast(text, query)) == count
    assert len(brute_force(text, query)) == count


def test_match_offsets_point_at_original_text() -> None:
    text = "Die Straße ist STRASSE."
    spans = fast(text, "strasse")
    assert [text[s:e] for s, e in spans] == ["Straße", "STRASSE"]


@pytest.mark.parametrize("query", ["", "   ", "\n\t", "x" * 2001])
def test_bad_queries_are_refused(query: str) -> None:
    with pytest.raises(InvalidQuery):
        normalize_query(query)


def test_index_text_holds_parts_and_joins_of_hyphenated_words() -> None:
    indexed = words(index_text("a well-\nknown b-\nc-\nd"))
    assert {"well", "known", "wellknown", "b", "c", "d", "bc", "cd", "bcd"} <= set(indexed)
    assert index_text("no hyphens here") == "no hyphens here"


def test_required_prefixes_only_for_a_last_word_after_a_boundary() -> None:
    assert required_prefixes("page marker p0031") == ["p0031"]
    assert required_prefixes("people") == []  # may be the middle of a word
    assert required_prefixes("x café") == []  # not ASCII
    assert required_prefixes("a ab") == []  # too short to narrow well


def test_required_phrases_are_whole_words_with_only_spaces_between() -> None:
    assert required_phrases("the word over him") == [["word", "over"]]
    assert required_phrases("x alpha  beta gamma z") == [["alpha", "beta", "gamma"]]
    assert required_phrases("x alpha. beta y") == []


def test_required_terms_skip_fragments_at_query_ends() -> None:
    assert required_terms("former archi") == []
    assert required_terms("the transformer architecture") == ["transformer"]
    assert required_terms("e.g. this") == ["g"]
    assert required_terms("c++") == []


@settings(max_examples=500, deadline=None)
@given(st.text(st.sampled_from(list("abß ẞİﬁŉǰΐΣςσ-]^\\")) | st.characters(), max_size=80))
def test_fold_maps_every_folded_character_to_its_origin(text: str) -> None:
    """fold's offset map equals the character-by-character definition (it walks only
    the characters that expand, so the two must never differ)."""
    folded, offsets = fold(text)
    assert folded == text.casefold()
    expected = [i for i, char in enumerate(text) for _ in char.casefold()] + [len(text)]
    if offsets is None:
        assert len(folded) == len(text)
    else:
        assert offsets == expected


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet=" \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u2028\u3000ab-\u00ad日"))
@example(text="")
@example(text="   ")
@example(text=" a ")
def test_the_plain_form_has_each_whitespace_run_as_one_space(text: str) -> None:
    """plain_form joins split words instead of `re.sub(r"\\s+", " ")` (faster): the same
    form, ends included, for every kind of whitespace."""
    hyphen_break, cjk_break, *_ = substrings._patterns()
    joined = cjk_break.sub("", hyphen_break.sub("", text.casefold()))
    assert plain_form(text) == re.sub(r"\s+", " ", joined)
