"""Issue 31, items 7, 11, 14 and 16: every request gets an answer, in time, naming the
right cause. A real `pdfindex serve` subprocess driven by raw JSON-RPC lines on its stdin
(bytes no SDK client would send: invalid JSON, lone surrogates, 200 pipelined calls), the
SDK's stdio client for concurrent calls, and the in-memory client for messages.

- 7: two slow conversions leave a worker for page images (the workers' lanes).
- 11: a call's time limit starts at its receipt, and a cheap call does not queue behind
  200 heavy ones (the server's thread lanes).
- 14: invalid JSON gets a parse error (-32700, id null); a lone surrogate an error naming
  its argument; any other unreadable line an answer too.
- 16: errors name the real cause (page out of range, a big file for a regex, a hidden file).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pdfindex.config import SETTINGS
from tests import hostile, pdfgen
from tests.conftest import ENGINE, make_settings
from tests.mcpclient import CATCH_UP, InMemory, open_app, stdio, text_of
from tests.waiting import eventually, indexed

HANDSHAKE_VERSION = "2025-11-25"
SLOW_RECTS = 300_000  # tiny filled squares on one page: pdfium takes ~1 s to draw them
SLOW_OBJECTS = 20_000  # text objects per page: pdfminer's layout of 10 such pages takes minutes
RUNAWAY_LINE = "a" * 40 + "!"  # ^(a|aa)+$ backtracks through ~10^8 ways of splitting it


def one_pass() -> None:
    """The transport and the worker lanes do not depend on the index engine."""
    if ENGINE["name"] != SETTINGS["engine"].default:
        pytest.skip("the server process does not depend on the index engine: one pass is enough")


def slow_render_pdf(path: Path, squares: int = SLOW_RECTS) -> Path:
    """One page that is slow to draw (a second or so) and whose PNG stays a few kB."""
    ops = [b"%d %d 2 2 re f" % (100 + i % 50, 100 + (i // 50) % 50) for i in range(squares)]
    data = zlib.compress(hostile.text_ops(["slow to draw"]) + b"\n" + b"\n".join(ops), 9)
    return hostile.write(path, hostile.pages_pdf(hostile.stream(data, deflated=True)))


def slow_layout_pdf(path: Path, pages: int = 10, objects: int = SLOW_OBJECTS) -> Path:
    """`pages` pages sharing one content stream of `objects` one-word text objects: fast
    for pdfium (indexing), minutes for pdfminer's layout (conversion)."""
    ops = [
        b"BT /F1 1 Tf %d %.1f Td (w%d) Tj ET" % (20 + (n % 150) * 5, 740 - (n // 150) * 0.5, n % 10)
        for n in range(objects)
    ]
    data = zlib.compress(hostile.text_ops(["slow layout"]) + b"\n" + b"\n".join(ops), 9)
    return hostile.write(path, hostile.pages_pdf(hostile.stream(data, deflated=True), pages))


_PROBES = itertools.count(1)  # the ids of Wire.indexed's searches, negated


class Wire:
    """`pdfindex serve` driven by raw lines on stdin; a thread reads its answers, each
    kept with the time it arrived (by id; those with id null in a list)."""

    def __init__(self, root: Path, env: dict[str, str] | None = None) -> None:
        command = [sys.executable, "-m", "pdfindex.cli", "serve", "--root", str(root)]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PDFINDEX_ELEMENTS": "false", **(env or {})},
        )
        self.answers: dict[Any, tuple[float, dict[str, Any]]] = {}
        self.anonymous: list[dict[str, Any]] = []
        self.sent: dict[Any, float] = {}
        self._arrived = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            message = json.loads(line)
            with self._arrived:
                if message.get("id") is None:
                    self.anonymous.append(message)
                else:
                    self.answers[message["id"]] = (time.monotonic(), message)
                self._arrived.notify_all()

    def write(self, data: bytes) -> float:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()
        return time.monotonic()

    def send(self, message: dict[str, Any]) -> None:
        sent = self.write(json.dumps(message).encode() + b"\n")
        if "id" in message:
            self.sent[message["id"]] = sent

    def call(self, id_: int, tool: str, arguments: dict[str, Any]) -> None:
        params = {"name": tool, "arguments": arguments}
        self.send({"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": params})

    def wait(self, id_: Any, timeout: float = 15.0) -> dict[str, Any]:
        with self._arrived:
            arrived = self._arrived.wait_for(lambda: id_ in self.answers, timeout)
        assert arrived, f"no answer to request {id_!r} within {timeout} s"
        return self.answers[id_][1]

    def wait_anonymous(self, count: int, timeout: float = 15.0) -> list[dict[str, Any]]:
        with self._arrived:
            arrived = self._arrived.wait_for(lambda: len(self.anonymous) >= count, timeout)
        assert arrived, f"{len(self.anonymous)} answers with id null, not {count}"
        return self.anonymous[:count]

    def handshake(self) -> None:
        params = {
            "protocolVersion": HANDSHAKE_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "tests", "version": "1"},
        }
        self.send({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": params})
        assert self.wait("init", 60)["result"]["protocolVersion"] == HANDSHAKE_VERSION
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def indexed(self, pdf_name: str, query: str) -> None:
        """Wait until the start-up scan has indexed `pdf_name`."""

        def found() -> bool:
            ask = -next(_PROBES)  # a fresh id: an earlier probe's answer is no answer
            self.call(ask, "search_pdf", {"pdf_name": pdf_name, "query": query})
            return bool(self.wait(ask)["result"].get("structuredContent", {}).get("query_exists"))

        eventually(found, f"{pdf_name} indexed by the start-up scan", CATCH_UP, interval=0.25)

    def close(self) -> None:
        assert self.process.stdin is not None
        if not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._reader.join(10)
        assert self.process.stdout is not None
        self.process.stdout.close()


def result_text(answer: dict[str, Any]) -> str:
    return "\n".join(c["text"] for c in answer["result"]["content"] if c["type"] == "text")


@pytest.fixture
def wire(tmp_path: Path) -> Iterator[Wire]:
    one_pass()
    pdfgen.write_pdf(tmp_path / "files" / "doc.pdf", ["hello world on page one", "page two"])
    server = Wire(tmp_path)
    try:
        server.handshake()
        yield server
    finally:
        server.close()


# -- 14: every line gets an answer -----------------------------------------------------


def test_invalid_json_gets_a_parse_error_with_id_null(wire: Wire) -> None:
    wire.write(b"{not json\n")
    wire.write(b'\xff\xfe{"jsonrpc": \n')  # not even UTF-8
    for answer in wire.wait_anonymous(2):
        assert answer["id"] is None
        assert answer["error"]["code"] == -32700, answer
        assert "not valid JSON" in answer["error"]["message"]


def test_a_lone_surrogate_is_an_error_naming_its_argument(wire: Wire) -> None:
    """'\\ud800' is legal JSON; the SDK's parser refuses it, and the request went
    unanswered. Each tool answers in its seed's error form, naming the argument."""
    lines = [
        b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search_pdf",'
        b' "arguments": {"pdf_name": "doc", "query": "hello \\ud800"}}}',
        b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_page_image",'
        b' "arguments": {"document_slug": "\\udfffdoc", "page_number": 1}}}',
        b'{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "read_pdf",'
        b' "arguments": {"sources": [{"path": "doc.pdf"}, {"path": "x\\ud83d"}]}}}',
    ]
    wire.write(b"\n".join(lines) + b"\n")
    query, slug, nested = (wire.wait(n) for n in (2, 3, 4))
    for answer, name in [(query, "query"), (slug, "document_slug"), (nested, "sources[1].path")]:
        assert answer["result"]["isError"] is True, answer
        text = result_text(answer)
        assert f"{name}: " in text, text
        assert "lone surrogate" in text, text
    assert "\\ud800 at character 7" in result_text(query)
    assert result_text(slug).startswith("Error: document_slug:")  # seed 004's form
    # Not a tool: a JSON-RPC error naming the parameter.
    wire.write(
        b'{"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {"uri": "x\\udc00"}}\n'
    )
    error = wire.wait(5)["error"]
    assert error["code"] == -32602
    assert error["message"].startswith("params.uri: the text holds")
    # The server goes on answering, and a proper surrogate pair is text like any other.
    wire.call(6, "search_pdf", {"pdf_name": "doc", "query": "hello \U0001f600"})
    assert wire.wait(6)["result"]["structuredContent"]["file_exists"] is True


def test_valid_json_that_is_no_request_gets_invalid_request(wire: Wire) -> None:
    wire.write(b'[1, 2]\n{"jsonrpc": "2.0", "id": 9, "method": 5}\n')
    assert wire.wait(9)["error"]["code"] == -32600
    (listed,) = wire.wait_anonymous(1)
    assert listed["error"]["code"] == -32600
    assert listed["id"] is None
    # A malformed notification is not answered (JSON-RPC never answers one); the next
    # request still is.
    wire.write(b'{"jsonrpc": "2.0", "method": "notifications/x\\ud800"}\n')
    wire.call(10, "search_pdf", {"pdf_name": "doc", "query": "hello"})
    assert wire.wait(10)["result"]["structuredContent"]["query_exists"] is True
    assert len(wire.anonymous) == 1


# -- 11: time limits from receipt; a cheap call never queues behind heavy ones ----------


def pipelined_page_images(slug: str, count: int, first_id: int = 1000) -> bytes:
    """`count` get_page_image requests for page 1 of `slug` (ids from `first_id`, each at
    its own DPI so none is a cache hit of another), as the lines a client pipelines."""
    calls = [
        {
            "jsonrpc": "2.0",
            "id": first_id + n,
            "method": "tools/call",
            "params": {
                "name": "get_page_image",
                "arguments": {"document_slug": slug, "page_number": 1, "dpi": 36 + n % 100},
            },
        }
        for n in range(count)
    ]
    return b"".join(json.dumps(call).encode() + b"\n" for call in calls)


def test_a_search_answers_at_once_behind_200_pipelined_page_images(tmp_path: Path) -> None:
    one_pass()
    files = tmp_path / "files"
    pdfgen.write_pdf(files / "doc.pdf", ["hello world on page one", "page two"])
    slow_render_pdf(files / "slow.pdf")
    server = Wire(tmp_path, {"PDFINDEX_REQUEST_TIMEOUT": "4"})
    try:
        server.handshake()
        server.indexed("slow", "slow to draw")
        server.indexed("doc", "hello")
        sent = server.write(pipelined_page_images("slow", 200))
        server.call(1, "search_pdf", {"pdf_name": "doc", "query": "hello"})
        search = server.wait(1, 60)
        waited = server.answers[1][0] - server.sent[1]
        assert search["result"]["structuredContent"]["query_exists"] is True
        assert waited < 5.0, f"the search waited {waited:.1f} s behind the page images"
        # Every page image is answered within its limit, counted from its receipt (the
        # answer itself may take a moment on a busy machine).
        answers = [server.wait(1000 + n, 60) for n in range(200)]
        late = max(server.answers[1000 + n][0] for n in range(200)) - sent
        assert late < 4.0 + 4.0, f"the last page image was answered after {late:.1f} s"
        texts = [result_text(a) for a in answers if a["result"]["isError"]]
        assert len(texts) < 200, "no page image was rendered"
        for text in texts:  # the limit as configured (4 s, not 3.99879 s)
            assert "within 4 s" in text or "time limit of 4 s" in text, text
            if "no worker was free" in text:  # waiting is no reason to narrow the request
                assert "narrow it" not in text, text
                assert "retry" in text, text
        assert any("no worker was free within 4 s" in t and "retry" in t for t in texts), texts[:3]
    finally:
        server.close()


# -- 7: conversions cannot take every page worker --------------------------------------


def test_two_slow_conversions_leave_a_worker_for_page_images(tmp_path: Path) -> None:
    """Two conversions of slow pages (12 s and 6 s limits: request_timeout 3 s per page,
    up to the extraction timeout of 12 s) while page images are asked for: the images are
    rendered; the second conversion waits for the conversion lane and says why."""
    one_pass()
    files = tmp_path / "files"
    pdfgen.write_pdf(files / "doc.pdf", ["hello world on page one", "page two"])
    slow_layout_pdf(files / "slow.pdf")
    env = {"PDFINDEX_REQUEST_TIMEOUT": "3", "PDFINDEX_TIMEOUT": "12", "PDFINDEX_ELEMENTS": "false"}

    async def main() -> None:
        async with stdio(tmp_path, env=env) as client:
            await indexed(client, "slow", "w1")  # the start-up scan has indexed both
            first = asyncio.create_task(
                client.call_tool(
                    "extract_pdf_page",
                    {"file": "slow.pdf", "pages": list(range(1, 11)), "output_format": "plain"},
                )
            )
            await asyncio.sleep(0.5)
            second = asyncio.create_task(
                client.call_tool(
                    "extract_pdf_page",
                    {"file": "slow.pdf", "pages": [1, 2], "output_format": "plain"},
                )
            )
            await asyncio.sleep(0.5)  # both conversions have asked for a worker
            for dpi in (40, 50, 60, 70):
                image = await client.call_tool(
                    "get_page_image", {"document_slug": "doc", "page_number": 1, "dpi": dpi}
                )
                assert not image.is_error, text_of(image)
                assert not first.done(), "the first conversion ended early"
            waited = await second
            assert waited.is_error
            text = text_of(waited)
            assert "no worker was free within 6 s: 1 conversion is running" in text, text
            assert "retry" in text, text
            assert "narrow it" not in text, text
            converted = await first
            assert converted.is_error
            assert "time limit of 12 s" in text_of(converted)

    asyncio.run(main())


# -- 16: errors that name the real cause -------------------------------------------------


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Iterator[InMemory]:
    root = tmp_path_factory.mktemp("causes")
    files = root / "files"
    files.mkdir()
    pdfgen.write_pdf(files / "doc.pdf", ["hello world on page one", "page two"])
    pdfgen.write_pdf(files / ".secret.pdf", ["hidden words"])
    page = "\n".join(f"line {n}" for n in range(250))  # short lines: many search calls
    (files / "big.txt").write_text("\f".join(page for _ in range(4000)))  # 1,000,000 lines
    (files / "runaway.txt").write_text(f"first line\n{RUNAWAY_LINE}\nlast line")
    with open_app(make_settings(root, engine=index_engine, elements=False)) as app:
        yield InMemory(app)


def test_a_page_out_of_range_names_page_number_and_the_page_count(client: InMemory) -> None:
    result = client.call("get_page_image", document_slug="doc", page_number=500)
    assert result.is_error
    text = text_of(result)
    assert text.startswith("Error: page_number: page 500 is out of range"), text
    assert "'doc' has 2 pages" in text


def test_a_hidden_file_is_not_indexed_and_says_so(client: InMemory) -> None:
    result = client.call("process_document", file_path=".secret.pdf")
    assert result.is_error
    answer = result.structured_content or {}
    assert answer["status"] == "error", answer
    assert "hidden" in answer["message"], answer
    assert "retry" not in answer["message"], answer
    assert answer["details"]["parameter"] == "file_path"


def test_a_regex_out_of_time_on_a_big_file_blames_the_text_not_backtracking(
    client: InMemory,
) -> None:
    """'.' matches every one of 1,000,000 lines: 2 s run out on the amount of text, which
    the message says (with the file's size), while a pattern that really backtracks on
    one short line is still called so."""
    big = client.call("search_in_file", file="big.txt", pattern=".")
    assert big.is_error
    text = text_of(big)
    assert "backtracking" not in text, text
    assert "ran out of its 2 s on a file of" in text, text
    assert "MB" in text, text
    assert "amount of text" in text, text
    assert "narrow the pattern" in text, text
    runaway = client.call("search_in_file", file="runaway.txt", pattern="^(a|aa)+$")
    assert runaway.is_error
    assert "catastrophic backtracking" in text_of(runaway)
