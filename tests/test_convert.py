"""Page conversion (extract_pdf_page): real generated PDFs through pdfminer's layout
analysis to markdown, html, plain text and (with pandoc) latex and docx. pandoc is always
there: the one on PATH, else the one the pypandoc-binary dependency ships."""

from __future__ import annotations

import base64
import io
import re
import time
import zipfile
from pathlib import Path

import pytest
from fpdf import FPDF

from pdfindex.convert import pages
from pdfindex.convert.pages import (
    DOCX_MEDIA_TYPE,
    _find_pandoc,
    convert_pages,
    run_pandoc,
    to_html,
    to_markdown,
)
from pdfindex.errors import ConversionError, InvalidQuery, PageOutOfRange
from pdfindex.extract.adapters.pdfminer import layout_pages
from pdfindex.layout.records import PageLayout, TextBlock, TextLine, join_lines
from tests import pdfgen

LEFT = pdfgen.MARGIN_PT
TABLE_X = (LEFT, 220.0, 380.0)
TABLE = (("Name", "Quantity", "Price"), ("Apples", "12", "3.50"), ("Pears", "7", "2.10"))
BODY = (
    "This report describes the new system archi-",
    "tecture and the well-known results of the",
    "last year in some detail.",
)
BULLETS = ("• First point about apples", "• Second point about pears", "• Third point")
LEFT_COLUMN = (
    "Leftside prose starts here and",
    "keeps going down the page in",
    "its narrow column.",
)
RIGHT_COLUMN = (
    "Rightside prose runs beside it",
    "at the same height, line by",
    "line, to the end.",
)
TRICKY = r"Use \input{secret} and ![img](/etc/passwd) with $x$ and *stars* | pipes"


def _bold_font() -> Path | None:
    """The bold face next to the test suite's regular font, when there is one."""
    regular = pdfgen.find_unicode_font()
    for name in ("DejaVuSans-Bold.ttf", "VeraBd.ttf"):
        if (regular.parent / name).is_file():
            return regular.parent / name
    return None


def _new_doc() -> FPDF:
    pdf = pdfgen._new_pdf()
    pdf.add_font(pdfgen.FONT_FAMILY, fname=str(pdfgen.find_unicode_font()))
    bold = _bold_font()
    if bold is not None:
        pdf.add_font(pdfgen.FONT_FAMILY, style="B", fname=str(bold))
    return pdf


def _lines(pdf: FPDF, x: float, y: float, lines: tuple[str, ...], size: float = 11) -> float:
    """Write lines at 1.4 line spacing; return the y below the last one."""
    pdf.set_font(pdfgen.FONT_FAMILY, size=size)
    for line in lines:
        pdf.text(x, y, line)
        y += size * pdfgen.LINE_SPACING
    return y


def _report_page(pdf: FPDF) -> None:
    """Title 24 pt, sub-heading 16 pt, a hyphenated paragraph, bullets, a ruled 3x3 table."""
    pdf.add_page()
    y = _lines(pdf, LEFT, LEFT + 24, ("Annual Report",), size=24) + 10
    y = _lines(pdf, LEFT, y, ("Introduction",), size=16) + 8
    y = _lines(pdf, LEFT, y, BODY) + 15
    y = _lines(pdf, LEFT, y, BULLETS) + 15
    pdf.set_font(pdfgen.FONT_FAMILY, size=11)
    pdf.line(LEFT, y - 13, 460, y - 13)
    for row in TABLE:
        for x, cell in zip(TABLE_X, row, strict=True):
            pdf.text(x, y, cell)
        pdf.line(LEFT, y + 4, 460, y + 4)
        y += 18
    _lines(pdf, LEFT, y + 15, ("A closing paragraph follows the table.",))


def _columns_page(pdf: FPDF) -> None:
    """Two columns of prose whose lines share baselines: not a table."""
    pdf.add_page()
    y = _lines(pdf, LEFT, LEFT + 16, ("Two columns",), size=16) + 10
    _lines(pdf, LEFT, y, LEFT_COLUMN)
    _lines(pdf, 320, y, RIGHT_COLUMN)


