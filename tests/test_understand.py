"""Query understanding (pdfindex.search.understand): questions and word lists are natural
language (punctuation is text, function words dropped, stems and a coordination bonus
rank), explicit syntax keeps its meaning; through the real tools on real PDFs, on each
engine."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from pdfindex.api import PdfIndex
from pdfindex.cli import main
from pdfindex.config import index_settings
from pdfindex.engine import Engine, open_engine
from pdfindex.errors import InvalidQuery
from pdfindex.models import FileRecord
from pdfindex.query import And, Or, Stem, Term, parse
from pdfindex.search import understand
from pdfindex.search.ranked import ranked_search
from pdfindex.text.index import index_text
from pdfindex.tools.catalog import search_documents
from pdfindex.tools.passages import query_documents
from pdfindex.tools.sessions import SessionStore
from tests import pdfgen
from tests.conftest import ENGINE, make_settings

FILES = {
    "action.pdf": ["The action of a group on a set is transitive."],
    "what.pdf": ["What is what? What, what, what: what is this and what is that?"],
    "release.pdf": ["Release 15 changed the fonts.", "Release 1 was the first one."],
    "loading.pdf": ["Loading packages twice fails with an error."],
    "hamlet.pdf": ["To be, or not to be, that is the question."],
}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Iterator[PdfIndex]:
    root = tmp_path_factory.mktemp("understand")
    for name, pages in FILES.items():
        pdfgen.write_pdf(root / "files" / name, pages)
    opened = PdfIndex(make_settings(root))
    opened.reindex()
    yield opened
    opened.close()


def _pages(text: str) -> list[tuple[str, int]]:
    """(document, page) of each numbered page hit of search_documents' answer."""
    lines = text.splitlines()
    return [
        (lines[n + 1].split(": ")[1], int(line.rsplit(" ", 1)[1]))
        for n, line in enumerate(lines)
        if " TEXT: Page " in line
    ]


# -- what the query says ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "natural"),
    [
        ("How do I set the margins?", True),
        ("tcolorbox frame colour", True),
        ("what is it? (really)", False),
        ('"state of the art"', False),
        ("font AND encoding", False),
        ("cut and paste", True),  # lower case: words
        ("hypenaton~1", False),
        ("con*", False),
        ("word^2", False),
    ],
)
def test_explicit_syntax_is_told_from_natural_language(text: str, natural: bool) -> None:
    assert understand.is_natural(text) is natural


@pytest.mark.parametrize(
    "text",
    ['"state of the art" OR sota', "font AND (encoding OR glyph) NOT math", "con* hyp~2^3"],
)
def test_explicit_syntax_keeps_its_meaning(text: str) -> None:
    assert understand.understand(text) == parse(text, any_word=True)
    assert understand.all_words(text) == parse(text)


def test_function_words_are_dropped_unless_there_is_nothing_else() -> None:
    assert understand.content_words("How do I set the margins of a page?") == [
        "set",
        "margins",
        "page",
    ]
    assert understand.content_words("backref turn off for some citations") == [
        "backref",
        "turn",
        "off",
        "some",
        "citations",
    ]
    assert understand.content_words("to be or not to be") == ["to", "be", "or", "not"]
    # Another language's function words when the query has more of them than English's;
    # an English question keeps "die" as a word.
    assert understand.content_words("der Rahmen und die Farbe") == ["rahmen", "farbe"]
    assert "die" in understand.content_words("why does the process die")


def test_a_question_ranks_by_words_and_stems_a_word_list_by_words() -> None:
    coord = understand.COORD
    assert understand.understand("load packages") == Or(
        (Term("load"), Term("packages")), coord=coord
    )
    stemmed = understand.understand("How do I load packages?")
    weight = understand.STEM_WEIGHT
    assert stemmed == Or(
        (
            Or((Term("load"), Stem("load", weight))),
            Or((Term("packages"), Stem("packages", weight))),
        ),
        coord=coord,
    )
    assert understand.all_words("load packages") == And((Term("load"), Term("packages")))
    with pytest.raises(InvalidQuery, match="no letters or digits"):
        understand.understand("?!")


