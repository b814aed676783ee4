"""Typed results: every JSON tool advertises its output schema, and its answers hold to it.

Through an in-memory MCP client, so the SDK's own conversion runs: it validates each
answer against the tool's TypedDict (pdfindex.tools.results) and the client validates
`structured_content` against the advertised schema again. On top of that each answer is
checked against a strict copy of the schema (no undeclared keys, at any depth), against the
text content (nothing dropped or changed on the way) and against the keys its seed documents.
"""

from __future__ import annotations

import copy
import inspect
import json
import uuid
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import TypeAdapter
from typing_extensions import is_typeddict

from pdfindex.server.tools import TOOLS
from pdfindex.tools import results
from tests import pdfgen
from tests.conftest import make_settings
from tests.mcpclient import InMemory, open_app

# Every tool answering a JSON object, with the TypedDict it is annotated with.
JSON_TOOLS: dict[str, Any] = {
    "search_pdf": results.SearchPdfResult,
    "fuzzy_search": results.FuzzySearchResult,
    "search_in_file": results.SearchInFileResult,
    "extract_pdf_page": results.ExtractPdfPageResult,
    "list_searchable_files": results.ListSearchableFilesResult,
    "read_pdf": results.ReadPdfResult,
    "get_document_info": results.DocumentInfoResult,
    "find_document": results.FindDocumentResult,
    "list_documents_paginated": results.ListDocumentsPaginatedResult,
    "process_document": results.ProcessDocumentResult,
    "query_documents": results.QueryDocumentsResult,
    "list_sessions": results.ListSessionsResult,
}
BUDGET = 1500  # max_response_chars: small, so paging and truncation show up on a small corpus
ATTENTION = [
    "\n".join(f"Line {n}: the attention mechanism weighs every token." for n in range(1, 31)),
    "Second page. Attention heads are averaged. The transformer stacks layers.",
    "Third page about budgets and nothing else.",
]

# (label, tool, arguments): called in this order, in one session.
CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("search_pdf", "search_pdf", {"pdf_name": "report", "query": "attention", "topk": 20}),
    ("search_pdf_absent_file", "search_pdf", {"pdf_name": "nothing", "query": "x"}),
    ("search_pdf_corrupt", "search_pdf", {"pdf_name": "corrupt", "query": "x"}),
    ("fuzzy_search", "fuzzy_search", {"query": "atention"}),
    ("fuzzy_overview", "fuzzy_search", {"interactive": False}),
    ("search_in_file", "search_in_file", {"file": "report.pdf", "pattern": "attent"}),
    ("extract_pdf_page", "extract_pdf_page", {"file": "report.pdf", "pages": [2]}),
    ("extract_cut", "extract_pdf_page", {"file": "report.pdf", "pages": [1, 2, 3]}),
    ("list_searchable_files", "list_searchable_files", {}),
    (
        "read_pdf",
        "read_pdf",
        {"sources": [{"path": "report.pdf", "pages": "1-3"}, {"path": "missing.pdf"}]},
    ),
    (
        "read_pdf_full",
        "read_pdf",
        {"sources": [{"path": "sub/notes.pdf"}], "include_full_text": True},
    ),
    ("get_document_info", "get_document_info", {"document_slug": "report"}),
    ("get_document_info_unknown", "get_document_info", {"document_id": "no-such-document"}),
    ("find_document", "find_document", {"query": "reprt"}),
    ("list_documents_paginated", "list_documents_paginated", {"page_size": 1}),
    ("process_document", "process_document", {"file_path": "sub/notes.pdf"}),
    ("process_document_missing", "process_document", {"file_path": "nothing.pdf"}),
    ("query_documents", "query_documents", {"query": "How does attention weigh tokens?"}),
    ("query_documents_bad_session", "query_documents", {"query": "x", "session_id": "nope"}),
    ("list_sessions", "list_sessions", {}),
]

