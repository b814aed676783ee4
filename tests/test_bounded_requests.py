"""Every request is bounded and names its cause (issue 13, points 4, 9, 10): snippets and
query parsing linear in their input, a length limit on every text argument, errors that
name the argument and the cause, and answers under max_response_chars however long a
page, a line or an echoed input is. All through the in-memory MCP client."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fpdf import FPDF
from PIL import Image

from pdfindex.errors import InvalidQuery
from pdfindex.extract.adapters.pdfium import MAX_PIXELS
from pdfindex.query import MAX_DEPTH, MAX_PHRASE_WORDS, parse
from pdfindex.search.snippets import snippet
from pdfindex.tools.budget import serialise
from tests import pdfgen
from tests.conftest import make_settings
from tests.mcpclient import InMemory, open_app, text_of

REPEATS = 40_000  # one word this many times on one page (a .txt file is one page)
LONG_LINE_WORDS = 70_000  # one line of about 410,000 characters
MEGABYTE = "x" * 1_000_000


def write_huge_page_pdf(path: Path, side: float = 1_000_000.0) -> None:
    """A one-page PDF whose page is `side` points square (the PDF limit is 14,400)."""
    pdf = FPDF(unit="pt", format=(14_400, 14_400))
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.text(10, 20, "huge page")
    data = bytes(pdf.output()).replace(b"14400.00", f"{side:.2f}".encode())
    path.write_bytes(data)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Iterator[InMemory]:
    root = tmp_path_factory.mktemp("bounded")
    files = root / "files"
    files.mkdir()
    (files / "many.txt").write_text("alpha " * REPEATS)
    (files / "longline.txt").write_text(" ".join(["lineword"] * LONG_LINE_WORDS))
    pdfgen.write_pdf(files / "doc.pdf", ["hello world on page one", "page two"])
    pdfgen.write_corrupt_pdf(files / "corrupt.pdf")
    pdfgen.write_encrypted_pdf(files / "locked.pdf", ["locked text"], user_password="pw123")
    write_huge_page_pdf(files / "huge.pdf")
    with open_app(make_settings(root, engine=index_engine)) as app:
        yield InMemory(app)


def limit_of(client: InMemory) -> int:
    return client.app.index.settings.max_response_chars


# -- point 4: linear snippets and parsing ------------------------------------------------


@pytest.mark.timeout(30)
def test_snippet_of_a_word_found_40000_times_on_a_page() -> None:
    """Quadratic in the matches, 40,000 took over 60 s (8 * 10^8 steps) and twice as many
    four times that; linear, a blink."""
    text = "alpha " * (2 * REPEATS)
    shown = snippet(text, {"alpha"})
    assert shown.startswith("**alpha** **alpha**")
    assert shown.endswith("…")
    assert len(shown.replace("**", "")) <= 241


@pytest.mark.timeout(60)
def test_search_documents_on_a_page_holding_one_word_40000_times(client: InMemory) -> None:
    result = client.call("search_documents", query="alpha")
    text = text_of(result)
    assert not result.is_error, text
    assert "Document: many" in text
    assert "**alpha** **alpha**" in text


@pytest.mark.parametrize("tool", ["search_documents", "search_visual_elements"])
def test_deep_nesting_is_refused_by_name(client: InMemory, tool: str) -> None:
    for query in ["(" * 999, "(" * 600 + "a" + ")" * 600, "NOT " * 450 + "a"]:
        result = client.call(tool, query=query)
        text = text_of(result)
        assert result.is_error, text
        assert f"nest more than {MAX_DEPTH} deep" in text, text
        assert "internal error" not in text


def test_nesting_within_the_limit_still_parses() -> None:
    assert parse("(" * MAX_DEPTH + "a" + ")" * MAX_DEPTH) is not None
    assert parse("NOT " * MAX_DEPTH + "a") is not None
    with pytest.raises(InvalidQuery, match="nest"):
        parse("(" * (MAX_DEPTH + 1) + "a" + ")" * (MAX_DEPTH + 1))


@pytest.mark.timeout(60)
def test_a_999_word_phrase_is_refused_by_name(client: InMemory) -> None:
    phrase = '"' + " ".join(["alpha"] * 330) + '"'  # 1,981 characters
    result = client.call("search_documents", query=phrase)
    assert result.is_error
    assert f"the phrase has 330 words; the limit is {MAX_PHRASE_WORDS}" in text_of(result)
    longest = '"' + " ".join(["alpha"] * MAX_PHRASE_WORDS) + '"'
    found = client.call("search_documents", query=longest)
    assert not found.is_error
    assert "Document: many" in text_of(found)


def _unbounded(schema: dict[str, Any], where: str, defs: dict[str, Any]) -> list[str]:
    """Text arguments without maxLength and lists without maxItems, anywhere in `schema`."""
    if "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[-1]]
    found = [p for alt in schema.get("anyOf", []) for p in _unbounded(alt, where, defs)]
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]  # ["string", "null"]: optional
    if "string" in kinds and "maxLength" not in schema and "enum" not in schema:
        found.append(where)
    if "array" in kinds:
        found += [where] if "maxItems" not in schema else []
        found += _unbounded(schema.get("items", {}), where + "[]", defs)
    for name, sub in schema.get("properties", {}).items():
        found += _unbounded(sub, f"{where}.{name}", defs)
    return found


def test_every_text_argument_has_a_length_limit(client: InMemory) -> None:
    missing = []
    for name, tool in client.tools().items():
        missing += _unbounded(tool.input_schema, name, tool.input_schema.get("$defs", {}))
    assert not missing, f"no maxLength / maxItems: {missing}"


# -- point 9: named causes --------------------------------------------------------------


NAMED = [
    ("search_pdf", {"pdf_name": "a/" * 2500, "query": "x"}, ["pdf_name", "1000 characters"]),
    ("search_pdf", {"pdf_name": "~", "query": "x"}, ["pdf_name", "outside the files folder"]),
    ("search_pdf", {"pdf_name": "a" * 900, "query": "x"}, ["pdf_name", "too long"]),
    ("read_pdf", {"sources": [{"path": "a/" * 2500}]}, ["sources.0.path", "1000 characters"]),
    ("read_pdf", {"sources": [{"path": "b" * 900}]}, ["too long"]),
    ("process_document", {"file_path": MEGABYTE}, ["file_path", "1000000"]),
    ("process_document", {"file_path": "q" * 4000}, ["too long"]),
    ("fuzzy_search", {"query": "x", "path": "c" * 999}, ["path", "too long"]),
    ("list_searchable_files", {"path": "~"}, ["path", "outside the files folder"]),
    ("search_in_file", {"file": "z" * 999, "pattern": "x"}, ["file", "too long"]),
    ("extract_pdf_page", {"file": "~", "pages": [1]}, ["file", "outside the files folder"]),
    ("get_document_info", {"document_slug": "k" * 999}, ["document_slug", "too long"]),
    ("get_element_details", {"document_slug": "~", "element_label": "Table 1"}, ["~"]),
]


@pytest.mark.parametrize(("tool", "arguments", "named"), NAMED, ids=[n[0] for n in NAMED])
def test_bad_paths_name_the_argument_and_the_cause(
    client: InMemory, tool: str, arguments: dict[str, Any], named: list[str]
) -> None:
    result = client.call(tool, **arguments)
    text = text_of(result)
    assert result.is_error, text[:300]
    assert "internal error" not in text, text[:300]
    assert "Errno" not in text, text[:300]
    for part in named:
        assert part in text, text[:300]
    assert len(text) <= limit_of(client)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("extract_pdf_page", {"file": "{}", "pages": [1]}),
        ("get_page_image", {"document_slug": "{}", "page_number": 1}),
        ("search_in_file", {"file": "{}", "pattern": "x"}),
        ("read_pdf", {"sources": [{"path": "{}", "pages": "1"}]}),
    ],
)
def test_failed_and_encrypted_files_say_so(
    client: InMemory, tool: str, arguments: dict[str, Any]
) -> None:
    for name, cause in (("corrupt", "could not be read"), ("locked", "encrypted")):
        asked = json.loads(json.dumps(arguments).replace("{}", name))
        result = client.call(tool, **asked)
        text = text_of(result)
        assert result.is_error, text
        assert cause in text, text
        assert "out of range" not in text
        assert "pages 1-0" not in text


def test_a_page_too_large_to_render_names_its_cause(client: InMemory) -> None:
    """A 10^6 pt page is rendered within the pixel budget (at well under 1 dpi), not at
    150 dpi (4 trillion pixels)."""
    result = client.call("get_page_image", document_slug="huge", page_number=1)
    text = text_of(result)
    assert not result.is_error, text
    images = [c for c in result.content if c.type == "image"]
    assert images, text
    assert "Rendered at 0.4" in text, text
    width, height = Image.open(io.BytesIO(base64.b64decode(images[0].data))).size
    assert width * height <= MAX_PIXELS
    converted = client.call("extract_pdf_page", file="huge", pages=[1])
    assert not converted.is_error
    assert "huge page" in text_of(converted)


# -- point 10: the response cap ---------------------------------------------------------


LONG = [
    ("search_in_file", {"file": "longline", "pattern": "lineword"}),
    ("search_pdf", {"pdf_name": "longline", "query": "lineword", "context_length": 20_000}),
    ("read_pdf", {"sources": [{"path": "longline", "pages": [1]}]}),
    ("read_pdf", {"sources": [{"path": "longline"}], "include_full_text": True}),
    ("fuzzy_search", {"query": "lineword"}),
    ("query_documents", {"query": "lineword"}),
    ("search_documents", {"query": "lineword"}),
]


@pytest.mark.parametrize(("tool", "arguments"), LONG, ids=[n[0] for n in LONG])
def test_one_long_line_stays_under_the_cap(
    client: InMemory, tool: str, arguments: dict[str, Any]
) -> None:
    result = client.call(tool, **arguments)
    text = text_of(result)
    assert not result.is_error, text[:300]
    assert "lineword" in text
    assert len(text) <= limit_of(client)
    if result.structured_content is not None:
        assert len(serialise(result.structured_content)) <= limit_of(client)
        assert "truncated" in text or "cut" in text


ECHOED = [
    ("process_document", {"file_path": MEGABYTE}),
    ("query_documents", {"query": MEGABYTE}),
    ("search_documents", {"query": MEGABYTE}),
    ("search_visual_elements", {"query": MEGABYTE}),
    ("get_document_info", {"document_id": MEGABYTE}),
    ("get_page_image", {"document_slug": "doc", "page_number": MEGABYTE}),
    ("list_sessions", {MEGABYTE[:1000]: MEGABYTE}),
    ("read_pdf", {"sources": [{"path": "doc", "pages": MEGABYTE}]}),
    ("fuzzy_search", {"query": "x", "file_types": [MEGABYTE]}),
]


@pytest.mark.parametrize(("tool", "arguments"), ECHOED, ids=[n[0] for n in ECHOED])
def test_a_megabyte_input_is_not_echoed_back(
    client: InMemory, tool: str, arguments: dict[str, Any]
) -> None:
    result = client.call(tool, **arguments)
    text = text_of(result)
    assert result.is_error
    assert len(text) <= limit_of(client), len(text)
    if result.structured_content is not None:
        assert len(serialise(result.structured_content)) <= limit_of(client)