def test_a_sentence_is_a_question_or_wordy_a_list_keeps_a_function_word_or_two() -> None:
    """Stems and the hybrid ranking are for sentences: a query ending with '?', starting
    with a question word, or holding three function words. A keyword list with one or two
    ("resize box to width") stays a list: ranked by its words alone."""

    def sentence(text: str) -> bool:
        return understand.is_sentence(text, understand.content_words(text))

    assert sentence("Can the margins change?")
    assert sentence("how to change page margins")  # a question without its '?'
    assert sentence("draw a diagram of the page dimensions")  # a, of, the
    assert not sentence("resize box to width")
    assert not sentence("angles in degrees instead of radians")
    assert not sentence("tikzlings as tikz pic")
    listed = understand.understand("resize box to width")
    assert listed == Or((Term("resize"), Term("box"), Term("width")), coord=understand.COORD)


def test_unparsable_syntax_in_a_question_is_read_as_words() -> None:
    question = 'Can babel make the "s shorthand print ss?'
    assert understand.understand(question) == understand.understand(question.replace('"', ""))
    with pytest.raises(InvalidQuery, match="unclosed quote"):
        understand.all_words(question)  # the CLI says what is wrong, as before


# -- through the tools, on real PDFs ------------------------------------------------------


def test_a_question_mark_is_no_wildcard(index: PdfIndex) -> None:
    """`1?` searches the number 1, not 10 to 19 (nor is the last word lost)."""
    assert _pages(search_documents(index, "Which release was 1?")) == [
        ("release", 2),
        ("release", 1),
    ]
    assert _pages(search_documents(index, "1?")) == [("release", 2)]


def test_what_is_action_finds_the_page_holding_action(index: PdfIndex) -> None:
    assert _pages(search_documents(index, "What is action?")) == [("action", 1)]
    understand.ENABLED = False  # the ranking before: "what" ranked pages first
    try:
        before = _pages(search_documents(index, "What is action?"))
    finally:
        understand.ENABLED = True
    assert before[0] == ("what", 1)


def test_a_question_of_function_words_only_keeps_them(index: PdfIndex) -> None:
    assert _pages(search_documents(index, "to be or not to be"))[0] == ("hamlet", 1)


def test_a_question_finds_other_forms_of_its_words(index: PdfIndex) -> None:
    """`loaded` and `package` meet `Loading packages` by their stems, and the snippet
    marks the forms found; query_documents quotes the page."""
    answer = search_documents(index, "What happens when a package is loaded?")
    assert _pages(answer) == [("loading", 1)]
    assert "**Loading** **packages**" in answer
    result = query_documents(index, SessionStore(index.settings.root / "s"), "Is a package loaded?")
    assert result["status"] == "success"
    assert [s["metadata"]["document_id"] for s in result["sources"]] == ["loading"]
    # Never for explicit syntax: a phrase or a plain word is the word itself.
    assert _pages(search_documents(index, '"package loaded"')) == []
    assert _pages(search_documents(index, "loaded")) == []


# -- the coordination bonus and stems in each engine ------------------------------------


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Iterator[Engine]:
    filler = " ".join(f"filler{n}" for n in range(60))
    pages = [
        f"The margin of the page. {filler} The colour is set. {filler} Frames are drawn.",
        "Margin margin margin: the margin note and the margin rule.",
        "Colour of text.",
    ]
    opened = open_engine(index_settings(tmp_path_factory.mktemp("coord"), index_engine))
    record = FileRecord("a.pdf", "a", "t", len(pages), 1, 0.0, "0", "ok", None, 0, "x")
    with opened.writer(timeout=5) as writer:
        writer.add_file(record, pages, [index_text(p) for p in pages])
    yield opened
    opened.close()


