"""query_documents' generated answers (issue 27, item 2): written by the MCP client's
model through sampling, with citations [n] numbering `sources`; else by an
OpenAI-compatible `llm_url` (a tiny local HTTP server here), its key sent as a Bearer
header and shown nowhere; else extractive, as before."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CreateMessageRequestParams, CreateMessageResult, ErrorData, TextContent

from pdfindex.server import AppContext
from pdfindex.server.sampling import CLIENT_MODEL
from pdfindex.tools import answers, passages
from pdfindex.tools.answers import Prompt, Writer, Written
from tests import pdfgen
from tests.conftest import make_settings
from tests.mcpclient import InMemory, open_app

QUESTION = "What do giraffes eat?"
KEY = "sk-test-3f9c1d7e5b"
PAGES = {
    "giraffe.pdf": [
        "Giraffes eat acacia leaves. Giraffes eat them with long tongues. They browse all day.",
        "Giraffes sleep little. They rest standing. A giraffe sleeps under two hours.",
    ],
    "zebra.pdf": ["Zebras eat grass. Zebras graze in herds. Their stripes confuse flies."],
}


def _library(root: Path, **overrides: Any) -> Any:
    for name, pages in PAGES.items():
        pdfgen.write_pdf(root / "files" / name, pages)
    return make_settings(root, elements=False, ocr=False, **overrides)


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Iterator[AppContext]:
    root = tmp_path_factory.mktemp("answers")
    (root / "files").mkdir()
    with open_app(_library(root)) as opened:
        yield opened


def _sampled(
    app: AppContext, reply: Any, *calls: dict[str, Any], wait: float = 0.0
) -> tuple[list[Any], list[Any]]:
    """query_documents calls from a client that declares sampling (the handshake-era
    protocol: the 2026-07-28 one deprecates it), its model answering `reply` (the text, or
    an ErrorData); the sampling requests it received, and the answers."""
    asked: list[CreateMessageRequestParams] = []

    async def model(_context: Any, params: CreateMessageRequestParams) -> Any:
        asked.append(params)
        await anyio.sleep(wait)
        if isinstance(reply, ErrorData):
            return reply
        text = TextContent(type="text", text=reply)
        return CreateMessageResult(role="assistant", content=text, model="test-model-7b")

    server = InMemory(app).server

    async def main() -> list[Any]:
        async with Client(server, mode="legacy", sampling_callback=model) as client:
            return [await client.call_tool("query_documents", call) for call in calls]

    return asked, anyio.run(main)


def test_the_clients_model_writes_the_answer_from_the_numbered_passages(
    app: AppContext,
) -> None:
    reply = "Giraffes eat acacia leaves [1], with long tongues [1, 2]. Zebras graze [9]."
    asked, (result,) = _sampled(app, reply, {"query": QUESTION, "top_k": 3})
    assert not result.is_error, result
    (request,) = asked
    answer = result.structured_content
    sources = answer["sources"]
    assert len(sources) >= 2
    # The request: the citation instruction, each source numbered in order, the question.
    assert "only the numbered passages" in request.system_prompt
    assert "[1]" in request.system_prompt
    assert "Cite" in request.system_prompt
    assert request.max_tokens == answers.ANSWER_TOKENS
    assert request.model_preferences is not None
    (message,) = request.messages
    prompt = message.content.text
    assert prompt.rstrip().endswith(f"Question: {QUESTION}")
    where = [prompt.index(f"[{n}] ") for n in range(1, len(sources) + 1)]
    assert where == sorted(where)
    for n, source in enumerate(sources, 1):
        block = prompt[where[n - 1] :].split("\n\n", 1)[0]
        assert source["content"] in block
        assert f"page {source['metadata']['page']}" in block
    assert f"[{len(sources) + 1}] " not in prompt
    # The answer: the model's, its one citation past the sources dropped and said so.
    assert answer["answer"] == (
        "Giraffes eat acacia leaves [1], with long tongues [1, 2]. Zebras graze."
    )
    metadata = answer["query_metadata"]
    assert metadata["llm_model"] == "test-model-7b"
    assert metadata["answer_written_by"] == CLIENT_MODEL
    assert "[9]" in metadata["note"]
    assert sources[0]["metadata"]["document_id"] == "giraffe"


def test_a_client_without_sampling_gets_the_extractive_answer(app: AppContext) -> None:
    server = InMemory(app).server

    async def main(mode: str) -> Any:
        async with Client(server, mode=mode) as session:
            return await session.call_tool("query_documents", {"query": QUESTION})

    for mode in ("auto", "legacy"):  # the modern protocol has no sampling here either
        answer = anyio.run(main, mode).structured_content
        assert answer["query_metadata"]["llm_model"] == passages.EXTRACTIVE
        assert answer["query_metadata"]["answer_written_by"] == "extractive"
        assert '"Giraffes eat acacia leaves."' in answer["answer"]
        assert "[giraffe, p. 1]" in answer["answer"]


def test_a_failing_client_model_leaves_the_extractive_answer_with_why(app: AppContext) -> None:
    refusal = ErrorData(code=-1, message="the user declined the sampling request")
    asked, (result,) = _sampled(app, refusal, {"query": QUESTION})
    assert len(asked) == 1
    answer = result.structured_content
    assert not result.is_error
    assert answer["query_metadata"]["llm_model"] == passages.EXTRACTIVE
    assert "declined" in answer["query_metadata"]["note"]
    assert '"Giraffes eat acacia leaves."' in answer["answer"]


def test_a_client_model_past_the_time_limit_leaves_the_extractive_answer(
    tmp_path: Path,
) -> None:
    with open_app(_library(tmp_path, request_timeout=2.0)) as app:
        asked, (result,) = _sampled(app, "Too late [1].", {"query": QUESTION}, wait=30.0)
    assert len(asked) == 1
    metadata = result.structured_content["query_metadata"]
    assert metadata["llm_model"] == passages.EXTRACTIVE
    assert "took longer than" in metadata["note"]


def test_the_writer_is_a_plain_callable_and_citations_are_checked(app: AppContext) -> None:
    prompts: list[Prompt] = []

    def write(asked: Prompt) -> Written:
        prompts.append(asked)
        return Written("Acacia leaves [0][2, 7] and more [1].", "callable-model", 42)

    answer = passages.query_documents(
        app.index, app.sessions, QUESTION, top_k=2, writer=Writer("a test", write)
    )
    assert prompts[0].passages == len(answer["sources"]) == 2
    assert answer["answer"] == "Acacia leaves [2] and more [1]."
    assert answer["query_metadata"]["total_tokens"] == 42
    assert answer["query_metadata"]["note"].startswith("citations [0], [7] named no passage")
    none_cited = passages.query_documents(
        app.index,
        app.sessions,
        QUESTION,
        writer=Writer("a test", lambda _p: Written("Leaves.", "m")),
    )
    assert none_cited["query_metadata"]["note"] == "the answer cites no passage"


# -- llm_url: an OpenAI-compatible endpoint ---------------------------------------------


@contextmanager
def _endpoint(status: int = 200) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A local chat-completions server answering `status`; its URL and the requests it got."""
    seen: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append({"path": self.path, "headers": dict(self.headers), "body": body})
            reply = {
                "model": "tiny-q4",
                "choices": [{"message": {"role": "assistant", "content": "Acacia [1]."}}],
                "usage": {"total_tokens": 321},
            }
            data = json.dumps(reply if status == 200 else {"error": "overloaded"}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.mark.parametrize("status", [200, 503])
def test_llm_url_writes_the_answer_with_its_key_shown_nowhere(
    tmp_path: Path, status: int, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with _endpoint(status) as (url, seen):
        settings = _library(tmp_path, llm_url=url, llm_api_key=KEY, llm_model="tiny")
        with open_app(settings) as app:
            client = InMemory(app)
            result = client.call("query_documents", query=QUESTION, top_k=2)
            shown = client.resource("config://settings")
    (request,) = seen
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == f"Bearer {KEY}"
    body = request["body"]
    assert body["model"] == "tiny"
    assert body["messages"][0]["content"] == answers.SYSTEM
    assert body["messages"][1]["content"].endswith(f"Question: {QUESTION}")
    answer = result.structured_content
    assert "Giraffes eat acacia leaves." in body["messages"][1]["content"]
    metadata = answer["query_metadata"]
    if status == 200:
        assert answer["answer"] == "Acacia [1]."
        assert metadata["llm_model"] == "tiny-q4"
        assert metadata["total_tokens"] == 321
        assert metadata["answer_written_by"].startswith("llm_url")
    else:  # a failing endpoint: the extractive answer, and why
        assert metadata["llm_model"] == passages.EXTRACTIVE
        assert "HTTP 503" in metadata["note"]
    assert KEY not in shown
    assert '"***"' in shown
    assert KEY not in json.dumps(answer)
    assert KEY not in caplog.text
    logged = [p.read_text() for p in settings.log_dir.rglob("*") if p.is_file()]
    assert not any(KEY in text for text in logged)


def test_an_unreachable_llm_url_falls_back_with_why(tmp_path: Path) -> None:
    with _endpoint() as (url, _seen):
        pass  # closed: nothing listens on its port any more
    settings = _library(tmp_path, llm_url=url, llm_api_key=KEY, llm_model="tiny")
    with open_app(settings) as app:
        answer = passages.query_documents(
            app.index, app.sessions, QUESTION, writer=answers.http_writer(settings)
        )
    assert answer["query_metadata"]["llm_model"] == passages.EXTRACTIVE
    assert "could not be reached" in answer["query_metadata"]["note"]
    assert KEY not in json.dumps(answer)
