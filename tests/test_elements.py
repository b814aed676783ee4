"""Figures, tables and equations found in real generated PDFs (tests/elementgen.py), and
the detector's rules on hand-made layout records."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from pdfindex.elements.detect import (
    ELEMENT_TYPES,
    Element,
    candidate_pages,
    detect_elements,
    detect_file_elements,
    to_latex,
)
from pdfindex.extract.adapters.pdfium import PdfiumAdapter
from pdfindex.extract.adapters.pdfminer import layout_pages
from pdfindex.layout.records import BBox, Graphic, PageLayout, TextBlock, TextLine
from tests import elementgen
from tests.elementgen import Expected

TOLERANCE = 3.0  # points the found region may cut into the drawn object
SLACK = 45.0  # points it may reach beyond it (its caption, axis labels)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Expected]:
    path = tmp_path_factory.mktemp("elements") / "report.pdf"
    return path, elementgen.report_pdf(path)


@pytest.fixture(scope="module")
def found(report: tuple[Path, Expected]) -> dict[str, Element]:
    elements = detect_file_elements(report[0])
    by_label = {e.label: e for e in elements}
    assert len(by_label) == len(elements), [e.label for e in elements]
    return by_label


def _covers(region: BBox, drawn: BBox) -> bool:
    """`region` holds the drawn object and is not much larger."""
    inside = all(
        (
            region[0] <= drawn[0] + TOLERANCE,
            region[1] <= drawn[1] + TOLERANCE,
            region[2] >= drawn[2] - TOLERANCE,
            region[3] >= drawn[3] - TOLERANCE,
        )
    )
    tight = all(
        (
            region[0] >= drawn[0] - SLACK,
            region[1] >= drawn[1] - SLACK,
            region[2] <= drawn[2] + SLACK,
            region[3] <= drawn[3] + SLACK,
        )
    )
    return inside and tight


def test_every_element_of_the_report_and_nothing_else(found: dict[str, Element]) -> None:
    got = {(e.label, e.kind, e.page) for e in found.values()}
    assert got == {
        ("Figure 1", "figure", 2),
        ("Table 2", "table", 3),
        ("Equation (3)", "equation", 4),
        ("Table 3", "table", 4),
        ("Figure p5-1", "figure", 5),
        ("Fig. 2-1", "chart", 6),
        ("Figure 4", "diagram", 6),
        ("Abbildung 5", "figure", 6),
    }
    assert all(e.kind in ELEMENT_TYPES for e in found.values())


def test_running_text_references_and_lists_of_figures_are_not_elements(
    found: dict[str, Element],
) -> None:
    """ "see Table 9 below", a line starting "Figure 7. They ..." inside a paragraph,
    "Table 9 lists ..." and the dotted list of figures on page 7."""
    labels = set(found)
    assert not labels & {"Table 9", "Figure 7"}
    assert not [e for e in found.values() if e.page in (1, 7)]


def test_regions_surround_the_drawn_objects(
    report: tuple[Path, Expected], found: dict[str, Element]
) -> None:
    for label, (page, drawn) in report[1].regions.items():
        element = found[label]
        assert element.page == page
        assert _covers(element.bbox, drawn), (label, element.bbox, drawn)


def test_captions_are_joined_across_lines(found: dict[str, Element]) -> None:
    assert found["Figure 1"].caption == (
        "Figure 1: Throughput of the storage engine under a growing number of "
        "concurrent clients, measured over ten minutes."
    )
    assert found["Table 2"].caption == "Table 2. Results of the read and write benchmark"
    assert found["Abbildung 5"].caption == "Abbildung 5: Karte der Messstationen"
    assert found["Figure p5-1"].caption == ""


def test_ruled_and_aligned_tables_give_their_cells(found: dict[str, Element]) -> None:
    assert found["Table 2"].cells == elementgen.TABLE_CELLS
    assert found["Table 3"].cells == elementgen.ALIGNED_CELLS
    assert found["Table 2"].markdown_table() == (
        "| Engine | Reads | Writes |\n"
        "| --- | --- | --- |\n"
        "| alpha | 120 | 45 |\n"
        "| beta | 98 | 60 |\n"
        "| gamma | 143 | 52 |"
    )
    assert found["Figure 1"].cells is None
    assert found["Figure 1"].markdown_table() is None


def test_numbered_equation_with_latex_and_context(found: dict[str, Element]) -> None:
    equation = found["Equation (3)"]
    assert equation.latex == "x = \\alpha + \\beta"
    assert equation.caption == ""
    assert "x = α + β" in equation.context
    assert "where α is the base cost" in equation.context
    assert found["Figure 1"].latex is None


def test_context_is_the_text_around_without_the_caption(found: dict[str, Element]) -> None:
    figure = found["Figure 1"]
    assert figure.context.startswith("This report describes the storage engine")
    assert "see Table 9" in figure.context  # the paragraph below
    assert "Throughput" not in figure.context
    assert len(figure.context) <= 2 * 300 + 50


def test_candidate_pages_of_the_extracted_text(report: tuple[Path, Expected]) -> None:
    """Captions and numbered equations select pages; pages of prose or with an uncaptioned
    image do not; the list of figures does (cheap filter), without elements found."""
    texts = PdfiumAdapter().extract(report[0]).pages
    assert candidate_pages(texts) == [2, 3, 4, 6, 7]


@pytest.mark.parametrize(
    ("text", "selected"),
    [
        ("Results\nFigure 3: Accuracy per epoch\nmore", True),
        ("Fig. 2-1. Map of the area", True),
        ("  TABLE IV\r\nRESULTS", True),
        ("Table 5", True),
        ("Abb. 4: Karte", True),
        ("x = α + β (3)\r\n", True),
        ("f(x) = ∑ a_i (2.1)", True),
        ("f(x) =\r\nZ 1\r\n0\r\ng(t) dt (8)", True),  # a display formula broken into lines
        ("as shown in Figure 2 and see Table 3 for more.", False),
        ("Table 3 shows the results of the run.", False),
        ("Published in Nature 12 (2019)", False),
        ("the values (3)", False),
        ("", False),
    ],
)
def test_candidate_page_filter(text: str, selected: bool) -> None:
    assert candidate_pages(["plain prose", text]) == ([2] if selected else [])


def test_only_the_requested_pages_are_analysed(report: tuple[Path, Expected]) -> None:
    path = report[0]
    assert detect_file_elements(path, []) == []
    labels = [e.label for e in detect_file_elements(path, [2, 3, 4, 6, 7])]
    assert "Figure p5-1" not in labels
    assert "Table 2" in labels
    assert [e.label for e in detect_file_elements(path, [5])] == ["Figure p5-1"]


def test_a_deadline_passed_stops_the_analysis(report: tuple[Path, Expected]) -> None:
    with pytest.raises(TimeoutError):
        detect_file_elements(report[0], [2, 3], deadline=time.monotonic() - 1)


def test_element_dict_round_trip(found: dict[str, Element]) -> None:
    for element in found.values():
        data = json.loads(json.dumps(element.to_dict()))
        assert Element.from_dict(data) == element
    stored = {**found["Table 2"].to_dict(), "slug": "report", "path": "report.pdf"}
    assert Element.from_dict(stored) == found["Table 2"]


def test_an_uncaptioned_ruled_grid_is_a_table(tmp_path: Path) -> None:
    path = tmp_path / "grid.pdf"
    expected = elementgen.uncaptioned_table_pdf(path)
    [table] = detect_file_elements(path)
    assert (table.label, table.kind, table.page, table.caption) == ("Table p1-1", "table", 1, "")
    assert table.cells == elementgen.UNCAPTIONED_CELLS
    assert _covers(table.bbox, expected.regions["Table p1-1"][1])


@pytest.fixture(scope="module")
def full_page(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[dict[str, Element], Expected, dict[str, list[list[str]]]]:
    path = tmp_path_factory.mktemp("full_page") / "tables.pdf"
    expected, rows = elementgen.full_page_tables(path)
    tables = {e.label: e for e in detect_file_elements(path) if e.kind == "table"}
    return tables, expected, rows


@pytest.mark.parametrize("label", ["Table 1", "Table 2"])
def test_a_full_page_table_is_cropped_whole(
    full_page: tuple[dict[str, Element], Expected, dict[str, list[list[str]]]], label: str
) -> None:
    """Issue 28: a table filling its page was cut to its first 80 rows (Table 1), or to
    its first two when most rows fill one cell (Table 2, like amsldoc's Table 3.1)."""
    tables, expected, _rows = full_page
    page, drawn = expected.regions[label]
    assert tables[label].page == page
    region = tables[label].bbox
    inside = [region[i] <= drawn[i] + TOLERANCE for i in (0, 1)]
    inside += [region[i] >= drawn[i] - TOLERANCE for i in (2, 3)]
    assert all(inside), (region, drawn)


@pytest.mark.parametrize("label", ["Table 1", "Table 2"])
def test_a_full_page_table_gives_every_row(
    full_page: tuple[dict[str, Element], Expected, dict[str, list[list[str]]]], label: str
) -> None:
    tables, _expected, rows = full_page
    assert tables[label].cells == rows[label]


def test_figures_side_by_side_in_two_columns(tmp_path: Path) -> None:
    path = tmp_path / "columns.pdf"
    expected = elementgen.two_column_pdf(path)
    found = {e.label: e for e in detect_file_elements(path)}
    assert set(found) == {"Figure 1", "Figure 2"}
    for label, (_, drawn) in expected.regions.items():
        assert _covers(found[label].bbox, drawn), (label, found[label].bbox)


def test_caption_styles_of_other_publishers(tmp_path: Path) -> None:
    path = tmp_path / "styles.pdf"
    expected = elementgen.styles_pdf(path)
    found = {e.label: e for e in detect_file_elements(path)}
    got = {(e.label, e.kind, e.page) for e in found.values()}
    assert got == {
        ("TABLE I", "table", 1),
        ("Table 4", "table", 1),
        ("Fig. 3", "figure", 2),
        ("Table 5", "table", 2),
        ("Table 6", "table", 2),
    }
    for label, (_, drawn) in expected.regions.items():
        assert _covers(found[label].bbox, drawn), (label, found[label].bbox, drawn)
    assert found["TABLE I"].caption == "TABLE I COMPARISON OF METHODS"
    assert found["TABLE I"].cells == elementgen.IEEE_CELLS
    assert found["Table 4"].cells == elementgen.BELOW_CELLS
    assert found["Fig. 3"].caption.startswith("Fig. 3 The six stages")
    assert found["Table 6"].cells == [
        ["Head0", "Head1", "Head2"],
        *[[f"r{r}c{c}" for c in range(3)] for r in range(1, 4)],
    ]


def test_layout_records_carry_the_graphics(report: tuple[Path, Expected]) -> None:
    chart, picture = layout_pages(report[0], [2, 5])
    kinds = {g.kind for g in chart.graphics}
    assert {"line", "rect"} <= kinds
    images = [g for g in picture.graphics if g.kind == "image"]
    assert len(images) == 1
    assert _covers(images[0].bbox, report[1].regions["Figure p5-1"][1])


# -- rules on hand-made records ---------------------------------------------------------


def _line(text: str, x0: float, top: float, size: float = 10.0, bold: bool = False) -> TextLine:
    return TextLine(text, (x0, top, x0 + 0.5 * size * len(text), top + size), size, bold)


def _page(lines: list[TextLine], graphics: list[Graphic] | None = None) -> PageLayout:
    blocks = [TextBlock(x.text, x.bbox, [x]) for x in lines]
    return PageLayout(1, 595.0, 842.0, blocks, graphics or [])


def _prose(top: float) -> list[TextLine]:
    return [
        _line("Body text of the page that goes on for a while here.", 56, top + 14 * i)
        for i in range(4)
    ]


PLOT = [
    Graphic("rect", (100, 300, 400, 500)),
    *[Graphic("curve", (120 + 30 * i, 320, 140 + 30 * i, 480)) for i in range(5)],
]


def test_a_weak_caption_needs_a_drawing_or_a_look_of_its_own() -> None:
    """ "Figure 3 The map" (label, then a capital) is a caption next to a drawing or when
    set apart, not as a bare line of body text; "Figure 3: The map" always is."""
    weak = _line("Figure 3 The map of the region", 100, 510)
    assert detect_elements([_page([*_prose(100), weak])]) == []
    assert [e.label for e in detect_elements([_page([*_prose(100), weak], PLOT)])] == ["Figure 3"]
    bold = _line("Figure 3 The map of the region", 100, 510, bold=True)
    assert [e.label for e in detect_elements([_page([*_prose(100), bold])])] == ["Figure 3"]
    strong = _line("Figure 3: The map of the region", 100, 510)
    [alone] = detect_elements([_page([*_prose(100), strong])])
    assert alone.kind == "figure"
    assert alone.caption == "Figure 3: The map of the region"


def test_a_caption_without_a_drawing_keeps_an_estimated_region() -> None:
    """Free space above the caption (where a drawing the layout did not report would be)."""
    caption = _line("Figure 6: Photograph of the site", 100, 400)
    [element] = detect_elements([_page([*_prose(100), caption, *_prose(500)])])
    assert element.bbox[1] == pytest.approx(100 + 14 * 3 + 10)  # the prose above ends
    assert element.bbox[3] == pytest.approx(410)


def test_same_label_once_per_page_and_kind_words() -> None:
    lines = [
        _line("Figure 2: Histogram of the waiting times", 100, 510),
        _line("Figure 2: Histogram of the waiting times (continued)", 100, 700),
        _line("Chart 7: Sales", 100, 760),
    ]
    found = detect_elements([_page(lines, PLOT)])
    assert [(e.label, e.kind) for e in found] == [("Figure 2", "chart"), ("Chart 7", "chart")]
    assert found[0].bbox[1] == 300  # the one next to the drawing is kept


def test_equation_needs_math_and_a_number_at_the_end() -> None:
    lines = [
        _line("y = ∑ w x + b", 200, 100),
        _line("(12)", 520, 100),
        _line("This sentence ends with a number in brackets like this (4)", 56, 140),
        _line("(1) An enumerated condition at the start = fine", 56, 180),
        _line("E ≤ mc", 200, 220),
        _line("(2.3)", 520, 220),
    ]
    found = detect_elements([_page(lines)])
    assert [(e.label, e.latex) for e in found] == [
        ("Equation (12)", "y = \\sum w x + b"),
        ("Equation (2.3)", "E \\leq mc"),
    ]


@pytest.mark.parametrize(
    ("text", "latex"),
    [
        ("E = mc² (3)", "E = mc^{2}"),
        ("∫ f(x) dx ≈ ∑ᵢ wᵢ", "\\int f(x) dx \\approx \\sum_{i} w_{i}"),
        ("θ ∈ ℝ", "\\theta \\in \\mathbb{R}"),
        ("Ω → ∞", "\\Omega \\to \\infty"),
        ("𝑥 + 1", "x + 1"),
        ("plain words", None),
        ("(cid:12) = (cid:3)", None),
    ],
)
def test_latex_recovery(text: str, latex: str | None) -> None:
    assert to_latex(text) == latex
