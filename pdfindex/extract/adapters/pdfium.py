"""pypdfium2 text extraction: the fast default engine for index text."""

from __future__ import annotations

import ctypes
import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from pdfindex.errors import EncryptedDocument
from pdfindex.extract.adapters.base import PDF_METADATA_KEYS, Extraction, finish
from pdfindex.extract.glyphs import GLYPHS_VERSION, SUSPECT, Glyph, is_suspect, resolve
from pdfindex.layout.geometry import BACKGROUND_SHARE, LARGE_IMAGE_SHARE
from pdfindex.memory import private_mb

if TYPE_CHECKING:
    from pdfindex.extract.ocr import PageImage


def _restore_hyphens(text: str) -> str:
    """pdfium joins a word hyphenated at a line end and marks the join with \x02 (or
    U+FFFE); put back the printed hyphen and line break, which exact search understands."""
    return text.replace("\x02", "-\n").replace("\ufffe", "-\n")


# Raised when the text of a page changes: an index read at another version reads its PDFs
# again (indexer/readers.py). 2: pages with characters beyond the BMP kept their last ones.
TEXT_VERSION = 2


class PdfiumAdapter:
    name = "pdfium"
    description = "PDF text with pypdfium2 (PDFium), the fast default"
    extensions = (".pdf",)

    @property
    def version(self) -> str:
        version = pdfium.PYPDFIUM_INFO.version
        return f"pypdfium2-{version}+text-{TEXT_VERSION}+glyphs-{GLYPHS_VERSION}"

    @property
    def binary(self) -> str:
        return f"pypdfium2 {pdfium.PYPDFIUM_INFO.version}"

    def extract(self, path: Path) -> Extraction:
        pdf = _open(path)
        try:
            pages: list[str] = []
            suspect: dict[int, list[Glyph]] = {}  # page index -> its unnamed characters
            image_pages: list[int] = []
            opened_at = private_mb()
            for index in range(len(pdf)):
                if index % REOPEN_CHECK_PAGES == 0 and private_mb() - opened_at > REOPEN_GROWTH_MB:
                    pdf.close()  # drops what PDFium keeps of the pages read so far
                    pdf = _open(path)
                    opened_at = private_mb()
                text, glyphs, large_image = _read_page(pdf, index)
                pages.append(text)
                if glyphs is not None:
                    suspect[index] = glyphs
                if large_image:
                    image_pages.append(index + 1)
            raw_meta = pdf.get_metadata_dict(skip_empty=True)
        finally:
            pdf.close()
        note = _read_glyphs(path, pages, suspect) if suspect else None
        pages = [_restore_hyphens(text) for text in pages]
        metadata = {PDF_METADATA_KEYS[k]: v for k, v in raw_meta.items() if k in PDF_METADATA_KEYS}
        extraction = finish(pages, metadata, self.version)
        extraction.image_pages = image_pages
        extraction.notes.extend([note] if note else [])
        return extraction


def _fast(function, result, *arguments):  # noqa: ANN001, ANN202
    """A PDFium function called with plain addresses: pypdfium2's typed pointers cost a
    Python object per call, a third of a loop over every object of a page."""
    address = ctypes.cast(function, ctypes.c_void_p).value
    return ctypes.CFUNCTYPE(result, *arguments)(address)


# Argument and result types of the prototypes below: handles and pointers as addresses.
_INT, _UINT, _SIZE, _ADDRESS = ctypes.c_int, ctypes.c_uint, ctypes.c_size_t, ctypes.c_void_p
_FLOAT_P, _UTF16_P = ctypes.POINTER(ctypes.c_float), ctypes.POINTER(ctypes.c_ushort)
_count_objects = _fast(pdfium_c.FPDFPage_CountObjects, _INT, _ADDRESS)
_get_object = _fast(pdfium_c.FPDFPage_GetObject, _ADDRESS, _ADDRESS, _INT)
_object_type = _fast(pdfium_c.FPDFPageObj_GetType, _INT, _ADDRESS)
_object_bounds = _fast(pdfium_c.FPDFPageObj_GetBounds, _INT, _ADDRESS, *[_FLOAT_P] * 4)
_count_chars = _fast(pdfium_c.FPDFText_CountChars, _INT, _ADDRESS)
_get_text = _fast(pdfium_c.FPDFText_GetText, _INT, _ADDRESS, _INT, _INT, _UTF16_P)
_unicode = _fast(pdfium_c.FPDFText_GetUnicode, _UINT, _ADDRESS, _INT)
_is_generated = _fast(pdfium_c.FPDFText_IsGenerated, _INT, _ADDRESS, _INT)
_text_object = _fast(pdfium_c.FPDFText_GetTextObject, _ADDRESS, _ADDRESS, _INT)
_font_of = _fast(pdfium_c.FPDFTextObj_GetFont, _ADDRESS, _ADDRESS)
_base_font_name = _fast(pdfium_c.FPDFFont_GetBaseFontName, _SIZE, _ADDRESS, ctypes.c_char_p, _SIZE)


