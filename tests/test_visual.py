"""Figures, tables and equations through the MCP SDK's in-memory client: found at index
time, searched, shown as images and described."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from pdfindex.api import PdfIndex
from pdfindex.extract import ocr
from pdfindex.tools.exact import search_pdf
from tests import elementgen, pdfgen
from tests.conftest import make_settings
from tests.mcpclient import InMemory, image_of, open_app, text_of


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Path:
    root = tmp_path_factory.mktemp("visual")
    (root / "files").mkdir()
    elementgen.report_pdf(root / "files" / "report.pdf")
    elementgen.report_pdf(root / "files" / "copy.pdf")  # the same labels in two documents
    pdfgen.write_pdf(root / "files" / "prose.pdf", ["Nothing but text. See Table 4 later."])
    pdfgen.write_image_only_pdf(root / "files" / "scan.pdf", "PURCHASE ORDER 5521 APPROVED")
    return root


@pytest.fixture(scope="module")
def visual(project: Path, index_engine: str) -> Iterator[InMemory]:
    with open_app(make_settings(project)) as app:  # its catch-up ran the elements pass
        yield InMemory(app)


def test_search_visual_elements_gives_follow_up_keys(visual: InMemory) -> None:
    throughput, tables_result, one_doc, nothing, bad_type = visual.calls(
        ("search_visual_elements", {"query": "throughput clients"}),
        ("search_visual_elements", {"query": "results", "element_type": "table"}),
        ("search_visual_elements", {"query": "architecture", "document_slug": "report"}),
        ("search_visual_elements", {"query": "zebra giraffe"}),
        ("search_visual_elements", {"query": "x", "element_type": "photo"}),
    )
    text = text_of(throughput)
    first = text.split("\n\n")[1]  # the best result
    assert first.startswith("[1] FIGURE: Figure 1") or first.startswith("[1] CHART: Figure 1")
    assert "  Page: 2" in first
    assert "Caption: Figure 1: Throughput" in first
    assert "Document: report" in first or "Document: copy" in first
    tables = text_of(tables_result)
    kinds = [line.split(":")[0] for line in tables.splitlines() if line.startswith("[")]
    assert kinds
    assert set(kinds) == {f"[{n}] TABLE" for n in range(1, len(kinds) + 1)}
    assert "Table 2" in tables
    one = text_of(one_doc)
    assert one.split("\n\n")[1].startswith("[1] DIAGRAM: Figure 4")  # the caption weighs most
    assert "Document: copy" not in one
    assert text_of(nothing).startswith("No visual elements match")
    assert text_of(bad_type).startswith("Error: element_type must be one of")


def test_element_image_is_the_region_not_the_page(visual: InMemory) -> None:
    image, page_image, abbrev = visual.calls(
        ("get_element_image", {"document_slug": "report", "element_label": "Table 2"}),
        ("get_page_image", {"document_slug": "report", "page_number": 3}),
        ("get_element_image", {"document_slug": "report", "element_label": "figure 2-1"}),
    )
    info = text_of(image)
    assert info.startswith("Table: Table 2\nPage 3 of 7\nDocument: report")
    region = image_of(image)
    page = image_of(page_image)
    assert region.width < page.width * 0.8
    assert region.height < page.height * 0.4
    gray = region.convert("L")
    assert gray.getextrema()[0] < 100  # the table's rules and text: not blank
    # a ruled 3-column table at 150 dpi: at least as wide as its 330 pt of cells
    assert region.width >= 330 * 150 / 72
    assert image_of(abbrev).width > 100  # "figure 2-1" finds "Fig. 2-1"


def test_element_errors_say_what_there_is(visual: InMemory) -> None:
    unknown_result, no_doc, wrong_page = visual.calls(
        ("get_element_image", {"document_slug": "report", "element_label": "Table 8"}),
        ("get_element_image", {"document_slug": "nope", "element_label": "Table 2"}),
        (
            "get_element_details",
            {"document_slug": "report", "element_label": "Figure 1", "page_number": 5},
        ),
    )
    unknown = text_of(unknown_result)
    assert unknown.startswith("Error: No element 'Table 8'")
    assert "Table 2 (p. 3)" in unknown
    assert "search_visual_elements" in unknown
    assert text_of(no_doc).startswith("Error: Document 'nope' not found")
    wrong = text_of(wrong_page)
    assert wrong.startswith("Error: No element 'Figure 1' on page 5")


def test_element_details(visual: InMemory) -> None:
    table_result, equation_result, figure_result = visual.calls(
        ("get_element_details", {"document_slug": "report", "element_label": "Table 2"}),
        ("get_element_details", {"document_slug": "report", "element_label": "Equation (3)"}),
        (
            "get_element_details",
            {"document_slug": "report", "element_label": "Figure 1", "page_number": 2},
        ),
    )
    table = text_of(table_result)
    assert "Type: table" in table
    assert "Caption: Table 2. Results" in table
    rows = [line for line in table.splitlines() if line.startswith("|")]
    cells = elementgen.TABLE_CELLS
    assert rows[0].replace(" ", "") == "|" + "|".join(cells[0]) + "|"
    assert len(rows) == len(cells) + 1  # header, separator, body rows
    assert all(word in table for row in cells for word in row)
    equation = text_of(equation_result)
    assert "Type: equation" in equation
    assert "\\alpha" in equation
    assert "\\beta" in equation
    figure = text_of(figure_result)
    assert "Page: 2" in figure
    assert "Context:" in figure
    assert "storage engine" in figure


def test_document_info_and_status_count_elements(visual: InMemory) -> None:
    info, prose_info, status_result = visual.calls(
        ("get_document_info", {"document_slug": "report"}),
        ("get_document_info", {"document_slug": "prose"}),
        ("get_library_status", {}),
    )
    counts = info.structured_content["indexed_elements"]
    assert counts["pages"] == 7
    assert counts["table"] >= 2
    assert counts["equation"] == 1
    assert counts["figure"] + counts["chart"] + counts["diagram"] >= 3
    assert any(s.startswith("elements (") for s in info.structured_content["processing_stages"])
    prose = prose_info.structured_content["indexed_elements"]
    assert sum(v for k, v in prose.items() if k != "pages") == 0  # a reference, no caption
    status = text_of(status_result)
    assert "Elements: " in status
    assert "table" in status
    assert "OCR: " in status


def test_text_first_then_the_elements_pass(tmp_path: Path) -> None:
    (tmp_path / "files").mkdir()
    elementgen.report_pdf(tmp_path / "files" / "report.pdf")
    index = PdfIndex(make_settings(tmp_path))
    try:
        first = index.reindex(elements_should_stop=lambda: True)  # new changes keep arriving
        record = index.engine.record("report.pdf")
        assert first.added == 1
        assert search_pdf(index, "report", "storage engine")["query_exists"]
        # the stop is polled after each file's elements are written: the only file is done
        assert first.elements_files == 1
        assert record.elements_state == "done"
        second = index.reindex()
        assert second.parsed == 0  # the text is not read again
        record = index.engine.record("report.pdf")
        assert record.elements_state == "done"
        assert record.elements["table"] == 2
        assert "elements (8)" in record.stages
        assert "elements: pending" not in record.stages
        assert record.image_pages == [5]  # pypdfium2 saw the large image...
        labels = {e["label"] for e in index.engine.elements("report")}
        assert "Figure p5-1" in labels  # ...so the uncaptioned figure was found too
        keys = [p.name for p in (tmp_path / "index" / "cache").rglob("*.json.gz")]
        assert any("-elements-" in key for key in keys)
        total, hits = index.search("NOT zebragiraffe", limit=50)  # matches every document
        assert total == 7
        assert sorted(h.page for h in hits) == list(range(1, 8))
        (tmp_path / "files" / "report.pdf").rename(tmp_path / "files" / "renamed.pdf")
        moved = index.reindex()
        assert moved.moved == 1
        assert moved.parsed == 0
        assert moved.elements_files == 0
        assert len(index.engine.elements("renamed")) == 8  # carried over, not analysed again
        assert index.engine.elements("report") == []
        rebuilt = index.reindex(full=True)
        assert rebuilt.parsed == 0
        assert rebuilt.elements_found == 8
    finally:
        index.close()


def test_a_stopped_elements_pass_leaves_the_rest_pending(tmp_path: Path) -> None:
    (tmp_path / "files").mkdir()
    elementgen.report_pdf(tmp_path / "files" / "first.pdf")
    shutil.copy(tmp_path / "files" / "first.pdf", tmp_path / "files" / "second.pdf")
    index = PdfIndex(make_settings(tmp_path))

    def states() -> Counter[str]:
        return Counter(r.elements_state for r in index.engine.catalog().values())

    try:
        first = index.reindex(elements_should_stop=lambda: True)
        assert first.added == 2
        assert first.elements_files == 1
        assert states() == {"done": 1, "pending": 1}
        assert search_pdf(index, "second", "storage engine")["query_exists"]  # text first
        second = index.reindex()
        assert second.parsed == 0
        assert second.elements_files == 1
        assert states() == {"done": 2}
    finally:
        index.close()


def test_elements_switched_off(tmp_path: Path) -> None:
    (tmp_path / "files").mkdir()
    elementgen.report_pdf(tmp_path / "files" / "report.pdf")
    index = PdfIndex(make_settings(tmp_path, elements=False))
    try:
        summary = index.reindex()
        record = index.engine.record("report.pdf")
        assert summary.elements_files == 0
        assert record.elements_state == "none"
        assert index.engine.elements("report") == []
        assert index.stats()["elements"] == {}
    finally:
        index.close()


def test_search_documents_covers_pages_and_elements(visual: InMemory) -> None:
    text = text_of(visual.call("search_documents", query="system architecture", limit=5))
    pages, _, elements = text.partition("Figures, tables and equations whose caption matches:")
    assert "[1] TEXT: Page" in pages
    assert "  Page: 6" in pages
    assert "DIAGRAM: Figure 4" in elements
    assert "Caption: Figure 4: System architecture" in elements
    numbers = [line.split("]")[0] for line in text.splitlines() if line.startswith("[")]
    assert numbers == [f"[{n}" for n in range(1, len(numbers) + 1)]  # one numbering


@pytest.fixture(scope="module")
def full_page(
    tmp_path_factory: pytest.TempPathFactory, index_engine: str
) -> Iterator[tuple[InMemory, dict[str, list[list[str]]]]]:
    root = tmp_path_factory.mktemp("full_page")
    (root / "files").mkdir()
    _expected, rows = elementgen.full_page_tables(root / "files" / "tables.pdf")
    with open_app(make_settings(root, ocr=False)) as app:
        yield InMemory(app), rows


@pytest.mark.parametrize("label", ["Table 1", "Table 2"])
def test_element_details_list_every_row_of_a_full_page_table(
    full_page: tuple[InMemory, dict[str, list[list[str]]]], label: str
) -> None:
    client, rows = full_page
    text = text_of(client.call("get_element_details", document_slug="tables", element_label=label))
    listed = [line for line in text.splitlines() if line.startswith("| ")]
    assert len(listed) == len(rows[label]) + 1, text  # and the header's rule


@pytest.mark.parametrize("limit", [1, 2, 4])
def test_search_documents_limit_bounds_pages_and_elements(visual: InMemory, limit: int) -> None:
    """`limit` counts every result, pages and elements alike (issue 28: limit 2 gave 2
    pages and then figures and tables)."""
    text = text_of(visual.call("search_documents", query="system architecture", limit=limit))
    numbered = [line for line in text.splitlines() if line.startswith("[")]
    assert len(numbered) == limit, text


def test_search_documents_keeps_a_place_for_elements(visual: InMemory) -> None:
    text = text_of(visual.call("search_documents", query="system architecture", limit=4))
    assert "DIAGRAM: Figure 4" in text


@pytest.mark.skipif(not ocr.tesseract().available, reason="Tesseract is not installed")
def test_a_scanned_pdf_is_found_through_search_pdf(visual: InMemory) -> None:
    scan, scan_info, scan_page = visual.calls(
        ("search_pdf", {"pdf_name": "scan", "query": "purchase order 5521"}),
        ("get_document_info", {"document_slug": "scan"}),
        ("extract_pdf_page", {"file": "scan.pdf", "pages": [1]}),
    )
    found = scan.structured_content
    assert found["query_exists"]
    assert "**PURCHASE ORDER 5521**" in found["matches"][0]
    info = scan_info.structured_content
    assert info["ocr"]["language"] == "eng"
    assert info["ocr"]["pages"] == 1
    assert info["ocr"]["mean_confidence"] > 60
    page = scan_page.structured_content  # no layout to convert: its OCR text is
    assert page["ocr_pages"] == [1]
    assert "PURCHASE ORDER 5521" in page["content"]
