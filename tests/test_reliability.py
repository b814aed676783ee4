"""Issue 13's reliability suite, small (`python -m benchmarks.reliability` runs it large,
through the same functions): `reindex` SIGKILLed at random moments ends equal to a fresh
build; hostile PDFs dropped into a running server each end with a named status while the
server stays up and small; eight servers on one root answer as one server alone does.

Everything is real: `pdfindex reindex` and `pdfindex serve` as processes, the MCP SDK's
stdio client, PDFs on disk. Nothing is timed; a run that hangs meets a guard and fails.
"""

from __future__ import annotations

import asyncio
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import reliability
from pdfindex.config import SETTINGS
from tests import hostile, pdfgen
from tests.conftest import ENGINE

SERVER_MEMORY_BOUND_KB = 1024 * 1024  # the serving process's peak RSS stays under 1 GB
KILLED_DOCUMENTS = 12  # PDFs of 1 to 12 pages before the kills (more are added between)
HANG_GUARD = 10  # seconds: far beyond what the work takes, far below a quadratic blow-up


def once(reason: str) -> None:
    """Run a test that does not depend on the index engine in one pass of the suite."""
    if ENGINE["name"] != SETTINGS["engine"].default:
        pytest.skip(f"{reason}: one pass is enough")


def test_sigkill_loop_during_reindex_ends_equal_to_a_fresh_build(tmp_path: Path) -> None:
    figures = reliability.kill_loop(  # kills at 0.1-0.9 of a run's expected length
        tmp_path / "killed", tmp_path / "fresh", KILLED_DOCUMENTS, kills=6, spread=(0.1, 0.9)
    )
    events = figures["events"]
    assert figures["final"]["exit"] == 0, figures["final"]
    assert figures["fresh"]["exit"] == 0, figures["fresh"]
    assert sum(not e["finished_before_kill"] for e in events) == 6, events  # mid-run kills
    assert [e["damaged_after"] for e in events] == [None] * len(events)  # never a rebuild
    killed, built = figures["killed"], figures["built"]
    assert len(built["documents"]) == figures["files"] > KILLED_DOCUMENTS  # added, removed
    assert {d["status"] for d in built["documents"].values()} == {"ok"}
    assert killed["documents"] == built["documents"]  # path, sha256, pages, status, elements
    assert killed["texts"] == built["texts"]
    assert killed["hits"] == built["hits"]
    assert len(built["hits"]["lighthouse"]["hits"]) > KILLED_DOCUMENTS // 2  # not vacuous
    assert any(d["elements"] for d in built["documents"].values())  # reports' figures


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> dict:
    """One server, the hostile PDFs dropped in at once; read by the two tests below."""
    once("extraction and the server do not depend on the index engine")
    root = tmp_path_factory.mktemp("hostile")
    pdfgen.write_pdf(root / "files" / reliability.NORMAL, [f"The {reliability.NORMAL_TEXT}."])
    env = {**reliability.hostile_env(), "PDFINDEX_ENGINE": index_engine}
    return asyncio.run(reliability.hostile_session(root, env, guard=240))


def test_hostile_pdfs_dropped_into_a_running_server_each_get_a_named_status(
    hostile_run: dict,
) -> None:
    settled = hostile_run["settled"]
    assert set(settled) == set(hostile.HOSTILE)
    for entry in settled.values():
        assert entry["status"] in ("ok", "empty", "failed"), entry
        assert entry["status"] == "ok" or entry["error"], entry  # a cause when not ok
    assert settled["bomb.pdf"]["status"] == "failed"  # the worker's memory cap stopped it
    assert "memory cap 600 MB" in settled["bomb.pdf"]["error"]
    assert settled["many-pages.pdf"]["pages"] == 10_000
    failed = sum(entry["status"] == "failed" for entry in settled.values())
    assert f"{failed} failed)" in hostile_run["library_status"], settled
    (landing,) = hostile_run["landings"]
    assert landing["normal_checks"] >= 1
    assert landing["normal_misses"] == 0
    assert hostile_run["server_hwm_kb"] < SERVER_MEMORY_BOUND_KB


def test_tools_on_hostile_pdfs_answer_results_or_a_named_error(hostile_run: dict) -> None:
    for name, answers in hostile_run["answers"].items():
        for tool, answer in answers.items():
            assert answer["text"], (name, tool)
            assert "Error executing tool" not in answer["text"], (name, tool, answer)
    bomb = hostile_run["answers"]["bomb.pdf"]
    assert bomb["search_pdf"]["error"]
    assert "memory cap" in bomb["search_pdf"]["text"]
    assert bomb["read_pdf"]["error"]
    assert "could not be read" in bomb["read_pdf"]["text"]
    pages = hostile_run["answers"]["many-pages.pdf"]
    assert not pages["search_pdf"]["error"]
    assert "identical **page**s" in pages["search_pdf"]["text"]
    image = hostile_run["image"]  # 14,400 pt page asked at 150 dpi: the pixel budget
    assert not image["error"], image
    assert image["kinds"] == ["text", "image"], image
    dpi = re.search(r"Rendered at ([\d.]+) dpi", image["caption"])
    assert dpi is not None, image["caption"]
    assert float(dpi.group(1)) < 150, image["caption"]


def test_eight_servers_with_concurrent_calls_answer_as_one_server_alone(tmp_path: Path) -> None:
    once("eight servers cost ~15 s a pass; the benchmark runs it on every engine")
    reliability.concurrent_corpus(tmp_path / "files")
    assert reliability.run_reindex(tmp_path, None)["exit"] == 0
    figures = asyncio.run(
        reliability.concurrent_clients(tmp_path, {"PDFINDEX_WORKERS": "1"}, servers=8, calls=10)
    )
    assert figures["answers"] == 80
    assert figures["raised"] == []
    assert figures["alone_errors"] == []
    assert figures["errors"] == 0
    assert figures["differing"] == []
    assert figures["scans"] == 9  # each server's start-up scan had its turn with the lock
    alone = figures["alone"]  # the answers compared say something
    assert alone["0 search_pdf"]["body"]["query_exists"]
    assert "TABLE: Table 2" in alone["8 search_visual_elements"]["body"][0]
    assert len(alone["9 list_searchable_files"]["body"]["files"]) == 7


def test_a_text_file_holding_one_very_long_word_is_indexed(tmp_path: Path) -> None:
    once("the text preparation does not depend on the index engine")
    blob = "".join(random.Random(1).choices("abcdefghijklmnopqrstuvwxyz0123456789", k=200_000))
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "blob.txt").write_text(f"blob start\n{blob}\nblob end\n")
    command = [sys.executable, "-m", "pdfindex.cli", "reindex", "--root", str(tmp_path)]
    try:
        done = subprocess.run(
            [*command, "--workers", "1"],
            capture_output=True,
            text=True,
            timeout=HANG_GUARD,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"reindex of one 200,000-character word ran past {HANG_GUARD} s")
    assert done.returncode == 0, done.stderr
    assert "added 1" in done.stdout, done.stderr
