"""Whole pages: extract_pdf_page (seed 001: layout converted to Markdown, HTML, plain text,
LaTeX, DOCX) and get_page_image (seed 004: a PNG rendered with pypdfium2 at a DPI that
keeps it under a byte budget, cached on disk inside the index folder)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pdfindex import deadline
from pdfindex.api import PdfIndex, parse_pages
from pdfindex.errors import DocumentNotFound, InvalidQuery, PageOutOfRange
from pdfindex.paths import open_regular
from pdfindex.tools.budget import cut_text, items_budget
from pdfindex.tools.catalog import record_by_slug
from pdfindex.tools.names import find_document, readable
from pdfindex.tools.render import MAX_DPI, MIN_DPI
from pdfindex.tools.results import ExtractPdfPageResult
from pdfindex.workers import WorkerDied

DEFAULT_DPI = 150
NO_LIMIT = 3600.0  # seconds a worker call may take when request_timeout is 0


def page_png(
    index: PdfIndex, fd: int, sha256: str, page: int, dpi: int | None = None
) -> tuple[bytes, float, bool]:
    """(PNG bytes, DPI used, whether it came from the cache) for one page of the open
    file `fd`, rendered in a killable worker (`PdfIndex.isolated`) within the request's
    time limit; the DPI is below the one asked for when the PNG budget or, for a huge
    page, the pixel budget needs it."""
    wanted = checked_dpi(dpi)
    folder = index.settings.index_dir / "pages" / sha256[:2] / sha256
    cached = sorted(folder.glob(f"p{page}-{wanted}-*.png")) if folder.exists() else []
    if cached:
        return cached[0].read_bytes(), float(cached[0].stem.rsplit("-", 1)[1]), True
    png, used = index.isolated.call(
        "pdfindex.tools.render:page_within_budget",
        fd,
        page,
        wanted,
        index.settings.page_image_bytes,
        timeout=deadline.remaining(NO_LIMIT),
        what=f"rendering page {page}",
    )
    folder.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    with os.fdopen(handle, "wb") as out:
        out.write(png)
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

    ocr_texts = None
    if record.ocr_pages:  # scanned pages have no layout: convert their OCR text
        texts = index.engine.page_texts(record.slug)
        ocr_texts = {n: texts[n - 1] for n in pages if 1 <= n <= len(texts)}
    # pdfminer's layout of one hostile page can take minutes: a worker, killed at the
    # limit (request_timeout per page asked for, the whole call at most `timeout`).
    limit = deadline.seconds()
    allowed = min(limit * len(set(pages)), index.settings.timeout) if limit else NO_LIMIT
    with opened(real, index) as fd:
        result = index.isolated.call(
            "pdfindex.convert.pages:convert_pages",
            fd,
            pages,
            output_format,
            preserve_layout,
            allowed,
            ocr_texts,
            timeout=allowed,
            what=f"converting {len(set(pages))} page(s)",
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
        with opened(real, index) as fd:
            png, used, cached = page_png(index, fd, record.sha256, page_number, dpi)
    except (MemoryError, WorkerDied):
        raise InvalidQuery(too_large(record.slug, page_number)) from None
    caption = (
        f"Page {page_number} of {record.pages}\nDocument: {record.slug} ({record.title})\n"
        f"Rendered at {used:g} dpi, {len(png)} bytes{' (cached)' if cached else ''}"
    )
    return caption, png


@contextmanager
def opened(real: Path, index: PdfIndex) -> Iterator[int]:
    """`real` opened once, safely (a regular file inside the files folder, or the folder
    of another source it is in, not a link or a FIFO put there since it was indexed), as
    a descriptor a worker process receives."""
    folder = index.folder_of(real)
    try:
        fd = open_regular(real, inside=folder)
    except OSError as exc:  # gone, or swapped for a link or a FIFO since it was indexed
        shown = real.relative_to(folder.resolve()).as_posix()
        cause = exc.strerror or str(exc)
        raise DocumentNotFound(f"{shown} cannot be read now ({cause})") from None
    try:
        yield fd
    finally:
        os.close(fd)
