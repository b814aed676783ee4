"""Real documents of every non-PDF format pdfindex reads, holding known text: written by
the libraries and programs people make them with (python-docx, python-pptx, openpyxl,
odfpy, pandoc for ODT/RTF/EPUB, Pillow for images), for tests/test_formats.py and
benchmarks/formats.py.

Each writer takes paragraphs (or slides, sheets, frames) and a title. `write_sample`
writes one document of a format holding `SAMPLE[fmt]` plus filler; `write_corrupt`
writes a file with the right extension and broken contents.
"""

from __future__ import annotations

import html
import random
import shutil
import subprocess
from pathlib import Path

from benchmarks.pdfwriter import lorem_pages, render_scan

FORMATS = ("docx", "odt", "rtf", "pptx", "xlsx", "ods", "epub", "html", "png", "jpg", "tiff")
UNICODE = "Grüße aus Köln, naïve café, Σίσυφος and 東京大学"
# A word of each format's own that no other document or the filler holds.
WORDS = {
    "docx": "marmalade",
    "odt": "lighthouse",
    "rtf": "cinnamon",
    "pptx": "telescope",
    "xlsx": "pineapple",
    "ods": "harpsichord",
    "epub": "labyrinth",
    "html": "chrysanthemum",
    "png": "GIRAFFE",
    "jpg": "PELICAN",
    "tiff": "WALRUS",
}


def sample_paragraphs(fmt: str, filler_pages: int = 2, seed: int = 3) -> list[str]:
    """The known paragraphs of a format's sample: its word, the Unicode line, filler."""
    word = WORDS[fmt]
    paragraphs = [
        f"The {word} paragraph opens this {fmt} document.",
        UNICODE,
        f"A second mention of {word} closes the first part.",
    ]
    for page in lorem_pages(filler_pages, seed=seed):
        paragraphs.extend(page.split("\n")[1:])  # without the "Page marker" line
    return paragraphs


# ------------------------------------------------------------------------------------
# Writers
# ------------------------------------------------------------------------------------


def write_docx(
    path: Path, paragraphs: list[str], title: str, table: list[list[str]] | None = None
) -> Path:
    import docx

    document = docx.Document()
    document.core_properties.title = title
    document.core_properties.author = "pdfindex tests"
    document.add_heading(title, level=1)
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                grid.cell(r, c).text = value
    document.save(str(path))
    return path


def write_pptx(path: Path, slides: list[tuple[str, str, str]], title: str) -> Path:
    """Slides of (title, body, speaker notes)."""
    import pptx

    deck = pptx.Presentation()
    deck.core_properties.title = title
    for heading, body, notes in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = heading
        slide.placeholders[1].text = body
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    deck.save(str(path))
    return path


def write_xlsx(path: Path, sheets: dict[str, list[list[object]]], title: str) -> Path:
    import openpyxl

    book = openpyxl.Workbook()
    book.remove(book.active)
    book.properties.title = title
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
    book.save(str(path))
    return path


def write_ods(path: Path, sheets: dict[str, list[list[object]]], title: str) -> Path:
    from odf import dc
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    document = OpenDocumentSpreadsheet()
    document.meta.addElement(dc.Title(text=title))
    for name, rows in sheets.items():
        table = Table(name=name)
        for row in rows:
            table_row = TableRow()
            for value in row:
                if isinstance(value, (int, float)):
                    cell = TableCell(valuetype="float", value=value)
                else:
                    cell = TableCell(valuetype="string")
                cell.addElement(P(text=str(value)))
                table_row.addElement(cell)
            table.addElement(table_row)
        document.spreadsheet.addElement(table)
    document.save(str(path))
    return path


def pandoc() -> str:
    """The pandoc program: the one on PATH, else pypandoc-binary's."""
    found = shutil.which("pandoc")
    if found:
        return found
    import pypandoc

    return str(pypandoc.get_pandoc_path())


