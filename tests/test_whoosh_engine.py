"""The Whoosh engine's answers to its worst cases (issue 11): prefixes match through
their posting lists with a constant score, questions rank pages with their rarer words
first, counts come from the posting lists, and a searcher reads the index in place."""

from __future__ import annotations

import random
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
from whoosh import query as wq

from pdfindex.config import index_settings
from pdfindex.engine import Engine, open_engine
from pdfindex.engine.whoosh.common import COMMON_SHARE, split_question
from pdfindex.engine.whoosh.storage import _View
from pdfindex.models import FileRecord
from pdfindex.query import parse
from pdfindex.text.index import index_text
from pdfindex.text.words import words


@pytest.fixture(autouse=True)
def _whoosh_pass_only(index_engine: str) -> None:
    """These tests open Whoosh indexes themselves: once, in the suite's whoosh pass."""
    if index_engine != "whoosh":
        pytest.skip("the Whoosh engine's own tests run in the whoosh pass")


RARE = ["margins", "geometry", "hyphenation"]
COMMON = ["the", "of", "page", "change"]
PREFIXED = ["con", "cons", "consider", "content", "contents", "control", "convert", "conj"]


def _pages(rng: random.Random, count: int) -> list[str]:
    """Pages where COMMON words are on most pages, RARE ones on a few, and many words
    start with `con`."""
    pages = []
    for n in range(count):
        chosen = [w for w in COMMON if rng.random() < 0.7] * rng.randint(1, 4)
        chosen += [w for w in RARE if rng.random() < 0.02]
        chosen += rng.sample(PREFIXED, rng.randint(0, 3))
        chosen += [f"filler{rng.randint(0, 50)}" for _ in range(rng.randint(1, 20))]
        rng.shuffle(chosen)
        pages.append(" ".join(chosen) or f"empty{n}")
    return pages


def _record(path: str, count: int) -> FileRecord:
    return FileRecord(path, path[:-4], "t", count, 1, 0.0, path, "ok", None, 0, "x")


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Engine, dict]]:
    """A Whoosh index of several segments with deleted pages (a file replaced), and the
    page texts it holds: {(path, page): text}."""
    rng = random.Random(11)
    engine = open_engine(index_settings(tmp_path_factory.mktemp("whoosh"), "whoosh"))
    texts: dict[tuple[str, int], str] = {}

    def add(writer: object, path: str, pages: list[str], replace: bool = False) -> None:
        record = _record(path, len(pages))
        method = writer.replace_file if replace else writer.add_file  # type: ignore[attr-defined]
        method(record, pages, [index_text(p) for p in pages])
        for key in [k for k in texts if k[0] == path]:
            del texts[key]
        texts.update({(path, n): text for n, text in enumerate(pages, start=1)})

    for batch in range(3):  # one segment per commit
        with engine.writer(timeout=5) as writer:
            for d in range(4):
                add(writer, f"b{batch}d{d}.pdf", _pages(rng, 30))
    with engine.writer(timeout=5) as writer:
        add(writer, "b0d1.pdf", _pages(rng, 12), replace=True)
    yield engine, texts
    engine.close()


def _with(texts: dict, test: object) -> set[tuple[str, int]]:
    return {key for key, text in texts.items() if test(set(words(text)))}  # type: ignore[operator]


def test_the_library_has_several_segments_and_deletions(library: tuple[Engine, dict]) -> None:
    engine, _texts = library
    reader = engine._searcher().reader()  # type: ignore[attr-defined]
    assert engine.segment_count() >= 2
    assert any(leaf.has_deletions() for leaf, _ in reader.leaf_readers())


@pytest.mark.parametrize("prefix", ["con", "cons", "conj", "fill", "nothing"])
def test_a_prefix_matches_every_expansion_with_one_score_per_page(
    library: tuple[Engine, dict], prefix: str
) -> None:
    engine, texts = library
    expected = _with(texts, lambda ws: any(w.startswith(prefix) for w in ws))
    found = engine.ranked(parse(f"{prefix}*"), limit=1000)
    assert {(h.path, h.page) for h in found.hits} == expected
    assert found.total == len(expected)
    # Scored by BM25 as the words it stands for (issue 30), each page once; a boost
    # scales every page's score alike.
    assert len(found.hits) == len({(h.path, h.page) for h in found.hits})
    assert all(h.score > 0 for h in found.hits)
    boosted = engine.ranked(parse(f"{prefix}*^3"), limit=1000)
    scores = {(h.path, h.page): h.score for h in found.hits}
    for hit in boosted.hits:
        assert hit.score == pytest.approx(3 * scores[hit.path, hit.page])


def test_a_prefix_inside_boolean_queries_matches_as_the_words_would(
    library: tuple[Engine, dict],
) -> None:
    engine, texts = library
    found = engine.ranked(parse("cons* AND NOT margins"), limit=1000)
    expected = _with(
        texts, lambda ws: any(w.startswith("cons") for w in ws) and "margins" not in ws
    )
    assert {(h.path, h.page) for h in found.hits} == expected
    assert found.total == len(expected)
    candidates = engine.candidates(terms=["the"], prefixes=["conj"])
    assert {(r.path, r.page) for r in candidates.refs} == _with(
        texts, lambda ws: "the" in ws and any(w.startswith("conj") for w in ws)
    )