# The keys each seed documents for an answer (extra keys are fine).
SEED_KEYS: dict[str, set[str]] = {
    "search_pdf": {"file_exists", "query_exists", "matches"},
    "fuzzy_search": {"matches", "total_matches"},
    "search_in_file": {"matches"},
    "extract_pdf_page": {"content", "pages_extracted", "format"},
    "list_searchable_files": {"files"},
    "read_pdf": {"results"},
    "get_document_info": {"status", "slug", "title", "total_pages", "indexed_elements"},
    "find_document": {"matches"},
    "list_documents_paginated": {"documents", "pagination"},
    "process_document": {
        "status",
        "document_id",
        "file_name",
        "processing_stages",
        "metadata",
        "message",
    },
    "query_documents": {"status", "session_id", "query", "answer", "sources", "query_metadata"},
    "list_sessions": {"status", "sessions"},
}
SEED_ITEM_KEYS: dict[str, set[str]] = {
    "fuzzy_search": {"file", "line_number", "content", "page", "adapter"},
    "search_in_file": {"line_number", "content", "context_before", "context_after"},
    "list_searchable_files": {"path", "type", "size", "adapter"},
}
SEED_002_ERROR = {"status", "error", "message", "details", "timestamp", "request_id"}
# Answers that are errors: flagged isError, still in their seed's shape and schema.
ERRORS = {
    "search_pdf_absent_file",
    "search_pdf_corrupt",
    "get_document_info_unknown",
    "process_document_missing",
    "query_documents_bad_session",
}
SEED_002_DOCUMENT_INFO = {
    "id",
    "file_name",
    "file_path",
    "file_size",
    "processing_status",
    "created_at",
    "processed_at",
    "metadata",
    "processing_stages",
}
SEED_002_SESSION = {
    "session_id",
    "created_at",
    "last_active_at",
    "message_count",
    "document_scope",
    "metadata",
}


@pytest.fixture(scope="module")
def session(
    tmp_path_factory: pytest.TempPathFactory, index_engine: str
) -> Iterator[dict[str, Any]]:
    """Tools listed and every call of CALLS answered, from one in-memory client."""
    settings = make_settings(
        tmp_path_factory.mktemp("schemas"), max_response_chars=BUDGET, elements=False, ocr=False
    )
    files = settings.files_dir
    pdfgen.write_pdf(files / "report.pdf", ATTENTION, title="Attention Report")
    pdfgen.write_pdf(files / "sub" / "notes.pdf", ["Notes on attention. Short and plain."])
    pdfgen.write_corrupt_pdf(files / "corrupt.pdf")
    with open_app(settings) as app:
        client = InMemory(app)
        answers = client.calls(*((tool, args) for _label, tool, args in CALLS))
        yield {
            "tools": client.tools(),
            "answers": {
                label: answer for (label, _, _), answer in zip(CALLS, answers, strict=True)
            },
        }


