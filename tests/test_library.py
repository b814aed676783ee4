"""Seed 004 and 002 tools through the MCP SDK's in-memory client, a session per test."""

from __future__ import annotations

import base64
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from pdfindex.server import AppContext
from tests import pdfgen
from tests.conftest import make_settings
from tests.mcpclient import InMemory, image_of, open_app, text_of

# What the library project holds, by slug: (title, pages); written independently of the
# code under test so that every sort order can be checked against it.
SAMPLES = {
    "getting_started": ("Getting started with pdfindex", 3),
    "research_attention_notes": ("Notes on the transformer architecture", 3),
    "recipes": ("Two everyday recipes", 2),
}
LIBRARY = {
    **SAMPLES,
    "large": ("Large test document (320 pages)", 320),
    # untitled: the first line is the title
    **{f"many_doc_{i:02d}": (f"filler {i}", 1 + i % 4) for i in range(23)},
}


def write_samples(root: Path) -> Path:
    """The shipped samples in ROOT/files, a PDF outside it; returns ROOT."""
    pdfgen.write_sample_files(root / "files")
    (root / "outside").mkdir()
    pdfgen.write_pdf(root / "outside" / "stranger.pdf", ["not for indexing"])
    return root


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, corpus: Path, index_engine: str) -> Path:
    root = write_samples(tmp_path_factory.mktemp("library"))
    for i in range(23):  # enough documents for three pages of list_documents_paginated
        pdfgen.write_pdf(
            root / "files" / "many" / f"doc-{i:02d}.pdf", [f"filler {i}"] * (1 + i % 4)
        )
    shutil.copy(corpus / "large.pdf", root / "files" / "large.pdf")
    return root


@pytest.fixture(scope="module")
def library(project: Path, index_engine: str) -> Iterator[InMemory]:
    """The library project served with its watcher, shared by the tests that only read."""
    with open_app(make_settings(project, page_image_bytes=200_000), watch=True) as app:
        yield InMemory(app)


@pytest.fixture
def samples(tmp_path: Path) -> Iterator[AppContext]:
    """A project of its own for a test that changes it: the samples only, no watcher."""
    with open_app(make_settings(write_samples(tmp_path / "samples"))) as app:
        yield app


def test_search_documents_formats_follow_up_keys(library: InMemory) -> None:
    found, one, bad, limit = library.calls(
        ("search_documents", {"query": "transformer architecture", "limit": 5}),
        ("search_documents", {"query": "tomato soup", "document_slug": "recipes"}),
        ("search_documents", {"query": "x", "document_slug": "nope"}),
        ("search_documents", {"query": "x", "limit": 51}),
    )
    text = text_of(found)
    assert text.startswith("Found ")
    assert "[1] TEXT: Page" in text
    assert "Document: research_attention_notes" in text
    assert "**transformer**" in text
    assert "Document: recipes" in text_of(one)
    assert "Document: research" not in text_of(one)
    assert text_of(bad).startswith("Error: Document 'nope' not found")
    assert "find_document" in text_of(bad)
    assert text_of(limit).startswith("Error:")


def test_page_images(library: InMemory) -> None:
    first, again, big, out_of_range, bad_dpi = library.calls(
        ("get_page_image", {"document_slug": "getting_started", "page_number": 1}),
        ("get_page_image", {"document_slug": "getting_started", "page_number": 1}),
        ("get_page_image", {"document_slug": "large", "page_number": 3, "dpi": 300}),
        ("get_page_image", {"document_slug": "recipes", "page_number": 5}),
        ("get_page_image", {"document_slug": "recipes", "page_number": 1, "dpi": 5}),
    )
    caption = text_of(first)
    assert caption.startswith("Page 1 of 3\nDocument: getting_started")
    picture = image_of(first)
    assert picture.width > 500
    assert picture.height > 500
    gray = picture.convert("L")
    assert gray.getextrema()[0] < 100  # some dark text on the white page: not blank
    assert "(cached)" in text_of(again)
    (png,) = [c for c in big.content if c.type == "image"]
    assert len(base64.b64decode(png.data)) <= 200_000  # the byte budget lowered the DPI
    assert "Rendered at 300 dpi" not in text_of(big)
    assert "pages 1-2" in text_of(out_of_range)
    assert text_of(out_of_range).startswith("Error:")
    assert text_of(bad_dpi).startswith("Error: dpi must be")