def test_a_question_splits_into_rarer_and_common_words(library: tuple[Engine, dict]) -> None:
    engine, texts = library
    searcher = engine._searcher()  # type: ignore[attr-defined]
    query = wq.Or([wq.Term("content", w) for w in ["margins", "the", "geometry", "of"]])
    rare, common = split_question(searcher, query)  # type: ignore[misc]
    assert {t.text for t in rare} == {"margins", "geometry"}
    assert {t.text for t in common} == {"the", "of"}
    share = len(_with(texts, lambda ws: "the" in ws)) / len(texts)
    assert share > COMMON_SHARE
    # not a question: an AND, or an OR of rare words only
    assert split_question(searcher, wq.And(query.subqueries)) is None
    assert split_question(searcher, wq.Or(rare)) is None


@pytest.mark.parametrize("limit", [1, 5, 40, 1000])
def test_a_question_ranks_pages_with_its_rarer_words_first(
    library: tuple[Engine, dict], limit: int
) -> None:
    engine, texts = library
    question = "how do I change the page margins or geometry"
    found = engine.ranked(parse(question, any_word=True), limit=limit)
    asked = set(words(question))
    matching = _with(texts, lambda ws: bool(ws & asked))
    with_rare = _with(texts, lambda ws: bool(ws & {"margins", "geometry"}))
    # pages with a rarer word, or (when they are fewer than `limit`) the OR's true count
    assert found.total == (len(with_rare) if len(with_rare) >= limit else len(matching))
    pages = [(h.path, h.page) for h in found.hits]
    assert len(pages) == min(limit, len(matching))
    assert set(pages) <= matching
    leading = min(limit, len(with_rare))
    assert set(pages[:leading]) <= with_rare
    assert not set(pages[leading:]) & with_rare
    # every page keeps the score the plain OR gives it
    searcher = engine._searcher()  # type: ignore[attr-defined]
    plain = wq.Or([wq.Term("content", w) for w in words(question)])
    scores = {
        (hit["path"], hit["page"]): hit.score
        for hit in searcher.search(plain, limit=None, filter=wq.Term("kind", "page"))
    }
    for hit in found.hits:
        assert hit.score == pytest.approx(scores[(hit.path, hit.page)])
    for part in (found.hits[:leading], found.hits[leading:]):
        assert [h.score for h in part] == sorted((h.score for h in part), reverse=True)


def test_counts_read_from_the_postings_respect_document_and_pages(
    library: tuple[Engine, dict],
) -> None:
    engine, texts = library
    for text, test in [
        ("the", lambda ws: "the" in ws),
        ("con*", lambda ws: any(w.startswith("con") for w in ws)),
        ("margins OR conj*", lambda ws: "margins" in ws or any(w.startswith("conj") for w in ws)),
    ]:
        found = engine.ranked(parse(text), limit=3, slug="b1d2", pages=(5, 20))
        in_range = {k: v for k, v in texts.items() if k[0] == "b1d2.pdf" and 5 <= k[1] <= 20}
        assert found.total == len(_with(in_range, test)), text
        assert found.total == len(engine.ranked(parse(text), 1000, "b1d2", (5, 20)).hits)
        assert engine.ranked(parse(text), limit=1).total == len(_with(texts, test)), text


def test_the_view_reads_like_a_file() -> None:
    data = b"first line\nsecond\n" + bytes(range(256)) * 40
    view = _View(memoryview(data))
    assert view.readline() == b"first line\n"
    assert view.peek(4).startswith(b"second")
    assert view.read(7) == b"second\n"
    assert view.tell() == 18
    view.seek(-5, 2)
    assert view.read() == data[-5:]
    view.seek(3)
    assert view.read(1000) == data[3:1003]


def test_a_searcher_reads_the_index_in_place(tmp_path: Path) -> None:
    """Whoosh copied every part of a segment it opened (terms, postings, stored text)
    into memory: the searcher of a 48,000-page index held ~450 MB."""
    engine = open_engine(index_settings(tmp_path, "whoosh"))
    rng = random.Random(5)
    pages = [" ".join(f"w{rng.randint(0, 5000)}" for _ in range(300)) for _ in range(800)]
    with engine.writer(timeout=5) as writer:
        writer.add_file(_record("big.pdf", len(pages)), pages, [index_text(p) for p in pages])
    engine.close()
    size = sum(f.stat().st_size for f in (tmp_path / "whoosh").iterdir())
    assert size > 4_000_000
    engine = open_engine(index_settings(tmp_path, "whoosh"))
    tracemalloc.start()
    try:
        found = engine.ranked(parse("w17 OR w4000"), limit=10)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        engine.close()
    assert found.total > 0
    assert peak < size / 4, (peak, size)
