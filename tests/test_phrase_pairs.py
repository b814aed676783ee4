"""Tantivy's phrases through the pair field (schema.PAIR_FIELD) find exactly the pages a
brute-force scan of the page's words finds: two words as one pair term, longer phrases
confirmed by position on the pages holding their pairs, pairs of two long words (never
indexed) by position alone, across punctuation and line breaks, in Chinese and Japanese
runs too (issue 30)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pdfindex.config import index_settings
from pdfindex.engine import Engine, open_engine
from pdfindex.engine.tantivy.schema import JOIN, SHORT, chunked, content_words, indexed_pair
from pdfindex.engine.tantivy.schema import WORDS as CONTENT_WORDS
from pdfindex.models import FileRecord
from pdfindex.query import Phrase
from pdfindex.text.index import index_text
from pdfindex.text.substrings import GRAM
from pdfindex.text.words import words

# Short words (paired with anything), long ones (paired only with a short one), CJK.
WORDS = ["of", "the", "a", "name", "state", "margins", "bounding", "box", "日", "本", "語"]
BREAKS = [" ", " ", " ", "\n", ", ", ". ", " (", "-\n"]


def page(rng: random.Random) -> str:
    return "".join(rng.choice(WORDS) + rng.choice(BREAKS) for _ in range(rng.randint(0, 30)))


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Engine, dict[tuple[str, int], str]]:
    rng = random.Random(31)
    folder: Path = tmp_path_factory.mktemp("pairs")
    engine = open_engine(index_settings(folder, "tantivy"))
    indexed: dict[tuple[str, int], str] = {}
    with engine.writer(timeout=1) as writer:
        for n in range(25):
            pages = [page(rng) for _ in range(rng.randint(1, 8))]
            path = f"d{n:02d}.pdf"
            record = FileRecord(path, f"d{n:02d}", "t", len(pages), 1, 0.0, "0", "ok", None, 0, "x")
            texts = [index_text(p) for p in pages]
            writer.add_file(record, pages, texts)
            indexed.update({(path, number): text for number, text in enumerate(texts, 1)})
    return engine, indexed


def holds(text: str, phrase: list[str]) -> bool:
    found = words(text)
    return any(found[i : i + len(phrase)] == phrase for i in range(len(found)))


def test_the_pair_rule_covers_both_kinds() -> None:
    """The cases below mean something: some pairs are indexed, some are not."""
    assert indexed_pair("of", "the") == f"of{JOIN}the"
    assert indexed_pair("name", "of") == f"name{JOIN}of"
    assert len("bounding") > SHORT
    assert indexed_pair("bounding", "box") == f"bounding{JOIN}box"
    assert indexed_pair("bounding", "margins") is None


def test_pairs_are_cut_from_the_words_the_content_field_holds() -> None:
    """content_words (Python's regex where it agrees with Rust's) cuts every character of
    the Basic Multilingual Plane, between letters, beside itself and beside ASCII, as the
    content field's own analyzer does: marks, digits of other scripts, CJK, punctuation."""
    differ = []
    for code in range(0x80, 0x10000):
        char = chr(code)
        if 0xD800 <= code <= 0xDFFF:
            continue  # surrogates are no text
        text = f"a{char}b {char}{char} x{char} {char}7 naïve"
        if content_words(text) != CONTENT_WORDS.analyze(text):
            differ.append(hex(code))
    assert differ == []
    assert content_words("the ́name of 日本") == ["the", "́name", "of", "日", "本"]


@given(text=st.text(st.characters(exclude_categories=["Cs"]), max_size=40))
@example(text="caf\u00e9 \U0001d538bc")
@example(text="ab")
def test_chunks_are_the_plain_forms_consecutive_grams(text: str) -> None:
    """chunked (numpy over code units) is the definition: consecutive GRAM-character
    chunks, left to right, spaces as JOIN, a short end left out, space-separated."""
    plain = text.replace(" ", JOIN)
    expected = [plain[i : i + GRAM] for i in range(0, len(plain) - GRAM + 1, GRAM)]
    assert chunked(text) == " ".join(expected)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(phrase=st.lists(st.sampled_from(WORDS), min_size=2, max_size=5))
def test_phrases_find_the_pages_a_scan_finds(
    library: tuple[Engine, dict[tuple[str, int], str]], phrase: list[str]
) -> None:
    engine, indexed = library
    result = engine.ranked(Phrase(tuple(phrase)), limit=1000)
    found = sorted((hit.path, hit.page) for hit in result.hits)
    expected = sorted(key for key, text in indexed.items() if holds(text, phrase))
    assert found == expected, phrase
    assert result.total == len(expected)


def test_a_phrase_of_pairs_that_are_not_adjacent_is_not_found(tmp_path: Path) -> None:
    """A page holding every pair of "the name of the", but not in a row, is no match."""
    engine = open_engine(index_settings(tmp_path, "tantivy"))
    apart = "the name. name of, of the"
    record = FileRecord("x.pdf", "x", "t", 1, 1, 0.0, "0", "ok", None, 0, "x")
    with engine.writer(timeout=1) as writer:
        writer.add_file(
            record, [apart, "see the name of the rose"], [apart, "see the name of the rose"]
        )
    hits = engine.ranked(Phrase(("the", "name", "of", "the")), limit=10).hits
    assert [(hit.path, hit.page) for hit in hits] == [("x.pdf", 2)]
    engine.close()
