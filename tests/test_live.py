"""Live updates (watchdog), crash safety, resource bounds and concurrent readers."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from pdfindex.api import PdfIndex
from pdfindex.indexer.live import LiveIndex
from pdfindex.tools.exact import search_pdf
from tests import elementgen, pdfgen
from tests.conftest import make_settings
from tests.test_incremental import consistent


def eventually(check: Callable[[], bool], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return check()


def found(index: PdfIndex, name: str, text: str) -> bool:
    return bool(search_pdf(index, name, text).get("query_exists"))


@pytest.fixture
def index(tmp_path: Path) -> Iterator[PdfIndex]:
    pdfgen.write_pdf(tmp_path / "files" / "first.pdf", ["already here before start"])
    index = PdfIndex(make_settings(tmp_path))
    yield index
    index.close()


@pytest.fixture
def live(index: PdfIndex) -> Iterator[LiveIndex]:
    before = set(threading.enumerate())
    live = index.live(quiet=0.3).start()
    assert live.caught_up.wait(30)
    yield live
    live.close()
    leaked = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not leaked, f"threads left running: {leaked}"


def test_catch_up_then_follow_every_kind_of_change(
    live: LiveIndex, index: PdfIndex, tmp_path: Path
) -> None:
    files = tmp_path / "files"
    assert found(index, "first", "already here")
    assert live.watching

    pdfgen.write_pdf(files / "new.pdf", ["freshly landed"])  # add
    assert eventually(lambda: found(index, "new", "freshly landed"))

    pdfgen.write_pdf(files / "new.pdf", ["rewritten content"])  # modify
    assert eventually(lambda: found(index, "new", "rewritten content"))

    (files / "deep" / "er").mkdir(parents=True)  # move into a new sub-folder
    (files / "new.pdf").rename(files / "deep" / "er" / "moved.pdf")
    assert eventually(lambda: found(index, "deep/er/moved", "rewritten"))
    assert index.engine.record("new.pdf") is None
    assert live.wait_idle(30)  # text is committed before the run (its elements pass) ends
    assert live.last_summary is not None and live.last_summary.parsed == 0

    (files / "first.pdf").unlink()  # delete
    assert eventually(lambda: index.engine.record("first.pdf") is None)
    consistent(index)


def test_editor_save_via_temp_file_and_rename(
    live: LiveIndex, index: PdfIndex, tmp_path: Path
) -> None:
    files = tmp_path / "files"
    pdfgen.write_pdf(files / ".report.pdf.tmp", ["saved by an editor"])
    os.replace(files / ".report.pdf.tmp", files / "report.pdf")
    assert eventually(lambda: found(index, "report", "saved by an editor"))
    assert ".report.pdf.tmp" not in index.engine.catalog()


def test_a_slowly_written_file_is_indexed_when_complete(
    live: LiveIndex, index: PdfIndex, tmp_path: Path
) -> None:
    source = pdfgen.write_pdf(tmp_path / "source.pdf", ["written slowly in two halves"])
    data = source.read_bytes()
    target = tmp_path / "files" / "slow.pdf"
    with open(target, "wb") as handle:
        handle.write(data[: len(data) // 2])
        handle.flush()
        time.sleep(1.5)  # longer than the quiet period: a scan sees half a file
        handle.write(data[len(data) // 2 :])
    assert eventually(lambda: found(index, "slow", "written slowly"))
    record = index.engine.record("slow.pdf")
    assert record is not None and record.status == "ok" and record.size == len(data)


def test_without_watch_no_observer_runs(tmp_path: Path) -> None:
    index = PdfIndex(make_settings(tmp_path))
    live = index.live(watch=False).start()
    assert live.caught_up.wait(30) and not live.watching
    live.close()
    index.close()


def test_memory_cap_marks_the_file_failed_and_the_run_goes_on(tmp_path: Path, corpus: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    shutil.copy(corpus / "large.pdf", files / "large.pdf")
    pdfgen.write_pdf(files / "small.pdf", ["survives the cap"])
    index = PdfIndex(make_settings(tmp_path, memory_mb=1, workers=1))
    summary = index.reindex()
    assert "memory" in summary.failures["large.pdf"]
    assert found(index, "small", "survives the cap") or "memory" in summary.failures["small.pdf"]
    index.close()


def _corpus_for_crash(folder: Path, n: int) -> None:
    folder.mkdir(parents=True)
    pages = pdfgen.lorem_pages(30, seed=11)
    for i in range(n):
        pdfgen.write_pdf(folder / f"doc{i:02d}.pdf", pages[i % 5 : i % 5 + 25])


def test_sigkill_mid_build_leaves_a_consistent_index(tmp_path: Path) -> None:
    _corpus_for_crash(tmp_path / "files", 30)
    command = [
        sys.executable,
        "-m",
        "pdfindex.cli",
        "reindex",
        "--root",
        str(tmp_path),
        "--workers",
        "1",
        "--commit-every",
        "0.2",
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    reader = PdfIndex(make_settings(tmp_path))  # a reader beside the writer never waits
    try:
        assert eventually(lambda: len(reader.engine.catalog()) >= 3, timeout=60)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    committed = len(reader.engine.catalog())
    assert 3 <= committed < 30, committed  # killed mid-build, after some commits
    consistent(reader)
    summary = reader.reindex()  # the next run repairs the rest
    assert summary.added == 30 - committed
    assert len(reader.engine.catalog()) == 30
    consistent(reader)
    reader.close()


def test_sigkill_in_the_elements_pass_leaves_a_consistent_index(tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    report = files / "report-00.pdf"
    elementgen.report_pdf(report)  # 7 pages, 8 elements
    for i in range(1, 60):
        shutil.copy(report, files / f"report-{i:02d}.pdf")
    command = [sys.executable, "-m", "pdfindex.cli", "reindex", "--root", str(tmp_path)]
    command += ["--workers", "1", "--commit-every", "0.2"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    reader = PdfIndex(make_settings(tmp_path))

    def states() -> Counter[str]:
        return Counter(r.elements_state for r in reader.engine.catalog().values())

    try:  # the text of all 60 is committed first, then their elements in batches
        assert eventually(lambda: states()["done"] >= 1 and states()["pending"] >= 1, timeout=60)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    assert len(reader.engine.catalog()) == 60 and states()["pending"] >= 1
    consistent(reader)
    assert search_pdf(reader, "report-59", "storage engine")["query_exists"]  # text first
    summary = reader.reindex()
    assert summary.parsed == 0 and states() == {"done": 60}
    consistent(reader)
    reader.close()


async def _parallel_calls_while_files_land(root: Path) -> list[dict]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "pdfindex.cli", "serve", "--root", str(root)]
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        results: list[dict] = [{} for _ in range(16)]

        async def one(i: int) -> None:
            result = await session.call_tool(
                "search_pdf", {"pdf_name": f"doc{i % 4:02d}", "query": "page marker", "topk": 3}
            )
            results[i] = result.structured_content

        async def land_files() -> None:
            for i in range(4, 8):
                pdfgen.write_pdf(root / "files" / f"doc{i:02d}.pdf", [f"landed {i}"])
                await anyio.sleep(0.1)

        async with anyio.create_task_group() as group:
            group.start_soon(land_files)
            for i in range(16):
                group.start_soon(one, i)
        landed = await session.call_tool("search_pdf", {"pdf_name": "doc07", "query": "landed 7"})
        results.append(landed.structured_content)
    return results


def test_sixteen_parallel_calls_while_the_watcher_commits(tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    for i in range(4):
        pdfgen.write_pdf(files / f"doc{i:02d}.pdf", [f"Page marker {i}\nmore", "Page marker two"])
    results = anyio.run(_parallel_calls_while_files_land, tmp_path)
    for result in results[:16]:
        assert result["query_exists"] and len(result["matches"]) == 2, result
    assert results[16]["query_exists"]  # waited for the watcher instead of "not indexed"


def test_serve_stops_cleanly_on_sigterm_and_on_stdin_eof(tmp_path: Path) -> None:
    pdfgen.write_pdf(tmp_path / "files" / "a.pdf", ["x"])
    command = [sys.executable, "-m", "pdfindex.cli", "serve", "--root", str(tmp_path)]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    process.stderr.readline()  # the banner: the handler is in place from here on
    time.sleep(0.5)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    assert process.stdout.read() == b""  # nothing but protocol messages, and none were asked
    eof = subprocess.run(command, input=b"", capture_output=True, timeout=60)
    assert eof.returncode == 0 and eof.stdout == b""