def write_pandoc(path: Path, chapters: list[list[str]], title: str) -> Path:
    """ODT, RTF or EPUB (by `path`'s extension) from Markdown: each chapter a level-1
    heading (EPUB's chapters) followed by its paragraphs."""
    markdown = "\n\n".join(
        f"# Chapter {n}\n\n" + "\n\n".join(chapter) for n, chapter in enumerate(chapters, 1)
    )
    subprocess.run(
        [pandoc(), "-f", "markdown", "-s", "--metadata", f"title={title}", "-o", str(path)],
        input=markdown.encode(),
        check=True,
        capture_output=True,
        timeout=120,
    )
    return path


def write_html(path: Path, paragraphs: list[str], title: str) -> Path:
    body = "\n".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    path.write_text(
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title>"
        "<style>p { color: black } .hidden-style-word {}</style>"
        "<script>var scriptonlyword = 1;</script></head>\n"
        f"<body><nav>Home</nav>\n<h1>{html.escape(title)}</h1>\n{body}\n</body></html>\n",
        encoding="utf-8",
    )
    return path


def write_image(path: Path, frames: list[str]) -> Path:
    """PNG, JPEG or TIFF (by extension) of clean scans of text; a TIFF holds every frame."""
    images = [render_scan(text) for text in frames]
    suffix = path.suffix.lower()
    if suffix in (".tif", ".tiff"):
        images[0].save(path, save_all=True, append_images=images[1:], compression="tiff_deflate")
    else:
        images[0].save(path, quality=90) if suffix in (".jpg", ".jpeg") else images[0].save(path)
    return path


# ------------------------------------------------------------------------------------
# One document of each format
# ------------------------------------------------------------------------------------


def write_sample(
    folder: Path, fmt: str, name: str | None = None, filler_pages: int = 2, seed: int = 3
) -> Path:
    """One document of `fmt` holding its WORDS entry and UNICODE (images: the word only,
    OCR reads no Greek or Japanese here), plus `filler_pages` of filler text."""
    path = folder / f"{name or 'sample'}.{fmt}"
    title = f"Sample {fmt} document"
    paragraphs = sample_paragraphs(fmt, filler_pages, seed)
    word = WORDS[fmt]
    rng = random.Random(seed)
    if fmt == "docx":
        return write_docx(path, paragraphs, title, table=[["cell", word], ["Zürich", "42"]])
    if fmt == "pptx":
        slides = [
            (title, paragraphs[0], f"Speaker notes say {word} too."),
            ("Unicode", UNICODE, ""),
        ]
        slides += [(f"Slide {n}", p, "") for n, p in enumerate(paragraphs[3:], 3)]
        return write_pptx(path, slides, title)
    if fmt in ("xlsx", "ods"):
        rows: list[list[object]] = [["name", "value", "note"], [word, 42, UNICODE]]
        rows += [[f"row{n}", rng.randint(1, 999), p[:60]] for n, p in enumerate(paragraphs[3:])]
        sheets = {"Data": rows, "Second": [["only", "here", f"{word} again"]]}
        return (write_xlsx if fmt == "xlsx" else write_ods)(path, sheets, title)
    if fmt in ("odt", "rtf", "epub"):
        half = max(3, len(paragraphs) // 2)
        return write_pandoc(path, [paragraphs[:half], paragraphs[half:] or ["The end."]], title)
    if fmt == "html":
        return write_html(path, paragraphs, title)
    frames = [f"{word} scanned text\nframe one of the image"]
    if fmt == "tiff":
        frames.append(f"second frame shows {word} again")
    return write_image(path, frames)


def write_corrupt(folder: Path, fmt: str) -> Path:
    """A file named like `fmt` whose contents are broken: a ZIP cut in half for the
    ZIP-based formats, a truncated image, garbage for RTF and HTML's nearest (bytes)."""
    good = write_sample(folder, fmt, name=f"good-{fmt}", filler_pages=1)
    data = good.read_bytes()
    good.unlink()
    path = folder / f"corrupt.{fmt}"
    if fmt == "rtf":
        path.write_bytes(b"this is not rich text at all \x00\x01\x02")
    elif fmt == "html":
        path.write_bytes(b"<html>\x00\x01" + bytes(range(256)) * 10)
    else:
        path.write_bytes(data[: len(data) // 2])
    return path
