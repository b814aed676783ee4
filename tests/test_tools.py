"""Seed 001 and 003 tools through a real MCP client talking to `pdfindex serve` (stdio)."""

from __future__ import annotations

import base64
import io
import json
import os
import shutil
import sys
import zipfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from tests import pdfgen

HOSTILE = ["../outside/secret.pdf", "/etc/passwd", "escape.pdf", "sub/../../outside/secret.pdf"]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, corpus: Path) -> Path:
    root = tmp_path_factory.mktemp("tools")
    files = root / "files"
    files.mkdir()
    for name in ("multi.pdf", "large.pdf", "corrupt.pdf", "hyphen.pdf"):
        shutil.copy(corpus / name, files / name)
    (files / "sub").mkdir()
    pdfgen.write_pdf(files / "sub" / "deep.pdf", ["Deep document about attention heads."])
    (files / "notes.md").write_text("# Meeting notes\n\nWe discussed attention and budgets.\n")
    (files / "plain.txt").write_text("line one\nthe transformer line\nline three\n")
    outside = root / "outside"
    outside.mkdir()
    pdfgen.write_pdf(outside / "secret.pdf", ["top secret outside"])
    (files / "escape.pdf").symlink_to(outside / "secret.pdf")
    return root


class Session:
    """Calls collected in one server session (the server starts once per module)."""

    def __init__(self) -> None:
        self.results: dict[str, Any] = {}


async def _run(root: Path, calls: dict[str, tuple[str, dict]], env: dict[str, str]) -> dict:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pdfindex.cli", "serve", "--root", str(root)],
        env={**os.environ, **env},
    )
    out: dict[str, Any] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        out["_tools"] = {t.name: t for t in (await session.list_tools()).tools}
        for key, (tool, args) in calls.items():
            if tool.startswith("resource:"):
                out[key] = (await session.read_resource(tool[len("resource:") :])).contents[0].text
            else:
                out[key] = await session.call_tool(tool, args)
    return out


