"""What an agent meets on its first calls (issue 12, points 5-8 and 11), through the MCP
SDK's in-memory client: one error rule, one naming rule, a hard cap on the serialised
answer, schemas that say what the code checks, and the seeds' shapes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult

from pdfindex import __version__
from pdfindex.server.errors import crash_message
from tests import pdfgen
from tests.conftest import make_settings
from tests.mcpclient import InMemory, open_app, text_of

CAP = 4000  # max_response_chars: small, so every big answer meets the cap
REPORT = "reports/storage-report.pdf"  # slug reports_storage_report
# Text that grows when serialised: quotes, backslashes and line breaks are escaped in JSON.
ESCAPED = "\n".join(f'line {n}: "quoted" C:\\path\\{n} \\ tab' for n in range(40))
NAMES = ["reports/storage-report.pdf", "reports/storage-report", "reports_storage_report"]
NEAR_MISS = "reports/storage-reprot"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Iterator[InMemory]:
    settings = make_settings(
        tmp_path_factory.mktemp("first_call"), max_response_chars=CAP, elements=False, ocr=False
    )
    files = settings.files_dir
    pdfgen.write_pdf(
        files / REPORT,
        ["Storage engines\nkeep pages\nin order.", "The storage report ends here."],
        title="Storage Report",
    )
    pdfgen.write_pdf(files / "escapes.pdf", [ESCAPED, ESCAPED, ESCAPED])
    pdfgen.write_pdf(files / "recipes.pdf", ["Tomato soup and bread."])
    for n in range(40):
        pdfgen.write_pdf(
            files / "many" / f"document-{n:02}.pdf",
            [f"Short document {n}."],
            title=f"Document {n} of a series whose titles are long enough to fill lists",
        )
    with open_app(settings) as app:
        yield InMemory(app)


def tool_names(client: InMemory) -> list[str]:
    return list(client.tools())


# -- point 5: one error rule ----------------------------------------------------------


def test_the_same_mistake_is_an_error_in_every_tool_in_its_seeds_shape(
    project: InMemory,
) -> None:
    exact, ranked, rag, fuzzy, info = project.calls(
        ("search_pdf", {"pdf_name": "recipes", "query": ""}),
        ("search_documents", {"query": ""}),
        ("query_documents", {"query": ""}),
        ("search_visual_elements", {"query": ""}),
        ("get_document_info", {}),
    )
    for result in (exact, ranked, rag, fuzzy, info):
        assert result.is_error, text_of(result)
    assert "query must have 1 to 2000 characters" in text_of(exact)
    assert text_of(ranked).startswith("Error: query must have 1 to 2000 characters")
    assert text_of(fuzzy).startswith("Error: query must have")
    error = rag.structured_content
    assert error["status"] == "error"
    assert error["error"] == "ValidationError"
    assert error["details"] == {
        "parameter": "query",
        "expected": "1 to 2000 characters",
        "received": "",
    }
    assert error["timestamp"]
    assert error["request_id"]
    assert json.loads(text_of(rag)) == error
    # get_document_info serves seeds 002 and 004: JSON for one, "Error:" text for the other
    assert info.structured_content["status"] == "error"
    assert text_of(info).startswith("Error: give document_slug or document_id")


def test_domain_errors_are_flagged_too(project: InMemory) -> None:
    """Errors raised inside the tools, not by the schema: flagged, each in its seed's form."""
    ranked, rag, page, files = project.calls(
        ("search_documents", {"query": "soup", "document_slug": "nope"}),
        ("query_documents", {"query": "soup", "session_id": "not-a-uuid"}),
        ("get_page_image", {"document_slug": "recipes", "page_number": 9}),
        ("read_pdf", {"sources": [{"path": "nope.pdf"}]}),
    )
    assert ranked.is_error
    assert text_of(ranked).startswith("Error: Document 'nope' not found")
    assert rag.is_error
    assert rag.structured_content["error"] == "ValidationError"
    assert page.is_error
    assert "pages 1-1" in text_of(page)
    assert files.is_error
    assert files.structured_content["results"][0]["success"] is False


def test_a_file_gone_behind_the_index_is_named(tmp_path: Path) -> None:
    """A PDF deleted behind the index's back (no watcher): rendering says which file
    cannot be read and why, without a traceback or an absolute path."""
    settings = make_settings(tmp_path, elements=False, ocr=False)
    pdfgen.write_pdf(settings.files_dir / "gone.pdf", ["Soon deleted."])
    with open_app(settings) as app:
        (settings.files_dir / "gone.pdf").unlink()
        result = InMemory(app).call("get_page_image", document_slug="gone", page_number=1)
    text = text_of(result)
    assert result.is_error
    assert text == "Error: gone.pdf cannot be read now (No such file or directory)"
    assert str(tmp_path) not in text
    assert "Traceback" not in text