def _read_page(pdf: pdfium.PdfDocument, index: int) -> tuple[str, list[Glyph] | None, bool]:
    """A page's text, its unnamed characters (None: it has none) and whether it shows a
    large image, through PDFium's own handles: pypdfium2's page objects cost 5% more."""
    page = pdfium_c.FPDF_LoadPage(pdf.raw, index)
    if not page:
        raise pdfium.PdfiumError("Failed to load page.")
    try:
        textpage = pdfium_c.FPDFText_LoadPage(page)
        if not textpage:
            raise pdfium.PdfiumError("Failed to load text page.")
        try:
            text = page_text(page, textpage)
            glyphs = _suspect_glyphs(textpage) if SUSPECT.search(text) else None
        finally:
            pdfium_c.FPDFText_ClosePage(textpage)
        return text, glyphs, has_large_image(page)
    finally:
        pdfium_c.FPDF_ClosePage(page)


def page_text(page: pdfium_c.FPDF_PAGE, textpage: pdfium_c.FPDF_TEXTPAGE) -> str:
    """The text PDFium reads within the page's bounding box, in one call. pypdfium2's
    get_text_bounded asks twice and sizes its buffer in characters but is filled in UTF-16
    units: a page with characters beyond the BMP (math italic, CJK extensions) lost as many
    of its last characters (41 pages, 629 characters of the 48k corpus, page numbers
    among them)."""
    box = pdfium_c.FS_RECTF()
    if not pdfium_c.FPDF_GetPageBoundingBox(page, box):
        raise pdfium.PdfiumError("Failed to get page bounding box.")
    # Each character gives at most "\r\n" and itself, each at most two UTF-16 units.
    size = 6 * pdfium_c.FPDFText_CountChars(textpage) + 1
    buffer = (ctypes.c_ushort * size)()
    written = pdfium_c.FPDFText_GetBoundedText(
        textpage, box.left, box.top, box.right, box.bottom, buffer, size
    )
    if written > 0 and buffer[written - 1] == 0:  # the terminating NUL, counted
        written -= 1
    return ctypes.string_at(buffer, max(written, 0) * 2).decode("utf-16-le", "ignore")


def _suspect_glyphs(textpage: pdfium_c.FPDF_TEXTPAGE) -> list[Glyph]:
    """The page's characters PDFium gave as a bare code (pdfindex.extract.glyphs), with
    their font's name, in page order."""
    raw = ctypes.cast(textpage, ctypes.c_void_p).value
    name = ctypes.create_string_buffer(256)
    glyphs: list[Glyph] = []
    fonts: dict[int, str] = {}  # font handle -> its name
    for index in _suspect_indexes(raw):
        if _is_generated(raw, index) == 1:
            continue
        font = _font_of(_text_object(raw, index)) or 0
        if font not in fonts:
            size = _base_font_name(font, name, len(name)) if font else 0
            text = name.value.decode("latin-1") if 0 < size <= len(name) else ""
            fonts[font] = _SUBSET_TAG.sub("", text)
        glyphs.append((fonts[font], _unicode(raw, index)))
    return glyphs


