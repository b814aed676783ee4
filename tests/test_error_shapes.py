"""The seeds' error shapes in text as well (issue 27, item 4), through the MCP SDK's
in-memory client: a client that reads only text gets seed 002's JSON, seed 000's
argument errors keep its JSON shape, each error names its argument, and
get_document_info refuses a document_slug and a document_id that disagree."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests import pdfgen
from tests.conftest import make_settings
from tests.mcpclient import InMemory, open_app, text_of


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Iterator[InMemory]:
    settings = make_settings(tmp_path_factory.mktemp("error_shapes"), elements=False, ocr=False)
    pdfgen.write_pdf(settings.files_dir / "recipes.pdf", ["Tomato soup and bread.", "Page two."])
    pdfgen.write_pdf(settings.files_dir / "notes" / "soup.pdf", ["Soup notes."])
    with open_app(settings) as app:
        yield InMemory(app)


def test_seed_002_errors_are_its_json_in_text_too(project: InMemory) -> None:
    """get_document_info by seed 002's document_id: the text is the structured JSON; by
    seed 004's document_slug it stays 'Error: ...' text (that seed's clients read it)."""
    by_id, by_slug, schema = project.calls(
        ("get_document_info", {"document_id": "doc_abc123"}),
        ("get_document_info", {"document_slug": "doc_abc123"}),
        ("get_document_info", {"document_id": "x" * 1001}),  # refused by the input schema
    )
    for result in (by_id, by_slug, schema):
        assert result.is_error, text_of(result)
    answer = json.loads(text_of(by_id))
    assert answer == by_id.structured_content
    assert answer["status"] == "error"
    assert answer["error"] == "NotFoundError"
    assert "doc_abc123" in answer["message"]
    assert {"timestamp", "request_id", "details"} <= set(answer)
    assert text_of(by_slug).startswith("Error: Document 'doc_abc123' not found")
    assert by_slug.structured_content["error"] == "NotFoundError"
    refused = json.loads(text_of(schema))
    assert refused == schema.structured_content
    assert refused["details"]["parameter"] == "document_id"


def test_search_pdf_argument_errors_keep_seed_000s_shape(project: InMemory) -> None:
    too_many, empty, fine = project.calls(
        ("search_pdf", {"pdf_name": "recipes", "query": "soup", "topk": 1000}),
        ("search_pdf", {"pdf_name": "recipes", "query": ""}),
        ("search_pdf", {"pdf_name": "recipes", "query": "soup", "topk": 100}),
    )
    for result, named in ((too_many, "topk must be from 1 to 100"), (empty, "query must have")):
        assert result.is_error
        answer = json.loads(text_of(result))
        assert answer == result.structured_content
        assert answer["query_exists"] is False
        assert answer["matches"] == []
        assert named in answer["error"]
    assert not fine.is_error
    assert fine.structured_content["query_exists"] is True


def test_range_errors_blame_the_page_not_the_document(project: InMemory) -> None:
    image, extract, read, element = project.calls(
        ("get_page_image", {"document_slug": "recipes", "page_number": 999}),
        ("extract_pdf_page", {"file": "recipes.pdf", "pages": [999]}),
        ("read_pdf", {"sources": [{"path": "recipes.pdf", "pages": [999]}]}),
        ("get_element_details", {"document_slug": "recipes", "element_label": "Table 1"}),
    )
    assert image.is_error
    assert text_of(image).startswith("Error: page_number: page 999 is out of range")
    assert "document_slug" not in text_of(image)
    assert extract.is_error
    assert "pages: pages 999-999 are out of range" in text_of(extract)
    assert "file:" not in text_of(extract)
    assert read.is_error
    (source,) = read.structured_content["results"]
    assert source["error"].startswith("pages: pages 999-999 are out of range")
    assert element.is_error  # a label not found is about the label, named by its value
    assert "'Table 1'" in text_of(element)


def test_an_argument_to_a_tool_that_takes_none_says_so(project: InMemory) -> None:
    listed, status, some = project.calls(
        ("list_documents", {"verbose": True}),
        ("get_library_status", {"x": 1}),
        ("find_document", {"query": "soup", "max": 3}),
    )
    for result in (listed, status):
        assert result.is_error
        assert text_of(result).endswith("this tool takes no arguments"), text_of(result)
    assert text_of(listed) == "Error: unknown argument 'verbose'; this tool takes no arguments"
    assert text_of(some) == "Error: unknown argument 'max'; this tool takes query, limit"


def test_document_slug_and_document_id_must_agree(project: InMemory) -> None:
    apart, same, by_path, missing = project.calls(
        ("get_document_info", {"document_slug": "recipes", "document_id": "notes_soup"}),
        ("get_document_info", {"document_slug": "recipes", "document_id": "recipes"}),
        ("get_document_info", {"document_slug": "notes/soup.pdf", "document_id": "notes_soup"}),
        ("get_document_info", {"document_slug": "recipes", "document_id": "nothing_here"}),
    )
    assert apart.is_error
    refused = json.loads(text_of(apart))  # document_id given: seed 002's JSON as text
    assert refused == apart.structured_content
    assert refused["error"] == "ValidationError"
    assert "document_slug 'recipes' and document_id 'notes_soup'" in refused["message"]
    assert "different documents" in refused["message"]
    assert refused["details"]["parameter"] == "document_id"
    assert refused["details"]["received"] == "notes_soup"
    assert not same.is_error
    assert same.structured_content["slug"] == "recipes"
    assert not by_path.is_error  # two names of one document
    assert by_path.structured_content["slug"] == "notes_soup"
    assert missing.is_error
    assert "'nothing_here' not found" in json.loads(text_of(missing))["message"]