def test_an_unexpected_exception_names_its_cause(tmp_path: Path) -> None:
    """An exception pdfindex did not anticipate is answered with its type and message,
    paths inside the files folder made relative and others cut to their last part."""
    files_dir = tmp_path / "files"
    crash = RuntimeError(f"cannot parse {files_dir}/a/b.pdf near /usr/lib/secret/x.so")
    text = crash_message(crash, files_dir)
    assert text == "internal error: RuntimeError: cannot parse a/b.pdf near .../x.so"


# -- point 6: one naming rule ---------------------------------------------------------


def _by_name(name: str) -> list[tuple[str, dict[str, Any]]]:
    """Every tool that takes a document, naming it `name`."""
    return [
        ("search_pdf", {"pdf_name": name, "query": "storage"}),
        ("fuzzy_search", {"query": "storage", "path": name}),
        ("search_in_file", {"file": name, "pattern": "storage"}),
        ("extract_pdf_page", {"file": name, "pages": [1], "output_format": "plain"}),
        ("list_searchable_files", {"path": name}),
        ("read_pdf", {"sources": [{"path": name, "pages": "1"}]}),
        ("search_documents", {"query": "storage", "document_slug": name}),
        ("get_page_image", {"document_slug": name, "page_number": 1, "dpi": 36}),
        ("search_visual_elements", {"query": "storage", "document_slug": name}),
        ("get_element_details", {"document_slug": name, "element_label": "Table 1"}),
        ("get_document_info", {"document_id": name}),
        ("process_document", {"file_path": name}),
    ]


@pytest.mark.parametrize("name", NAMES)
def test_every_tool_takes_a_path_a_path_without_extension_or_a_slug(
    project: InMemory, name: str
) -> None:
    answers = dict(zip([t for t, _ in _by_name(name)], project.calls(*_by_name(name)), strict=True))
    for tool in ("get_element_details",):  # no elements here: the document is found, though
        assert "in document 'reports_storage_report'" in text_of(answers.pop(tool))
    for tool, result in answers.items():
        assert not result.is_error, (tool, text_of(result))
        assert "reports" in text_of(result) or "storage" in text_of(result).lower(), tool
    assert answers["search_pdf"].structured_content["query_exists"]
    assert answers["fuzzy_search"].structured_content["matches"][0]["file"] == REPORT
    assert [f["path"] for f in answers["list_searchable_files"].structured_content["files"]] == [
        REPORT
    ]
    assert answers["get_document_info"].structured_content["path"] == REPORT
    assert answers["process_document"].structured_content["document_id"] == (
        "reports_storage_report"
    )


def test_an_unknown_name_gets_the_closest_ones(project: InMemory) -> None:
    calls = _by_name(NEAR_MISS)
    for (tool, _), result in zip(calls, project.calls(*calls), strict=True):
        text = text_of(result)
        if tool == "read_pdf":
            text = result.structured_content["results"][0]["error"]
        assert result.is_error, tool
        assert f"'{NEAR_MISS}' not found" in text, (tool, text)
        assert "Closest: 'reports_storage_report' (reports/storage-report.pdf)" in text, tool


def test_names_never_lead_outside_the_files_folder(project: InMemory) -> None:
    for result in project.calls(
        ("search_in_file", {"file": "../outside/storage-report.pdf", "pattern": "x"}),
        ("get_document_info", {"document_slug": "/etc/passwd"}),
        ("search_pdf", {"pdf_name": "../../etc/passwd", "query": "root"}),
    ):
        assert result.is_error
        assert "outside the files folder" in text_of(result)


# -- point 7: sizes -------------------------------------------------------------------