def test_document_info_serves_both_seeds(library: InMemory) -> None:
    by_slug, by_id, missing_doc = library.calls(
        ("get_document_info", {"document_slug": "research_attention_notes"}),
        ("get_document_info", {"document_id": "recipes"}),
        ("get_document_info", {"document_slug": "nothing_here"}),
    )
    info = by_slug.structured_content
    assert info["slug"] == info["document_id"] == "research_attention_notes"
    assert info["total_pages"] == 3
    assert info["language"] == "en"
    assert info["processing_stages"][0] == "hash"
    assert info["indexed_at"]
    assert by_id.structured_content["title"] == "Two everyday recipes"
    missing = missing_doc.structured_content
    assert missing["status"] == "error"
    assert missing["message"].startswith("Error:")


def test_find_and_list_documents(library: InMemory) -> None:
    found, listed = library.calls(
        ("find_document", {"query": "atention notse"}), ("list_documents", {})
    )
    matches = found.structured_content["matches"]
    assert matches[0]["slug"] == "research_attention_notes"
    listing = text_of(listed)
    assert "research_attention_notes" in listing
    assert "(320 pages)" in listing


def walk(library: InMemory, page_size: int, sort_by: str | None = None) -> list[dict]:
    """Every page of list_documents_paginated, following has_next."""
    pages: list[dict] = []
    while not pages or pages[-1]["pagination"]["has_next"]:
        arguments = {"page": len(pages) + 1, "page_size": page_size}
        if sort_by is not None:
            arguments["sort_by"] = sort_by
        pages.append(library.call("list_documents_paginated", **arguments).structured_content)
    return pages


def test_pagination_walks_every_document_once_in_title_order(library: InMemory) -> None:
    pages = walk(library, page_size=10)  # sort_by defaults to title
    documents = [d for page in pages for d in page["documents"]]
    slugs = [d["slug"] for d in documents]
    total = pages[0]["pagination"]["total"]
    assert len(pages) == pages[0]["pagination"]["pages"] == 3
    assert [p["pagination"]["page"] for p in pages] == [1, 2, 3]
    assert len(slugs) == len(set(slugs)) == total == 27
    assert {d["slug"]: (d["title"], d["pages"]) for d in documents} == LIBRARY
    # case-insensitive title order, slug on ties: "filler 10" comes before "filler 2"
    assert slugs == sorted(LIBRARY, key=lambda s: (LIBRARY[s][0].lower(), s))
    assert slugs[:4] == ["many_doc_00", "many_doc_01", "many_doc_10", "many_doc_11"]
    assert slugs[-4:] == ["getting_started", "large", "research_attention_notes", "recipes"]


def test_pagination_by_page_count(library: InMemory) -> None:
    pages = walk(library, page_size=3, sort_by="page_count")
    assert len(pages) == 9
    assert {p["pagination"]["sort_by"] for p in pages} == {"page_count"}
    by_size = pages[0]["documents"]
    assert by_size[0]["slug"] == "large"
    assert by_size[0]["pages"] == 320
    slugs = [d["slug"] for page in pages for d in page["documents"]]
    # most pages first, slug on ties
    assert slugs == sorted(LIBRARY, key=lambda s: (-LIBRARY[s][1], s))
    assert slugs[1:4] == ["many_doc_03", "many_doc_07", "many_doc_11"]


def test_pagination_by_date_added_and_each_order(tmp_path: Path) -> None:
    """Three documents indexed one after another, so that the three orders differ from
    each other and from the slugs' order."""
    (tmp_path / "files").mkdir()
    added = [("a", "Zebra notes", 2), ("b", "Apple notes", 1), ("c", "mango notes", 3)]
    with open_app(make_settings(tmp_path)) as app:
        client = InMemory(app)
        for slug, title, pages in added:  # oldest first
            pdfgen.write_pdf(tmp_path / "files" / f"{slug}.pdf", [title] * pages, title=title)
            done = client.call("process_document", file_path=f"{slug}.pdf").structured_content
            assert done["status"] == "success"
            assert done["document_id"] == slug
        orders = {
            sort_by: [d["slug"] for page in walk(client, 2, sort_by) for d in page["documents"]]
            for sort_by in ("title", "page_count", "date_added")
        }
    assert orders == {
        "title": ["b", "c", "a"],  # Apple, mango, Zebra: case does not count
        "page_count": ["c", "a", "b"],
        "date_added": ["c", "b", "a"],  # newest first
    }


def test_library_status(library: InMemory) -> None:
    status = text_of(library.call("get_library_status"))
    assert "Documents: 27" in status
    assert "Watcher: running" in status
    assert "Pending changes:" in status
    assert "Last commit:" in status


