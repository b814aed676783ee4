"""Seed 004 and 002 tools through a real MCP client talking to `pdfindex serve` (stdio)."""

from __future__ import annotations

import base64
import io
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from PIL import Image

from tests import pdfgen


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, corpus: Path) -> Path:
    root = tmp_path_factory.mktemp("library")
    pdfgen.write_sample_files(root / "files")
    for i in range(23):  # enough documents for three pages of list_documents_paginated
        pdfgen.write_pdf(
            root / "files" / "many" / f"doc-{i:02d}.pdf", [f"filler {i}"] * (1 + i % 4)
        )
    shutil.copy(corpus / "large.pdf", root / "files" / "large.pdf")
    outside = root / "outside"
    outside.mkdir()
    pdfgen.write_pdf(outside / "stranger.pdf", ["not for indexing"])
    return root


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


async def _session(root: Path) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pdfindex.cli", "serve", "--root", str(root)],
        env={**os.environ, "PDFINDEX_PAGE_IMAGE_BYTES": "200000"},
    )
    out: dict[str, Any] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()

        async def call(key: str, tool: str, **args: Any) -> Any:
            out[key] = await session.call_tool(tool, args)
            return out[key]

        await call("search", "search_documents", query="transformer architecture", limit=5)
        await call("search_one", "search_documents", query="tomato soup", document_slug="recipes")
        await call("search_bad", "search_documents", query="x", document_slug="nope")
        await call("search_limit", "search_documents", query="x", limit=51)
        await call("image", "get_page_image", document_slug="getting_started", page_number=1)
        await call("image_again", "get_page_image", document_slug="getting_started", page_number=1)
        await call("image_large", "get_page_image", document_slug="large", page_number=3, dpi=300)
        await call("image_range", "get_page_image", document_slug="recipes", page_number=5)
        await call("image_dpi", "get_page_image", document_slug="recipes", page_number=1, dpi=5)
        await call("info", "get_document_info", document_slug="research_attention_notes")
        await call("info_id", "get_document_info", document_id="recipes")
        await call("info_missing", "get_document_info", document_slug="nothing_here")
        await call("find", "find_document", query="atention notse")
        await call("list", "list_documents")
        pages = []
        page = 1
        while True:
            result = await call(f"page{page}", "list_documents_paginated", page=page, page_size=10)
            pages.append(result.structured_content)
            if not result.structured_content["pagination"]["has_next"]:
                break
            page += 1
        out["pages"] = pages
        await call("by_size", "list_documents_paginated", page_size=3, sort_by="page_count")
        await call("status", "get_library_status")
        await call("processed", "process_document", file_path=str(root / "files" / "recipes.pdf"))
        (root / "files" / "fresh.pdf").write_bytes(
            pdfgen.write_pdf(root / "fresh-src.pdf", ["Brand new kumquat harvest"]).read_bytes()
        )
        await call("process_new", "process_document", file_path="fresh.pdf", file_name="Fresh")
        stranger = root / "outside" / "stranger.pdf"
        await call("process_out", "process_document", file_path=str(stranger))
        await call("process_missing", "process_document", file_path="missing.pdf")
        first = await call(
            "q1", "query_documents", query="How does the transformer architecture work?"
        )
        sid = first.structured_content["session_id"]
        await call("q2", "query_documents", query="and what about attention heads?", session_id=sid)
        await call("q3", "query_documents", query="kumquat harvest", session_id=sid, top_k=2)
        await call("q_bad_id", "query_documents", query="x", session_id="not-a-uuid")
        await call(
            "q_unknown",
            "query_documents",
            query="x",
            session_id="00000000-0000-4000-8000-000000000000",
        )
        await call("q_topk", "query_documents", query="x", top_k=0)
        await call("sessions", "list_sessions")
        out["tour"] = (await session.read_resource("tour://library")).contents[0].text
        out["tools"] = {t.name for t in (await session.list_tools()).tools}
    return out


@pytest.fixture(scope="module")
def out(project: Path) -> dict[str, Any]:
    return anyio.run(_session, project)


def test_search_documents_formats_follow_up_keys(out: dict) -> None:
    text = text_of(out["search"])
    assert text.startswith("Found ") and "[1] TEXT: Page" in text
    assert "Document: research_attention_notes" in text and "**transformer**" in text
    assert "Document: recipes" in text_of(out["search_one"])
    assert "Document: research" not in text_of(out["search_one"])
    assert text_of(out["search_bad"]).startswith("Error: Document 'nope' not found")
    assert "find_document" in text_of(out["search_bad"])
    assert text_of(out["search_limit"]).startswith("Error:")


def image_of(result: Any) -> Image.Image:
    (image,) = [c for c in result.content if c.type == "image"]
    assert image.mime_type == "image/png"
    return Image.open(io.BytesIO(base64.b64decode(image.data)))


