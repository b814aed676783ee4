"""Exact search from the postgres engine's trigram table (pdfindex.engine.postgres.grams,
issue 30): strings without whole words narrow the candidates, the edge cases of the plain
form still match, and a database of before the table is given one without losing a page.
Runs in the postgres pass only (conftest)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pdfindex.config import index_settings
from pdfindex.engine import Engine, open_engine
from pdfindex.engine.postgres import candidates, grams
from pdfindex.engine.postgres import engine as postgres_engine
from pdfindex.search.exact import exact_search
from pdfindex.text.substrings import query_pieces
from tests.brute import brute_force
from tests.conftest import database_for
from tests.test_postgres import _add, _rows

psycopg = pytest.importorskip("psycopg", reason="the postgres extra is not installed")

PAGES = {
    "hyphen.pdf": ["The architec-\nture of the\n\n  system is   layered.", "Nothing here."],
    "quotes.pdf": ["it's a \\back slash and 'quoted' text", "Note that this holds."],
    "cjk.pdf": ["クラス\nファイルの説明", "bounding box of a node"],
    # page 2 holds every trigram of `page margins` but not its bridge `ge ma` (grams.bridges)
    "decoy.pdf": ["Set the page margins first.", "The page is here. Some margins."],
}
PAGE_COUNT = sum(len(pages) for pages in PAGES.values())


def _open(root: Path) -> Engine:
    return open_engine(index_settings(root, "postgres", database_url=database_for(root)))


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    opened = _open(tmp_path)
    for path, pages in PAGES.items():
        _add(opened, path, pages)
    yield opened
    opened.close()


def _found(engine: Engine, query: str, slug: str | None = None) -> list[tuple[str, int, int]]:
    matches, _ = exact_search(engine, query, slug=slug, limit=100, context_length=0)
    return [(m.path, m.page, m.start) for m in matches]


def _expected(query: str) -> list[tuple[str, int, int]]:
    return [
        (path, number, start)
        for path, pages in sorted(PAGES.items())
        for number, text in enumerate(pages, 1)
        for start, _ in brute_force(text, query)
    ]


def _candidates(engine: Engine, query: str, slug: str | None = None) -> list[tuple[str, int]]:
    found = engine.candidates(slug=slug, pieces=query_pieces(query))
    return [(ref.path, ref.page) for ref in found.refs]


def test_a_statement_run_again_and_again_is_planned_for_its_values(engine: Engine) -> None:
    """psycopg prepares a statement run five times, and PostgreSQL may then plan it once for
    any tsquery: at 47,970 pages the generic plan of the candidates' statement scanned the
    trigram table in path order (527 ms for an absent string, against 0.1). The engine's
    connections plan each run for its own values."""
    for _ in range(12):
        assert _candidates(engine, "qzxv wkjp") == []
        assert _candidates(engine, "bounding box") == [("cjk.pdf", 2)]
    rows = engine._connection.execute(  # type: ignore[attr-defined]  # its own session's
        "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements"
        f" WHERE statement LIKE '%{grams.GRAM_TABLE}%'"
    ).fetchall()
    assert rows  # prepared: parsed once
    assert all(generic == 0 and custom >= 12 for _, generic, custom in rows), rows


def test_an_absent_string_has_no_candidate_page(engine: Engine) -> None:
    """Without n-grams every page is a candidate of `qzxv wkjp` (no whole word required):
    the trigrams leave none, across documents and within one."""
    assert _candidates(engine, "qzxv wkjp") == []
    assert _candidates(engine, "qzxv wkjp", slug="hyphen") == []
    assert _found(engine, "qzxv wkjp") == []
    assert _found(engine, "qzxv wkjp", "hyphen") == []
    # within one document, its pages only (its name is a lexeme among the trigrams)
    assert _candidates(engine, "bounding box", slug="cjk") == [("cjk.pdf", 2)]
    assert _candidates(engine, "bounding box", slug="hyphen") == []


@pytest.mark.parametrize(
    "query",
    [
        "architecture of the system",  # a line-end hyphen and line breaks in the text
        "tecture of the sys",  # both ends inside words
        "architec-ture",  # the hyphen in the query
        "the system is layered",  # whitespace runs in the text, one space in the query
        "THE ARCHITECTURE",  # case
        "t's a \\back",  # a quote and a backslash: lexeme literals escape them
        "'quoted'",
        "クラスファイル",  # a line break between two Japanese characters
        "note that",
        "bounding box",
        "page margins",  # its bridge leaves out the page holding its trigrams apart
    ],
)
def test_pieces_edge_cases_match_as_the_brute_force_scan(engine: Engine, query: str) -> None:
    expected = _expected(query)
    assert expected, f"{query!r} should be on a page of the fixture"
    assert _found(engine, query) == expected
    # and the trigrams narrowed: only pages holding the query's pieces are candidates
    assert set(_candidates(engine, query)) == {(path, page) for path, page, _ in expected}


def test_a_database_without_the_table_is_given_one_filled_from_its_pages(
    engine: Engine, tmp_path: Path
) -> None:
    """A database of this format without the trigram table (as one of before it): the next
    open adds it from the pages; a page written meanwhile by a writer that knows no
    trigrams (another host's older pdfindex: here plain SQL) is a candidate of every query
    until rewritten."""
    url = engine.url  # type: ignore[attr-defined]
    engine.close()
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f"DROP TABLE {grams.GRAM_TABLE}")
        connection.execute(f"DROP FUNCTION {grams.FUNCTION} CASCADE")  # and its triggers
    reopened = _open(tmp_path)
    try:
        cut = _rows(reopened, f"SELECT count(*), count(grams) FROM {grams.GRAM_TABLE}")[0]
        assert cut == (PAGE_COUNT, PAGE_COUNT)
        assert _found(reopened, "tecture of the sys") == _expected("tecture of the sys")
        assert _candidates(reopened, "qzxv wkjp") == []
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute(
                "INSERT INTO pdfindex_pages (path, page, slug, text, words, length, lossy, pairs)"
                " VALUES ('old.pdf', 1, 'old', 'qzxv wkjp', '''qzxv'':1 ''wkjp'':2', 2, 0, '')"
            )
        assert _candidates(reopened, "qzxv wkjp") == [("old.pdf", 1)]
        assert _candidates(reopened, "bounding box") == [("cjk.pdf", 2), ("old.pdf", 1)]
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute("DELETE FROM pdfindex_pages WHERE path = 'old.pdf'")
        assert _rows(reopened, f"SELECT count(*) FROM {grams.GRAM_TABLE}")[0][0] == PAGE_COUNT
    finally:
        reopened.close()


def test_a_page_of_too_many_trigrams_stays_a_candidate(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(grams, "MAX_VECTOR_BYTES", 50)
    _add(engine, "big.pdf", ["a page with more trigrams than fit: bounding box"])
    assert _rows(engine, "SELECT grams FROM pdfindex_grams WHERE path = 'big.pdf'") == [(None,)]
    assert ("big.pdf", 1) in _candidates(engine, "qzxv wkjp")
    assert _found(engine, "bounding box") == [("big.pdf", 1, 36), *_expected("bounding box")]


def test_candidates_past_the_first_ones_are_read_as_exact_search_gets_there(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exact search reads the candidates found by trigrams FIRST_CANDIDATES at a time:
    with 2 at a time and texts read one by one, every match is still found, in order."""
    monkeypatch.setattr(postgres_engine, "FIRST_CANDIDATES", 2)
    monkeypatch.setattr(candidates, "TEXT_BATCH", 1)
    monkeypatch.setattr(candidates, "MAX_TEXT_BATCH", 1)
    many = [f"page {n}: note that it holds" for n in range(7)]
    _add(engine, "many.pdf", many)
    expected = [("many.pdf", n, 8) for n in range(1, 8)] + _expected("note that")
    assert _found(engine, "note that") == sorted(expected)
    found = engine.candidates(pieces=query_pieces("note that"))
    assert len(found.refs) == 2  # the rest is read when the texts get there
    assert [ref.page for ref in found.refs if found.text(ref)] == [1, 2, 3, 4, 5, 6, 7, 2]


def test_a_document_name_too_long_for_a_lexeme_is_named_by_its_hash(engine: Engine) -> None:
    slug = "s" * 2500  # a lexeme holds 2,047 bytes at most
    literal = grams.page_grams("bounding box", slug)
    query = grams.query_grams(query_pieces("bounding box"), slug)
    assert literal is not None
    assert query is not None
    matched = _rows(engine, f"SELECT $${literal}$$::tsvector @@ $${query}$$::tsquery")
    assert matched == [(True,)]
    assert grams.document(slug) != grams.document(slug[:-1])


@pytest.mark.parametrize(
    "text",
    [
        "",
        "ab",
        "plain words only",
        "it's a 'quote'",
        "a\\b \\\\ c",
        "''' \\'",
        "x'y\\z" * 50,
        "o'n 'a \\\\ b\\ c",
    ],
)
def test_a_pages_trigrams_are_each_quoted_as_the_server_reads_them(
    engine: Engine, text: str
) -> None:
    """page_grams escapes only the trigrams and bridges over a quote or backslash (the
    others go in as they are): the server reads the literal as every trigram and bridge
    of the plain form, and the document's lexeme."""
    from pdfindex.text.substrings import grams as all_grams
    from pdfindex.text.substrings import plain_form

    literal = grams.page_grams(text, "doc")
    assert literal is not None
    with psycopg.connect(engine.url) as connection:  # type: ignore[attr-defined]
        lexemes = connection.execute(
            "SELECT lexeme FROM unnest(%s::tsvector)", (literal,)
        ).fetchall()
    plain = plain_form(text)
    expected = {*all_grams(plain), *grams.bridges(plain), "doc:doc"}
    assert {lexeme for (lexeme,) in lexemes} == expected