def _suspect_indexes(raw: int) -> list[int]:
    """The indexes of the page's suspect characters: found in its whole text at once
    (one call, where a call per character cost 1 ms a page), when that text holds one
    character per index (PDFium leaves out those beyond the BMP); else asked character
    by character."""
    count = _count_chars(raw)
    buffer = (ctypes.c_ushort * (count + 1))()
    written = _get_text(raw, 0, count, buffer)  # UTF-16, NUL included
    text = ctypes.string_at(buffer, max(written - 1, 0) * 2).decode("utf-16-le", "replace")
    if len(text) == count:
        found = [match.start() for match in SUSPECT.finditer(text)]
        if all(_unicode(raw, index) == ord(text[index]) for index in found):
            return found
    return [i for i in range(count) if is_suspect(_unicode(raw, i))]


_SUBSET_TAG = re.compile(r"^[A-Z]{6}\+")


def _read_glyphs(path: Path, pages: list[str], suspect: dict[int, list[Glyph]]) -> str | None:
    """Put pdfminer.six's reading of the suspect characters in their place, in `pages`.
    A file pdfminer cannot read keeps them as they are (the text rules drop them): the
    note says so."""
    from pdfindex.extract.adapters.pdfminer import glyph_readings

    wanted = {index: set(glyphs) for index, glyphs in suspect.items()}
    try:
        readings = glyph_readings(path, wanted)
    except Exception as exc:  # corrupt PDFs raise anything: pdfium's text stands
        return f"glyphs: characters without a name left unread: {type(exc).__name__}: {exc}"
    for index, glyphs in suspect.items():
        pages[index] = resolve(pages[index], glyphs, readings.get(index, []))
    return None


# PDFium keeps what it parsed for every page it has loaded (fonts, images, content
# streams) until the document closes: 180 MB for one 382-page manual. Reopening the
# document once it has grown this much keeps an extraction worker near its start-up size:
# on that manual the worker peaks at 107 MB instead of 193 MB, in the same time. Ordinary
# files never reach it.
REOPEN_GROWTH_MB = 32
REOPEN_CHECK_PAGES = 4


def _open(path: Path) -> pdfium.PdfDocument:
    try:
        return pdfium.PdfDocument(str(path), password=None)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise EncryptedDocument("a password is required to open this PDF") from exc
        raise


def has_large_image(page: pdfium_c.FPDF_PAGE) -> bool:
    """Whether the page shows an image big enough to be a figure but not a full-page scan
    (an uncaptioned figure for the elements pass). Raw calls over top-level objects: the
    object wrappers cost as much as the text extraction itself."""
    area = pdfium_c.FPDF_GetPageWidthF(page) * pdfium_c.FPDF_GetPageHeightF(page)
    if area <= 0:
        return False
    address = ctypes.cast(page, ctypes.c_void_p).value
    bounds = [ctypes.c_float() for _ in range(4)]
    for number in range(_count_objects(address)):
        obj = _get_object(address, number)
        if _object_type(obj) != pdfium_c.FPDF_PAGEOBJ_IMAGE:
            continue
        if _object_bounds(obj, *bounds):
            left, bottom, right, top = (b.value for b in bounds)
            if LARGE_IMAGE_SHARE <= (right - left) * (top - bottom) / area < BACKGROUND_SHARE:
                return True
    return False


# The most pixels one rendering may have: 40 MP is 120 MB of RGB bitmap (an A4 page at
# 300 dpi is 8.7 MP). A 14,400 pt page at 150 dpi would be 4.5 GP, 6.5 GB: rendered
# smaller instead, at the resolution that fits.
MAX_PIXELS = 40_000_000


def fitting_scale(width: float, height: float, dpi: float, max_pixels: float = MAX_PIXELS) -> float:
    """The render scale for `dpi`, lowered so that width x height points stay within
    `max_pixels`."""
    scale = dpi / 72.0
    pixels = max(width * height, 1.0) * scale * scale
    # 0.999: the bitmap rounds its sides up to whole pixels
    return scale if pixels <= max_pixels else scale * math.sqrt(max_pixels / pixels) * 0.999


def render_page_png(
    path: Path, page_number: int, dpi: float, max_pixels: float = MAX_PIXELS
) -> tuple[bytes, int, float]:
    """The page (1-based) as PNG bytes, the document's page count, and the DPI used:
    `dpi`, or less for a page too large for `max_pixels`."""
    import io

    image, count, used = render_page(path, page_number, dpi, max_pixels)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=6)  # optimize=True: 8x the time
    return buffer.getvalue(), count, used


