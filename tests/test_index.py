"""Indexing real PDFs and searching them through the library front."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pdfindex.api import PdfIndex
from pdfindex.config import SETTINGS, index_settings
from pdfindex.engine import open_engine
from pdfindex.errors import DocumentNotFound, InvalidQuery, PageOutOfRange, PathOutsideFiles
from pdfindex.models import FileRecord
from pdfindex.search.exact import exact_search
from pdfindex.text.index import index_text
from pdfindex.tools.exact import search_pdf
from tests import pdfgen
from tests.brute import brute_force


def test_catalog_statuses(indexed: PdfIndex) -> None:
    catalog = indexed.engine.catalog()
    status = {path: record.status for path, record in catalog.items()}
    assert status == {
        "multi.pdf": "ok",
        "unicode.pdf": "ok",
        "hyphen.pdf": "ok",
        "open-encrypted.pdf": "ok",
        "locked.pdf": "encrypted",
        "corrupt.pdf": "failed",
        "scan.pdf": "ok",  # OCR (CI installs Tesseract)
        "blank.pdf": "empty",
        "sub/nested doc.pdf": "ok",
        "large.pdf": "ok",
    }
    assert "pdfium" in catalog["corrupt.pdf"].error
    assert "pdfminer" in catalog["corrupt.pdf"].error
    assert catalog["large.pdf"].pages == 320
    assert catalog["multi.pdf"].title == "Multi Page Test"
    assert catalog["sub/nested doc.pdf"].slug == "sub_nested_doc"
    assert len(catalog["large.pdf"].sha256) == 64


def test_stats_reports_problems(indexed: PdfIndex) -> None:
    stats = indexed.stats()
    assert stats["documents"] == 10
    assert stats["by_status"] == {"ok": 7, "empty": 1, "encrypted": 1, "failed": 1}
    reasons = {p["path"]: p["reason"] for p in stats["problems"]}
    assert set(reasons) == {"locked.pdf", "corrupt.pdf", "blank.pdf"}
    assert "password" in reasons["locked.pdf"]
    assert stats["index_bytes"] > 0
    assert stats["last_update"]


def test_indexed_pages_are_the_pages_stats_counts(indexed: PdfIndex) -> None:
    """Ranking counts the library's pages with the engine, not from the decoded catalog
    (50 ms at 48,000 pages): the number stats gives, with encrypted, failed and empty
    files in the library."""
    pages = indexed.stats()["pages"]
    assert pages > 320  # large.pdf and the others
    assert indexed.engine.indexed_pages() == pages
    assert indexed.pages() == pages


def test_search_pdf_seed_shape(indexed: PdfIndex) -> None:
    result = search_pdf(indexed, "multi", "TRANSFORMER ARCHITECTURE", context_length=20, topk=5)
    assert result["file_exists"]
    assert result["query_exists"]
    assert set(result) == {"file_exists", "query_exists", "matches", "pages"}
    assert result["pages"] == [1]
    (match,) = result["matches"]  # the phrase crosses a line break in the PDF
    assert "**transformer" in match
    assert "architecture**" in match
    assert search_pdf(indexed, "multi.pdf", "zebra") == {
        "file_exists": True,
        "query_exists": False,
        "matches": [],
        "pages": [],
    }
    assert search_pdf(indexed, "missing", "x") == {
        "file_exists": False,
        "query_exists": False,
        "matches": [],
        "pages": [],
    }


def test_search_pdf_gives_the_page_of_each_match(indexed: PdfIndex) -> None:
    """`pages[i]` is the page of `matches[i]`: a citation needs no second call."""
    result = search_pdf(indexed, "multi", "page", context_length=20)
    assert result["pages"] == [1, 2, 3]
    assert "Second **page**" in result["matches"][1]
    cut = search_pdf(indexed, "multi", "page", context_length=20, topk=2)
    assert cut["pages"] == [1, 2]


def test_search_pdf_hyphenation_unicode_and_subfolders(indexed: PdfIndex) -> None:
    hyphen = search_pdf(indexed, "hyphen", "architecture", context_length=10)
    assert hyphen["query_exists"], hyphen
    assert search_pdf(indexed, "unicode", "FINANCIAL FLOW")["query_exists"]  # ligatures
    assert search_pdf(indexed, "unicode", "strasse")["query_exists"]  # casefold ß
    assert search_pdf(indexed, "unicode", "σίσυφος")["query_exists"]
    assert search_pdf(indexed, "multi", "naïve café")["query_exists"]
    assert search_pdf(indexed, "sub/nested doc", "sub-folder")["query_exists"]
    assert search_pdf(indexed, "open-encrypted", "secret")["query_exists"]
    assert search_pdf(indexed, "scan", "scanned invoice 4711")["query_exists"]  # OCR


def test_search_pdf_errors_for_unreadable_files(indexed: PdfIndex) -> None:
    unreadable = (("corrupt", "Failed to parse"), ("locked", "password"), ("blank", "No text"))
    for name, word in unreadable:
        result = search_pdf(indexed, name, "anything")
        assert result["file_exists"]
        assert not result["query_exists"]
        assert word in result["error"]


def test_search_pdf_context_and_topk(indexed: PdfIndex) -> None:
    result = search_pdf(indexed, "large", "page marker", context_length=100, topk=7)
    assert len(result["matches"]) == 7
    for match in result["matches"]:
        before, rest = match.split("**", 1)
        assert len(before) <= 50
        assert rest.lower().startswith("page marker**")
    everything = search_pdf(indexed, "large", "page marker", context_length=0, topk=100)
    assert len(everything["matches"]) == 100


def test_page_numbers_of_the_large_document(indexed: PdfIndex) -> None:
    matches, more = indexed.exact("Page marker P0217", document="large")
    assert [(m.path, m.page) for m in matches] == [("large.pdf", 217)]
    assert not more
    record, texts = indexed.page_texts("large", "299-300")
    assert [n for n, _ in texts] == [299, 300]
    assert "P0300" in texts[1][1]


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"pdf_name": "multi", "query": ""}, InvalidQuery),
        ({"pdf_name": "multi", "query": "x" * 2001}, InvalidQuery),
        ({"pdf_name": "multi", "query": "x", "topk": 0}, InvalidQuery),
        ({"pdf_name": "multi", "query": "x", "context_length": -1}, InvalidQuery),
        ({"pdf_name": "", "query": "x"}, InvalidQuery),
        ({"pdf_name": "../../etc/passwd", "query": "root"}, PathOutsideFiles),
        ({"pdf_name": "/etc/passwd", "query": "root"}, PathOutsideFiles),
    ],
)
def test_search_pdf_bad_input(indexed: PdfIndex, kwargs: dict, error: type) -> None:
    with pytest.raises(error):
        search_pdf(indexed, **kwargs)


def test_ranked_query_kinds(indexed: PdfIndex) -> None:
    def pages(query: str, **kw: object) -> set[tuple[str, int]]:
        return {(h.path, h.page) for h in indexed.search(query, limit=50, **kw)[1]}

    assert pages('"state of the art"') == {("multi.pdf", 2)}  # stop words kept
    assert pages("architecture") >= {("multi.pdf", 1), ("hyphen.pdf", 1)}
    assert pages("transfromer~2") >= {("multi.pdf", 1)}  # fuzzy
    assert pages("archit*") >= {("multi.pdf", 1)}  # prefix
    assert pages("fox AND quick") == {("multi.pdf", 2)}
    assert pages("fox OR financial") == {("multi.pdf", 2), ("unicode.pdf", 1)}
    assert ("multi.pdf", 2) not in pages("state NOT fox")
    assert pages("marker", document="large", pages="10-12") == {
        ("large.pdf", n) for n in (10, 11, 12)
    }
    top = indexed.search("fox", limit=1)[1][0]
    assert "**fox**" in top.snippet
    assert top.score > 0


def test_unknown_documents_and_pages(indexed: PdfIndex) -> None:
    with pytest.raises(DocumentNotFound):
        indexed.search("x", document="nope")
    with pytest.raises(PageOutOfRange, match="1-3"):
        indexed.page_texts("multi", "4")


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_exact_search_equals_brute_force_over_stored_text(
    indexed: PdfIndex, data: st.DataObject
) -> None:
    """Through the real index (term narrowing included) over the large document."""
    texts = indexed.engine.page_texts("large")
    page = data.draw(st.integers(1, len(texts)))
    text = texts[page - 1]
    start = data.draw(st.integers(0, len(text) - 2))
    query = text[start : start + data.draw(st.integers(1, 30))]
    if data.draw(st.booleans()):
        query = query.upper()
    assume(query.strip())
    expected = [(n, s) for n, t in enumerate(texts, 1) for s, _ in brute_force(t, query)]
    matches, _ = exact_search(indexed.engine, query, slug="large", limit=1000, context_length=0)
    assert [(m.page, m.start) for m in matches] == expected[:1000]


page_texts = st.lists(
    st.lists(
        st.sampled_from(
            ["alpha", "Beta", "c++", "e.g.", "3.14", " ", " ", "\n", "-\n", ".", ", ", "gam"]
        ),
        max_size=30,
    ).map("".join),
    min_size=1,
    max_size=4,
)


@settings(max_examples=150, deadline=None)
@given(docs=st.lists(page_texts, min_size=1, max_size=3), data=st.data())
def test_exact_search_over_a_real_store_equals_brute_force(
    tmp_path_factory: pytest.TempPathFactory, docs: list[list[str]], data: st.DataObject
) -> None:
    """Generated page texts written straight into a Whoosh store, across documents; the
    query is often a slice of one of them, so the narrowing paths (whole words, phrases
    of them, prefixes) are taken with matches present."""
    fixed = st.sampled_from(
        ["alpha", "c++", "e.g.", "a.b", "alphabeta", " beta ", ".gam.", "3.14 alpha", "a-\nb"]
    )
    text = data.draw(st.sampled_from([p for pages in docs for p in pages]))
    if len(text) > 2 and data.draw(st.booleans()):
        start = data.draw(st.integers(0, len(text) - 2))
        query = text[start : start + data.draw(st.integers(2, 40))]
    else:
        query = data.draw(fixed)
    assume(query.strip())
    folder = tmp_path_factory.mktemp("engine")
    engine = open_engine(index_settings(folder, SETTINGS["engine"].default))
    with engine.writer(timeout=1) as writer:
        for n, pages in enumerate(docs):
            record = FileRecord(
                f"d{n}.pdf", f"d{n}", "t", len(pages), 1, 0.0, "0", "ok", None, 0.0, "x"
            )
            writer.add_file(record, pages, [index_text(p) for p in pages])
    expected = [
        (f"d{n}.pdf", p, s)
        for n, pages in enumerate(docs)
        for p, page_text in enumerate(pages, 1)
        for s, _ in brute_force(page_text, query)
    ]
    matches, _ = exact_search(engine, query, limit=1000, context_length=4)
    assert [(m.path, m.page, m.start) for m in matches] == expected
    engine.close()


def test_pdfminer_extractor_indexes_the_same_words(tmp_path: Path) -> None:
    from tests.conftest import make_settings

    pdfgen.write_pdf(tmp_path / "files" / "a.pdf", ["alpha beta gamma", "delta epsilon"])
    index = PdfIndex(make_settings(tmp_path, extractor="pdfminer"))
    summary = index.reindex()
    assert summary.added == 1
    record = index.engine.record("a.pdf")
    assert record is not None
    assert record.extractor.startswith("pdfminer")
    assert search_pdf(index, "a", "delta epsilon")["query_exists"]
    index.close()


def test_snippet_marks_whole_words_where_they_cluster() -> None:
    from pdfindex.search.snippets import snippet

    text = "fox " + "filler words here " * 30 + "The quick Fox jumps over the foxes; fox again."
    marked = snippet(text, {"fox", "quick"}, width=80)
    assert marked.startswith("…")
    assert "**quick** **Fox**" in marked
    assert "**fox**es" not in marked
    assert "foxes" in marked
    assert snippet("no match here", {"zebra"}) == "no match here"


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data(), maxdist=st.sampled_from([1, 2]))
def test_fuzzy_expansion_equals_whoosh_terms_within(
    indexed: PdfIndex, data: st.DataObject, maxdist: int
) -> None:
    """The fast vocabulary scan finds exactly the words Whoosh's automaton finds
    (a Whoosh engine property: it reads the engine's own reader)."""
    if indexed.engine.name != "whoosh":
        pytest.skip("compares with Whoosh's own automaton")
    from pdfindex.engine.vocabulary import within
    from pdfindex.engine.whoosh.engine import field_words

    reader = indexed.engine._searcher().reader()
    vocabulary = field_words(reader, "content")
    word = list(data.draw(st.sampled_from(vocabulary)))
    for _ in range(data.draw(st.integers(0, 2))):
        at = data.draw(st.integers(0, len(word)))
        edit = data.draw(st.sampled_from(["insert", "delete", "replace", "swap"]))
        letter = data.draw(st.sampled_from("aeiourstnß1"))
        if edit == "insert":
            word.insert(at, letter)
        elif word and edit == "delete":
            del word[min(at, len(word) - 1)]
        elif word and edit == "replace":
            word[min(at, len(word) - 1)] = letter
        elif at + 1 < len(word):
            word[at], word[at + 1] = word[at + 1], word[at]
    query = "".join(word)
    assume(query)
    expected = sorted(reader.terms_within("content", query, maxdist))
    assert within(vocabulary, query, maxdist) == expected
    assert indexed.engine.similar_terms(query, maxdist) == expected


def test_a_query_holding_a_line_end_hyphen_finds_the_page(
    tmp_path: Path, index_engine: str
) -> None:
    """The query `-\\nword c+` matches `word-\\nword c++` literally, though the index holds
    `wordword`: its words must not narrow as a phrase (found by the property test)."""
    engine = open_engine(index_settings(tmp_path, index_engine))
    record = FileRecord("h.pdf", "h", "t", 1, 1, 0.0, "0", "ok", None, 0.0, "x")
    text = "word-\nword c++"
    with engine.writer(timeout=1) as writer:
        writer.add_file(record, [text], [index_text(text)])
    matches, _ = exact_search(engine, "-\nword c+", limit=10, context_length=4)
    assert [(m.path, m.start) for m in matches] == [("h.pdf", 4)]
    engine.close()


@pytest.mark.parametrize("query", ["hyphenat*", "hypenation~1", "hyphenaton~2"])
def test_prefix_and_typo_hits_are_ranked_like_the_words_they_stand_for(
    tmp_path: Path, query: str
) -> None:
    """BM25 over the expansions: the page that says `hyphenation` most, in the fewest words,
    comes first; a page with a word the prefix or typo also stands for is still found."""
    from tests.conftest import make_settings

    filler = " ".join(f"filler{n}" for n in range(60))
    pages = [
        f"hyphenation once among many words {filler}",
        "hyphenation hyphenation hyphenation rules",
        f"nothing of the kind here {filler}",
        f"hyphenated twice hyphenated {filler}",
        *(f"other words on page {n}" for n in range(5, 41)),  # so that the words are rare
    ]
    pdfgen.write_pdf(tmp_path / "files" / "h.pdf", pages)
    index = PdfIndex(make_settings(tmp_path))
    index.reindex()
    total, hits = index.search(query, limit=10)
    ranked = [hit.page for hit in hits]
    assert ranked[0] == 2
    assert ranked.index(2) < ranked.index(1)
    assert 3 not in ranked
    assert hits[0].score > hits[-1].score
    if query.endswith("*"):
        assert total == 3
        assert 4 in ranked
    index.close()