CALLS: dict[str, tuple[str, dict]] = {
    "fuzzy": ("fuzzy_search", {"query": "atention", "max_results": 10}),
    "fuzzy_typos": ("fuzzy_search", {"query": "transfromer archtecture"}),
    "fuzzy_scope": ("fuzzy_search", {"query": "attention", "path": "sub", "preview": False}),
    "fuzzy_types": ("fuzzy_search", {"query": "attention", "file_types": ["md"]}),
    "fuzzy_overview": ("fuzzy_search", {"path": "notes.md"}),
    "fuzzy_cut": ("fuzzy_search", {"query": "marker", "max_results": 5}),
    "grep": ("search_in_file", {"file": "plain.txt", "pattern": "TRANS\\w+", "context_lines": 1}),
    "grep_case": (
        "search_in_file",
        {"file": "plain.txt", "pattern": "TRANS", "case_sensitive": True},
    ),
    "grep_pages": ("search_in_file", {"file": "large.pdf", "pattern": r"marker P00(1[0-2])\b"}),
    "grep_bad": ("search_in_file", {"file": "plain.txt", "pattern": "(unclosed"}),
    "grep_runaway": ("search_in_file", {"file": "large.pdf", "pattern": r"^(\w+\s?)*$"}),
    "grep_big": ("search_in_file", {"file": "large.pdf", "pattern": "e"}),
    "list": ("list_searchable_files", {}),
    "list_pdf": ("list_searchable_files", {"path": "sub", "file_types": ["pdf"]}),
    "read": (
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
    "read_full": ("read_pdf", {"sources": [{"path": "large.pdf"}], "include_full_text": True}),
    "read_range": ("read_pdf", {"sources": [{"path": "multi.pdf", "pages": [4]}]}),
    "md": ("extract_pdf_page", {"file": "multi.pdf", "pages": [2]}),
    "html": ("extract_pdf_page", {"file": "multi.pdf", "pages": [1, 3], "output_format": "html"}),
    "plain": ("extract_pdf_page", {"file": "hyphen.pdf", "pages": [1], "output_format": "plain"}),
    "latex": ("extract_pdf_page", {"file": "multi.pdf", "pages": [1], "output_format": "latex"}),
    "docx": ("extract_pdf_page", {"file": "multi.pdf", "pages": [1], "output_format": "docx"}),
    "page_range": ("extract_pdf_page", {"file": "multi.pdf", "pages": [7]}),
    "adapters": ("resource:adapters://list", {}),
    "config": ("resource:config://settings", {}),
}
for n, bad in enumerate(HOSTILE):
    CALLS[f"hostile_fuzzy_{n}"] = ("fuzzy_search", {"query": "secret", "path": bad})
    CALLS[f"hostile_grep_{n}"] = ("search_in_file", {"file": bad, "pattern": "secret"})
    CALLS[f"hostile_list_{n}"] = ("list_searchable_files", {"path": bad})
    CALLS[f"hostile_read_{n}"] = ("read_pdf", {"sources": [{"path": bad, "pages": "1"}]})
    CALLS[f"hostile_extract_{n}"] = ("extract_pdf_page", {"file": bad, "pages": [1]})


@pytest.fixture(scope="module")
def out(project: Path) -> dict:
    env = {"PDFINDEX_MAX_RESPONSE_CHARS": "20000"}
    return anyio.run(_run, project, CALLS, env)


def data(out: dict, key: str) -> dict:
    result = out[key]
    assert not result.is_error, result.content[0].text
    return result.structured_content


def error(out: dict, key: str) -> str:
    result = out[key]
    assert result.is_error, result.structured_content
    return result.content[0].text


def test_all_tools_listed_with_described_arguments(out: dict) -> None:
    for name in (
        "fuzzy_search",
        "search_in_file",
        "extract_pdf_page",
        "list_searchable_files",
        "read_pdf",
        "search_pdf",
    ):
        tool = out["_tools"][name]
        assert tool.description
        for prop in tool.input_schema["properties"].values():
            assert prop.get("description"), (name, prop)
    assert out["_tools"]["extract_pdf_page"].input_schema["properties"]["output_format"]


def test_fuzzy_search(out: dict) -> None:
    fuzzy = data(out, "fuzzy")
    assert fuzzy["mode"] == "batch" and "terminal" in fuzzy["note"]
    files = {m["file"] for m in fuzzy["matches"]}
    assert {"multi.pdf", "sub/deep.pdf", "notes.md"} <= files
    for match in fuzzy["matches"]:
        assert set(match) == {"file", "page", "line_number", "content", "adapter"}
        assert "attention" in match["content"].lower()
    assert {m["adapter"] for m in fuzzy["matches"]} >= {"pdfium", "markdown"}
    typos = data(out, "fuzzy_typos")["matches"]
    assert typos[0]["file"] in ("multi.pdf", "hyphen.pdf") and typos[0]["page"] == 1
    assert [m["file"] for m in data(out, "fuzzy_scope")["matches"]] == ["sub/deep.pdf"]
    assert {m["file"] for m in data(out, "fuzzy_types")["matches"]} == {"notes.md"}
    overview = data(out, "fuzzy_overview")["matches"]
    assert overview[0]["content"] == "# Meeting notes"


def test_fuzzy_total_is_true_when_cut(out: dict) -> None:
    cut = data(out, "fuzzy_cut")
    assert len(cut["matches"]) == 5 and cut["total_matches"] >= 320
    assert cut["next_offset"] == 5


def test_search_in_file(out: dict) -> None:
    (match,) = data(out, "grep")["matches"]
    assert match == {
        "page": 1,
        "line_number": 2,
        "content": "the transformer line",
        "context_before": ["line one"],
        "context_after": ["line three"],
    }
    assert data(out, "grep_case")["matches"] == []
    pages = [(m["page"], m["line_number"] > 0) for m in data(out, "grep_pages")["matches"]]
    assert pages == [(10, True), (11, True), (12, True)]
    assert "invalid regular expression" in error(out, "grep_bad")
    runaway = out["grep_runaway"]
    if runaway.is_error:  # stopped by the time limit rather than hanging
        assert "catastrophic backtracking" in runaway.content[0].text


def test_oversized_results_are_cut_with_a_way_to_continue(out: dict) -> None:
    big = data(out, "grep_big")
    assert big["truncated"] and big["next_offset"] == len(big["matches"])
    assert big["total_matches"] > len(big["matches"])
    assert len(json.dumps(big)) < 25_000
    full = data(out, "read_full")["results"][0]["data"]
    assert full["truncated"] and full["next_pages"].endswith("-320")
    assert len(json.dumps(full)) < 25_000


def test_list_searchable_files(out: dict) -> None:
    rows = {r["path"]: r for r in data(out, "list")["files"]}
    assert set(rows) == {
        "multi.pdf",
        "large.pdf",
        "corrupt.pdf",
        "hyphen.pdf",
        "sub/deep.pdf",
        "notes.md",
        "plain.txt",
    }  # the symlink out is not listed
    assert rows["large.pdf"]["pages"] == 320 and rows["large.pdf"]["status"] == "ok"
    assert rows["corrupt.pdf"]["status"] == "failed" and rows["corrupt.pdf"]["error"]
    assert rows["notes.md"]["adapter"] == "markdown" and rows["plain.txt"]["type"] == "txt"
    assert [r["path"] for r in data(out, "list_pdf")["files"]] == ["sub/deep.pdf"]


def test_read_pdf(out: dict) -> None:
    first, corrupt, missing, url = data(out, "read")["results"]
    assert first["success"] and first["data"]["num_pages"] == 3
    assert [p["page"] for p in first["data"]["page_texts"]] == [2, 3]
    assert "quick brown fox" in first["data"]["page_texts"][0]["text"]
    assert first["data"]["info"]["title"] == "Multi Page Test"
    assert first["data"]["info"]["author"] == "Tester"
    assert not corrupt["success"] and "failed" in corrupt["error"]
    assert not missing["success"] and "not found" in missing["error"]
    assert not url["success"] and "URL" in url["error"]
    (bad_range,) = data(out, "read_range")["results"]
    assert not bad_range["success"] and "1-3" in bad_range["error"]


def test_extract_pdf_page(out: dict) -> None:
    md = data(out, "md")
    assert md["format"] == "markdown" and md["pages_extracted"] == [2]
    assert "quick brown fox" in md["content"] and "transformer" not in md["content"]
    html = data(out, "html")
    assert html["pages_extracted"] == [1, 3] and "<p>" in html["content"]
    assert "architecture" in data(out, "plain")["content"].replace("-\n", "")
    assert "1-3" in error(out, "page_range")


@pytest.mark.skipif(shutil.which("pandoc") is None, reason="pandoc is not installed")
def test_extract_through_pandoc(out: dict) -> None:
    assert "transformer" in data(out, "latex")["content"]
    docx = data(out, "docx")
    assert docx["encoding"] == "base64"
    with zipfile.ZipFile(io.BytesIO(base64.b64decode(docx["content"]))) as archive:
        assert "transformer" in archive.read("word/document.xml").decode()


def test_hostile_paths_are_refused_by_every_tool(out: dict) -> None:
    for key in [k for k in CALLS if k.startswith("hostile_")]:
        if key.startswith("hostile_read"):
            (entry,) = data(out, key)["results"]
            assert not entry["success"] and "outside the files folder" in entry["error"], key
        else:
            assert "outside the files folder" in error(out, key), key
    assert all(
        "top secret" not in json.dumps(r.structured_content or {})
        for k, r in out.items()
        if k.startswith("hostile_")
    )


def test_resources(out: dict) -> None:
    adapters = {a["name"]: a for a in json.loads(out["adapters"])["adapters"]}
    assert adapters["pdfium"]["extensions"] == ["pdf"] and adapters["markdown"]["version"]
    assert set(adapters) == {"pdfium", "pdfminer", "text", "markdown"}
    config = json.loads(out["config"])
    assert config["max_response_chars"] == {
        "value": 20000,
        "source": "env PDFINDEX_MAX_RESPONSE_CHARS",
    }
    assert config["root"]["source"] == "flag --root"
