"""`pdfindex serve` as a real subprocess, driven by the official MCP SDK stdio client."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from tests import pdfgen


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, corpus: Path) -> Path:
    tmp_path = tmp_path_factory.mktemp("project")
    files = tmp_path / "files"
    files.mkdir()
    for name in ("multi.pdf", "corrupt.pdf", "locked.pdf", "hyphen.pdf"):
        shutil.copy(corpus / name, files / name)
    (files / "sub").mkdir()
    pdfgen.write_pdf(files / "sub" / "deep.pdf", ["A deep document."])
    outside = tmp_path / "outside"
    outside.mkdir()
    pdfgen.write_pdf(outside / "secret.pdf", ["top secret outside"])
    (files / "escape.pdf").symlink_to(outside / "secret.pdf")
    return tmp_path


async def _session_calls(root: Path) -> dict:
    """Start the server, make the calls, and return what came back."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pdfindex.cli", "serve", "--root", str(root), "--workers", "2"],
        env={**os.environ, "PDFINDEX_LOG_DIR": str(root / "session-logs")},
    )
    out: dict = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        out["tools"] = {t.name: t for t in tools.tools}

        async def call(name: str, args: dict) -> object:
            return await session.call_tool(name, args)

        out["found"] = await call(
            "search_pdf", {"pdf_name": "multi", "query": "Transformer architecture", "topk": 3}
        )
        out["pdf_suffix"] = await call("search_pdf", {"pdf_name": "sub/deep.pdf", "query": "deep"})
        out["hyphen"] = await call("search_pdf", {"pdf_name": "hyphen", "query": "architecture"})
        out["absent_query"] = await call("search_pdf", {"pdf_name": "multi", "query": "zebra"})
        out["absent_file"] = await call("search_pdf", {"pdf_name": "nothing", "query": "x"})
        out["corrupt"] = await call("search_pdf", {"pdf_name": "corrupt", "query": "x"})
        out["locked"] = await call("search_pdf", {"pdf_name": "locked", "query": "x"})
        out["traversal"] = await call(
            "search_pdf", {"pdf_name": "../outside/secret", "query": "top"}
        )
        out["symlink"] = await call("search_pdf", {"pdf_name": "escape", "query": "top"})
        out["bad_topk"] = await call("search_pdf", {"pdf_name": "multi", "query": "x", "topk": 0})
        out["empty_query"] = await call("search_pdf", {"pdf_name": "multi", "query": "  "})
        out["context"] = await call(
            "search_pdf", {"pdf_name": "multi", "query": "fox", "context_length": 10}
        )
    return out


@pytest.fixture(scope="module")
def calls(project: Path) -> dict:
    return anyio.run(_session_calls, project)


def test_tools_listed_with_schemas(calls: dict) -> None:
    tool = calls["tools"]["search_pdf"]
    props = tool.input_schema["properties"]
    assert set(props) == {"pdf_name", "query", "context_length", "topk"}
    assert props["context_length"]["default"] == 2000 and props["topk"]["default"] == 10
    assert all(p.get("description") for p in props.values())


def test_search_pdf_answers_in_the_seed_shape(calls: dict) -> None:
    found = calls["found"]
    assert not found.is_error
    data = found.structured_content
    assert data["file_exists"] and data["query_exists"] and len(data["matches"]) == 1
    assert re.search(r"\*\*transformer\r?\narchitecture\*\*", data["matches"][0])
    assert calls["pdf_suffix"].structured_content["query_exists"]
    assert calls["hyphen"].structured_content["query_exists"]
    assert calls["absent_query"].structured_content == {
        "file_exists": True,
        "query_exists": False,
        "matches": [],
    }
    assert calls["absent_file"].structured_content == {
        "file_exists": False,
        "query_exists": False,
        "matches": [],
    }
    (context,) = calls["context"].structured_content["matches"]
    assert re.fullmatch(r"r?own \*\*fox\*\*\.\r?\nSt", context)  # 5 characters each side


def test_unreadable_pdfs_carry_an_error(calls: dict) -> None:
    corrupt = calls["corrupt"].structured_content
    assert corrupt["file_exists"] and not corrupt["query_exists"]
    assert corrupt["error"].startswith("Failed to parse PDF")
    assert "password" in calls["locked"].structured_content["error"]


def test_hostile_paths_and_bad_arguments_are_tool_errors(calls: dict) -> None:
    for key in ("traversal", "symlink"):
        result = calls[key]
        assert result.is_error
        assert "outside the files folder" in result.content[0].text
    assert calls["bad_topk"].is_error and "topk" in calls["bad_topk"].content[0].text
    assert (
        calls["empty_query"].is_error and "query is empty" in calls["empty_query"].content[0].text
    )


def test_session_log_records_requests_and_results(project: Path, calls: dict) -> None:
    (log,) = list((project / "session-logs").glob("*.log"))
    assert log.name[:4].isdigit() and log.name.count("_") == 1
    text = log.read_text()
    assert "request search_pdf" in text and "response search_pdf" in text
    assert "outside the files folder" in text
