"""MCP over Streamable HTTP (`pdfindex web`, `/mcp`): the SDK's HTTP client gets the
same tools, resources and answers as the stdio client of `pdfindex serve`, on the same
calls over twin projects; and the live index behind it follows the files folder."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from pdfindex.server.tools import TOOLS
from tests import elementgen, pdfgen
from tests.mcpclient import stdio, text_of
from tests.waiting import indexed
from tests.webserver import WebServer, http_client, web_server

# Every tool once, and one error, on the twins' two documents.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_pdf", {"pdf_name": "multi", "query": "transformer"}),
    ("fuzzy_search", {"query": "tranformer", "max_results": 2}),
    ("search_in_file", {"file": "multi.pdf", "pattern": r"qu\w+"}),
    ("extract_pdf_page", {"file": "report.pdf", "pages": [3]}),
    ("list_searchable_files", {}),
    ("read_pdf", {"sources": [{"path": "multi.pdf", "pages": "1"}]}),
    ("search_documents", {"query": "storage engine", "limit": 2}),
    ("get_page_image", {"document_slug": "report", "page_number": 2}),
    ("search_visual_elements", {"query": "system architecture", "limit": 2}),
    ("get_element_image", {"document_slug": "report", "element_label": "Figure 4"}),
    ("get_element_details", {"document_slug": "report", "element_label": "Table 2"}),
    ("get_document_info", {"document_slug": "report"}),
    ("find_document", {"query": "multi page"}),
    ("list_documents", {}),
    ("list_documents_paginated", {"page": 1, "page_size": 1}),
    ("get_library_status", {}),
    ("process_document", {"file_path": "multi.pdf"}),
    ("query_documents", {"query": "What is the throughput?", "top_k": 2}),
    ("list_sessions", {}),
    ("search_pdf", {"pdf_name": "nothing", "query": "x"}),  # an error, in seed 000's shape
]
RESOURCES = ("tour://library", "adapters://list", "config://settings")
# What differs between two runs by nature: times, session ids, durations.
VOLATILE = [
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:?\d\d|Z)?"), "TIME"),
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "UUID"),
    (
        re.compile(r'((indexed_at|processing_time|avg_response_time)\\*"\s*:\s*)[0-9.]+'),
        r"\g<1>0",
    ),
]


def _project(root: Path) -> Path:
    files = root / "files"
    files.mkdir(parents=True)
    pdfgen.write_pdf(
        files / "multi.pdf",
        [
            "First page about transformer\narchitecture and attention.",
            "Second page: the quick fox.",
        ],
        title="Multi Page Test",
    )
    elementgen.report_pdf(files / "report.pdf")
    subprocess.run(
        [sys.executable, "-m", "pdfindex", "reindex", "--root", str(root)],
        check=True,
        capture_output=True,
    )
    return root


async def _tour(client: Client) -> dict[str, Any]:
    """tools/list, resources, and every call of CALLS, as JSON-ready data."""
    out: dict[str, Any] = {
        "tools": [t.model_dump(mode="json") for t in (await client.list_tools()).tools],
        "resources": [r.model_dump(mode="json") for r in (await client.list_resources()).resources],
    }
    for uri in RESOURCES:
        out[uri] = (await client.read_resource(uri)).contents[0].model_dump(mode="json")
    # The settings differ by the web command's own (`--port 0`): those are left out.
    settings = json.loads(out["config://settings"].pop("text"))
    out["config://settings"]["settings"] = {
        name: row for name, row in settings.items() if not name.startswith("web_")
    }
    out["calls"] = [(await client.call_tool(n, a)).model_dump(mode="json") for n, a in CALLS]
    return out


def _steady(data: Any, root: Path) -> Any:
    """`data` with the project's root and VOLATILE values replaced."""
    text = json.dumps(data, sort_keys=True).replace(str(root), "ROOT")
    for pattern, replacement in VOLATILE:
        text = pattern.sub(replacement, text)
    return json.loads(text)


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return (
        _project(tmp_path_factory.mktemp("stdio")),
        _project(tmp_path_factory.mktemp("http")),
    )


@pytest.fixture(scope="module")
def server(twins: tuple[Path, Path]) -> Iterator[WebServer]:
    with web_server(twins[1]) as running:
        yield running


@pytest.fixture(scope="module")
def tours(twins: tuple[Path, Path], server: WebServer) -> tuple[Any, Any]:
    async def over_stdio() -> Any:
        async with stdio(twins[0]) as client:
            return await _tour(client)

    async def over_http() -> Any:
        async with http_client(server.url) as client:
            return await _tour(client)

    return (
        _steady(anyio.run(over_stdio), twins[0]),
        _steady(anyio.run(over_http), twins[1]),
    )


def test_the_calls_cover_every_tool() -> None:
    assert {name for name, _ in CALLS} == {fn.__name__ for fn, _, _ in TOOLS}


def test_tools_list_is_the_same_as_over_stdio(tours: tuple[Any, Any]) -> None:
    assert tours[1]["tools"] == tours[0]["tools"]


@pytest.mark.parametrize("uri", ["resources", *RESOURCES])
def test_resources_are_the_same_as_over_stdio(tours: tuple[Any, Any], uri: str) -> None:
    assert tours[1][uri] == tours[0][uri]


@pytest.mark.parametrize("n", range(len(CALLS)), ids=[f"{i}-{c[0]}" for i, c in enumerate(CALLS)])
def test_every_tool_answers_as_over_stdio(tours: tuple[Any, Any], n: int) -> None:
    assert tours[1]["calls"][n] == tours[0]["calls"][n]


def test_the_answers_are_real(tours: tuple[Any, Any]) -> None:
    """Equal answers could be equally empty: the first search finds its page."""
    found = json.loads(tours[1]["calls"][0]["content"][0]["text"])
    assert found["pages"] == [1]


def test_a_new_file_is_found_over_http_once_the_watcher_indexed_it(
    twins: tuple[Path, Path], server: WebServer
) -> None:
    pdfgen.write_pdf(twins[1] / "files" / "late.pdf", ["A zeppelin arrives late."])

    async def script() -> str:
        async with http_client(server.url) as client:
            await indexed(client, "late", "zeppelin")
            answer = await client.call_tool("search_documents", {"query": "zeppelin"})
            return text_of(answer)

    assert "late" in anyio.run(script)


def test_sigterm_stops_the_server_cleanly(tmp_path: Path) -> None:
    (tmp_path / "files").mkdir()
    with web_server(tmp_path) as running:  # checks the exit code 0 on SIGTERM
        pass
    assert "pdfindex: stopped" in running.stderr.read_text()
