"""Start-up answers at once: while the catch-up scan runs, every tool answers from what
is indexed so far and get_library_status says how far the scan is, through the real MCP
client. The scan is held at a known point by its own progress hook (LiveIndex.on_step,
called on the writer thread after each file), so nothing here depends on timing."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pdfindex.indexer.progress import Step
from pdfindex.server import AppContext
from tests import elementgen, pdfgen
from tests.conftest import make_settings
from tests.mcpclient import InMemory, text_of

DOCUMENTS = 4
HOLD = 120.0  # seconds the writer is held at most (a guard if the test fails first)


class Holds:
    """Stops the writer thread at (stage, files done) until the test releases it."""

    def __init__(self, *points: tuple[str, int]) -> None:
        self.reached = {point: threading.Event() for point in points}
        self.release = {point: threading.Event() for point in points}

    def __call__(self, step: Step) -> None:
        point = (step.stage, step.done)
        if point in self.reached:
            self.reached[point].set()
            self.release[point].wait(HOLD)

    def wait(self, point: tuple[str, int]) -> None:
        assert self.reached[point].wait(HOLD), f"the scan never reached {point}"

    def free(self, point: tuple[str, int] | None = None) -> None:
        for key, event in self.release.items():
            if point is None or key == point:
                event.set()


@pytest.fixture
def starting(tmp_path: Path) -> Iterator[tuple[AppContext, Holds]]:
    """A server's AppContext whose catch-up scan is held after its first file."""
    files = tmp_path / "files"
    for n in range(DOCUMENTS - 1):
        pdfgen.write_pdf(files / f"doc{n}.pdf", [f"document {n} mentions zebras"])
    elementgen.report_pdf(files / "report.pdf")  # the one file with an elements pass
    app = AppContext.open(make_settings(tmp_path, workers=1), watch=False)
    holds = Holds(("text", 1), ("elements", 0))
    app.live.on_step = holds
    app.start()
    try:
        yield app, holds
    finally:
        holds.free()
        app.close()


def test_tools_answer_while_the_start_up_scan_runs(
    starting: tuple[AppContext, Holds],
) -> None:
    app, holds = starting
    client = InMemory(app)
    holds.wait(("text", 1))
    status, search, exact, info = client.calls(
        ("get_library_status", {}),
        ("search_documents", {"query": "zebras"}),
        ("search_pdf", {"pdf_name": "doc2", "query": "zebras"}),
        ("get_document_info", {"document_slug": "doc2"}),
    )
    assert not app.live.caught_up.is_set()  # every answer came while the scan was held
    text = text_of(status)
    assert "Library status: indexing" in text
    assert f"start-up scan: indexing 1 of {DOCUMENTS} files (page text, last " in text
    assert not search.is_error  # nothing committed yet: an answer, not a wait
    # A file the writer has not committed: said so, with how far the scan is.
    answer = exact.structured_content
    assert answer["file_exists"]
    assert not answer["query_exists"]
    assert "not indexed yet" in answer["error"]
    assert f"indexing 1 of {DOCUMENTS} files" in answer["error"]
    assert info.is_error
    assert "not indexed yet" in text_of(info)

    holds.free(("text", 1))
    holds.wait(("elements", 0))  # page text committed, figures and tables to come
    status, search, exact = client.calls(
        ("get_library_status", {}),
        ("search_documents", {"query": "zebras"}),
        ("search_pdf", {"pdf_name": "doc2", "query": "zebras"}),
    )
    assert not app.live.caught_up.is_set()
    assert "indexing 0 of 1 files (figures, tables and equations)" in text_of(status)
    assert f"Documents: {DOCUMENTS} " in text_of(status)
    assert "doc2" in text_of(search)
    assert exact.structured_content["query_exists"]

    holds.free()
    assert app.live.caught_up.wait(HOLD)
    assert app.live.wait_idle(HOLD)
    assert "Indexing: idle" in text_of(client.call("get_library_status"))
