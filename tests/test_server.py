"""`pdfindex serve` as a real subprocess: the stdio transport, stdout hygiene, signals,
hostile paths and parallel calls. The only module that starts the server as a process;
the tools themselves are tested in memory (tests/mcpclient.py)."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from tests import pdfgen
from tests.mcpclient import stdio

HANDSHAKE_VERSION = "2025-11-25"  # the newest version that starts with `initialize`


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, corpus: Path, index_engine: str) -> Path:
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


async def _session_calls(root: Path) -> dict[str, Any]:
    """Start the server, make the calls, and return what came back."""
    env = {
        "PDFINDEX_LOG_DIR": str(root / "session-logs"),
        "PDFINDEX_MAX_RESPONSE_CHARS": "20000",
    }
    out: dict[str, Any] = {}
    async with stdio(root, "--workers", "2", env=env) as client:
        tools = await client.list_tools()
        out["tools"] = {t.name: t for t in tools.tools}
        out["server_info"] = client.server_info

        async def call(name: str, args: dict[str, Any]) -> Any:
            return await client.call_tool(name, args)

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
        out["unknown_argument"] = await call("search_pdf", {"pdf_name": "multi", "qeury": "x"})
        out["by_slug"] = await call("search_documents", {"query": "fox", "document_slug": "multi"})
        out["rag_error"] = await call("query_documents", {"query": "fox", "top_k": 99})
        out["config"] = (await client.read_resource("config://settings")).contents[0].text
    return out


@pytest.fixture(scope="module")
def calls(project: Path, index_engine: str) -> dict[str, Any]:
    return anyio.run(_session_calls, project)


def test_tools_listed_with_schemas(calls: dict[str, Any]) -> None:
    tool = calls["tools"]["search_pdf"]
    props = tool.input_schema["properties"]
    assert set(props) == {"pdf_name", "query", "context_length", "topk"}
    assert props["context_length"]["default"] == 2000
    assert props["topk"]["default"] == 10
    assert all(p.get("description") for p in props.values())


def test_search_pdf_answers_in_the_seed_shape(calls: dict[str, Any]) -> None:
    found = calls["found"]
    assert not found.is_error
    data = found.structured_content
    assert data["file_exists"]
    assert data["query_exists"]
    assert len(data["matches"]) == 1
    assert data["pages"] == [1]
    assert re.search(r"\*\*transformer\r?\narchitecture\*\*", data["matches"][0])
    assert calls["pdf_suffix"].structured_content["query_exists"]
    assert calls["hyphen"].structured_content["query_exists"]
    assert calls["absent_query"].structured_content == {
        "file_exists": True,
        "query_exists": False,
        "matches": [],
        "pages": [],
    }
    absent = calls["absent_file"]
    assert absent.is_error  # seed 000's shape, with the closest names as `error`
    assert {k: v for k, v in absent.structured_content.items() if k != "error"} == {
        "file_exists": False,
        "query_exists": False,
        "matches": [],
        "pages": [],
    }
    assert "Document 'nothing' not found" in absent.structured_content["error"]
    (context,) = calls["context"].structured_content["matches"]
    # 5 characters each side (4 after a CRLF line end, 5 after an LF)
    assert re.fullmatch(r"r?own \*\*fox\*\*\.(\r\nSt|\nSta)", context)


def test_unreadable_pdfs_carry_an_error(calls: dict[str, Any]) -> None:
    corrupt = calls["corrupt"].structured_content
    assert corrupt["file_exists"]
    assert not corrupt["query_exists"]
    assert corrupt["error"].startswith("Failed to parse PDF")
    assert "password" in calls["locked"].structured_content["error"]


def test_hostile_paths_and_bad_arguments_are_tool_errors(calls: dict[str, Any]) -> None:
    for key in ("traversal", "symlink"):
        result = calls[key]
        assert result.is_error
        assert "outside the files folder" in result.content[0].text
    assert calls["bad_topk"].is_error
    assert "topk" in calls["bad_topk"].content[0].text
    assert calls["empty_query"].is_error
    assert "query is empty" in calls["empty_query"].content[0].text


def test_over_stdio_the_first_call_meets_one_error_rule(calls: dict[str, Any]) -> None:
    """Version, unknown arguments, seed 002's error JSON and slugs, over the real stdio
    transport (tests/test_first_call.py has the rest, in memory)."""
    from pdfindex import __version__

    assert calls["server_info"].version == __version__
    unknown = calls["unknown_argument"]
    assert unknown.is_error
    assert "unknown argument 'qeury'" in unknown.content[0].text
    assert "query is required" in unknown.content[0].text
    assert not calls["by_slug"].is_error
    assert "Document: multi" in calls["by_slug"].content[0].text
    rag = calls["rag_error"]
    assert rag.is_error
    assert rag.structured_content["error"] == "ValidationError"
    assert rag.structured_content["details"]["parameter"] == "top_k"
    assert json.loads(rag.content[0].text) == rag.structured_content


def test_session_log_records_requests_and_results(project: Path, calls: dict[str, Any]) -> None:
    (log,) = list((project / "session-logs").glob("*.log"))
    assert log.name[:4].isdigit()
    assert log.name.count("_") == 1
    text = log.read_text()
    assert "request search_pdf" in text
    assert "response search_pdf" in text
    assert "outside the files folder" in text


def test_config_says_where_each_value_came_from(calls: dict[str, Any]) -> None:
    config = json.loads(calls["config"])
    assert config["max_response_chars"] == {
        "value": 20000,
        "source": "env PDFINDEX_MAX_RESPONSE_CHARS",
    }
    assert config["root"]["source"] == "flag --root"
    assert config["workers"] == {"value": 2, "source": "flag --workers"}


# -- the process itself: nothing but protocol on stdout, clean ends ---------------------


class RawServer:
    """`pdfindex serve` driven by hand-written JSON-RPC lines, to see its stdout byte by byte."""

    def __init__(self, root: Path) -> None:
        command = [sys.executable, "-m", "pdfindex.cli", "serve", "--root", str(root)]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.banner = self.process.stderr.readline()  # type: ignore[union-attr]
        self.lines: list[bytes] = []

    def send(self, message: dict[str, Any]) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(json.dumps(message).encode() + b"\n")
        stdin.flush()

    def request(self, id_: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send a request and read stdout up to its response (every line is kept)."""
        self.send({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})
        while True:
            line = self.process.stdout.readline()  # type: ignore[union-attr]
            assert line, "stdout closed before the response"
            self.lines.append(line)
            message = json.loads(line)
            if message.get("id") == id_:
                return message

    def handshake(self) -> None:
        answer = self.request(
            1,
            "initialize",
            {
                "protocolVersion": HANDSHAKE_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "tests", "version": "1"},
            },
        )
        assert answer["result"]["protocolVersion"] == HANDSHAKE_VERSION, answer
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def end(self, how: str) -> int:
        """Stop the server by SIGTERM or by closing stdin; its exit code."""
        if how == "sigterm":
            self.process.send_signal(signal.SIGTERM)
        else:
            self.process.stdin.close()  # type: ignore[union-attr]
        code = self.process.wait(timeout=60)
        self.lines += self.process.stdout.read().splitlines(keepends=True)  # type: ignore[union-attr]
        self.process.stdout.close()  # type: ignore[union-attr]
        self.process.stderr.close()  # type: ignore[union-attr]
        if self.process.stdin and not self.process.stdin.closed:
            self.process.stdin.close()
        return code