def test_process_document(samples: AppContext) -> None:
    root = samples.index.settings.root
    client = InMemory(samples)
    processed = client.call("process_document", file_path=str(root / "files" / "recipes.pdf"))
    pdfgen.write_pdf(root / "files" / "fresh.pdf", ["Brand new kumquat harvest"])
    fresh_result, outside, missing = client.calls(
        ("process_document", {"file_path": "fresh.pdf", "file_name": "Fresh"}),
        ("process_document", {"file_path": str(root / "outside" / "stranger.pdf")}),
        ("process_document", {"file_path": "missing.pdf"}),
    )
    done = processed.structured_content
    assert done["status"] == "success"
    assert done["document_id"] == "recipes"
    assert done["metadata"]["page_count"] == 2
    assert done["metadata"]["language"] == "en"
    fresh = fresh_result.structured_content
    assert fresh["status"] == "success"
    assert fresh["file_name"] == "Fresh"
    assert fresh["document_id"] == "fresh"
    assert outside.structured_content["error"] == "ValidationError"
    assert missing.structured_content["error"] == "FileNotFoundError"
    found = client.call("search_pdf", pdf_name="fresh", query="kumquat").structured_content
    assert found["query_exists"]  # indexed by the call, with no watcher running


def test_query_documents_with_a_session(samples: AppContext) -> None:
    client = InMemory(samples)
    q1 = client.call("query_documents", query="How does the transformer architecture work?")
    first = q1.structured_content
    sid = first["session_id"]
    second = client.call(
        "query_documents", query="and what about attention heads?", session_id=sid
    ).structured_content
    pdfgen.write_pdf(samples.index.settings.files_dir / "fresh.pdf", ["Brand new kumquat harvest"])
    client.call("process_document", file_path="fresh.pdf", file_name="Fresh")
    third, bad_id, unknown, bad_top_k, no_words, listed = client.calls(
        ("query_documents", {"query": "kumquat harvest", "session_id": sid, "top_k": 2}),
        ("query_documents", {"query": "x", "session_id": "not-a-uuid"}),
        ("query_documents", {"query": "x", "session_id": "00000000-0000-4000-8000-000000000000"}),
        ("query_documents", {"query": "x", "top_k": 0}),
        ("query_documents", {"query": "?!"}),  # no words: an error, no new session
        ("list_sessions", {}),
    )
    third = third.structured_content
    assert first["status"] == "success"
    assert len(first["sources"]) >= 2
    meta = first["sources"][0]["metadata"]
    assert set(meta) == {"document_id", "title", "page", "relevance_score", "chunk_index"}
    assert "transformer" in first["answer"].lower()
    assert "[research_attention_notes, p." in first["answer"]
    assert second["session_id"] == first["session_id"] == third["session_id"]
    assert second["query_metadata"]["earlier_queries_used"] == 1
    assert second["sources"][0]["metadata"]["document_id"] in {
        "research_attention_notes",
        "getting_started",
    }
    assert third["sources"][0]["metadata"]["document_id"] == "fresh"  # processed just before
    assert len(third["sources"]) <= 2
    for result, kind in (
        (bad_id, "ValidationError"),
        (unknown, "SessionNotFoundError"),
        (bad_top_k, "ValidationError"),
        (no_words, "ValidationError"),
    ):
        assert result.structured_content.get("error") == kind, result
    (session,) = listed.structured_content["sessions"]
    assert session["query_count"] == 3
    assert session["session_id"] == first["session_id"]


def test_tour_and_tool_names(library: InMemory) -> None:
    tour = library.resource("tour://library")
    assert "find_document" in tour
    assert "get_page_image" in tour
    assert {
        "search_documents",
        "get_page_image",
        "get_document_info",
        "find_document",
        "list_documents",
        "list_documents_paginated",
        "get_library_status",
        "process_document",
        "query_documents",
        "list_sessions",
    } <= set(library.tools())


def test_sessions_survive_a_restart(tmp_path: Path) -> None:
    settings = make_settings(write_samples(tmp_path))
    with open_app(settings) as app:
        q1 = InMemory(app).call("query_documents", query="How does the transformer work?")
    sid = q1.structured_content["session_id"]
    files = list((tmp_path / "index" / "sessions").glob("*.json"))
    assert len(files) == 1
    assert json.loads(files[0].read_text())["session_id"] == sid
    with open_app(settings) as restarted:
        client = InMemory(restarted)
        (session,) = client.call("list_sessions").structured_content["sessions"]
        follow_up = client.call("query_documents", query="and attention?", session_id=sid)
    assert session["session_id"] == sid
    assert session["query_count"] == 1
    assert follow_up.structured_content["query_metadata"]["earlier_queries_used"] == 1
