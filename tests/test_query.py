"""pdfindex's query language: the tree it parses, the errors it gives, and (through the
Whoosh engine) the same pages Whoosh's own parser found for every well-formed query."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from whoosh.qparser import AndGroup, FuzzyTermPlugin, OrGroup, QueryParser

from pdfindex.cli import main
from pdfindex.config import index_settings
from pdfindex.engine import Engine, embedded_engines, open_engine
from pdfindex.errors import InvalidQuery
from pdfindex.models import FileRecord
from pdfindex.query import And, Fuzzy, Not, Or, Phrase, Prefix, Term, parse
from pdfindex.text.index import index_text
from tests import pdfgen


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("Straße", Term("strasse")),
        ("a b", And((Term("a"), Term("b")))),
        ("a b OR c", And((Term("a"), Or((Term("b"), Term("c")))))),
        ("a AND b OR c", Or((And((Term("a"), Term("b"))), Term("c")))),
        ("a OR b AND c", Or((Term("a"), And((Term("b"), Term("c")))))),
        ("a NOT b", And((Term("a"), Not(Term("b"))))),
        ("NOT a", Not(Term("a"))),
        ('"state of the art"', Phrase(("state", "of", "the", "art"))),
        ('"a b"~3', Phrase(("a", "b"), slop=3)),
        ('"one"', Term("one")),
        ("con*", Prefix("con")),
        ("hypenaton~", Fuzzy("hypenaton", 1)),
        ("hypenaton~2^3", Fuzzy("hypenaton", 2, boost=3.0)),
        ("word^2 x", And((Term("word", 2.0), Term("x")))),
        ("(a b)^0.5", And((Term("a"), Term("b")), boost=0.5)),
        ("e.g. c++", And((And((Term("e"), Term("g"))), Term("c")))),
        ("what is it?", And((Term("what"), Term("is"), Term("it")))),
        ("cut and paste", And((Term("cut"), Term("and"), Term("paste")))),  # lower case: words
        (
            "font AND (encoding OR glyph) AND NOT math",
            And((Term("font"), Or((Term("encoding"), Term("glyph"))), Not(Term("math")))),
        ),
    ],
)
def test_parse_builds_the_tree(text: str, tree: object) -> None:
    assert parse(text) == tree


def test_questions_join_parts_with_any_word() -> None:
    assert parse("how to set margins?", any_word=True) == Or(
        (Term("how"), Term("to"), Term("set"), Term("margins"))
    )
    assert parse("a AND b", any_word=True) == And((Term("a"), Term("b")))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('"unclosed', "unclosed quote"),
        ('font "state of', "unclosed quote"),
        ("(font", "'(' without its ')'"),
        ("font)", "')' without its '('"),
        ("AND", "AND needs a search term on each side"),
        ("font AND", "AND needs a search term on each side"),
        ("OR font", "OR needs a search term on each side"),
        ("a OR OR b", "OR needs a search term on each side"),
        ("(a AND)", "AND needs a search term on each side"),
        ("NOT", "the query ends where a search term is expected"),
        ("()", "() holds nothing to search for"),
        ("co*n", "* is allowed only at the end of a word"),
        ("*", "prefix* applies to one word"),
        ("e.g*", "prefix* applies to one word"),
        ("word~9", "typo distance must be a whole number 0 to 2"),
        ("a~5", "typo distance must be a whole number 0 to 2"),
        ("word~3", "typo distance must be a whole number 0 to 2"),
        ("word~x", "typo distance"),
        ("word^", "boost ^ must be a positive number"),
        ("word^-1", "boost ^-1 must be a positive number"),
        ('""', "empty phrase"),
        ("(a b)~2", "~N belongs after a word or a phrase"),
        ("?!", "no letters or digits"),
        ("   ", "query is empty"),
        ("x" * 2001, "limit is 2000"),
    ],
)
def test_malformed_queries_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(InvalidQuery, match=re.escape(message)):
        parse(text)
    with pytest.raises(ValueError):  # InvalidQuery is also a ValueError
        parse(text, any_word=True)


def test_the_cli_reports_a_malformed_query_in_one_line(tmp_path: Path) -> None:
    pdfgen.write_pdf(tmp_path / "files" / "a.pdf", ["font encoding"])
    runner = CliRunner()
    assert runner.invoke(main, ["reindex", "--root", str(tmp_path)]).exit_code == 0
    result = runner.invoke(main, ["search", "--root", str(tmp_path), '"unclosed'])
    assert result.exit_code == 2
    assert "unclosed quote" in result.output
    assert "Traceback" not in result.output
    good = runner.invoke(main, ["search", "--root", str(tmp_path), "font AND NOT math"])
    assert good.exit_code == 0
    assert "a.pdf" in good.output


# -- the same pages as Whoosh's own parser, for every query both accept -------------

WORDS = ["font", "encoding", "glyph", "math", "state", "of", "the", "art", "table", "tables"]
PAGES = [
    "font encoding and the glyph table",
    "state of the art math fonts",
    "the art of font encoding",
    "tables of glyph encoding state",
    "math math math of the state",
    "nothing relevant here",
    "encodings and glyphs of the art state",
]


def _filled(folder: Path, name: str) -> Engine:
    engine = open_engine(index_settings(folder, name))
    with engine.writer(timeout=5) as writer:
        for n in range(0, len(PAGES), 2):
            pages = PAGES[n : n + 2]
            record = FileRecord(
                f"d{n}.pdf", f"d{n}", "t", len(pages), 1, 0.0, "0", "ok", None, 0, "x"
            )
            writer.add_file(record, pages, [index_text(p) for p in pages])
    return engine


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """The Whoosh engine: these tests compare it with Whoosh's own parsers."""
    engine = _filled(tmp_path_factory.mktemp("engine"), "whoosh")
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def every_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Engine]]:
    found = [_filled(tmp_path_factory.mktemp(name), name) for name in embedded_engines()]
    yield found
    for engine in found:
        engine.close()