@pytest.mark.parametrize("how", ["sigterm", "stdin-eof"])
def test_serve_stops_cleanly_at_start_up(tmp_path: Path, how: str) -> None:
    pdfgen.write_pdf(tmp_path / "files" / "a.pdf", ["x"])
    server = RawServer(tmp_path)  # the banner is out: the handler is in place from here on
    assert server.banner.startswith(b"pdfindex: serving ")
    assert server.end(how) == 0
    assert server.lines == []  # nothing but protocol messages, and none were asked


@pytest.mark.parametrize("how", ["sigterm", "stdin-eof"])
def test_stdout_holds_only_protocol_and_serve_stops_cleanly(tmp_path: Path, how: str) -> None:
    pdfgen.write_pdf(tmp_path / "files" / "a.pdf", ["hello world"])
    server = RawServer(tmp_path)
    server.handshake()
    call = {"name": "search_pdf", "arguments": {"pdf_name": "a", "query": "hello"}}
    answer = server.request(2, "tools/call", call)  # extraction workers have run by now
    assert answer["result"]["structuredContent"]["query_exists"]
    assert server.end(how) == 0
    messages = [json.loads(line) for line in server.lines]  # each line is one JSON message
    assert all(m["jsonrpc"] == "2.0" for m in messages)
    assert [m["id"] for m in messages if "id" in m] == [1, 2]


async def _parallel_calls_while_files_land(root: Path) -> list[dict[str, Any]]:
    async with stdio(root) as client:
        results: list[dict[str, Any]] = [{} for _ in range(16)]

        async def one(i: int, client: Client = client) -> None:
            result = await client.call_tool(
                "search_pdf", {"pdf_name": f"doc{i % 4:02d}", "query": "page marker", "topk": 3}
            )
            results[i] = result.structured_content or {}

        async def land_files() -> None:
            for i in range(4, 8):
                pdfgen.write_pdf(root / "files" / f"doc{i:02d}.pdf", [f"landed {i}"])
                await anyio.sleep(0.1)

        async with anyio.create_task_group() as group:
            group.start_soon(land_files)
            for i in range(16):
                group.start_soon(one, i)
        landed = await client.call_tool("search_pdf", {"pdf_name": "doc07", "query": "landed 7"})
        results.append(landed.structured_content or {})
    return results


def test_sixteen_parallel_calls_while_the_watcher_commits(tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    for i in range(4):
        pdfgen.write_pdf(files / f"doc{i:02d}.pdf", [f"Page marker {i}\nmore", "Page marker two"])
    results = anyio.run(_parallel_calls_while_files_land, tmp_path)
    for result in results[:16]:
        assert result["query_exists"], result
        assert len(result["matches"]) == 2, result
    assert results[16]["query_exists"]  # waited for the watcher instead of "not indexed"
