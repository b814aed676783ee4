"""The postgres engine against a real PostgreSQL server (tests/pgserver.py): what the
shared suite cannot see from above the engine. Runs in the postgres pass only (conftest)."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pdfindex import query as pq
from pdfindex.api import PdfIndex
from pdfindex.cli import main
from pdfindex.config import index_settings, load_settings
from pdfindex.engine import Engine, open_engine
from pdfindex.engine.postgres import compiler, postings, ranking, schema
from pdfindex.engine.postgres import engine as postgres_engine
from pdfindex.engine.postgres.compiler import Compiler
from pdfindex.errors import ConfigError, IndexLocked
from pdfindex.models import FileRecord
from pdfindex.search.exact import exact_search
from pdfindex.search.ranked import ranked_search
from pdfindex.text.index import index_text
from pdfindex.text.words import words as index_words
from tests import pdfgen
from tests.brute import brute_force
from tests.conftest import POSTGRES, database_for, make_settings
from tests.test_engines_agree import QUERIES, TOPICS, _pages
from tests.test_index import page_texts

psycopg = pytest.importorskip("psycopg", reason="the postgres extra is not installed")


def _record(path: str, pages: int) -> FileRecord:
    slug = path.removesuffix(".pdf").replace("/", "_")
    return FileRecord(path, slug, "t", pages, 1, 0.0, "0", "ok", None, 0.0, "x")


def _add(engine: Engine, path: str, pages: list[str]) -> None:
    with engine.writer(timeout=5) as writer:
        writer.add_file(_record(path, len(pages)), pages, [index_text(p) for p in pages])


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    opened = open_engine(index_settings(tmp_path, "postgres", database_url=database_for(tmp_path)))
    yield opened
    opened.close()


def _rows(engine: Engine, sql: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(engine.url) as connection:  # type: ignore[attr-defined]
        return connection.execute(sql).fetchall()  # type: ignore[arg-type]


def test_without_a_database_url_the_error_says_which_setting(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("PDFINDEX_DATABASE_URL")
    with pytest.raises(ConfigError, match="PDFINDEX_DATABASE_URL"):
        open_engine(index_settings(tmp_path, "postgres"))


def test_settings_show_the_database_url_without_its_password(tmp_path: Path) -> None:
    url = "postgresql://bob:s3cret@db.example:5432/library"
    shown = load_settings({"database_url": url}, root=tmp_path).as_dict()["database_url"]
    assert shown["value"] == "postgresql://bob:***@db.example:5432/library"
    assert "s3cret" not in repr(load_settings({"database_url": url}, root=tmp_path))


def test_a_second_writer_is_told_another_process_writes(engine: Engine) -> None:
    with engine.writer(timeout=1) as writer:
        writer.add_file(_record("a.pdf", 1), ["alpha"], ["alpha"])
        with pytest.raises(IndexLocked, match="another pdfindex process is writing"):
            with engine.writer(timeout=0.3):
                pass
    with engine.writer(timeout=1) as writer:  # released by the commit
        writer.remove_file("a.pdf")


def test_a_commit_is_one_transaction_readers_see_whole(engine: Engine) -> None:
    """Until the writer commits, readers see the last commit; an error cancels it all."""
    _add(engine, "old.pdf", ["kept words"])
    with pytest.raises(RuntimeError):
        with engine.writer(timeout=1) as writer:
            writer.remove_file("old.pdf")
            writer.add_file(_record("new.pdf", 1), ["fresh words"], ["fresh words"])
            assert set(engine.catalog()) == {"old.pdf"}  # not committed yet
            raise RuntimeError("the indexer failed mid-commit")
    assert set(engine.catalog()) == {"old.pdf"}
    assert [r.path for r in engine.candidates(terms=["kept"]).refs] == ["old.pdf"]
    assert engine.candidates(terms=["fresh"]).refs == []


def test_the_vocabulary_counts_pages_per_word_through_changes(engine: Engine) -> None:
    _add(engine, "a.pdf", ["alpha beta", "beta gamma"])
    _add(engine, "b.pdf", ["beta delta"])
    with engine.writer(timeout=1) as writer:
        writer.replace_file(_record("a.pdf", 1), ["gamma gamma"], ["gamma gamma"])
    with engine.writer(timeout=1) as writer:
        writer.remove_file("b.pdf")
    stored = dict(_rows(engine, "SELECT word, pages FROM pdfindex_words"))
    recount = dict(
        _rows(engine, "SELECT word, ndoc FROM ts_stat('SELECT words FROM pdfindex_pages')")
    )
    assert stored == recount == {"gamma": 1}
    assert engine.similar_terms("gamme", 1) == ["gamma"]
    assert engine.similar_terms("beta", 1) == []


def test_lossy_pages_stay_candidates_so_exact_search_misses_nothing(engine: Engine) -> None:
    """A tsvector keeps 256 positions of a word, positions to 16,383 and words to 2,047
    bytes: pages past those limits are still found by exact search."""
    many = "the " * 300 + "of the end"  # the phrase "of the" after the 256th "the"
    far = "x " * 17_000 + "far away"  # beyond position 16,383
    long_word = "y" * 3000  # beyond 2,047 bytes
    _add(engine, "many.pdf", [many])
    _add(engine, "far.pdf", [far])
    _add(engine, "long.pdf", [f"short {long_word} tail"])
    lossy = dict(_rows(engine, "SELECT path, lossy FROM pdfindex_pages"))
    assert lossy == {"many.pdf": 1, "far.pdf": 1, "long.pdf": 2}
    for query, path in [
        ("of the end", "many.pdf"),
        ("far away", "far.pdf"),
        ("y" * 40, "long.pdf"),
    ]:
        matches, _ = exact_search(engine, query, limit=5, context_length=0)
        assert {m.path for m in matches} == {path}, query
    assert ranked_search(engine, '"far away"')[0] == 1


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(docs=st.lists(page_texts, min_size=1, max_size=3), data=st.data())
def test_exact_search_equals_brute_force(
    engine: Engine, docs: list[list[str]], data: st.DataObject
) -> None:
    """As tests/test_index.py's property test for the default engine: the postgres
    engine's candidates never lose a page the brute-force scan matches."""
    fixed = st.sampled_from(["alpha", "c++", "e.g.", "a.b", "alphabeta", " beta ", "3.14 alpha"])
    text = data.draw(st.sampled_from([p for pages in docs for p in pages]))
    if len(text) > 2 and data.draw(st.booleans()):
        start = data.draw(st.integers(0, len(text) - 2))
        query = text[start : start + data.draw(st.integers(2, 40))]
    else:
        query = data.draw(fixed)
    assume(query.strip())
    with engine.writer(timeout=1, clear=True) as writer:
        for n, pages in enumerate(docs):
            writer.add_file(_record(f"d{n}.pdf", len(pages)), pages, [index_text(p) for p in pages])
    expected = [
        (f"d{n}.pdf", p, s)
        for n, pages in enumerate(docs)
        for p, page_text in enumerate(pages, 1)
        for s, _ in brute_force(page_text, query)
    ]
    matches, _ = exact_search(engine, query, limit=1000, context_length=4)
    assert [(m.path, m.page, m.start) for m in matches] == expected