def test_no_serialised_answer_exceeds_the_cap(project: InMemory) -> None:
    results = project.calls(
        ("search_pdf", {"pdf_name": "escapes", "query": "quoted", "context_length": 20000}),
        ("search_in_file", {"file": "escapes.pdf", "pattern": "line"}),
        ("fuzzy_search", {"query": "quoted", "max_results": 500}),
        ("read_pdf", {"sources": [{"path": "escapes.pdf"}], "include_full_text": True}),
        ("read_pdf", {"sources": [{"path": "escapes.pdf", "pages": [1]}] * 3}),
        ("extract_pdf_page", {"file": "escapes.pdf", "pages": [1, 2, 3], "output_format": "plain"}),
        ("list_searchable_files", {}),
        ("list_documents", {}),
        ("list_documents_paginated", {"page_size": 100}),
        ("query_documents", {"query": "quoted path tab line", "top_k": 20}),
    )
    for result in results:
        assert not result.is_error, text_of(result)
        text = text_of(result)
        assert len(text) <= CAP, (len(text), text[:200])
    grep = results[1].structured_content
    assert grep["truncated"]
    assert grep["next_offset"] == len(grep["matches"]) < 120
    full = results[3].structured_content["results"][0]["data"]
    assert full["truncated"]
    assert full["next_pages"]
    assert results[6].structured_content["next_offset"] < 43  # 43 files, paged
    assert "list_documents_paginated" in text_of(results[7])
    paged = project.call(
        "search_in_file", file="escapes.pdf", pattern="line", offset=grep["next_offset"]
    )
    assert paged.structured_content["matches"][0]["line_number"] == grep["next_offset"] + 1


# -- point 8: schemas -----------------------------------------------------------------


BOUNDED = {  # tool -> arguments whose limits the schema must state
    "search_documents": ["limit"],
    "search_visual_elements": ["limit"],
    "query_documents": ["top_k"],
    "get_page_image": ["dpi", "page_number"],
    "get_element_image": ["dpi", "page_number"],
    "search_pdf": ["topk", "context_length"],
    "fuzzy_search": ["max_results"],
    "find_document": ["limit"],
    "list_documents_paginated": ["page", "page_size"],
}


def _branch(prop: dict[str, Any]) -> dict[str, Any]:
    return next((s for s in prop.get("anyOf", []) if s.get("type") != "null"), prop)


def test_schemas_say_what_the_code_checks(project: InMemory) -> None:
    tools = project.tools()
    for name, arguments in BOUNDED.items():
        props = tools[name].input_schema["properties"]
        for argument in arguments:
            assert "minimum" in _branch(props[argument]), (name, argument)
    for name in ("search_documents", "search_visual_elements", "query_documents"):
        query = tools[name].input_schema["properties"]["query"]
        assert (query["minLength"], query["maxLength"]) == (1, 2000), name
    kinds = _branch(tools["search_visual_elements"].input_schema["properties"]["element_type"])
    assert kinds["enum"] == ["figure", "table", "equation", "diagram", "chart"]
    assert tools["get_document_info"].input_schema["anyOf"] == [
        {"required": ["document_slug"]},
        {"required": ["document_id"]},
    ]
    source = tools["read_pdf"].input_schema["$defs"]["PdfSource"]
    assert source["anyOf"] == [{"required": ["path"]}, {"required": ["url"]}]
    for name, tool in tools.items():
        assert tool.input_schema.get("additionalProperties") is False, name
        assert "\n    " not in tool.description, name
        assert not tool.description.endswith("\n"), name
        hints = tool.annotations
        assert hints is not None, name
        assert tool.title, name
        assert hints.title is None, f"{name}: its title is said once, as the tool's"
        assert hints.read_only_hint is (name != "process_document"), name
        assert hints.idempotent_hint is True, name
        assert hints.open_world_hint is False, name
    assert tools["process_document"].annotations.destructive_hint is False


def test_unknown_arguments_are_refused(project: InMemory) -> None:
    wrong, rag = project.calls(
        ("find_document", {"query": "storage", "max": 3}),
        ("query_documents", {"query": "storage", "topk": 3}),
    )
    assert wrong.is_error
    assert text_of(wrong) == "Error: unknown argument 'max'; this tool takes query, limit"
    assert rag.is_error
    assert rag.structured_content["details"]["parameter"] == "topk"


def test_the_server_says_its_version(project: InMemory) -> None:
    async def script(client: Client) -> Any:
        return client.server_info

    info = project.run(script)
    assert info.name == "pdfindex"
    assert info.version == __version__
    assert __version__


# -- point 11: seed 001's line numbers --------------------------------------------------


def test_search_in_file_counts_lines_in_the_file(project: InMemory) -> None:
    result: CallToolResult = project.call("search_in_file", file=REPORT, pattern="report")
    (match,) = result.structured_content["matches"]
    assert (match["page"], match["line_number"], match["line_in_page"]) == (2, 4, 1)
