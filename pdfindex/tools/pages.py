"""Whole pages: extract_pdf_page (seed 001: layout converted to Markdown, HTML, plain text,
LaTeX, DOCX) and get_page_image (seed 004: a PNG rendered with pypdfium2 at a DPI that
keeps it under a byte budget, cached on disk inside the index folder)."""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pdfindex.api import PdfIndex, parse_pages
from pdfindex.errors import DocumentNotFound, InvalidQuery, PageOutOfRange
from pdfindex.extract.adapters.pdfium import render_page_png
from pdfindex.paths import fd_path, open_regular
from pdfindex.tools.budget import cut_text, items_budget
from pdfindex.tools.catalog import record_by_slug
from pdfindex.tools.names import find_document, readable
from pdfindex.tools.results import ExtractPdfPageResult

DEFAULT_DPI = 150
MIN_DPI, MAX_DPI = 36, 300
DEFAULT_BUDGET = 1_500_000


def page_png(
    path: Path,
    sha256: str,
    page: int,
    cache_dir: Path,
    dpi: int | None = None,
    budget: int = DEFAULT_BUDGET,
) -> tuple[bytes, float, bool]:
    """(PNG bytes, DPI used, whether it came from the cache) for one page; the DPI is below
    the one asked for when the PNG budget or, for a huge page, the pixel budget needs it."""
    wanted = checked_dpi(dpi)
    folder = cache_dir / sha256[:2] / sha256
    cached = sorted(folder.glob(f"p{page}-{wanted}-*.png")) if folder.exists() else []
    if cached:
        return cached[0].read_bytes(), float(cached[0].stem.rsplit("-", 1)[1]), True
    fitted: list[float] = []  # the DPI a page too large for MAX_PIXELS was rendered at

    def render(dpi: int) -> bytes:
        png, _count, used = render_page_png(path, page, dpi)
        fitted.append(used)
        return png

    png, budgeted = within_budget(render, wanted, budget)
    used = float(f"{min(budgeted, fitted[-1]):.3g}")
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    with os.fdopen(fd, "wb") as handle:
        handle.write(png)
    os.replace(tmp, folder / f"p{page}-{wanted}-{used:g}.png")
    return png, used, False


def too_large(slug: str, page_number: int) -> str:
    """Why a page image could not be made: the page is too large to render in memory."""
    return (
        f"page_number: page {page_number} of '{slug}' is too large to render (out of memory); "
        "extract_pdf_page or read_pdf give its text"
    )


def checked_dpi(dpi: int | None) -> int:
    """The DPI asked for (the default when None), refused outside MIN_DPI-MAX_DPI."""
    wanted = DEFAULT_DPI if dpi is None else dpi
    if not MIN_DPI <= wanted <= MAX_DPI:
        raise InvalidQuery(f"dpi must be from {MIN_DPI} to {MAX_DPI}, got {dpi}")
    return wanted


def within_budget(render: Callable[[int], bytes], dpi: int, budget: int) -> tuple[bytes, int]:
    """(PNG, DPI used): rendered at `dpi`, then lower until the PNG fits `budget` bytes."""
    used = dpi
    png = render(used)
    while len(png) > budget and used > MIN_DPI:
        # PNG size grows with the pixel count, i.e. with the square of the DPI.
        used = max(MIN_DPI, int(used * math.sqrt(budget / len(png)) * 0.95))
        png = render(used)
    return png, used


def extract_pdf_page(
    index: PdfIndex,
    file: str,
    pages: list[int],
    output_format: str = "markdown",
    preserve_layout: bool = False,
) -> ExtractPdfPageResult:
    """Convert pages of a PDF (layout parsed on demand): {content, pages_extracted, format}."""
    record = find_document(index, file)
    real, rel = index.resolve(record.path)
    if not rel.lower().endswith(".pdf"):
        raise InvalidQuery(f"{file!r} is not a PDF; use read_pdf or search_in_file for it")
    readable(record)
    parse_pages(pages, record.pages)  # clear range errors before any parsing
    from pdfindex.convert.pages import convert_pages  # pdfminer's layout engine, loaded on use

    ocr_texts = None
    if record.ocr_pages:  # scanned pages have no layout: convert their OCR text
        texts = index.engine.page_texts(record.slug)
        ocr_texts = {n: texts[n - 1] for n in pages if 1 <= n <= len(texts)}
    with opened(real, index) as checked:
        result = convert_pages(
            checked, pages, output_format, preserve_layout, index.settings.timeout, ocr_texts
        )
    budget = items_budget(index.settings.max_response_chars)
    content = cut_text(result["content"], budget)
    if content != result["content"]:
        if result.get("encoding") == "base64":  # a cut file would be useless
            raise InvalidQuery(
                f"the {output_format} file is {len(result['content'])} characters in base64, "
                f"over the {budget} limit: ask for fewer pages at a time"
            )
        result["content"] = content
        result["truncated"] = True
        result["note"] = f"cut at {budget} characters: ask for fewer pages at a time"
    return result


def get_page_image(
    index: PdfIndex, document_slug: str, page_number: int, dpi: int | None = None
) -> tuple[str, bytes]:
    """A full page as (caption text, PNG bytes)."""
    record = record_by_slug(index, document_slug)
    if not record.path.lower().endswith(".pdf"):
        raise InvalidQuery(f"{record.path} is not a PDF; read it with read_pdf")
    readable(record)
    if not 1 <= page_number <= record.pages:
        raise PageOutOfRange(
            f"page {page_number} is out of range: '{record.slug}' has pages 1-{record.pages}"
        )
    real, _ = index.resolve(record.path)
    try:
        with opened(real, index) as checked:
            png, used, cached = page_png(
                checked,
                record.sha256,
                page_number,
                index.settings.index_dir / "pages",
                dpi,
                index.settings.page_image_bytes,
            )
    except MemoryError:
        raise InvalidQuery(too_large(record.slug, page_number)) from None
    caption = (
        f"Page {page_number} of {record.pages}\nDocument: {record.slug} ({record.title})\n"
        f"Rendered at {used:g} dpi, {len(png)} bytes{' (cached)' if cached else ''}"
    )
    return caption, png


@contextmanager
def opened(real: Path, index: PdfIndex) -> Iterator[Path]:
    """`real` opened once, safely (a regular file inside the files folder, not a link or a
    FIFO put there since it was indexed), as a path the PDF libraries open again as that
    same file."""
    try:
        fd = open_regular(real, inside=index.settings.files_dir)
    except OSError as exc:  # gone, or swapped for a link or a FIFO since it was indexed
        shown = real.relative_to(index.settings.files_dir.resolve()).as_posix()
        cause = exc.strerror or str(exc)
        raise DocumentNotFound(f"{shown} cannot be read now ({cause})") from None
    try:
        yield fd_path(fd)
    finally:
        os.close(fd)