def _unicode_page(pdf: FPDF) -> None:
    """Ligatures and accents, a bold run-in heading, a numbered list, markup-like text."""
    pdf.add_page()
    y = LEFT + 11
    if _bold_font() is not None:
        pdf.set_font(pdfgen.FONT_FAMILY, style="B", size=11)
        pdf.text(LEFT, y, "Bold Findings")
        y += 30
    y = _lines(pdf, LEFT, y, ("Zürich café naïve: ﬁnancial ﬂow at the Straße.",)) + 15
    y = _lines(pdf, LEFT, y, ("1. Open the file", "2. Read the page", "3. Close it")) + 15
    _lines(pdf, LEFT, y, (TRICKY,))


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pdf = _new_doc()
    _report_page(pdf)
    _columns_page(pdf)
    _unicode_page(pdf)
    path = tmp_path_factory.mktemp("convert") / "report.pdf"
    path.write_bytes(bytes(pdf.output()))
    return path


def _md(path: Path, page: int, **options: object) -> str:
    content = convert_pages(path, [page], "markdown", **options)["content"]  # type: ignore[arg-type]
    assert isinstance(content, str)
    return content


# -- markdown ---------------------------------------------------------------------------


def test_markdown_structure(report: Path) -> None:
    result = convert_pages(report, [1])
    assert result["format"] == "markdown"
    assert result["pages_extracted"] == [1]
    lines = str(result["content"]).splitlines()
    assert lines[0] == "<!-- page 1 -->"
    assert "# Annual Report" in lines
    assert "## Introduction" in lines
    paragraph = "This report describes the new system architecture and the well-known results"
    assert any(line.startswith(paragraph) for line in lines)
    assert "- First point about apples" in lines
    assert "- Third point" in lines
    assert "| Name | Quantity | Price |" in lines
    assert "| Apples | 12 | 3.50 |" in lines
    assert "| Pears | 7 | 2.10 |" in lines
    assert lines.index("| Name | Quantity | Price |") + 1 == lines.index("| --- | --- | --- |")
    assert lines[-1] == "A closing paragraph follows the table."


def test_two_columns_of_prose_are_paragraphs_in_column_order(report: Path) -> None:
    content = _md(report, 2)
    assert "|" not in content
    assert "## Two columns" in content or "# Two columns" in content
    left, right = join_lines(LEFT_COLUMN), join_lines(RIGHT_COLUMN)
    assert left in content
    assert right in content
    assert content.index(left) < content.index(right)


def test_unicode_bold_heading_and_numbered_list(report: Path) -> None:
    content = _md(report, 3)
    assert "Zürich café naïve: financial flow at the Straße." in content
    assert "ﬁ" not in content
    assert "ﬂ" not in content
    assert "1. Open the file\n2. Read the page\n3. Close it" in content
    if _bold_font() is not None:
        assert "### Bold Findings" in content.splitlines()


def test_markdown_escapes_only_what_changes_meaning() -> None:
    def line(text: str, x0: float, top: float) -> TextLine:
        return TextLine(text, (x0, top, x0 + 6 * len(text), top + 11), 11.0, False)

    rows = [("Key", "Value"), ("pipe", "a|b"), ("hash", "#1")]
    cells = [
        line(text, 56 + 200 * c, 100 + 18 * r)
        for r, row in enumerate(rows)
        for c, text in enumerate(row)
    ]
    blocks = [TextBlock(x.text, x.bbox, [x]) for x in cells]
    heading_like = line("# not a heading", 56, 300)
    blocks.append(TextBlock(heading_like.text, heading_like.bbox, [heading_like]))
    content = to_markdown([PageLayout(1, 595, 842, blocks)])
    assert "| pipe | a\\|b |" in content
    assert "| hash | #1 |" in content
    assert "\\# not a heading" in content