def test_each_query_word_a_page_holds_adds_the_coordination_bonus(engine: Engine) -> None:
    words = ["margin", "colour", "drawn"]
    plain_tree = understand.natural(words, coord=0, stem=0)
    plain = {h.page: h.score for h in ranked_search(engine, plain_tree)[1]}
    tree = understand.natural(words, coord=2.0, stem=0)
    total, hits = ranked_search(engine, tree)
    scored = {h.page: h.score for h in hits}
    assert total == 3
    assert scored[1] == pytest.approx(plain[1] + 3 * 2.0, rel=1e-4)  # all three words
    assert scored[2] == pytest.approx(plain[2] + 2.0, rel=1e-4)  # one of them, often
    assert hits[0].page == 1


def test_stems_rank_only_through_the_stemmed_field(engine: Engine) -> None:
    assert ranked_search(engine, Term("framing"))[0] == 0  # the word itself: no page
    total, hits = ranked_search(engine, Stem("framing"))  # frame, as "Frames" is
    assert (total, hits[0].page) == (1, 1)
    assert "**Frames**" in hits[0].snippet
    assert engine.candidates(terms=["frame"]).refs == []  # exact search never stems


def test_element_search_understands_questions_too(engine: Engine) -> None:
    """Elements have no stemmed field: a question's stems are its words there."""
    record = FileRecord("e.pdf", "e", "t", 1, 1, 0.0, "1", "ok", None, 0, "x")
    element = {"kind": "figure", "label": "Figure 1", "caption": "Margin colours", "page": 1}
    with engine.writer(timeout=5) as writer:
        writer.add_file(record, ["elements"], ["elements"])
        writer.add_elements(record, [{**element, "context": "drawn frames"}])
    total, found = engine.search_elements(understand.understand("Which margin colours?"), 5)
    assert total == 1
    assert found[0][0]["label"] == "Figure 1"


# -- the CLI ranks as the tools do (pdfindex.ranking) --------------------------------------


def test_cli_search_ranks_as_the_tools_do(index: PdfIndex) -> None:
    root = str(index.settings.root)
    runner = CliRunner()
    every = runner.invoke(main, ["search", "--root", root, "How did release 15 change?", "--json"])
    assert every.exit_code == 0, every.output
    answer = json.loads(every.stdout)
    assert answer["ranking"] == "bm25"
    assert answer["clear"] is True
    assert answer["hits"][0]["path"] == "release.pdf"

    some = runner.invoke(main, ["search", "--root", root, "How do I load zebra packages?"])
    assert some.exit_code == 0, some.output
    assert "loading.pdf  page 1" in some.stdout.splitlines()[0]
    assert "No page holds 'zebra'" in some.stderr
    assert "(ranking: bm25)" in some.stdout
    parsed = json.loads(
        runner.invoke(main, ["search", "--root", root, "load zebra packages?", "--json"]).stdout
    )
    assert parsed["hits"][0]["path"] == "loading.pdf"

    # Explicit syntax requires what it says: no page holds both.
    none = runner.invoke(main, ["search", "--root", root, "loading AND zebra"])
    assert none.exit_code == 1
    assert "0 of 0 pages" in none.stdout


# -- a Whoosh index of format 6 gets the stemmed field ------------------------------------


def test_a_format_6_whoosh_index_gets_the_stemmed_field(tmp_path: Path) -> None:
    if ENGINE["name"] != "whoosh":
        pytest.skip("the format-6 index is Whoosh's")
    legacy = Path(__file__).parent / "data" / "legacy-index-v6"
    shutil.copytree(legacy, tmp_path, dirs_exist_ok=True)
    index = PdfIndex(make_settings(tmp_path, engine="whoosh"))
    try:
        format_file = tmp_path / "index" / "pdfindex-format.json"
        assert json.loads(format_file.read_text()) == {"format": 7}
        assert index.search("transformer")[0] == 1  # its pages rank by their words
        record = index.engine.record("notes.pdf")
        assert record is not None
        with index.engine.writer(timeout=5) as writer:  # indexed again: stems too
            writer.replace_file(record, ["Loading packages"], ["Loading packages"])
        assert ranked_search(index.engine, Stem("loaded"))[0] == 1
    finally:
        index.close()
