"""Seed 001 and 003 tools through the MCP SDK's in-memory client, a session per test."""

from __future__ import annotations

import base64
import io
import json
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.types import CallToolResult

from pdfindex.tools import catalog, exact, files, outcomes
from tests import pdfgen
from tests.conftest import make_settings
from tests.mcpclient import InMemory, open_app

HOSTILE = ["../outside/secret.pdf", "/etc/passwd", "escape.pdf", "sub/../../outside/secret.pdf"]
RUNAWAY_LINE = "a" * 40 + "!"  # ^(a|aa)+$ backtracks through ~10^8 ways of splitting it


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, corpus: Path, index_engine: str) -> Path:
    root = tmp_path_factory.mktemp("tools")
    files = root / "files"
    files.mkdir()
    for name in ("multi.pdf", "large.pdf", "corrupt.pdf", "hyphen.pdf"):
        shutil.copy(corpus / name, files / name)
    (files / "sub").mkdir()
    pdfgen.write_pdf(files / "sub" / "deep.pdf", ["Deep document about attention heads."])
    pdfgen.write_pdf(files / "runaway.pdf", [f"before\n{RUNAWAY_LINE}\nafter"])
    (files / "notes.md").write_text("# Meeting notes\n\nWe discussed attention and budgets.\n")
    (files / "plain.txt").write_text("line one\nthe transformer line\nline three\n")
    outside = root / "outside"
    outside.mkdir()
    pdfgen.write_pdf(outside / "secret.pdf", ["top secret outside"])
    (files / "escape.pdf").symlink_to(outside / "secret.pdf")
    return root


@pytest.fixture(scope="module")
def tools(project: Path, index_engine: str) -> Iterator[InMemory]:
    with open_app(make_settings(project, max_response_chars=20_000)) as app:
        yield InMemory(app)


