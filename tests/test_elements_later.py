"""The elements pass left for later (`reindex --elements-later`, a Ctrl-C during the pass):
the text is searchable at once, the element tools still answer (a document's elements are
found when asked for, a library-wide search says it is partial), stats say how far the pass
is, and the next run finishes it."""

from __future__ import annotations

import os
import shutil
import signal
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from pdfindex.api import PdfIndex
from pdfindex.cli import main
from pdfindex.cli.interrupt import ElementsInterrupt
from pdfindex.indexer.progress import Step
from pdfindex.tools import visual
from pdfindex.tools.exact import search_pdf
from tests import elementgen, pdfgen
from tests.conftest import make_settings


def _states(index: PdfIndex) -> Counter[str]:
    return Counter(r.elements_state for r in index.engine.catalog().values())


@pytest.fixture
def two_reports(tmp_path: Path) -> Path:
    (tmp_path / "files").mkdir()
    elementgen.report_pdf(tmp_path / "files" / "report.pdf")
    shutil.copy(tmp_path / "files" / "report.pdf", tmp_path / "files" / "other.pdf")
    pdfgen.write_pdf(tmp_path / "files" / "prose.pdf", ["Nothing but text here."])
    return tmp_path


def test_elements_later_answers_every_element_tool(two_reports: Path) -> None:
    index = PdfIndex(make_settings(two_reports))
    try:
        summary = index.reindex(elements_later=True)
        assert summary.added == 3
        assert summary.elements_files == 0
        assert summary.elements_pending == 3  # prose.pdf too: no candidate page, done at once
        assert "elements of 3 documents left for later" in summary.line()
        assert search_pdf(index, "report", "storage engine")["query_exists"]  # text at once
        stats = index.stats()
        assert (stats["elements_pending"], stats["elements_documents"]) == (3, 3)
        assert index.engine.elements("report") == []

        # One document's elements are found when asked for, and cached...
        details = visual.element_details(index, "report", "Table 2")
        assert details.startswith("Type: table\nLabel: Table 2\nDocument: report")
        keys = [p.name for p in (two_reports / "index" / "cache").rglob("*.json.gz")]
        assert any("-elements-" in key for key in keys)
        one = visual.search_visual_elements(index, "throughput", document_slug="other")
        assert "Figure 1" in one
        assert "found just now" in one
        # ...while a library-wide search says what it does not cover yet.
        everywhere = visual.search_visual_elements(index, "throughput clients")
        assert "Partial: the elements of" in everywhere
        assert index.engine.record("report.pdf").elements_state == "pending"  # not written

        again = index.reindex()  # the next run finishes the pass, from the cache
        assert again.parsed == 0
        assert again.elements_pending == 0
        assert set(_states(index)) <= {"done", "none"}
        assert len(index.engine.elements("report")) == 8
        assert "Partial" not in visual.search_visual_elements(index, "throughput clients")
    finally:
        index.close()


def test_ctrl_c_in_the_elements_pass_commits_and_the_next_run_resumes(
    two_reports: Path,
) -> None:
    """A real SIGINT, as the CLI's handler receives it, once the elements pass started."""
    index = PdfIndex(make_settings(two_reports))
    steps: list[Step] = []

    def progress(step: Step) -> None:
        steps.append(step)
        if step.stage == "elements" and step.done == 0:
            os.kill(os.getpid(), signal.SIGINT)  # handled: the pass stops after its file

    stop = ElementsInterrupt(progress)
    try:
        summary = index.reindex(progress=stop.progress, should_stop=stop)
    finally:
        stop.restore()
    try:
        assert stop.asked
        assert summary.added == 3  # the text pass was not touched
        assert summary.elements_files <= 2  # the files already in the two workers' hands
        assert summary.elements_pending >= 1
        assert _states(index)["pending"] >= 1
        assert search_pdf(index, "other", "storage engine")["query_exists"]
        resumed = index.reindex()
        assert resumed.parsed == 0
        assert resumed.elements_pending == 0
        assert _states(index)["pending"] == 0
    finally:
        index.close()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # given back


def test_cli_elements_later_and_stats(two_reports: Path) -> None:
    runner = CliRunner()
    root = ["--root", str(two_reports)]
    built = runner.invoke(main, ["reindex", *root, "--elements-later"])
    assert built.exit_code == 0, built.output
    assert "left for later" in built.output
    stats = runner.invoke(main, ["stats", *root])
    assert stats.exit_code == 0, stats.output
    assert "(in 0 of 3 documents; 3 pending)" in stats.output
    finished = runner.invoke(main, ["reindex", *root])
    assert finished.exit_code == 0, finished.output
    assert "elements in 3 files" in finished.output  # the pass ran, from the cache or not
    assert "left for later" not in finished.output
    stats = runner.invoke(main, ["stats", *root])
    assert "pending" not in stats.output
