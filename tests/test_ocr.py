"""Scanned pages: read by the real Tesseract (or, without it, the real RapidOCR) at index
time and searched like any text."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pdfindex.api import PdfIndex
from pdfindex.config import SETTINGS, load_settings
from pdfindex.errors import ConfigError
from pdfindex.extract import ocr, rapidocr
from pdfindex.tools.exact import search_pdf
from tests import pdfgen
from tests.conftest import ENGINE, make_settings

needs_tesseract = pytest.mark.skipif(
    not ocr.tesseract().available, reason="Tesseract is not installed (.ci/run installs it)"
)
CLI = [sys.executable, "-m", "pdfindex.cli"]


def path_without_tesseract() -> str:
    """PATH without the folders that hold a tesseract program (the program is simply absent)."""
    path = os.pathsep.join(
        p for p in os.environ["PATH"].split(os.pathsep) if not shutil.which("tesseract", path=p)
    )
    assert shutil.which("tesseract", path=path) is None
    return path


def write_mixed_pdf(path: Path) -> Path:
    """Page 1 has a text layer, pages 2 and 3 are scans of different text."""
    pdf = pdfgen._new_pdf()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.multi_cell(0, 14, "An ordinary page with a text layer about harbours.")
    for text in ("QUARTERLY REPORT ZEPHYR 2031", "MINUTES OF THE BOARD MEETING"):
        pdf.add_page()
        pdf.image(pdfgen.render_scan(text), x=0, y=0, w=pdfgen.PAGE_WIDTH_PT)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(pdf.output()))
    return path


@needs_tesseract
def test_scanned_pages_are_found_through_search_pdf(tmp_path: Path) -> None:
    write_mixed_pdf(tmp_path / "files" / "mixed.pdf")
    index = PdfIndex(make_settings(tmp_path))
    try:
        summary = index.reindex()
        assert summary.added == 1
        assert summary.failed == 0
        record = index.engine.record("mixed.pdf")
        assert record.status == "ok"
        assert record.ocr_lang == "eng"
        assert record.ocr_pages == 2
        assert record.ocr_missing == 0
        assert record.ocr_confidence is not None
        assert record.ocr_confidence > 60
        assert any(stage.startswith("ocr (eng, 2 pages)") for stage in record.stages)
        found = search_pdf(index, "mixed", "quarterly report zephyr", context_length=10)
        assert found["query_exists"]
        assert len(found["matches"]) == 1
        assert search_pdf(index, "mixed", "board meeting")["query_exists"]
        assert search_pdf(index, "mixed", "harbours")["query_exists"]  # the text layer stays
        texts = index.engine.page_texts(record.slug)
        assert "ZEPHYR" in texts[1]
        assert "ZEPHYR" not in texts[2]
        status = index.stats()["ocr"]
        assert status["unavailable"] is None
        assert status["pages_read"] == 2
        assert "tesseract" in status["engine"]
        keys = [p.name for p in (tmp_path / "index" / "cache").rglob("*.json.gz")]
        assert len(keys) == 1
        assert "+ocr-eng" in keys[0]
    finally:
        index.close()


@needs_tesseract
def test_ocr_switched_off_then_on_rereads_only_scanned_files(tmp_path: Path) -> None:
    pdfgen.write_image_only_pdf(tmp_path / "files" / "scan.pdf", "INVOICE NUMBER 4711")
    pdfgen.write_pdf(tmp_path / "files" / "text.pdf", ["plain text page"])
    off = PdfIndex(make_settings(tmp_path, ocr=False))
    try:
        off.reindex()
        record = off.engine.record("scan.pdf")
        assert record.status == "empty"
        assert record.ocr_missing == 1
        assert record.ocr_pages == 0
        status = off.stats()["ocr"]
        assert "switched off" in status["unavailable"]
        assert status["pages_not_read"] == 1
        assert "not searchable" in off.describe_ocr(status)
        assert not search_pdf(off, "scan", "4711")["query_exists"]
    finally:
        off.close()
    on = PdfIndex(make_settings(tmp_path, ocr=True))
    try:
        summary = on.reindex()  # nothing changed on disk: only the scan is read again
        assert summary.parsed_paths == ["scan.pdf"]
        assert on.engine.record("scan.pdf").ocr_pages == 1
        assert search_pdf(on, "scan", "invoice number 4711")["query_exists"]
        assert on.reindex().parsed == 0  # and once read, it stays read
    finally:
        on.close()


@needs_tesseract
def test_ocr_later_leaves_scans_to_the_next_run(tmp_path: Path) -> None:
    """`pdfindex reindex --ocr-later` commits the text layers and reads no page by OCR:
    the scan's page waits (the summary line and stats say so) and is not searchable; the
    next plain reindex reads only that file, by OCR, and then it is."""
    pdfgen.write_image_only_pdf(tmp_path / "files" / "scan.pdf", "INVOICE NUMBER 4711")
    pdfgen.write_pdf(tmp_path / "files" / "text.pdf", ["plain text page"])
    env = {**os.environ, "PDFINDEX_ELEMENTS": "false", "PDFINDEX_OCR_ENGINE": "tesseract"}
    root = ["--root", str(tmp_path)]

    def cli(*args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([*CLI, *args, *root], env=env, capture_output=True, text=True)
        assert done.returncode == code, done.stderr
        return done

    first = cli("reindex", "--ocr-later")
    assert "1 scanned pages of 1 documents left for OCR later" in first.stdout
    status = json.loads(cli("stats", "--json").stdout)["ocr"]
    assert status["unavailable"] is None
    assert (status["pages_read"], status["pages_not_read"], status["pages_waiting"]) == (0, 1, 1)
    assert "1 image pages wait for OCR" in cli("stats").stdout
    assert json.loads(cli("search", "invoice 4711", "--json", code=1).stdout)["hits"] == []
    again = json.loads(cli("reindex", "--ocr-later", "--json").stdout)
    assert again["parsed"] == 0  # left for later again, not read again
    second = json.loads(cli("reindex", "--json").stdout)
    assert second["parsed_paths"] == ["scan.pdf"]
    assert second["ocr_pending"] == 0
    status = json.loads(cli("stats", "--json").stdout)["ocr"]
    assert (status["pages_read"], status["pages_not_read"], status["pages_waiting"]) == (1, 0, 0)
    hits = json.loads(cli("search", "invoice 4711", "--json").stdout)["hits"]
    assert [hit["path"] for hit in hits] == ["scan.pdf"]


@needs_tesseract
def test_a_language_without_data_is_reported_once_not_per_page(tmp_path: Path) -> None:
    pdfgen.write_image_only_pdf(tmp_path / "files" / "scan.pdf", "HELLO", pages=3)
    index = PdfIndex(make_settings(tmp_path, ocr_lang="xyz"))
    try:
        index.reindex()
        record = index.engine.record("scan.pdf")
        assert record.status == "empty"
        assert record.ocr_missing == 3
        assert len(record.notes) == 1
        assert "xyz" in record.notes[0]
        status = index.stats()["ocr"]
        assert "xyz not installed" in status["unavailable"]
        assert status["pages_not_read"] == 3
        assert status["files_not_read"] == 1
    finally:
        index.close()


def test_without_tesseract_rapidocr_reads_scans(tmp_path: Path) -> None:
    """The CLI on a PATH without Tesseract: RapidOCR (a pip dependency) reads the scan, which
    becomes searchable, and stats names the engine that ran."""
    if ENGINE["name"] != SETTINGS["engine"].default:
        pytest.skip("OCR does not depend on the index engine: RapidOCR runs on one pass only")
    pdfgen.write_image_only_pdf(tmp_path / "files" / "scan.pdf", "INVOICE NUMBER 4711")
    env = {**os.environ, "PATH": path_without_tesseract(), "PDFINDEX_ELEMENTS": "false"}
    root = ["--root", str(tmp_path)]
    done = subprocess.run([*CLI, "reindex", *root], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    stats = subprocess.run([*CLI, "stats", "--json", *root], env=env, capture_output=True)
    status = json.loads(stats.stdout)["ocr"]
    assert status["engine"].startswith("rapidocr-onnxruntime ")
    assert status["unavailable"] is None
    assert status["pages_read"] == 1
    assert status["pages_not_read"] == 0
    found = subprocess.run(
        [*CLI, "search", "invoice 4711", "--json", *root], env=env, capture_output=True
    )
    assert found.returncode == 0, found.stderr
    assert "scan.pdf" in found.stdout.decode()


def test_ocr_engine_setting_is_obeyed(tmp_path: Path) -> None:
    """ocr_engine = "tesseract" on a machine without it: stats says why nothing reads the
    scan (RapidOCR is not taken instead), once, not per page."""
    pdfgen.write_image_only_pdf(tmp_path / "files" / "scan.pdf", "HELLO")
    env = {**os.environ, "PATH": path_without_tesseract(), "PDFINDEX_OCR_ENGINE": "tesseract"}
    root = ["--root", str(tmp_path)]
    done = subprocess.run([*CLI, "reindex", *root], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    stats = subprocess.run([*CLI, "stats", *root], env=env, capture_output=True, text=True)
    ocr_lines = [line for line in stats.stdout.splitlines() if "tesseract not found" in line]
    assert len(ocr_lines) == 1, stats.stdout
    assert "1 image pages in 1 files" in ocr_lines[0], stats.stdout
    assert "rapidocr" not in stats.stdout.lower()


def test_engine_choice_and_languages() -> None:
    """auto prefers Tesseract for a language it has, else RapidOCR (Chinese and English
    only); a language neither reads gets both reasons."""
    tesseract = ocr.tesseract()
    if tesseract.available:
        assert ocr.engine("eng").name == "tesseract"
    if "chi_sim" not in tesseract.languages:
        found, reason = ocr.select("chi_sim")
        assert found is not None
        assert found.name == "rapidocr"
        assert reason is None
        assert found.version.startswith("rapidocr-onnxruntime 1.")
    assert ocr.engine("eng", "rapidocr").languages == ("eng", "chi_sim")
    found, reason = ocr.select("deu", "rapidocr")
    assert found is None
    assert reason is not None
    assert "RapidOCR reads only eng and chi_sim, not deu" in reason
    found, reason = ocr.select("xyz")
    assert found is None
    assert reason is not None
    assert ("Tesseract language data xyz" in reason) == tesseract.available
    assert "RapidOCR reads only" in reason
    assert not ocr.engine("xyz").available
    assert ocr.engine("xyz").reason == reason


def test_ocr_engine_setting_is_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PDFINDEX_OCR_ENGINE", "rapidocr")
    settings = load_settings(root=tmp_path)
    assert settings.ocr_engine == "rapidocr"
    assert settings.sources["ocr_engine"] == "env PDFINDEX_OCR_ENGINE"
    assert load_settings({"ocr_engine": "tesseract"}, root=tmp_path).ocr_engine == "tesseract"
    monkeypatch.setenv("PDFINDEX_OCR_ENGINE", "easyocr")
    with pytest.raises(ConfigError, match="choose one of auto, tesseract, rapidocr"):
        load_settings(root=tmp_path)


def test_rapidocr_boxes_become_lines_and_paragraphs() -> None:
    def box(left: float, top: float, text: str) -> rapidocr.Box:
        right, bottom = left + 10 * len(text), top + 30
        return ([[left, top], [right, top], [right, bottom], [left, bottom]], text, 0.9)

    boxes = [
        box(300, 102, "world"),  # same line as "Hello", a little lower, found first
        box(10, 100, "Hello"),
        box(10, 135, "again"),
        box(10, 220, "Next"),  # far below: a new paragraph
    ]
    assert rapidocr.join_lines(boxes) == "Hello world\nagain\n\nNext"


def test_parse_tsv_keeps_lines_and_paragraphs() -> None:
    header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tl\tt\tw\th\tconf\ttext"
    rows = [
        "5\t1\t1\t1\t1\t1\t0\t0\t1\t1\t90\tHello",
        "5\t1\t1\t1\t1\t2\t0\t0\t1\t1\t80\tworld",
        "5\t1\t1\t1\t2\t1\t0\t0\t1\t1\t70\tagain",
        "4\t1\t1\t1\t2\t0\t0\t0\t1\t1\t-1\t",
        "5\t1\t2\t1\t1\t1\t0\t0\t1\t1\t60\tNext",
    ]
    found = ocr.parse_tsv("\n".join([header, *rows]))
    assert found.text == "Hello world\nagain\n\nNext"
    assert found.confidence == 75.0


def test_a_large_page_is_read_within_the_ocr_pixel_budget(tmp_path: Path) -> None:
    """A page bigger than A3 is rendered for OCR at less than 300 dpi: its pixels (which
    Tesseract's and the worker's memory grow with) stay within OCR_MAX_PIXELS, while a
    page image may still use the larger page-image budget."""
    from PIL import Image

    from pdfindex.extract.adapters.pdfium import MAX_PIXELS, render_page_png
    from pdfindex.extract.ocr import OCR_MAX_PIXELS
    from tests.hostile import huge_page

    pdf = huge_page(tmp_path / "poster.pdf", side=2_400.0)  # 33 x 33 in: 100 MP at 300 dpi
    png, _, dpi = render_page_png(pdf, 1, 300, OCR_MAX_PIXELS)
    width, height = Image.open(io.BytesIO(png)).size
    assert width * height <= OCR_MAX_PIXELS
    assert dpi < 300
    page_png, _, _ = render_page_png(pdf, 1, 300)
    width, height = Image.open(io.BytesIO(page_png)).size
    assert OCR_MAX_PIXELS < width * height <= MAX_PIXELS


@needs_tesseract
def test_a_page_image_seen_before_is_read_once(tmp_path: Path) -> None:
    """Pages 1 and 3 are the same scan: the worker runs OCR on two images, not three, and
    both pages get the words of the first reading."""
    from pdfindex.extract.worker import ExtractOptions, extract_file

    pdf = pdfgen._new_pdf()
    for text in ("QUARTERLY REPORT ZEPHYR", "MINUTES OF THE BOARD", "QUARTERLY REPORT ZEPHYR"):
        pdf.add_page()
        pdf.image(pdfgen.render_scan(text), x=0, y=0, w=pdfgen.PAGE_WIDTH_PT)
    path = tmp_path / "repeated.pdf"
    path.write_bytes(bytes(pdf.output()))
    ocr._READ.clear()
    extraction = extract_file(path, "pdfium", ExtractOptions(ocr=True, ocr_engine="tesseract"))
    assert len(ocr._READ) == 2
    first, second, third = extraction.pages
    assert "ZEPHYR" in first
    assert "BOARD" in second
    assert third == first
    assert sorted(extraction.ocr_pages) == [1, 2, 3]