def test_bullet_printed_apart_from_its_text_is_still_a_list_item() -> None:
    lines = []
    for n, text in enumerate(("alpha item", "beta item", "gamma item")):
        top = 100 + 15 * n
        lines += [
            TextLine("•", (56, top, 61, top + 11), 11, False),
            TextLine(text, (70, top, 130, top + 11), 11, False),
        ]
    blocks = [
        TextBlock("•\n•\n•", (56, 100, 61, 141), lines[0::2]),
        TextBlock("items", (70, 100, 130, 141), lines[1::2]),
    ]
    content = to_markdown([PageLayout(1, 595, 842, blocks)])
    assert "- alpha item\n- beta item\n- gamma item" in content
    assert "|" not in content


def test_wrapped_list_item_in_a_block_of_its_own_continues_the_item() -> None:
    def block(text: str, x0: float, top: float) -> TextBlock:
        line = TextLine(text, (x0, top, x0 + 5 * len(text), top + 10), 10, False)
        return TextBlock(text, line.bbox, [line])

    blocks = [
        block("• first item that wraps onto", 120, 100),
        block("the next line", 130, 113),
        block("• second item", 120, 131),
        block("A paragraph after the list.", 120, 160),
    ]
    content = to_markdown([PageLayout(1, 595, 842, blocks)])
    assert "- first item that wraps onto the next line\n- second item\n\nA paragraph" in content


def test_dash_inside_a_sentence_is_not_a_list_item() -> None:
    texts = ("The result of the first test run", "– and of the second – was clear.")
    lines = [
        TextLine(t, (56, 100 + 15 * n, 250, 111 + 15 * n), 11, False) for n, t in enumerate(texts)
    ]
    page = PageLayout(1, 595, 842, [TextBlock("\n".join(texts), (56, 100, 250, 126), lines)])
    assert to_markdown([page]).endswith("\n\n" + " ".join(texts))


def test_join_lines_rejoins_only_lower_case_continuations() -> None:
    assert join_lines(["the archi-", "tecture"]) == "the architecture"
    assert join_lines(["Jean-", "Paul"]) == "Jean- Paul"
    assert join_lines(["well-known", "results"]) == "well-known results"
    assert join_lines(["soft\xad", "hyphen"]) == "softhyphen"
    assert join_lines(["ends with a dash -", "then"]) == "ends with a dash - then"


def test_layout_pages_gives_plain_records(report: Path) -> None:
    first, third = layout_pages(report, [3, 1])
    assert (first.number, third.number) == (1, 3)
    assert (round(first.width), round(first.height)) == (595, 842)
    lines = first.lines
    assert all(type(line) is TextLine for line in lines)
    title = next(line for line in lines if line.text == "Annual Report")
    body = next(line for line in lines if line.text == BODY[0])
    assert title.font_size == pytest.approx(24, abs=0.5)
    assert body.font_size == pytest.approx(11, abs=0.5)
    assert title.top < body.top
    assert title.x0 == pytest.approx(LEFT, abs=1)
    assert not title.bold
    if _bold_font() is not None:
        bold = next(line for line in third.lines if line.text == "Bold Findings")
        assert bold.bold
        assert "Bold" in bold.font_name


# -- html and plain ---------------------------------------------------------------------


def test_html(report: Path) -> None:
    content = str(convert_pages(report, [1, 3], "html")["content"])
    assert content.startswith('<section data-page="1">')
    assert '<section data-page="3">' in content
    assert "<h1>Annual Report</h1>" in content
    assert "<h2>Introduction</h2>" in content
    assert "<li>First point about apples</li>" in content
    assert "<table>" in content
    assert "<th>Quantity</th>" in content
    assert "<td>3.50</td>" in content
    assert "<ol>\n<li>Open the file</li>" in content
    assert "\\input{secret} and ![img](/etc/passwd) with $x$ and *stars* | pipes" in content
    assert "<p>" in content
    assert "<script" not in content


def test_html_escapes_text() -> None:
    line = TextLine("a <b> & c", (56, 100, 120, 111), 11, False)
    page = PageLayout(1, 595, 842, [TextBlock(line.text, line.bbox, [line])])
    assert "<p>a &lt;b&gt; &amp; c</p>" in to_html([page])