def _atom(extras: bool = True) -> st.SearchStrategy[str]:
    """A word, prefix, phrase, and (with `extras`) a fuzzy or boosted word."""
    word = st.sampled_from(WORDS)
    typos = st.sampled_from(["~", "~1", "~2"] if extras else [""])
    boosts = st.sampled_from(["^2", "^0.5"] if extras else [""])
    return st.one_of(
        word,
        word.map(lambda w: w[:3] + "*"),
        st.tuples(word, typos).map("".join),
        st.lists(word, min_size=2, max_size=3).map(lambda ws: '"' + " ".join(ws) + '"'),
        st.tuples(word, boosts).map("".join),
    )


def _expression(depth: int = 2, extras: bool = True) -> st.SearchStrategy[str]:
    """Queries both parsers accept: atoms, joined by juxtaposition or operators, and
    groups of alternatives."""
    if depth == 0:
        return _atom(extras)
    inner = _expression(depth - 1, extras)
    operators = st.sampled_from([" ", " AND ", " OR ", " AND NOT "])
    joined = st.tuples(inner, operators, inner).map("".join)
    # Groups of alternatives: Whoosh's multi-field parser also turned a group of one word
    # or of an AND into an OR with a coordination bonus (element search only).
    group = st.tuples(inner, st.sampled_from([" ", " OR "]), inner).map(lambda t: f"({''.join(t)})")
    return st.one_of(_atom(extras), joined, group)


def _whoosh_pages(engine: Engine, text: str, any_word: bool) -> list[tuple[str, int, float]]:
    """What the engine answered before pdfindex had its own parser: Whoosh's parser, its
    fuzzy terms expanded to the words within their distance as pdfindex did then (which
    rebuilt every group, dropping the any-word group's coordination `scale`: questions
    were plain ORs, and stay so)."""
    from whoosh.query import FuzzyTerm
    from whoosh.query import Or as WhooshOr
    from whoosh.query import Term as WhooshTerm

    from pdfindex.engine.whoosh.schema import make_schema

    searcher = engine._searcher()  # type: ignore[attr-defined]

    def expand(q: object) -> object:
        if isinstance(q, FuzzyTerm):
            found = searcher.reader().terms_within(q.fieldname, q.text, q.maxdist)
            terms = [WhooshTerm(q.fieldname, w) for w in sorted(found)]
            return WhooshOr(terms) if terms else WhooshTerm(q.fieldname, q.text)
        return q if q.is_leaf() else q.apply(expand)  # type: ignore[attr-defined]

    group = OrGroup.factory(0.9) if any_word else AndGroup
    parser = QueryParser("content", make_schema(), group=group)
    parser.add_plugin(FuzzyTermPlugin())
    query = expand(parser.parse(text))
    results = searcher.search(query, limit=None, filter=WhooshTerm("kind", "page"))
    return sorted((hit["path"], hit["page"], round(hit.score, 6)) for hit in results)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=_expression(), any_word=st.booleans())