def strict(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with every declared object closed: an undeclared key anywhere fails."""
    closed = copy.deepcopy(schema)

    def close(node: Any) -> None:
        if isinstance(node, dict):
            if "properties" in node:
                node["additionalProperties"] = False
            for value in node.values():
                close(value)
        elif isinstance(node, list):
            for value in node:
                close(value)

    close(closed)
    return closed


def full_schema(tool: str) -> dict[str, Any]:
    """The whole shape of a tool's answer, nested keys included: its result type's schema
    (the advertised one stops one level down, pdfindex/server/schemas.py)."""
    return TypeAdapter(JSON_TOOLS[tool]).json_schema()


def problems(schema: dict[str, Any], instance: Any) -> list[str]:
    return [e.message for e in Draft202012Validator(schema).iter_errors(instance)]


def keys_of(typed_dict: Any) -> tuple[set[str], set[str]]:
    """(required, all) keys of a TypedDict."""
    required = set(typed_dict.__required_keys__)
    return required, required | set(typed_dict.__optional_keys__)


def test_every_json_tool_advertises_its_schema(session: dict[str, Any]) -> None:
    tools = session["tools"]
    for name, typed_dict in JSON_TOOLS.items():
        schema = tools[name].output_schema
        assert schema is not None, name
        assert schema["type"] == "object", name
        required, declared = keys_of(typed_dict)
        assert set(schema["properties"]) == declared, name
        assert set(schema.get("required", [])) == required, name
        assert schema.get("additionalProperties") is True, f"{name} would drop unknown keys"
        Draft202012Validator.check_schema(schema)


def keywords(schema: Any) -> set[str]:
    """The JSON Schema keywords used anywhere in `schema` (property names left out)."""
    if isinstance(schema, list):
        return set().union(*(keywords(item) for item in schema))
    if not isinstance(schema, dict):
        return set()
    found = set(schema)
    for key, value in schema.items():
        if key in ("properties", "$defs"):
            found |= set().union(*(keywords(sub) for sub in value.values()))
        elif key not in ("enum", "const", "default", "required"):
            found |= keywords(value)
    return found


TOOL_LIST_BYTES = 21_000  # half of what tools/list was before issue 28 (42,719 bytes)


def test_the_tool_list_is_at_most_half_its_old_size(session: dict[str, Any]) -> None:
    """tools/list sits in an agent's context all conversation long: 42,719 bytes (9,891
    cl100k tokens) for 19 tools before issue 28. `python -m benchmarks.tool_list` shows
    the size per tool and in tokens."""
    tools = [
        tool.model_dump(by_alias=True, exclude_none=True, mode="json")
        for tool in session["tools"].values()
    ]
    size = len(json.dumps({"tools": tools}, separators=(",", ":"), ensure_ascii=False).encode())
    assert size <= TOOL_LIST_BYTES


def test_advertised_schemas_are_compact(session: dict[str, Any]) -> None:
    """What tools/list costs an agent: no generated titles, no class docstrings, nested
    objects said as objects (their keys are in the answer and the README)."""
    for name, tool in session["tools"].items():
        assert "title" not in keywords(tool.input_schema), name
        assert not {"title", "description", "$defs"} & keywords(tool.output_schema), name
    files = session["tools"]["list_searchable_files"].output_schema["properties"]["files"]
    assert files == {"items": {"type": "object"}, "type": "array"}


def test_the_json_tools_are_exactly_those_annotated_with_a_result_type() -> None:
    returns = {
        fn.__name__: inspect.signature(fn, eval_str=True).return_annotation
        for fn, _hints, _structured in TOOLS
    }
    assert {name for name, ann in returns.items() if is_typeddict(ann)} == set(JSON_TOOLS)
    assert all(returns[name] is typed_dict for name, typed_dict in JSON_TOOLS.items())


@pytest.mark.parametrize("label", [label for label, _, _ in CALLS])
def test_answer_holds_to_its_schema(session: dict[str, Any], label: str) -> None:
    tool = next(name for lbl, name, _ in CALLS if lbl == label)
    answer = session["answers"][label]
    text = answer.content[0].text
    assert answer.is_error is (label in ERRORS), text
    data = answer.structured_content
    schema = session["tools"][tool].output_schema
    assert problems(schema, data) == []
    assert problems(strict(schema), data) == [], "keys the result type does not declare"
    assert problems(strict(full_schema(tool)), data) == [], "nested keys not declared"
    # Errors too: get_document_info by seed 002's document_id answers its JSON as text.
    assert json.loads(text) == data, "structured content differs from the text content"


@pytest.mark.parametrize("tool", sorted(SEED_KEYS))
def test_answer_has_its_seeds_keys(session: dict[str, Any], tool: str) -> None:
    data = session["answers"][tool].structured_content
    assert SEED_KEYS[tool] <= set(data)
    if tool in SEED_ITEM_KEYS:
        items = data["files" if tool == "list_searchable_files" else "matches"]
        assert items
        assert all(SEED_ITEM_KEYS[tool] <= set(item) for item in items)


def test_seed_002_error_shapes(session: dict[str, Any]) -> None:
    answers = session["answers"]
    for label, kind in [
        ("process_document_missing", "FileNotFoundError"),
        ("query_documents_bad_session", "ValidationError"),
        ("get_document_info_unknown", "NotFoundError"),
    ]:
        data = answers[label].structured_content
        assert answers[label].is_error, label
        assert set(data) == SEED_002_ERROR, label
        assert data["status"] == "error", label
        assert data["error"] == kind, label
        assert datetime.fromisoformat(data["timestamp"]).tzinfo is not None, label
        assert uuid.UUID(data["request_id"]), label
    details = answers["query_documents_bad_session"].structured_content["details"]
    assert details == {"parameter": "session_id", "expected": "a UUID", "received": "nope"}


def test_seed_002_nested_shapes(session: dict[str, Any]) -> None:
    """Code written against seed 002 reads its nested keys unchanged."""
    answers = session["answers"]
    info = answers["get_document_info"].structured_content
    nested = info["document_info"]
    assert SEED_002_DOCUMENT_INFO <= set(nested)
    assert nested["processing_status"] == "completed"
    assert nested["id"] == info["slug"]
    assert isinstance(nested["file_size"], str)
    assert nested["file_size"].endswith("KB")
    assert {"page_count", "language", "content_type", "chunk_count"} <= set(nested["metadata"])
    assert nested["metadata"]["content_type"] == "application/pdf"
    assert nested["metadata"]["chunk_count"] == info["total_pages"] == 3
    assert {"ocr", "embedding"} <= set(nested["processing_stages"])
    for stamp in (nested["created_at"], nested["processed_at"]):
        assert datetime.fromisoformat(stamp).tzinfo is not None
    sessions = answers["list_sessions"].structured_content
    assert {"total_count", "active_sessions", "statistics"} <= set(sessions)
    assert sessions["total_count"] == sessions["active_sessions"] == 1
    (row,) = sessions["sessions"]
    assert SEED_002_SESSION <= set(row)
    assert row["message_count"] == 1
    assert row["document_scope"]
    assert {"user_context", "total_queries", "avg_response_time"} <= set(row["metadata"])
    assert datetime.fromisoformat(row["last_active_at"]) >= datetime.fromisoformat(
        row["created_at"]
    )
    assert sessions["statistics"]["most_active_session"] == row["session_id"]


def test_sometimes_keys_come_through(session: dict[str, Any]) -> None:
    """Keys only some answers have reach structured content: paging, cuts, errors."""
    answers = {label: a.structured_content for label, a in session["answers"].items()}
    assert answers["search_pdf"]["truncated"] is True
    assert len(answers["search_pdf"]["pages"]) == len(answers["search_pdf"]["matches"])
    assert answers["search_pdf"]["note"]
    assert answers["search_pdf_corrupt"]["error"].startswith("Failed to parse PDF")
    absent = answers["search_pdf_absent_file"]
    assert {k: absent[k] for k in ("file_exists", "query_exists", "matches")} == {
        "file_exists": False,
        "query_exists": False,
        "matches": [],
    }
    assert absent["error"].startswith("Document 'nothing' not found")
    grep = answers["search_in_file"]
    assert grep["truncated"] is True
    assert grep["next_offset"] == len(grep["matches"])
    assert answers["fuzzy_search"]["next_offset"] == len(answers["fuzzy_search"]["matches"])
    assert answers["fuzzy_overview"]["mode"] == "batch"
    assert "note" not in answers["fuzzy_overview"]
    assert answers["extract_cut"]["truncated"] is True
    read = answers["read_pdf"]["results"]
    assert read[0]["data"]["truncated"] is True
    assert read[0]["data"]["next_pages"]
    assert set(read[1]) == {"source", "success", "error"}
    assert read[1]["success"] is False
    assert "full_text" in answers["read_pdf_full"]["results"][0]["data"]
    listed = answers["list_searchable_files"]["files"]
    corrupt = next(f for f in listed if f["path"] == "corrupt.pdf")
    assert corrupt["status"] == "failed"
    assert corrupt["error"]
    assert answers["list_documents_paginated"]["pagination"]["has_next"] is True
    assert answers["list_sessions"]["sessions"][0]["query_count"] >= 1


def test_the_checks_catch_drift(session: dict[str, Any]) -> None:
    """The checks themselves: an undeclared key, a missing key, a wrong type all fail."""
    schema = full_schema("search_in_file")
    good = session["answers"]["search_in_file"].structured_content
    assert problems(strict(schema), good) == []
    undeclared = copy.deepcopy(good)
    undeclared["matches"][0]["column"] = 3
    assert problems(schema, undeclared) == []
    assert problems(strict(schema), undeclared)
    missing = {k: v for k, v in good.items() if k != "total_matches"}
    assert problems(schema, missing)
    wrong = good | {"total_matches": "many"}
    assert problems(schema, wrong)


def test_undeclared_keys_are_kept_not_dropped() -> None:
    """What the SDK does with an answer: validate it with the result type, then dump it.
    A key the type does not declare (at the top or nested) must survive both."""
    adapter = TypeAdapter(results.ReadPdfResult)
    answer = {
        "results": [{"source": "a.pdf", "success": True, "data": {"num_pages": 1, "x": 1}}],
        "y": 2,
    }
    assert adapter.dump_python(adapter.validate_python(answer), mode="json") == answer