def test_plain(report: Path) -> None:
    result = convert_pages(report, [1], "plain")
    content = str(result["content"])
    assert "Annual Report\n\nIntroduction\n\n" in content
    assert "\n".join(BODY) in content  # as printed
    assert "• First point about apples" in content
    assert "Apples\t12\t3.50" in content
    assert "#" not in content
    assert "<" not in content


def test_preserve_layout_keeps_columns_side_by_side(report: Path) -> None:
    plain = str(convert_pages(report, [2], "plain", preserve_layout=True)["content"])
    first = next(line for line in plain.splitlines() if LEFT_COLUMN[0] in line)
    assert RIGHT_COLUMN[0] in first
    assert first.index(RIGHT_COLUMN[0]) > len(LEFT_COLUMN[0])
    table = str(convert_pages(report, [1], "plain", preserve_layout=True)["content"])
    row = next(line for line in table.splitlines() if line.startswith("Apples"))
    header = next(line for line in table.splitlines() if line.startswith("Name"))
    assert row.index("12") == header.index("Quantity")
    markdown = _md(report, 2, preserve_layout=True)
    assert markdown.startswith("<!-- page 2 -->\n\n```\n")
    assert markdown.endswith("\n```")


# -- pages, errors ----------------------------------------------------------------------


def test_page_selection(report: Path) -> None:
    result = convert_pages(report, [3, 1, 3])
    assert result["pages_extracted"] == [1, 3]
    content = str(result["content"])
    assert content.index("<!-- page 1 -->") < content.index("<!-- page 3 -->")
    assert "\n\n---\n\n<!-- page 3 -->" in content
    assert "<!-- page 2 -->" not in content
    assert "Two columns" not in content
    plain = str(convert_pages(report, [1, 2], "plain")["content"])
    assert "\n\f\n" in plain


def test_page_out_of_range(report: Path) -> None:
    with pytest.raises(PageOutOfRange, match="1-3"):
        convert_pages(report, [4])
    with pytest.raises(PageOutOfRange, match="1-3"):
        convert_pages(report, [0])


def test_bad_arguments(report: Path) -> None:
    with pytest.raises(InvalidQuery, match="markdown, html, plain, latex, docx"):
        convert_pages(report, [1], "pdf")
    with pytest.raises(InvalidQuery, match="at least one page"):
        convert_pages(report, [])
    with pytest.raises(InvalidQuery):
        convert_pages(report, [1], timeout=0)
    assert convert_pages(report, [1], " HTML ")["format"] == "html"


def test_time_limit(report: Path) -> None:
    with pytest.raises(ConversionError, match="longer than"):
        convert_pages(report, [1, 2, 3], timeout=1e-9)


def test_encrypted_with_empty_password_converts(tmp_path: Path) -> None:
    path = pdfgen.write_encrypted_pdf(
        tmp_path / "open.pdf", ["secret but open\n\nﬁne print"], user_password=""
    )
    content = _md(path, 1)
    assert "secret but open" in content
    assert "fine print" in content


def test_page_without_text_layer_converts_to_nothing(tmp_path: Path) -> None:
    path = pdfgen.write_image_only_pdf(tmp_path / "scan.pdf")
    assert _md(path, 1) == "<!-- page 1 -->"
    assert convert_pages(path, [1], "plain", preserve_layout=True)["content"] == ""


def test_page_without_text_layer_converts_its_ocr_text(tmp_path: Path) -> None:
    path = pdfgen.write_image_only_pdf(tmp_path / "scan.pdf")
    ocr_texts = {1: "SCANNED INVOICE\n4711\n\nPaid in full"}
    markdown = convert_pages(path, [1], "markdown", ocr_texts=ocr_texts)
    assert markdown["content"] == "<!-- page 1 -->\n\nSCANNED INVOICE 4711\n\nPaid in full"
    assert markdown["ocr_pages"] == [1]
    html = convert_pages(path, [1], "html", ocr_texts=ocr_texts)["content"]
    assert "<p>SCANNED INVOICE 4711</p>" in html
    assert "<p>Paid in full</p>" in html
    text_page = pdfgen.write_pdf(tmp_path / "text.pdf", ["A real text layer"])
    kept = convert_pages(text_page, [1], "plain", ocr_texts={1: "not this"})
    assert kept["content"] == "A real text layer"
    assert "ocr_pages" not in kept