def test_same_pages_and_scores_as_whoosh_parser(engine: Engine, text: str, any_word: bool) -> None:
    ours = engine.ranked(parse(text, any_word=any_word), limit=100)
    found = sorted((h.path, h.page, round(h.score, 6)) for h in ours.hits)
    expected = _whoosh_pages(engine, text, any_word)
    if "*" in text:  # a prefix scores a constant per page now (engine/whoosh/README.md)
        found, expected = [f[:2] for f in found], [e[:2] for e in expected]
    assert found == expected
    assert ours.total == len(found)


CAPTIONS = [
    ("figure", "Figure 1", "Font encoding of the glyph table", "the art of math fonts"),
    ("table", "Table 2", "State of the art tables", "encoding glyph state"),
    ("equation", "Equation (3)", "Math of the state", "font font font"),
    ("figure", "Figure 4", "Glyphs", "nothing relevant"),
]


@pytest.fixture(scope="module")
def with_elements(engine: Engine) -> Engine:
    record = FileRecord("e.pdf", "e", "t", 1, 1, 0.0, "1", "ok", None, 0, "x")
    elements = [
        {"kind": k, "label": label, "caption": caption, "context": context, "page": 1}
        for k, label, caption, context in CAPTIONS
    ]
    with engine.writer(timeout=5) as writer:
        writer.add_file(record, ["elements page"], ["elements page"])
        writer.add_elements(record, elements)
    return engine


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=_expression(extras=False), captions_only=st.booleans())
def test_element_search_ranks_as_before(
    with_elements: Engine, text: str, captions_only: bool
) -> None:
    """Element search (always any-word) finds and scores what Whoosh's multi-field parser
    did before pdfindex had its own, for words, prefixes, phrases, operators and groups.
    Not for typos (that parser had none: `word~` was the word itself, now it is fuzzy
    there too) nor boosts (it boosted fields oddly); agents describe figures in words."""
    from whoosh.qparser import MultifieldParser
    from whoosh.query import And as WhooshAnd
    from whoosh.query import Term as WhooshTerm

    from pdfindex.engine.whoosh.schema import make_schema

    fields = ["ecaption"] if captions_only else ["ecaption", "etext"]
    parser = MultifieldParser(fields, make_schema(), group=OrGroup.factory(0.9))
    searcher = with_elements._searcher()  # type: ignore[attr-defined]
    query = WhooshAnd([parser.parse(text), WhooshTerm("kind", "element")])
    before = sorted((h["record"]["label"], round(h.score, 6)) for h in searcher.search(query))
    total, found = with_elements.search_elements(
        parse(text, any_word=True), 100, captions_only=captions_only
    )
    assert sorted((e["label"], round(score, 6)) for e, score in found) == before
    assert total == len(before)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=_expression(), any_word=st.booleans())
def test_every_engine_finds_the_same_pages(
    every_engine: list[Engine], text: str, any_word: bool
) -> None:
    """Engines rank differently (each its own BM25), but find the same pages."""
    tree = parse(text, any_word=any_word)
    found = [
        sorted((h.path, h.page) for h in engine.ranked(tree, limit=100).hits)
        for engine in every_engine
    ]
    assert all(pages == found[0] for pages in found), (text, found)


def test_a_not_on_its_own_keeps_the_other_pages_only(
    with_elements: Engine, every_engine: list[Engine]
) -> None:
    """`NOT font` and `(NOT font) OR math` rank pages only, never a file's catalog record
    nor an element (Tantivy ranks without a filter by kind: its NOT keeps the other pages)."""
    for engine in [with_elements, *every_engine]:
        pages = engine.ranked(parse("NOT zzz"), limit=100)
        assert all(isinstance(hit.page, int) and hit.page >= 1 for hit in pages.hits)
        expected = {(hit.path, hit.page) for hit in pages.hits}
        held = {(h.path, h.page) for h in engine.ranked(parse("font"), limit=100).hits}
        without = engine.ranked(parse("NOT font"), limit=100)
        assert {(h.path, h.page) for h in without.hits} == expected - held
        assert without.total == len(expected - held)
        either = engine.ranked(parse("(NOT font) OR math"), limit=100)
        maths = {(h.path, h.page) for h in engine.ranked(parse("math"), limit=100).hits}
        assert {(h.path, h.page) for h in either.hits} == (expected - held) | maths
