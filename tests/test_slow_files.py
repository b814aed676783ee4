"""One slow file holds nothing else up, and an interrupted one is read again (issue 31,
items 2 and 3): a file's time limit covers its OCR too, a scan being read does not keep
a new small file out of the index, and a file being read when `serve` stops is left for
the next run, not recorded as failed."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from pdfindex.api import PdfIndex
from pdfindex.extract import ocr
from pdfindex.models import FileStatus
from pdfindex.server import AppContext
from tests import pdfgen
from tests.conftest import make_settings
from tests.test_server import RawServer
from tests.waiting import eventually

needs_tesseract = pytest.mark.skipif(
    not ocr.tesseract().available, reason="Tesseract is not installed (.ci/run installs it)"
)


@needs_tesseract
def test_a_files_time_limit_covers_its_ocr(tmp_path: Path) -> None:
    """200 scanned pages take Tesseract ~20 s (one line each, ~0.1 s a page); with a 5 s
    limit the file keeps the pages read in time, and its notes say the limit ran out (it
    was read whole before)."""
    pdfgen.write_image_only_pdf(tmp_path / "files" / "scan.pdf", pages=200)
    index = PdfIndex(make_settings(tmp_path, timeout=5.0, workers=1, elements=False))
    try:
        summary = index.reindex()
        record = index.engine.catalog()["scan.pdf"]
    finally:
        index.close()
    assert summary.failed == 0
    assert record.ocr_missing, "every page was read: the limit did not hold"
    assert 0 < record.ocr_pages < 200
    assert record.ocr_pages + record.ocr_missing == 200
    assert any("time limit of 5 s ran out" in note for note in record.notes), record.notes


@needs_tesseract
def test_a_scan_being_read_does_not_keep_a_new_file_waiting(tmp_path: Path) -> None:
    pdfgen.write_image_only_pdf(tmp_path / "files" / "big-scan.pdf", pages=600)  # ~60 s of OCR
    settings = make_settings(tmp_path, timeout=300.0, workers=2, elements=False)
    app = AppContext.open(settings, watch=True).start()
    try:
        kept = eventually(lambda: app.live.indexer.shared_pool, "the kept extraction pool")
        eventually(kept.busy, "the scan being read")
        pdfgen.write_pdf(tmp_path / "small.pdf", ["a small zebrafinch note"])
        shutil.move(tmp_path / "small.pdf", tmp_path / "files" / "small.pdf")
        eventually(
            lambda: set(app.index.engine.catalog()),
            "the small file indexed while the scan is read",
            holds=lambda names: "small.pdf" in names,
        )
        catalog = app.index.engine.catalog()
        assert "big-scan.pdf" not in catalog  # still being read: the small file did not wait
        assert app.live.indexer.shared_pool is not None
        assert app.live.indexer.shared_pool.busy() == 1  # the scan goes on, read once
    finally:
        app.close()


@needs_tesseract
def test_a_file_read_at_shutdown_is_read_by_the_next_run(tmp_path: Path) -> None:
    files = tmp_path / "files"
    pdfgen.write_pdf(files / "quick.pdf", ["quick text"])
    pdfgen.write_image_only_pdf(files / "scan.pdf", pages=400)  # ~40 s of OCR
    server = RawServer(tmp_path)
    server.handshake()
    time.sleep(4)  # the scan is being read
    began = time.monotonic()
    assert server.end("stdin-eof") == 0
    took = time.monotonic() - began
    assert took < 15, f"serve took {took:.1f} s to stop"

    index = PdfIndex(make_settings(tmp_path, elements=False, timeout=8.0))  # a few pages
    try:
        catalog = index.engine.catalog()
        assert "quick.pdf" in catalog  # what was done is committed
        assert "scan.pdf" not in catalog  # the interrupted file is not recorded as failed
        summary = index.reindex()
        assert "scan.pdf" in summary.parsed_paths
        assert index.engine.catalog()["scan.pdf"].status == FileStatus.OK.value
    finally:
        index.close()


@needs_tesseract
def test_the_caller_gets_its_turn_while_a_scan_reports_each_page(tmp_path: Path) -> None:
    """A worker OCRing a scan reports every page ("alive", ~0.1-0.3 s apart; 20 pages
    take ~5 s); the run still yields TICK every `tick` seconds, the caller's turn to
    commit or stop (a live indexer waited for the whole scan when ticks came only after
    a silent tick)."""
    from pdfindex.extract.worker import ExtractOptions
    from pdfindex.indexer.pool import TICK, ExtractionPool

    scan = pdfgen.write_image_only_pdf(tmp_path / "scan.pdf", pages=20)
    options = ExtractOptions(ocr=True, timeout=120.0)
    ticks_before_result = 0
    began = time.monotonic()
    with ExtractionPool("pdfium", 1, 120.0, 4096, options) as pool:
        for item in pool.run([("scan", scan)], tick=0.5):
            if item is TICK:
                ticks_before_result += 1
                continue
            key, extraction = item
            assert key == "scan"
            assert len(extraction.ocr_pages) == 20
            break
    took = time.monotonic() - began
    # One turn per 0.5 s at least (the worker's start-up included), a few missed at most.
    assert ticks_before_result >= int(took / 0.5) - 3 > 0, (ticks_before_result, took)


@needs_tesseract
def test_a_file_queued_behind_one_that_times_out_is_still_read(tmp_path: Path) -> None:
    """With prefetch, the worker reading the scan already holds the next files; when the
    scan runs past the pool's limit and the worker is killed, those files are read by
    its replacement (each once), not lost or failed with it."""
    from pdfindex.extract.worker import ExtractOptions
    from pdfindex.indexer.pool import TICK, ExtractionPool

    scan = pdfgen.write_image_only_pdf(tmp_path / "scan.pdf", pages=20)  # ~5 s of OCR
    small = [pdfgen.write_pdf(tmp_path / f"s{n}.pdf", [f"small file {n}"]) for n in range(3)]
    options = ExtractOptions(ocr=True, timeout=120.0)  # the worker's own budget: no stop
    jobs = [("scan", scan)] + [(f"s{n}", path) for n, path in enumerate(small)]
    results: dict[str, list[str]] = {}
    with ExtractionPool("pdfium", 1, 2.0, 4096, options, prefetch=True) as pool:
        for item in pool.run(jobs, tick=0.5):
            if item is TICK:
                continue
            key, extraction = item
            results.setdefault(key, []).append(extraction.status.value)
    assert results["scan"] == ["failed"]
    assert {key: statuses for key, statuses in results.items() if key != "scan"} == {
        f"s{n}": ["ok"] for n in range(3)
    }