def test_query_kinds_match_what_they_say(engine: Engine) -> None:
    _add(engine, "a.pdf", ["state of the art methods", "the art of state", "hyphenation rules"])
    _add(engine, "b.pdf", ["loading the loads", "nothing here"])

    def pages(query: str) -> list[tuple[str, int]]:
        return sorted((h.path, h.page) for h in ranked_search(engine, query, limit=20)[1])

    assert pages('"state of the"') == [("a.pdf", 1)]
    assert pages('"state art"~3') == [("a.pdf", 1)]  # up to two words between
    assert pages("hyphen*") == [("a.pdf", 3)]
    assert pages("hypenation~2") == [("a.pdf", 3)]
    assert pages("art AND NOT methods") == [("a.pdf", 2)]
    assert pages("methods OR loads") == [("a.pdf", 1), ("b.pdf", 1)]
    assert pages("(state OR loading) art") == [("a.pdf", 1), ("a.pdf", 2)]
    stemmed = engine.ranked(pq.Stem("load"), 10)
    assert [(h.path, h.page) for h in stemmed.hits] == [("b.pdf", 1)]
    assert {"loading", "loads"} <= stemmed.terms


def test_ranking_agrees_with_tantivy(tmp_path: Path) -> None:
    """tests/test_engines_agree.py's check, postgres against tantivy, as strict: the same
    counts, each top page among the other's first five, the same top page for 85% of the
    queries, top-10 overlap 0.9 on average (measured: the same top page for 56 of 60
    queries, overlap 0.99)."""
    found = {}
    for name in ("tantivy", "postgres"):
        settings = index_settings(tmp_path / name, name, database_url=database_for(tmp_path))
        opened = open_engine(settings)
        with opened.writer(timeout=10) as writer:
            for n in range(40):
                pages = _pages(n, 10)
                writer.add_file(
                    _record(f"d{n:02}.pdf", len(pages)), pages, [index_text(p) for p in pages]
                )
        found[name] = opened
    try:
        same_first = compared = 0
        overlaps = []
        for query in QUERIES:
            results = {n: ranked_search(e, query, limit=10) for n, e in found.items()}
            assert results["tantivy"][0] == results["postgres"][0], query
            first, second = ([(h.path, h.page) for h in r[1]] for r in results.values())
            if not first:
                continue
            compared += 1
            same_first += first[0] == second[0]
            assert first[0] in second[:5], query
            assert second[0] in first[:5], query
            overlaps.append(len(set(first) & set(second)) / max(len(first), len(second)))
        assert compared >= 50
        assert same_first >= 0.85 * compared, (same_first, compared)
        assert min(overlaps) >= 0.6, overlaps
        assert sum(overlaps) / len(overlaps) >= 0.9, overlaps
    finally:
        for opened in found.values():
            opened.close()


def test_two_servers_read_one_library(tmp_path: Path) -> None:
    """One process indexes; a second, on another root (standing for another host),
    answers from the same database at once, with nothing indexed locally."""
    first, second = tmp_path / "one", tmp_path / "two"
    pdfgen.write_pdf(first / "files" / "shared.pdf", ["a page about hyphenation"])
    url = database_for(tmp_path)
    writer = PdfIndex(make_settings(first, database_url=url))
    writer.reindex()
    reader = PdfIndex(make_settings(second, database_url=url))
    try:
        hits = reader.search("hyphenation")[1]
        assert [(h.path, h.page) for h in hits] == [("shared.pdf", 1)]
        assert [m.path for m in reader.exact("about hyphen")[0]] == ["shared.pdf"]
    finally:
        writer.close()
        reader.close()