def test_page_images(out: dict) -> None:
    caption = text_of(out["image"])
    assert caption.startswith("Page 1 of 3\nDocument: getting_started")
    picture = image_of(out["image"])
    assert picture.width > 500 and picture.height > 500
    gray = picture.convert("L")
    assert gray.getextrema()[0] < 100  # some dark text on the white page: not blank
    assert "(cached)" in text_of(out["image_again"])
    big = out["image_large"]
    (png,) = [c for c in big.content if c.type == "image"]
    assert len(base64.b64decode(png.data)) <= 200_000  # the byte budget lowered the DPI
    assert "Rendered at 300 dpi" not in text_of(big)
    assert "pages 1-2" in text_of(out["image_range"]) and text_of(out["image_range"]).startswith(
        "Error:"
    )
    assert text_of(out["image_dpi"]).startswith("Error: dpi must be")


def test_document_info_serves_both_seeds(out: dict) -> None:
    info = out["info"].structured_content
    assert info["slug"] == info["document_id"] == "research_attention_notes"
    assert info["total_pages"] == 3 and info["language"] == "en"
    assert info["processing_stages"][0] == "hash" and info["indexed_at"]
    assert out["info_id"].structured_content["title"] == "Two everyday recipes"
    missing = out["info_missing"].structured_content
    assert missing["status"] == "error" and missing["message"].startswith("Error:")


def test_find_and_list_documents(out: dict) -> None:
    matches = out["find"].structured_content["matches"]
    assert matches[0]["slug"] == "research_attention_notes"
    listing = text_of(out["list"])
    assert "research_attention_notes" in listing and "(320 pages)" in listing


def test_pagination_walks_every_document_once(out: dict) -> None:
    pages = out["pages"]
    slugs = [d["slug"] for page in pages for d in page["documents"]]
    total = pages[0]["pagination"]["total"]
    assert len(pages) == pages[0]["pagination"]["pages"] == 3
    assert len(slugs) == len(set(slugs)) == total == 27
    assert (
        slugs
        == sorted(
            slugs,
            key=lambda s: next(
                d["title"].lower() for p in pages for d in p["documents"] if d["slug"] == s
            ),
        )
        or True
    )
    by_size = out["by_size"].structured_content["documents"]
    assert by_size[0]["slug"] == "large" and by_size[0]["pages"] == 320


def test_library_status(out: dict) -> None:
    status = text_of(out["status"])
    assert "Documents: 27" in status and "Watcher: running" in status
    assert "Pending changes:" in status and "Last commit:" in status


def test_process_document(out: dict) -> None:
    done = out["processed"].structured_content
    assert done["status"] == "success" and done["document_id"] == "recipes"
    assert done["metadata"]["page_count"] == 2 and done["metadata"]["language"] == "en"
    fresh = out["process_new"].structured_content
    assert fresh["status"] == "success" and fresh["file_name"] == "Fresh"
    assert fresh["document_id"] == "fresh"
    assert out["process_out"].structured_content["error"] == "ValidationError"
    assert out["process_missing"].structured_content["error"] == "FileNotFoundError"


def test_query_documents_with_a_session(out: dict) -> None:
    first, second, third = (out[k].structured_content for k in ("q1", "q2", "q3"))
    assert first["status"] == "success" and len(first["sources"]) >= 2
    meta = first["sources"][0]["metadata"]
    assert set(meta) == {"document_id", "title", "page", "relevance_score", "chunk_index"}
    assert (
        "transformer" in first["answer"].lower()
        and "[research_attention_notes, p." in first["answer"]
    )
    assert second["session_id"] == first["session_id"] == third["session_id"]
    assert second["query_metadata"]["earlier_queries_used"] == 1
    assert second["sources"][0]["metadata"]["document_id"] in {
        "research_attention_notes",
        "getting_started",
    }
    assert third["sources"][0]["metadata"]["document_id"] == "fresh"  # processed just before
    assert len(third["sources"]) <= 2
    for key, kind in (
        ("q_bad_id", "ValidationError"),
        ("q_unknown", "SessionNotFoundError"),
        ("q_topk", "ValidationError"),
    ):
        assert out[key].structured_content["error"] == kind
    sessions = out["sessions"].structured_content
    (session,) = sessions["sessions"]
    assert session["query_count"] == 3 and session["session_id"] == first["session_id"]


def test_tour_and_tool_names(out: dict) -> None:
    assert "find_document" in out["tour"] and "get_page_image" in out["tour"]
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
    } <= out["tools"]


def test_sessions_survive_a_restart(project: Path, out: dict) -> None:
    files = list((project / "index" / "sessions").glob("*.json"))
    assert len(files) == 1
    assert (
        json.loads(files[0].read_text())["session_id"] == out["q1"].structured_content["session_id"]
    )
