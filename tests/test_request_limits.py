"""A time limit per request that really stops the work (issue 13, points 4 and 5):
searches stop at the next page past `request_timeout`; page images, element images and
conversions run in killable worker processes with the extraction memory cap, so a page
that takes minutes or gigabytes ends its worker, not the server; a slow request never
holds up a fast one. Through the in-memory MCP client, and over stdio for concurrency."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pdfindex.config import SETTINGS, load_settings
from pdfindex.errors import ConfigError, RequestTimeout
from pdfindex.tools.fuzzy import MAX_SPELLINGS
from tests import hostile, pdfgen
from tests.conftest import ENGINE, make_settings
from tests.mcpclient import InMemory, image_of, open_app, stdio, text_of
from tests.test_bounded_requests import write_huge_page_pdf
from tests.waiting import eventually_async, indexed

SLOW_OBJECTS = 200_000  # text objects on one page: pdfminer's layout of it takes minutes


def spawned_workers(root: Path) -> set[int]:
    """The worker processes (multiprocessing's spawned children) of the `pdfindex serve`
    of `root`, read from /proc: a conversion starts one on its server's first page call."""
    processes: dict[int, tuple[int, list[bytes]]] = {}  # pid -> (parent, command line)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # ended meanwhile
            continue
        processes[int(entry.name)] = (int(stat.rpartition(")")[2].split()[1]), command)
    servers = {
        pid
        for pid, (_, command) in processes.items()
        if b"serve" in command and str(root).encode() in command
    }
    return {
        pid
        for pid, (parent, command) in processes.items()
        if parent in servers and any(b"spawn_main" in part for part in command)
    }


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Iterator[InMemory]:
    root = tmp_path_factory.mktemp("limits")
    files = root / "files"
    files.mkdir()
    pdfgen.write_pdf(files / "doc.pdf", ["hello world on page one", "page two"])
    hostile.many_objects(files / "many.pdf", SLOW_OBJECTS)
    write_huge_page_pdf(files / "huge.pdf")
    letters = "abcdefghijklmnopqrstuvwxyz"
    variants = [f"qwertyu{a}{b}" for a in letters for b in letters]  # 2 edits of qwertyuio
    (files / "variants.txt").write_text("\n".join(variants))
    with open_app(make_settings(root, engine=index_engine, elements=False)) as app:
        yield InMemory(app)


@pytest.fixture
def limited(client: InMemory) -> Iterator[InMemory]:
    """The client with its settings restored after a test changed them."""
    settings = client.app.index.settings
    yield client
    client.app.index.settings = settings


def with_settings(client: InMemory, **changes: object) -> None:
    index = client.app.index
    index.settings = dataclasses.replace(index.settings, **changes)  # type: ignore[arg-type]


def test_request_timeout_is_a_setting_with_bounds(tmp_path: Path) -> None:
    (tmp_path / "files").mkdir()
    assert load_settings({}, root=tmp_path).request_timeout == 10.0
    assert load_settings({"request_timeout": "0"}, root=tmp_path).request_timeout == 0.0
    with pytest.raises(ConfigError, match="request_timeout"):
        load_settings({"request_timeout": "-1"}, root=tmp_path)


def test_a_conversion_past_the_limit_is_stopped_and_its_worker_killed(limited: InMemory) -> None:
    with_settings(limited, request_timeout=1.0)
    pool = limited.app.index.isolated
    result = limited.call("extract_pdf_page", file="many.pdf", pages=[1], output_format="plain")
    assert result.is_error
    text = text_of(result)
    assert "took longer than the time limit of 1 s" in text
    assert "request_timeout" in text
    assert pool._started == 0  # the busy worker was killed, none left running
    # The next request gets a fresh worker and its answer.
    after = limited.call("extract_pdf_page", file="doc.pdf", pages=[2], output_format="plain")
    assert not after.is_error, text_of(after)
    assert "page two" in json.loads(text_of(after))["content"]


def test_a_search_past_the_limit_stops_with_a_named_error(limited: InMemory) -> None:
    with_settings(limited, request_timeout=1e-9)  # past it at the first page looked at
    for tool, arguments in [
        ("fuzzy_search", {"query": "hello"}),
        ("search_in_file", {"file": "doc.pdf", "pattern": "page"}),
    ]:
        result = limited.call(tool, **arguments)
        assert result.is_error, tool
        assert "time limit" in text_of(result), tool
        assert "request_timeout" in text_of(result), tool
    answer = limited.call("search_pdf", pdf_name="doc", query="hello")
    assert answer.is_error
    assert "time limit" in text_of(answer)
    with_settings(limited, request_timeout=0)  # 0: no limit
    assert not limited.call("fuzzy_search", query="hello").is_error


def test_a_page_image_past_the_limit_answers_in_time(limited: InMemory) -> None:
    with_settings(limited, request_timeout=0.001)  # shorter than a worker's start
    result = limited.call("get_page_image", document_slug="doc", page_number=1)
    assert result.is_error
    assert "rendering page 1 took longer than the time limit" in text_of(result)
    # With no worker started yet, the limit also names itself, not a failed start.
    index = limited.app.index
    index.isolated.close()
    index.isolated = type(index.isolated)(2, 4096, index.isolated.preload)
    fresh = limited.call("extract_pdf_page", file="doc.pdf", pages=[1], output_format="plain")
    assert fresh.is_error
    assert "took longer than the time limit" in text_of(fresh)
    with_settings(limited, request_timeout=30)
    image = image_of(limited.call("get_page_image", document_slug="doc", page_number=1))
    assert image.width > 100


def test_a_render_over_the_memory_cap_ends_its_worker_not_the_server(limited: InMemory) -> None:
    # A 40-megapixel render needs ~160 MB: over a 40 MB cap its worker fails or dies.
    with_settings(limited, memory_mb=40)
    index = limited.app.index
    index.isolated.close()
    index.isolated = type(index.isolated)(1, 40, index.isolated.preload)
    try:
        result = limited.call("get_page_image", document_slug="huge", page_number=1, dpi=36)
        assert result.is_error
        assert "too large to render" in text_of(result)
    finally:
        index.isolated.close()
        index.isolated = type(index.isolated)(2, 4096, index.isolated.preload)
    assert not limited.call("search_pdf", pdf_name="doc", query="hello").is_error


def test_fuzzy_search_caps_and_names_the_spellings_it_searched(client: InMemory) -> None:
    answer = json.loads(
        text_of(client.call("fuzzy_search", query="qwertyuio hello", match="words"))
    )
    searched = answer["spellings"]["qwertyuio"]
    assert len(searched) == MAX_SPELLINGS  # of 676 words within 2 edits
    assert f"qwertyuio: only the {MAX_SPELLINGS} closest spellings" in answer["note"]
    assert answer["spellings"]["hello"] == ["hello"]
    plain = json.loads(text_of(client.call("fuzzy_search", query="hello", match="words")))
    assert "closest spellings" not in plain.get("note", "")


def test_the_deadline_helpers() -> None:
    from pdfindex import deadline

    deadline.check()  # no limit outside a request
    assert deadline.remaining(7.0) == 7.0
    with deadline.limit(1e-9):
        with pytest.raises(RequestTimeout, match="1e-09 s"):
            deadline.check()
    with deadline.limit(0):
        deadline.check()
        assert deadline.seconds() is None


def test_a_slow_request_does_not_hold_up_a_fast_one(tmp_path: Path) -> None:
    """Over stdio: while extract_pdf_page on the slow page runs to its limit, searches
    on the same server answer; the slow one then ends with the named timeout."""
    if ENGINE["name"] != SETTINGS["engine"].default:
        pytest.skip("the worker pool does not depend on the index engine: one pass is enough")
    files = tmp_path / "files"
    files.mkdir()
    pdfgen.write_pdf(files / "doc.pdf", ["hello world on page one", "page two"])
    hostile.many_objects(files / "many.pdf", SLOW_OBJECTS)

    async def main() -> None:
        env = {"PDFINDEX_REQUEST_TIMEOUT": "4", "PDFINDEX_ELEMENTS": "false"}
        async with stdio(tmp_path, env=env) as client:
            await indexed(client, "many", "w1")  # the start-up scan has indexed the slow page
            before = spawned_workers(tmp_path)  # the extraction workers (a kept pool)
            slow = asyncio.create_task(
                client.call_tool(
                    "extract_pdf_page", {"file": "many.pdf", "pages": [1], "output_format": "plain"}
                )
            )
            await eventually_async(  # the conversion has started: its worker is there
                lambda: asyncio.to_thread(spawned_workers, tmp_path),
                "a page worker started by the conversion",
                timeout=30,
                holds=lambda workers: workers - before,
            )
            for _ in range(5):
                fast = await client.call_tool("search_pdf", {"pdf_name": "doc", "query": "hello"})
                assert json.loads(text_of(fast))["query_exists"] is True
                assert not slow.done(), "the fast search waited for the slow conversion"
            finished = await slow
            assert finished.is_error
            assert "time limit of 4 s" in text_of(finished)

    asyncio.run(main())