def render_page(
    path: Path,
    page_number: int,
    dpi: float,
    max_pixels: float = MAX_PIXELS,
    grayscale: bool = False,
) -> tuple[PageImage, int, float]:
    """render_page_png's page as a Pillow image (OCR asks for grey)."""
    pdf = pdfium.PdfDocument(str(path), password=None)
    try:
        page = pdf[page_number - 1]
        try:
            scale = fitting_scale(*page.get_size(), dpi, max_pixels)
            image = page.render(scale=scale, grayscale=grayscale).to_pil()
        finally:
            page.close()
        return image, len(pdf), scale * 72.0
    finally:
        pdf.close()


def pages_with_images(path: Path, page_numbers: list[int]) -> list[int]:
    """Those of the 1-based pages that show an image (OCR candidates; blank pages are not)."""
    pdf = pdfium.PdfDocument(str(path), password=None)
    try:
        found = []
        for number in page_numbers:
            page = pdf[number - 1]
            try:
                objects = page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=3)
                if next(objects, None) is not None:
                    found.append(number)
            finally:
                page.close()
        return found
    finally:
        pdf.close()


def render_region_png(
    path: Path, page_number: int, bbox: tuple[float, float, float, float], dpi: float
) -> bytes:
    """A region of a page, (x0, top, x1, bottom) in points from the top-left corner, as
    PNG bytes at `dpi` (clipped to the page)."""
    import io

    pdf = pdfium.PdfDocument(str(path), password=None)
    try:
        page = pdf[page_number - 1]
        try:
            width, height = page.get_size()
            x0, top, x1, bottom = bbox
            crop = (
                max(0.0, x0),
                max(0.0, height - bottom),
                max(0.0, width - x1),
                max(0.0, top),
            )  # pdfium crops (left, bottom, right, top) amounts off each side
            scale = fitting_scale(width - crop[0] - crop[2], height - crop[1] - crop[3], dpi)
            image = page.render(scale=scale, crop=crop).to_pil()
        finally:
            page.close()
    finally:
        pdf.close()
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=6)
    return buffer.getvalue()


def page_words(path: Path, page_number: int) -> tuple[float, float, list[tuple]]:
    """(width, height, words) of a page (1-based): each word as (text, x0, top, x1,
    bottom) in points from the top-left corner, a word split by the words of
    `pdfindex.text.words`, for the web page's highlight boxes."""
    from pdfindex.text.words import word_spans

    pdf = pdfium.PdfDocument(str(path), password=None)
    try:
        page = pdf[page_number - 1]
        try:
            width, height = page.get_size()
            left, bottom = page.get_cropbox()[:2]  # char boxes are in the page's own space
            textpage = page.get_textpage()
            try:
                count = textpage.count_chars()
                # One character per index, so that a word's span is its characters' indexes.
                text = "".join(
                    chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, i) or 32) for i in range(count)
                )
                found = []
                for word, start, end in word_spans(text):
                    boxes = [textpage.get_charbox(i) for i in range(start, end)]
                    boxes = [b for b in boxes if b[2] > b[0] or b[3] > b[1]]
                    if not boxes:
                        continue
                    x0 = min(b[0] for b in boxes) - left
                    x1 = max(b[2] for b in boxes) - left
                    top = height - (max(b[3] for b in boxes) - bottom)
                    low = height - (min(b[1] for b in boxes) - bottom)
                    found.append((word, x0, top, x1, low))
                return width, height, found
            finally:
                textpage.close()
        finally:
            page.close()
    finally:
        pdf.close()


def outline(path: Path, most: int = 500) -> list[tuple[int, str, int]]:
    """The document's outline (bookmarks) as (level, title, 1-based page), at most `most`
    entries; those pointing nowhere are left out."""
    pdf = pdfium.PdfDocument(str(path), password=None)
    try:
        found = []
        for item in pdf.get_toc(max_depth=8):
            dest = item.get_dest()
            target = dest.get_index() if dest is not None else None
            if target is not None:
                found.append((item.level, item.get_title(), target + 1))
            if len(found) >= most:
                break
        return found
    finally:
        pdf.close()
