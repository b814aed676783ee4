"""A small PDF cannot unpack into an unbounded amount of text (issue 31, item 13): a
page's text is cut at MAX_PAGE_CHARS and a file's at MAX_FILE_CHARS, and the document's
record says so."""

from __future__ import annotations

from pathlib import Path

from pdfindex.api import PdfIndex
from pdfindex.extract.adapters.base import Extraction
from pdfindex.extract.worker import MAX_FILE_CHARS, MAX_PAGE_CHARS, cut_text
from pdfindex.models import FileStatus
from tests import hostile
from tests.conftest import make_settings


def test_a_page_of_too_much_text_is_cut_and_noted(tmp_path: Path) -> None:
    hostile.many_objects(tmp_path / "files" / "wordy.pdf", count=100_000)  # ~300,000 chars
    index = PdfIndex(make_settings(tmp_path, elements=False))
    try:
        index.reindex()
        record = index.engine.catalog()["wordy.pdf"]
        (text,) = index.engine.page_texts(record.slug)
    finally:
        index.close()
    assert record.status == FileStatus.OK
    assert len(text) <= MAX_PAGE_CHARS
    assert any("cut to 200,000 characters" in note for note in record.notes), record.notes


def test_a_files_text_is_cut_at_its_budget() -> None:
    page = "word " * (MAX_PAGE_CHARS // 5)
    count = MAX_FILE_CHARS // len(page) + 5
    extraction = Extraction(status=FileStatus.OK, pages=[page] * count)
    cut_text(extraction)
    assert sum(map(len, extraction.pages)) == MAX_FILE_CHARS
    assert len(extraction.pages) == count  # page numbers stay as they are
    assert extraction.pages[-1] == ""
    assert any("cut at 25,000,000 characters" in note for note in extraction.notes)

    small = Extraction(status=FileStatus.OK, pages=["a page", "another"])
    cut_text(small)
    assert small.pages == ["a page", "another"]
    assert small.notes == []