def data(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    assert result.structured_content is not None
    return result.structured_content


def error(result: CallToolResult) -> str:
    assert result.is_error, result.structured_content
    return result.content[0].text


def test_all_tools_listed_with_described_arguments(tools: InMemory) -> None:
    listed = tools.tools()
    for name in (
        "fuzzy_search",
        "search_in_file",
        "extract_pdf_page",
        "list_searchable_files",
        "read_pdf",
        "search_pdf",
    ):
        tool = listed[name]
        assert tool.description
        for prop in tool.input_schema["properties"].values():
            assert prop.get("description"), (name, prop)
    assert listed["extract_pdf_page"].input_schema["properties"]["output_format"]


def test_fuzzy_search(tools: InMemory) -> None:
    fuzzy_result, typos_result, scope, types, overview_result = tools.calls(
        ("fuzzy_search", {"query": "atention", "max_results": 10, "match": "words"}),
        ("fuzzy_search", {"query": "transfromer archtecture", "match": "words"}),
        ("fuzzy_search", {"query": "attention", "path": "sub", "preview": False}),
        ("fuzzy_search", {"query": "attention", "file_types": ["md"]}),
        ("fuzzy_search", {"path": "notes.md"}),
    )
    fuzzy = data(fuzzy_result)
    assert fuzzy["mode"] == "batch"
    assert fuzzy["matching"] == "words"
    assert "terminal" in fuzzy["note"]
    files = {m["file"] for m in fuzzy["matches"]}
    assert {"multi.pdf", "sub/deep.pdf", "notes.md"} <= files
    for match in fuzzy["matches"]:
        assert set(match) == {"file", "page", "line_number", "line_in_page", "content", "adapter"}
        assert "attention" in match["content"].lower()
    assert {m["adapter"] for m in fuzzy["matches"]} >= {"pdfium", "markdown"}
    typos = data(typos_result)["matches"]
    assert typos[0]["file"] in ("multi.pdf", "hyphen.pdf")
    assert typos[0]["page"] == 1
    assert [m["file"] for m in data(scope)["matches"]] == ["sub/deep.pdf"]
    assert {m["file"] for m in data(types)["matches"]} == {"notes.md"}
    overview = data(overview_result)["matches"]
    assert overview[0]["content"] == "# Meeting notes"


def test_a_scan_of_every_page_read_a_few_candidates_at_a_time_answers_alike(
    tools: InMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On PostgreSQL a loop over every page of the library reads the pages' names as it
    goes (a million of them in one query ran past the time limit): the same answers."""
    calls = [
        ("fuzzy_search", {"query": "attention", "file_types": ["md"]}),
        ("fuzzy_search", {"query": "atention", "match": "fzf", "max_results": 500}),
        ("fuzzy_search", {"query": "atten.*n", "max_results": 500}),
    ]
    whole = [data(result) for result in tools.calls(*calls)]
    monkeypatch.setattr("pdfindex.engine.postgres.engine.FIRST_CANDIDATES", 2)
    monkeypatch.setattr("pdfindex.engine.postgres.engine.MORE_CANDIDATES", 3)
    monkeypatch.setattr("pdfindex.engine.postgres.candidates.MORE_CANDIDATES", 3)
    assert [data(result) for result in tools.calls(*calls)] == whole
    assert {m["file"] for m in whole[0]["matches"]} == {"notes.md"}
    assert whole[1]["total_matches"] > 3


def test_fuzzy_total_is_true_when_cut(tools: InMemory) -> None:
    cut = data(tools.call("fuzzy_search", query="marker", max_results=5))
    assert len(cut["matches"]) == 5
    assert cut["total_matches"] >= 320
    assert cut["next_offset"] == 5


def test_search_in_file(tools: InMemory) -> None:
    grep, case, pages_result, bad = tools.calls(
        ("search_in_file", {"file": "plain.txt", "pattern": "TRANS\\w+", "context_lines": 1}),
        ("search_in_file", {"file": "plain.txt", "pattern": "TRANS", "case_sensitive": True}),
        ("search_in_file", {"file": "large.pdf", "pattern": r"marker P00(1[0-2])\b"}),
        ("search_in_file", {"file": "plain.txt", "pattern": "(unclosed"}),
    )
    (match,) = data(grep)["matches"]
    assert match == {
        "page": 1,
        "line_number": 2,
        "line_in_page": 2,
        "content": "the transformer line",
        "context_before": ["line one"],
        "context_after": ["line three"],
    }
    assert data(case)["matches"] == []
    pages = [(m["page"], m["line_in_page"] > 0) for m in data(pages_result)["matches"]]
    assert pages == [(10, True), (11, True), (12, True)]
    assert "invalid regular expression" in error(bad)


def test_a_runaway_pattern_is_stopped_by_the_time_limit(tools: InMemory) -> None:
    (line,) = data(tools.call("search_in_file", file="runaway.pdf", pattern="a!"))["matches"]
    assert line["content"] == RUNAWAY_LINE  # the line is there, whole, for the pattern below
    runaway = tools.call("search_in_file", file="runaway.pdf", pattern="^(a|aa)+$")
    assert "catastrophic backtracking" in error(runaway)


def test_oversized_results_are_cut_with_a_way_to_continue(tools: InMemory) -> None:
    grep, read = tools.calls(
        ("search_in_file", {"file": "large.pdf", "pattern": "e"}),
        ("read_pdf", {"sources": [{"path": "large.pdf"}], "include_full_text": True}),
    )
    big = data(grep)
    assert big["truncated"]
    assert big["next_offset"] == len(big["matches"])
    assert big["total_matches"] > len(big["matches"])
    assert len(json.dumps(big)) < 25_000
    full = data(read)["results"][0]["data"]
    assert full["truncated"]
    assert full["next_pages"].endswith("-320")
    assert len(json.dumps(full)) < 25_000


def test_library_status_says_where_the_index_is(tools: InMemory, index_engine: str) -> None:
    status = tools.call("get_library_status").content[0].text
    (line,) = [line for line in status.splitlines() if line.startswith("Index: ")]
    if index_engine == "postgres":  # in the database, named without its password
        assert " MB in postgresql://" in line
        assert "segments" not in line
    else:
        assert line.endswith(" segments")


def test_list_searchable_files(tools: InMemory) -> None:
    listed, pdfs = tools.calls(
        ("list_searchable_files", {}),
        ("list_searchable_files", {"path": "sub", "file_types": ["pdf"]}),
    )
    rows = {r["path"]: r for r in data(listed)["files"]}
    assert set(rows) == {
        "multi.pdf",
        "large.pdf",
        "corrupt.pdf",
        "hyphen.pdf",
        "runaway.pdf",
        "sub/deep.pdf",
        "notes.md",
        "plain.txt",
    }  # the symlink out is not listed
    assert rows["large.pdf"]["pages"] == 320
    assert rows["large.pdf"]["status"] == "ok"
    assert rows["corrupt.pdf"]["status"] == "failed"
    assert rows["corrupt.pdf"]["error"]
    assert rows["notes.md"]["adapter"] == "markdown"
    assert rows["plain.txt"]["type"] == "txt"
    assert [r["path"] for r in data(pdfs)["files"]] == ["sub/deep.pdf"]


def test_read_pdf(tools: InMemory) -> None:
    read, read_range = tools.calls(
        (
            "read_pdf",
            {
                "sources": [
                    {"path": "multi.pdf", "pages": "2-3"},
                    {"path": "corrupt.pdf"},
                    {"path": "nothing.pdf"},
                    {"url": "http://example.com/a.pdf"},
                ]
            },
        ),
        ("read_pdf", {"sources": [{"path": "multi.pdf", "pages": [4]}]}),
    )
    first, corrupt, missing, url = data(read)["results"]
    assert first["success"]
    assert first["data"]["num_pages"] == 3
    assert [p["page"] for p in first["data"]["page_texts"]] == [2, 3]
    assert "quick brown fox" in first["data"]["page_texts"][0]["text"]
    assert first["data"]["info"]["title"] == "Multi Page Test"
    assert first["data"]["info"]["author"] == "Tester"
    assert not corrupt["success"]
    assert "failed" in corrupt["error"]
    assert not missing["success"]
    assert "not found" in missing["error"]
    assert not url["success"]
    assert "URL" in url["error"]
    (bad_range,) = read_range.structured_content["results"]
    assert read_range.is_error  # its only source failed
    assert not bad_range["success"]
    assert "1-3" in bad_range["error"]


def test_extract_pdf_page(tools: InMemory) -> None:
    md_result, html_result, plain, page_range = tools.calls(
        ("extract_pdf_page", {"file": "multi.pdf", "pages": [2]}),
        ("extract_pdf_page", {"file": "multi.pdf", "pages": [1, 3], "output_format": "html"}),
        ("extract_pdf_page", {"file": "hyphen.pdf", "pages": [1], "output_format": "plain"}),
        ("extract_pdf_page", {"file": "multi.pdf", "pages": [7]}),
    )
    md = data(md_result)
    assert md["format"] == "markdown"
    assert md["pages_extracted"] == [2]
    assert "quick brown fox" in md["content"]
    assert "transformer" not in md["content"]
    html = data(html_result)
    assert html["pages_extracted"] == [1, 3]
    assert "<p>" in html["content"]
    assert "architecture" in data(plain)["content"].replace("-\n", "")
    assert "1-3" in error(page_range)


def test_extract_through_pandoc(tools: InMemory) -> None:
    latex, docx_result = tools.calls(
        ("extract_pdf_page", {"file": "multi.pdf", "pages": [1], "output_format": "latex"}),
        ("extract_pdf_page", {"file": "multi.pdf", "pages": [1], "output_format": "docx"}),
    )
    assert "transformer" in data(latex)["content"]
    docx = data(docx_result)
    assert docx["encoding"] == "base64"
    with zipfile.ZipFile(io.BytesIO(base64.b64decode(docx["content"]))) as archive:
        assert "transformer" in archive.read("word/document.xml").decode()


@pytest.mark.parametrize("bad", HOSTILE)
def test_hostile_paths_are_refused_by_every_tool(tools: InMemory, bad: str) -> None:
    fuzzy, grep, listed, read, extract = results = tools.calls(
        ("fuzzy_search", {"query": "secret", "path": bad}),
        ("search_in_file", {"file": bad, "pattern": "secret"}),
        ("list_searchable_files", {"path": bad}),
        ("read_pdf", {"sources": [{"path": bad, "pages": "1"}]}),
        ("extract_pdf_page", {"file": bad, "pages": [1]}),
    )
    for name, result in (
        ("fuzzy_search", fuzzy),
        ("search_in_file", grep),
        ("list_searchable_files", listed),
        ("extract_pdf_page", extract),
    ):
        assert "outside the files folder" in error(result), name
    (entry,) = read.structured_content["results"]
    assert read.is_error  # no source could be read
    assert not entry["success"]
    assert "outside the files folder" in entry["error"]
    assert all("top secret" not in json.dumps(r.structured_content or {}) for r in results)


def test_resources(tools: InMemory) -> None:
    adapters = {a["name"]: a for a in json.loads(tools.resource("adapters://list"))["adapters"]}
    assert adapters["pdfium"]["extensions"] == ["pdf"]
    assert adapters["markdown"]["version"]
    assert {"pdfium", "pdfminer", "text", "markdown", "docx", "html", "image", "archive"} <= set(
        adapters
    )
    assert "7z" in adapters["archive"]["extensions"]
    config = json.loads(tools.resource("config://settings"))
    # where each value came from, as `pdfindex serve` reports it: tests/test_server.py
    assert config["max_response_chars"] == {
        "value": 20000,
        "source": "flag --max-response-chars",
    }


def test_the_rules_behind_the_declarations_need_no_mcp(tools: InMemory) -> None:
    """Which seed answers are failures, get_document_info's one-of check and search_pdf's
    wait for a pending file are plain functions of pdfindex.tools."""
    index, live = tools.app.index, tools.app.live
    found = exact.search_pdf_live(index, live, "multi", "attention")
    assert found["query_exists"], found
    assert not outcomes.search_pdf_failed(found)
    missing = exact.search_pdf_live(index, live, "no_such_pdf", "attention")
    assert not missing["file_exists"]
    assert "not found" in missing["error"]
    assert outcomes.search_pdf_failed(missing)
    partial = files.read_pdf(index, [{"path": "multi.pdf"}, {"path": "missing.pdf"}])
    assert not outcomes.read_pdf_failed(partial)  # one source read: not a failure
    assert outcomes.read_pdf_failed(files.read_pdf(index, [{"path": "missing.pdf"}]))
    neither = catalog.get_document_info(index, None, None)
    assert outcomes.seed002_failed(neither)
    assert neither["details"]["parameter"] == "document_id"
    by_id = catalog.get_document_info(index, None, "multi")
    assert not outcomes.seed002_failed(by_id)
    assert by_id["slug"] == "multi"