def test_password_and_damage_are_conversion_errors(tmp_path: Path) -> None:
    locked = pdfgen.write_encrypted_pdf(tmp_path / "locked.pdf", ["x"], user_password="pw")
    with pytest.raises(ConversionError, match="password"):
        convert_pages(locked, [1])
    corrupt = pdfgen.write_corrupt_pdf(tmp_path / "corrupt.pdf")
    with pytest.raises(ConversionError, match="Failed to parse PDF"):
        convert_pages(corrupt, [1])


def test_missing_pandoc_is_named(report: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither on PATH nor bundled (pypandoc-binary uninstalled): the error says how to get it."""
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(pages.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ConversionError, match=r"needs pandoc.*pip install pypandoc-binary"):
        convert_pages(report, [1], "latex")
    with pytest.raises(ConversionError, match="'docx' needs pandoc"):
        convert_pages(report, [1], "docx")


def test_bundled_pandoc_when_none_is_on_path(
    report: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README command 1 alone gives docx: the pandoc inside the pypandoc-binary wheel."""
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH where no pandoc is
    program = Path(_find_pandoc("docx"))
    assert program.name.startswith("pandoc")
    assert program.parent.name == "files"
    assert program.parent.parent.name == "pypandoc"
    data = base64.b64decode(str(convert_pages(report, [1], "docx")["content"]))
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert "Annual Report" in archive.read("word/document.xml").decode("utf-8")


# -- pandoc -----------------------------------------------------------------------------


def test_latex(report: Path) -> None:
    result = convert_pages(report, [1, 3], "latex")
    assert result["format"] == "latex"
    assert result["pages_extracted"] == [1, 3]
    tex = str(result["content"])
    assert "\\section{Annual Report}" in tex
    assert "\\subsection{Introduction}" in tex
    assert "new system architecture" in tex
    assert "\\begin{itemize}" in tex
    assert "First point about apples" in tex
    assert "Apples & 12 & 3.50" in tex
    assert "\\begin{document}" not in tex  # a fragment to paste
    # text from the PDF stays text: no raw TeX, no image, no math
    assert "\\input{secret}" not in tex
    assert "input\\{secret\\}" in tex
    assert "\\textbackslash" in tex
    assert "\\includegraphics" not in tex
    assert "$x$" not in tex


def test_table_cells_stay_cells_through_pandoc(tmp_path: Path) -> None:
    rows = [("Key", "Value"), ("pipe", "a|b"), ("star", "*x*")]
    cells = [
        TextLine(text, (56 + 200 * c, 100 + 18 * r, 90 + 200 * c, 111 + 18 * r), 11, False)
        for r, row in enumerate(rows)
        for c, text in enumerate(row)
    ]
    page = PageLayout(1, 595, 842, [TextBlock(x.text, x.bbox, [x]) for x in cells])
    source = to_markdown([page], for_pandoc=True)
    tex = run_pandoc(_find_pandoc("latex"), source, "latex", time.monotonic() + 60, 60)
    text = tex.decode()
    assert re.search(r"pipe & a\\textbar(\{\}| )b", text)
    assert "star & *x*" in text


def test_docx(report: Path) -> None:
    result = convert_pages(report, [1, 3], "docx")
    assert result["encoding"] == "base64"
    assert result["media_type"] == DOCX_MEDIA_TYPE
    data = base64.b64decode(str(result["content"]))
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        document = archive.read("word/document.xml").decode("utf-8")
        assert not [name for name in archive.namelist() if name.startswith("word/media/")]
    for text in ("Annual Report", "new system architecture", "First point about apples"):
        assert text in document
    assert "Quantity" in document
    assert "financial flow" in document


def test_preserved_layout_through_pandoc(report: Path) -> None:
    tex = str(convert_pages(report, [2], "latex", preserve_layout=True)["content"])
    assert "\\begin{verbatim}" in tex
    first = next(line for line in tex.splitlines() if LEFT_COLUMN[0] in line)
    assert RIGHT_COLUMN[0] in first