def test_the_cli_reads_the_engine_and_database_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pdfgen.write_pdf(tmp_path / "files" / "doc.pdf", ["Kerning tables explained"])
    runner = CliRunner()
    built = runner.invoke(main, ["reindex", "--root", str(tmp_path)])
    assert built.exit_code == 0, built.output
    assert not (tmp_path / "index" / "tantivy").exists()
    stats = runner.invoke(main, ["stats", "--root", str(tmp_path)]).output
    # The index is in the database: stats name it there, and the folder as the cache's.
    assert "index:       postgresql://" in stats
    assert "(postgres engine)" in stats
    assert f"cache:       {tmp_path / 'index'}" in stats
    assert "segments" not in stats
    # A separate process, as another host's CLI would be.
    found = subprocess.run(
        [sys.executable, "-m", "pdfindex", "search", "--root", str(tmp_path), "kerning", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert found.returncode == 0, found.stderr
    assert '"doc.pdf"' in found.stdout


def test_a_large_commit_is_followed_by_analyze(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The planner must know a large commit's rows at once, not when autovacuum comes by
    (reltuples: -1 until a table is analyzed, then its rows)."""
    monkeypatch.setattr(postgres_engine, "ANALYZE_PAGES", 5)

    def analyzed() -> dict[str, float]:
        found = _rows(
            engine,
            "SELECT relname, reltuples FROM pg_class WHERE relname IN"
            " ('pdfindex_pages', 'pdfindex_postings', 'pdfindex_terms')",
        )
        return dict(found)  # type: ignore[arg-type]

    _add(engine, "small.pdf", ["one page", "two pages", "three"])
    assert set(analyzed().values()) == {-1}
    _add(engine, "large.pdf", [f"page {n} of the large file" for n in range(6)])
    assert analyzed()["pdfindex_pages"] == 9
    assert analyzed()["pdfindex_postings"] > 0


def test_searches_keep_answering_while_a_writer_commits(engine: Engine) -> None:
    """Readers share one connection across threads; a long commit blocks none of them."""
    _add(engine, "base.pdf", ["steady words"])
    errors: list[BaseException] = []

    def search() -> None:
        try:
            for _ in range(20):
                assert [r.path for r in engine.candidates(terms=["steady"]).refs] == ["base.pdf"]
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    with engine.writer(timeout=1) as writer:
        for n in range(30):
            writer.add_file(_record(f"n{n}.pdf", 1), ["moving words"], ["moving words"])
        threads = [threading.Thread(target=search) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert not errors
    assert len(engine.candidates(terms=["moving"]).refs) == 30
    assert POSTGRES["server"] is not None


def _lists(engine: Engine, pages: int, keep: int) -> None:
    """Impact lists for words on `pages` pages or more, trimmed to `keep` (schema)."""
    with psycopg.connect(engine.url) as connection:  # type: ignore[attr-defined]
        connection.execute(
            "UPDATE pdfindex_meta SET value = CASE key WHEN 'list_pages' THEN %s ELSE %s END"
            " WHERE key IN ('list_pages', 'list_keep')",
            (pages, keep),
        )


RARE = "zeugma quire folio recto verso colophon".split()


def test_impact_lists_give_the_same_top_pages_as_scoring_every_page(tmp_path: Path) -> None:
    """The threshold algorithm over impact lists (engine/postgres/topk.py) answers the
    same totals, pages and scores as scoring every match, for words, phrases, prefixes,
    typos, boolean queries and questions; lists as short as 3 pages, so their bounds are
    tight and the fallback is exercised too. Files are added, replaced and removed over
    several commits, so the lists are kept up to date rather than built once."""
    from pdfindex.search.understand import understand

    listed = open_engine(index_settings(tmp_path, "postgres", database_url=database_for(tmp_path)))
    listed.use_postings = False  # type: ignore[attr-defined]  # words too through the lists
    ranking_of = listed.ranking  # type: ignore[attr-defined]  # the pages, and the way taken
    _lists(listed, pages=4, keep=3)
    try:
        for batch in range(4):
            with listed.writer(timeout=10) as writer:
                for n in range(batch * 10, batch * 10 + 10):
                    pages = _pages(n, 6)
                    writer.add_file(
                        _record(f"d{n:02}.pdf", 6), pages, [index_text(p) for p in pages]
                    )
        with listed.writer(timeout=10) as writer:
            writer.remove_file("d03.pdf")
            pages = _pages(99, 8)
            writer.replace_file(_record("d05.pdf", 8), pages, [index_text(p) for p in pages])
        with listed.writer(timeout=10) as writer:  # rare words: each on a few pages
            rng = random.Random(5)
            for n in range(3):
                pages = [
                    f"{page} " + " ".join(rng.sample(RARE, rng.randint(0, 2)) * rng.randint(1, 9))
                    for page in _pages(200 + n, 6)
                ]
                writer.add_file(_record(f"r{n}.pdf", 6), pages, [index_text(p) for p in pages])
        lists = _rows(listed, "SELECT count(*), max(theta) FROM pdfindex_lists")[0]
        assert lists[0] > 20, lists
        assert lists[1] > 0, lists
        queries = [
            *[pq.parse(q) for q in QUERIES[:30]],
            *[pq.parse(q, any_word=True) for q in QUERIES[30:]],
            *[
                understand(f"how do I set the {a} of a {b}?")
                for a, b in [("hyphenation", "table"), ("margin", "figure"), ("font", "node")]
            ],
            pq.parse('"the font"'),
            pq.parse('"of the" table'),
            pq.parse('"of the"'),  # one lexeme: a pair of function words (schema)
            pq.parse('"table of the"'),
            pq.parse("the"),
            pq.parse("col*"),  # on many pages: a constant score (Compiler.constant)
            pq.parse("col* OR hyphenation"),
            pq.parse("fnot~1 OR tabel~1"),
            pq.parse("font AND (table OR figure) AND NOT margin"),
            pq.parse("NOT font"),
            pq.parse("the OR NOT font"),
            *[
                pq.parse(" ".join(rng.sample([*RARE, *TOPICS[:6]], 4)), any_word=True)
                for _ in range(12)
            ],
            understand("can a zeugma or a quire hold a table and a figure?"),
            understand("is the folio of the recto on the margin of the chapter?"),
        ]
        answered, pruned = [], 0
        for first, query, limit in itertools.product((100, 2), queries, (1, 10)):
            # 2: the candidates of highest bound first, then those reaching the tenth score.
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(ranking, "FIRST_SCORED", first)
                got, how, (scored, candidates) = ranking_of(query, limit)
                answered.append(how)
                pruned += how == "lists" and scored < candidates
            want, how, _ = ranking_of(query, limit, pages=(1, 100))  # every match scored
            assert how == "full"
            assert got.total == want.total, query
            assert [(h.path, h.page) for h in got.hits] == [(h.path, h.page) for h in want.hits], (
                query,
                limit,
                first,
            )
            for a, b in zip(got.hits, want.hits, strict=True):
                assert a.score == pytest.approx(b.score, rel=1e-9)
        # Both ways are taken: the lists answer, and fall back when their bounds are loose;
        # some answers leave candidates unscored, their bounds below the tenth score.
        assert answered.count("lists") >= len(queries), answered
        assert answered.count("full") >= 10, answered
        assert "constant" in answered, answered
        assert pruned >= 5, pruned
    finally:
        listed.close()


def _check_lists(engine: Engine) -> int:
    """Every impact list as topk.py relies on it, checked from the pages themselves: each
    page of the lexeme of higher impact than theta is listed, with that impact; nothing
    else is; `entries` counts them (or more, after removals); every word on `list_pages`
    pages or more has a list, and so do its stems. How many lists there are."""
    least = _rows(engine, "SELECT value FROM pdfindex_meta WHERE key = 'list_pages'")[0][0]
    lists = _rows(engine, "SELECT kind, lexeme, theta, mean, entries FROM pdfindex_lists")
    listed = {(kind, lexeme): entries for kind, lexeme, _, _, entries in lists}
    for kind, lexeme, theta, mean, entries in lists:
        if entries < 0:
            continue
        column = "words" if kind == "w" else "stems"
        want = {
            (path, page): impact
            for path, page, impact in _rows(
                engine,
                f"SELECT path, page, pdfindex_impact(10 * ts_rank_cd({column}, q, 0), length,"
                f" {mean!r}) FROM pdfindex_pages, CAST(quote_literal('{lexeme}') AS tsquery) q"
                f" WHERE {column} @@ q",
            )
        }
        got = {
            (path, page): impact
            for path, page, impact in _rows(
                engine,
                "SELECT path, page, impact FROM pdfindex_impacts"
                f" WHERE kind = '{kind}' AND lexeme = '{lexeme}'",
            )
        }
        assert entries >= len(got), (kind, lexeme)  # a file removed leaves it as it was
        assert set(got) <= set(want), (kind, lexeme)
        above = {key for key, impact in want.items() if impact > theta * (1 + 1e-9)}
        assert above <= set(got), (kind, lexeme, theta, sorted(above - set(got)))
        for key, impact in got.items():
            assert impact == pytest.approx(want[key], rel=1e-6), (kind, lexeme, key)
    for (word,) in _rows(engine, f"SELECT word FROM pdfindex_words WHERE pages >= {least}"):
        assert listed.get(("w", word), -1) >= 0, word
        if not word.startswith("~"):
            for (stem,) in _rows(
                engine, f"SELECT lexeme FROM unnest(to_tsvector('pdfindex_stems', '{word}'))"
            ):
                assert ("s", stem) in listed, (word, stem)
    return len(lists)


def _downgrade(engine: Engine) -> None:
    """The database as a pdfindex of before LISTS_VERSION left it: no 'lists' or
    'posted_pairs' in meta, pairs of function words not posted, the old commit function
    (a stand-in that makes no list: what it did is now lists.py's)."""
    with psycopg.connect(engine.url) as connection:  # type: ignore[attr-defined]
        connection.execute("DELETE FROM pdfindex_meta WHERE key IN ('lists', 'posted_pairs')")
        connection.execute(
            "DELETE FROM pdfindex_postings WHERE kind = 'w' AND lexeme LIKE '~%'"
            " AND ascii(substr(lexeme, 2, 1)) < 12288"
        )
        connection.execute(
            "CREATE OR REPLACE FUNCTION pdfindex_update_lists() RETURNS void"
            " LANGUAGE plpgsql AS $$ BEGIN NULL; END $$"
        )


@pytest.mark.parametrize("old", [False, True], ids=["new", "upgraded"])
def test_impact_lists_stay_whole_through_incremental_commits(tmp_path: Path, old: bool) -> None:
    """New lists are made at commit from the postings of the lexemes the commit counted
    (lists.py), not from every page: after commits that add, replace and remove files,
    each list still holds every page above its theta, and every word on list_pages
    pages has one, as a rebuild from scratch gives. A library of before (`old`: its
    commit function, no posted pairs) is upgraded at open and its pairs' lists are made
    from the pages."""
    url = database_for(tmp_path)
    opened = open_engine(index_settings(tmp_path, "postgres", database_url=url))
    _lists(opened, pages=4, keep=3)
    try:
        for n in range(6):
            _add(opened, f"d{n:02}.pdf", _pages(n, 6))
        if old:
            _downgrade(opened)
            opened.close()
            opened = open_engine(index_settings(tmp_path, "postgres", database_url=url))
            meta = dict(_rows(opened, "SELECT key, value FROM pdfindex_meta"))
            assert meta["lists"] == schema.LISTS_VERSION
            assert "posted_pairs" not in meta
            assert (
                "BEGIN NULL"
                not in _rows(
                    opened, "SELECT prosrc FROM pg_proc WHERE proname = 'pdfindex_update_lists'"
                )[0][0]
            )
        for batch in range(3):
            with opened.writer(timeout=10) as writer:
                for n in range(10 + batch * 8, 18 + batch * 8):
                    pages = _pages(n, 5)
                    writer.add_file(
                        _record(f"d{n:02}.pdf", 5), pages, [index_text(p) for p in pages]
                    )
            _check_lists(opened)
        with opened.writer(timeout=10) as writer:
            writer.remove_file("d03.pdf")
            pages = _pages(99, 8)
            writer.replace_file(_record("d12.pdf", 8), pages, [index_text(p) for p in pages])
        made = _check_lists(opened)
        assert made > 20
        pairs = _rows(opened, "SELECT count(*) FROM pdfindex_lists WHERE lexeme LIKE '~%'")
        assert pairs[0][0] > 0
        # Rebuilt from scratch: the same lexemes listed.
        fresh_root = tmp_path / "fresh"
        fresh_root.mkdir()
        fresh = open_engine(
            index_settings(fresh_root, "postgres", database_url=database_for(fresh_root))
        )
        _lists(fresh, pages=4, keep=3)
        try:
            with fresh.writer(timeout=10) as writer:
                for path, record in sorted(opened.catalog().items()):
                    texts = opened.page_texts(record.slug)
                    writer.add_file(
                        _record(path, len(texts)), texts, [index_text(p) for p in texts]
                    )
            _check_lists(fresh)
            lexemes = "SELECT kind, lexeme FROM pdfindex_lists WHERE entries >= 0 ORDER BY 1, 2"
            assert set(_rows(fresh, lexemes)) <= set(_rows(opened, lexemes))
            assert meta_value(fresh, "posted_pairs") == 1
        finally:
            fresh.close()
    finally:
        opened.close()


def test_page_totals_are_kept_by_each_commit_not_counted(engine: Engine) -> None:
    """BM25's page count and mean length come from the totals each commit keeps in meta
    (stats.py), equal to counting every page through adds, replaces and removes; a
    commit that kept none (a pdfindex of before) makes readers count, and the next
    commit counts them again."""
    stats_of = engine._page_stats  # type: ignore[attr-defined]

    def counted() -> tuple[int, float]:
        count, total = _rows(engine, "SELECT count(*), sum(length) FROM pdfindex_pages")[0]
        return int(count), int(total) / int(count)

    for n in range(4):
        _add(engine, f"s{n}.pdf", _pages(n, 3 + n))
    with engine.writer(timeout=5) as writer:
        writer.remove_file("s1.pdf")
        pages = _pages(50, 7)
        writer.replace_file(_record("s2.pdf", 7), pages, [index_text(p) for p in pages])
        writer.add_file(_record("s9.pdf", 2), pages[:2], [index_text(p) for p in pages[:2]])
        writer.remove_file("s9.pdf")  # added and removed in one commit
    assert meta_value(engine, "stats_generation") == meta_value(engine, "generation")
    assert stats_of()[:2] == counted()
    with psycopg.connect(engine.url) as connection:  # type: ignore[attr-defined]
        connection.execute("UPDATE pdfindex_meta SET value = value + 1 WHERE key = 'pages'")
        connection.execute("UPDATE pdfindex_meta SET value = value + 1 WHERE key = 'generation'")
    assert stats_of()[:2] == counted()  # behind the generation: not trusted
    _add(engine, "s5.pdf", _pages(5, 4))
    assert meta_value(engine, "stats_generation") == meta_value(engine, "generation")
    assert stats_of()[:2] == counted()
    assert engine.indexed_pages() == counted()[0]


def meta_value(engine: Engine, key: str) -> int | None:
    found = _rows(engine, f"SELECT value FROM pdfindex_meta WHERE key = '{key}'")
    return int(found[0][0]) if found else None


def test_postings_rank_as_scoring_every_match_in_sql(tmp_path: Path) -> None:
    """Queries of words and stems are ranked from the postings with numpy
    (engine/postgres/postings.py): the same totals, pages, order and scores (to the last
    bits) as scoring every match in SQL, over files added, replaced and removed in several
    commits; phrases, prefixes and typos are left to SQL."""
    from pdfindex.search.understand import understand

    engine = open_engine(index_settings(tmp_path, "postgres", database_url=database_for(tmp_path)))
    ranking_of = engine.ranking  # type: ignore[attr-defined]  # the pages, and the way taken
    rng = random.Random(7)
    try:
        for batch in range(3):
            with engine.writer(timeout=10) as writer:
                for n in range(batch * 8, batch * 8 + 8):
                    pages = [
                        f"{page} "
                        + " ".join(rng.sample(RARE, rng.randint(0, 2)) * rng.randint(1, 9))
                        # A word of two stems (seq, item), and one of them apart.
                        + rng.choice(["", " seq_item", " seq_item seq_items item", " items"])
                        for page in _pages(n, 5)
                    ]
                    writer.add_file(
                        _record(f"d{n:02}.pdf", 5), pages, [index_text(p) for p in pages]
                    )
        with engine.writer(timeout=10) as writer:  # copies: ties beyond every limit
            for n in range(6):
                pages = ["zeugma quire table", "a colophon of tables"]
                writer.add_file(_record(f"copy{n}.pdf", 2), pages, [index_text(p) for p in pages])
            # Added, then replaced or removed before the commit: only what stays is posted.
            writer.add_file(_record("twice.pdf", 1), ["quire font"], ["quire font"])
            writer.replace_file(_record("twice.pdf", 1), ["margin table"], ["margin table"])
            writer.add_file(_record("gone.pdf", 1), ["zeugma"], ["zeugma"])
            writer.remove_file("gone.pdf")
            # Japanese: a question's pairs of characters are posted lexemes (`~安 定`).
            pages = ["日本語のクラスファイル table", "クラスファイルを生成する。日本語の版", "版"]
            writer.add_file(_record("ja.pdf", 3), pages, [index_text(p) for p in pages])
        with engine.writer(timeout=10) as writer:
            writer.remove_file("d03.pdf")
            pages = [*_pages(99, 4), "the the the " * 300 + "table"]  # > 256 positions of a word
            writer.replace_file(_record("d05.pdf", 5), pages, [index_text(p) for p in pages])
        queries = [
            *[pq.parse(q) for q in QUERIES[:30]],
            *[pq.parse(q, any_word=True) for q in QUERIES[30:]],
            *[
                understand(f"how do I set the {a} of a {b}?")
                for a, b in [("hyphenation", "table"), ("margins", "figures"), ("fonts", "node")]
            ],
            understand("can a zeugma or a quire hold a table and a figure?"),
            understand("tables figures colophon"),
            understand("クラスファイルを生成するには？"),
            understand("日本語の table"),
            understand("版"),
            understand("how do I number the seq_item of a table?"),
            pq.Or((pq.Stem("seq_items"), pq.Term("item")), coord=1.5),
            pq.parse("the"),
            pq.parse("font AND (table OR figure) AND NOT margin"),
            pq.parse("table AND NOT (font OR zeugma)"),
            pq.Stem("tables"),
            pq.parse("nowhere OR table"),
            *[
                pq.parse(" ".join(rng.sample([*RARE, *TOPICS[:6]], 4)), any_word=True)
                for _ in range(12)
            ],
        ]
        answered = []
        for dense, query, limit in itertools.product((True, False), queries, (1, 3, 10)):
            with pytest.MonkeyPatch.context() as patch:
                if not dense:  # the pids sorted rather than marked over their range
                    patch.setattr(postings, "DENSE_PIDS", -(2**62))
                got, how, _ = ranking_of(query, limit)
            answered.append(how)
            want, how, _ = ranking_of(query, limit, pages=(1, 100))  # every match scored in SQL
            assert how == "full"
            assert got.total == want.total, query
            assert [(h.path, h.page, h.score) for h in got.hits] == [
                (h.path, h.page, h.score) for h in want.hits
            ], (query, limit)
            assert [h.text for h in got.hits] == [h.text for h in want.hits]
            assert got.terms == want.terms
        assert answered.count("postings") == len(answered), answered
        # Each page's words and pairs are posted once, under its own pid, and nothing else is.
        posted: dict[tuple[str, str], list[int]] = {}
        for path, lexeme, data in _rows(
            engine, "SELECT path, lexeme, data FROM pdfindex_postings WHERE kind = 'w'"
        ):
            assert (path, lexeme) not in posted
            posted[(path, lexeme)] = np.frombuffer(data, postings.POSTING)["pid"].tolist()
        pages: dict[tuple[str, str], list[int]] = {}
        for pid, path, word in _rows(
            engine,
            "SELECT pid, path, lexeme FROM pdfindex_pages, unnest(words) ORDER BY path, page",
        ):
            pages.setdefault((path, word), []).append(pid)
        assert posted == pages
        # As the server would pack them (the writer packs the words' in Python).
        packed = (
            "SELECT p.path, u.lexeme, string_agg(int8send(p.pid) || int4send(greatest("
            "cardinality(u.positions), 1)) || int4send(p.length), ''::bytea ORDER BY p.page)"
            " FROM pdfindex_pages p, unnest(p.{0}) u GROUP BY 1, 2"
        )
        for kind, column in (("w", "words"), ("s", "stems")):
            want = {
                (path, lexeme): bytes(data)
                for path, lexeme, data in _rows(engine, packed.format(column))
            }
            got = {
                (path, lexeme): bytes(data)
                for path, lexeme, data in _rows(
                    engine,
                    f"SELECT path, lexeme, data FROM pdfindex_postings WHERE kind = '{kind}'",
                )
            }
            assert got == want, kind
        for query in (
            pq.parse('"the font"'),
            pq.parse("col*"),
            pq.parse("fnot~1"),
            pq.parse("NOT font"),
        ):
            assert ranking_of(query, 10).strategy != "postings", query
    finally:
        engine.close()


PHRASE_WORDS = "note that the name of table font".split()


def test_phrases_ranked_from_bounds_as_scoring_every_match(tmp_path: Path) -> None:
    """A query with phrases of neighbours over the whole library is ranked from the
    bounds its words' postings give (ranking.BOUNDED): the same totals, pages, order and
    scores as scoring every match in SQL, with pages scored one to a few at a time (so
    that the answer needs several batches), over pages where the phrases are found as
    often as their words, less often, or not at all; pages whose positions were cut
    match their phrases loosely; a phrase under NOT, or a typo, is left to other ways."""
    engine = open_engine(index_settings(tmp_path, "postgres", database_url=database_for(tmp_path)))
    ranking_of = engine.ranking  # type: ignore[attr-defined]  # the pages, and the way taken
    rng = random.Random(11)
    try:
        for batch in range(3):
            with engine.writer(timeout=10) as writer:
                for n in range(batch * 6, batch * 6 + 6):
                    pages = [
                        " ".join(rng.choices(PHRASE_WORDS, k=rng.randint(5, 120)))
                        + " note that" * rng.choice([0, 0, 1, 3])
                        + " the name of the" * rng.choice([0, 0, 1, 2])
                        for _ in range(6)
                    ]
                    writer.add_file(
                        _record(f"d{n:02}.pdf", 6), pages, [index_text(p) for p in pages]
                    )
        with engine.writer(timeout=10) as writer:
            writer.remove_file("d04.pdf")
            pages = [
                "note " * 300 + "that " * 300 + "table",  # > 256 positions: matches loosely
                "that note " * 300,  # both words, the phrase too, past the positions kept
                "note that the name of the table " * 3,
                "no phrase here but note and that",
            ]
            writer.add_file(_record("lossy.pdf", 4), pages, [index_text(p) for p in pages])
        lossy = _rows(engine, "SELECT count(*) FROM pdfindex_pages WHERE lossy = 1")[0][0]
        assert lossy >= 1
        queries = [
            pq.parse('"note that"'),
            pq.parse('"the name of the"'),
            pq.parse('"name of"'),
            pq.parse('"note that" table'),
            pq.parse('"note that" OR "the name of the"'),
            pq.parse('"note that" font', any_word=True),
            pq.parse('"table font" OR note'),
            pq.parse('"that note" AND NOT font'),
            pq.Or((pq.Phrase(("note", "that")), pq.Term("table")), coord=1.5),
            pq.parse('"of the" "note that"'),
        ]
        answered = []
        for first, query, limit in itertools.product((1, 2, 64), queries, (1, 3, 10)):
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(ranking, "FIRST_BOUNDED", first)
                got, how, (scored, candidates) = ranking_of(query, limit)
            answered.append((how, scored < candidates))
            want, how, _ = ranking_of(query, limit, pages=(1, 100))  # every match scored in SQL
            assert how == "full"
            assert got.total == want.total, query
            assert [(h.path, h.page, h.score) for h in got.hits] == [
                (h.path, h.page, h.score) for h in want.hits
            ], (query, limit, first)
            assert [h.text for h in got.hits] == [h.text for h in want.hits]
            assert got.terms == want.terms
        assert all(how == "bounded" for how, _ in answered), answered
        assert sum(pruned for _, pruned in answered) >= 20, answered  # pages left unscored
        # Bounded by each phrase's rarest word alone (postings.rarest_words): looser
        # bounds, the same answers.
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(postings, "BOUND_SPREAD", 1)
            for query, limit in itertools.product(queries, (1, 10)):
                got, how, _ = ranking_of(query, limit)
                want, _, _ = ranking_of(query, limit, pages=(1, 100))
                assert how == "bounded"
                assert got.total == want.total, query
                assert [(h.path, h.page, h.score) for h in got.hits] == [
                    (h.path, h.page, h.score) for h in want.hits
                ], (query, limit)
        for query in (pq.parse('table AND NOT "note that"'), pq.parse('"note that" nmae~1')):
            assert ranking_of(query, 10).strategy != "bounded", query
        # A phrase is counted as often as it is there (not a third for a pair within).
        scorer = Compiler(lambda _word, _distance: [])
        scorer.score(pq.Phrase(("the", "name", "of", "the")), {"words": 1.0})
        assert scorer.params == ["('the' <-> 'name' <-> 'of' <-> 'the')"]
        hits = ranking_of(pq.parse('"the name of the"'), 10, pages=(1, 100)).pages.hits
        counted = _rows(
            engine,
            "SELECT max(10 * ts_rank_cd(words, 'the <-> name <-> of <-> the'::tsquery, 0))"
            " FROM pdfindex_pages WHERE path = 'lossy.pdf' AND page = 3",
        )[0][0]
        assert counted == pytest.approx(3.0)
        assert ("lossy.pdf", 3) in [(h.path, h.page) for h in hits]
    finally:
        engine.close()


def test_records_come_a_few_at_a_time_all_of_them_in_path_order(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A loop over every record reads them RECORDS_AT_ONCE at a time (the whole catalog
    at once took a serving process 95 MB at a million pages): every one, once, in order."""
    paths = [f"d{n % 7}/f{n:03d}.pdf" for n in range(23)]
    for path in paths:
        _add(engine, path, ["a page"])
    monkeypatch.setattr("pdfindex.engine.postgres.engine.RECORDS_AT_ONCE", 4)
    assert [record.path for record in engine.records()] == sorted(paths)
    assert {record.path for record in engine.records()} == set(engine.catalog())


def _has_phrase(words: list[str], phrase: tuple[str, ...]) -> bool:
    size = len(phrase)
    return any(tuple(words[i : i + size]) == phrase for i in range(len(words) - size + 1))


def test_phrases_narrowed_by_their_pairs_match_what_a_scan_of_the_words_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page's pairs of neighbours of which one is a function word (schema.page_pairs)
    narrow a phrase's candidates, and decide a phrase of two such words alone: every way
    of ranking still matches the pages a scan of their words finds, no more and no fewer,
    whatever the phrase's words are and however the query holds it (under AND, OR and
    NOT, beside words), across line breaks and punctuation; a page with too many pairs
    to keep is lossy and still found."""
    engine = open_engine(index_settings(tmp_path, "postgres", database_url=database_for(tmp_path)))
    rng = random.Random(13)
    vocabulary = "the of a that note name table font in to".split()
    texts: dict[tuple[str, int], list[str]] = {}
    try:
        with engine.writer(timeout=10) as writer:
            for n in range(12):
                pages = []
                for _ in range(5):
                    chosen = rng.choices(vocabulary, k=rng.randint(2, 60))
                    glue = [rng.choice([" ", " ", "\n", ", ", ". "]) for _ in chosen]
                    pages.append("".join(w + g for w, g in zip(chosen, glue, strict=True)))
                writer.add_file(_record(f"d{n:02}.pdf", 5), pages, [index_text(p) for p in pages])
                for page, text in enumerate(pages, 1):
                    texts[(f"d{n:02}.pdf", page)] = index_words(index_text(text))
        # A page whose pairs are more than a tsvector holds: lossy, found all the same.
        monkeypatch.setattr(schema, "MAX_VECTOR_BYTES", 20_000)
        crowded = " ".join(f"the w{i} of" for i in range(800)) + " note that"
        _add(engine, "crowded.pdf", [crowded])
        monkeypatch.undo()
        lossy = _rows(
            engine,
            "SELECT lossy, pairs = ''::tsvector FROM pdfindex_pages WHERE path = 'crowded.pdf'",
        )
        assert lossy == [(1, True)]
        assert engine.ranking(pq.parse('"note that"'), 1000)[0].total >= 1  # type: ignore[attr-defined]
        found = {h.path for h in engine.ranking(pq.parse('"note that"'), 1000)[0].hits}  # type: ignore[attr-defined]
        assert "crowded.pdf" in found
        phrases = [
            ("note", "that"),
            ("that", "note"),
            ("the", "name"),
            ("name", "of"),
            ("the", "name", "of", "the"),
            ("note", "that", "the"),
            ("table", "font"),
            ("of", "the"),
            ("a", "table", "in", "the", "font"),
        ]
        decided = 0
        for phrase in phrases:
            quoted = '"' + " ".join(phrase) + '"'
            for text, want in [
                (quoted, lambda w, p=phrase: _has_phrase(w, p)),
                (f"{quoted} font", lambda w, p=phrase: _has_phrase(w, p) and "font" in w),
                (
                    f'{quoted} OR "of a"',
                    lambda w, p=phrase: _has_phrase(w, p) or _has_phrase(w, ("of", "a")),
                ),
                (
                    f"note AND NOT {quoted}",
                    lambda w, p=phrase: "note" in w and not _has_phrase(w, p),
                ),
            ]:
                query = pq.parse(text)
                expected = sorted(key for key, words in texts.items() if want(words))
                for pages in (None, (1, 100)):  # bounded or lists, and every match scored
                    got, _how, _counts = engine.ranking(query, 1000, pages=pages)  # type: ignore[attr-defined]
                    hits = sorted((h.path, h.page) for h in got.hits if h.path != "crowded.pdf")
                    assert hits == expected, (text, pages)
            decided += compiler.beyond_neighbours(pq.parse(quoted)) is None
        assert decided == 4  # note that, that note, the name, name of
    finally:
        engine.close()


def test_a_database_of_a_newer_format_is_refused_not_refilled(tmp_path: Path) -> None:
    """Another host's newer pdfindex wrote the library: this one says to upgrade and
    changes nothing, where refilling it from this host's cache would drop every other
    source's pages."""
    url = database_for(tmp_path)
    engine = open_engine(index_settings(tmp_path, "postgres", database_url=url))
    _add(engine, "kept.pdf", ["a page another host wrote"])
    engine.close()
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(
            "UPDATE pdfindex_meta SET value = %s WHERE key = 'format'",
            (schema.FORMAT_VERSION + 1,),
        )
    with pytest.raises(ConfigError, match="newer than this pdfindex"):
        open_engine(index_settings(tmp_path, "postgres", database_url=url))
    with psycopg.connect(url, autocommit=True) as connection:
        kept = connection.execute("SELECT count(*) FROM pdfindex_pages").fetchone()[0]
        found = connection.execute("SELECT value FROM pdfindex_meta WHERE key = 'format'")
        assert (kept, found.fetchone()[0]) == (1, schema.FORMAT_VERSION + 1)
