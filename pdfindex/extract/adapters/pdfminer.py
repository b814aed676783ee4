"""pdfminer.six text extraction: the layout engine, selectable for index text.

The only module that imports pdfminer. One pass over the pages with a converter whose
buffer is cleared per page (extract_text(page_numbers=[i]) would re-parse per page).
`layout_pages` runs the layout analysis of a few pages on demand (page conversion, element
detection) and hands back plain `pdfindex.layout` records (text and graphics), so no
pdfminer type leaks out.
"""

from __future__ import annotations

import io
import re
import statistics
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from importlib.metadata import version as package_version
from pathlib import Path
from typing import BinaryIO

from pdfminer.converter import PDFPageAggregator, TextConverter
from pdfminer.layout import (
    LAParams,
    LTChar,
    LTContainer,
    LTCurve,
    LTFigure,
    LTImage,
    LTLine,
    LTPage,
    LTRect,
    LTTextBox,
    LTTextLine,
)
from pdfminer.pdfdevice import PDFTextDevice
from pdfminer.pdfdocument import PDFDocument, PDFPasswordIncorrect
from pdfminer.pdfexceptions import PDFException
from pdfminer.pdffont import PDFFont, PDFUnicodeNotDefined
from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
from pdfminer.pdfpage import PDFPage
from pdfminer.pdfparser import PDFParser, PDFStreamParser
from pdfminer.pdftypes import PDFStream, resolve1
from pdfminer.psparser import PSEOF, PSLiteral, literal_name
from pdfminer.utils import decode_text

from pdfindex.errors import EncryptedDocument, PageOutOfRange
from pdfindex.extract.adapters.base import PDF_METADATA_KEYS, Extraction, finish, normalize_text
from pdfindex.layout.records import BBox, Graphic, PageLayout, TextBlock, TextLine
from pdfindex.memory import private_mb


def _open_document(handle: BinaryIO, lazy: bool = False) -> PDFDocument:
    """The document, opened with the empty password as readers do; EncryptedDocument when
    it needs a real one. `lazy`: objects of object streams parsed one at a time
    (_LazyDocument)."""
    try:
        return (_LazyDocument if lazy else PDFDocument)(PDFParser(handle), password="")
    except PDFPasswordIncorrect as exc:
        raise EncryptedDocument("a password is required to open this PDF") from exc


class _LazyDocument(PDFDocument):
    """A document whose object streams give only the objects asked for: each is parsed
    from the offset the stream's table gives it, where pdfminer parses every object of the
    stream to reach one (three quarters of the time of reading a page's glyphs, for the
    page tree and a few fonts of streams of hundreds of objects). A stream whose table
    does not name the object where it says falls back to pdfminer's whole parse."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        # Before pdfminer's own: it reads the catalog, which may lie in an object stream.
        self._tables: dict[object, tuple[PDFStreamParser, int, list[int], list[int]] | None] = {}
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def _getobj_objstm(self, stream: PDFStream, index: int, objid: int) -> object:
        if stream.objid not in self._tables:
            self._tables[stream.objid] = _object_table(self, stream)
        table = self._tables[stream.objid]
        if table is None or not 0 <= index < len(table[2]) or table[2][index] != objid:
            return super()._getobj_objstm(stream, index, objid)
        parser, first, _numbers, offsets = table
        parser.seek(first + offsets[index])
        try:
            return parser.nextobject()[1]
        except PSEOF:
            return super()._getobj_objstm(stream, index, objid)


_COMMENT = re.compile(rb"%[^\r\n]*")


def _object_table(
    document: PDFDocument, stream: PDFStream
) -> tuple[PDFStreamParser, int, list[int], list[int]] | None:
    """An object stream's parser, where its objects start (`First`), and its table: each
    object's number and offset; None when the stream does not say them plainly."""
    try:
        count, first = int(stream["N"]), int(stream["First"])
        data = stream.get_data()
        header = _COMMENT.sub(b"", data[:first]).split()  # qpdf's QDF files have one
        if count < 0 or len(header) != 2 * count:
            return None
        numbers, offsets = [int(h) for h in header[0::2]], [int(h) for h in header[1::2]]
    except (KeyError, TypeError, ValueError, PDFException):
        return None
    parser = PDFStreamParser(data)
    parser.set_document(document)
    return parser, first, numbers, offsets


def _decode(value: object) -> str:
    """A document-information string: UTF-16 or UTF-8 with their byte-order marks, else
    PDFDocEncoding (not Latin-1: its 0x80-0x9f are dashes and quotes, not controls)."""
    if isinstance(value, bytes):
        if value.startswith((b"\xfe\xff", b"\xff\xfe")):
            return value.decode("utf-16", errors="replace")
        if value.startswith(b"\xef\xbb\xbf"):
            return value[3:].decode("utf-8", errors="replace")
        return decode_text(value)
    return str(value)


class PdfminerAdapter:
    name = "pdfminer"
    description = "PDF text and layout with pdfminer.six (slower, layout analysis)"
    extensions = (".pdf",)

    @property
    def version(self) -> str:
        return f"pdfminer.six-{package_version('pdfminer.six')}"

    @property
    def binary(self) -> str:
        return f"pdfminer.six {package_version('pdfminer.six')}"

    def extract(self, path: Path) -> Extraction:
        with open(path, "rb") as handle:
            document = _open_document(handle)
            manager = PDFResourceManager(caching=True)
            buffer = io.StringIO()
            converter = TextConverter(manager, buffer, laparams=LAParams())
            interpreter = PDFPageInterpreter(manager, converter)
            pages: list[str] = []
            for page in PDFPage.create_pages(document):
                interpreter.process_page(page)
                pages.append(buffer.getvalue().rstrip("\x0c"))
                buffer.seek(0)
                buffer.truncate(0)
            converter.close()
            metadata: dict[str, str] = {}
            for info in document.info:
                for key, value in info.items():
                    if key in PDF_METADATA_KEYS:
                        metadata[PDF_METADATA_KEYS[key]] = _decode(resolve1(value))
        return finish(pages, metadata, self.version)


# -- the glyphs pdfium could not name (pdfindex.extract.glyphs) ------------------------


Reading = tuple[str, int, str | None]  # (font name without subset tag, code, text)


def _reading(font: PDFFont, cid: int) -> str | None:
    """What pdfminer.six makes of one code of a font: its ToUnicode, else (no entry, or an
    empty one: pdfTeX writes `<1B> <>`) its encoding's glyph name by the AGL rules."""
    try:
        text: str | None = font.to_unichr(cid)
    except (PDFUnicodeNotDefined, KeyError, ValueError, TypeError):
        text = None
    return text or getattr(font, "cid2unicode", {}).get(cid)


class _GlyphReader(PDFTextDevice):
    """Records (font, code, text) for the wanted codes of every character shown, in
    content order; draws nothing and lays nothing out."""

    def __init__(self, manager: PDFResourceManager, codes: set[int]) -> None:
        super().__init__(manager)
        self.codes = codes
        self.readings: list[Reading] = []

    def render_char(self, matrix, font: PDFFont, fontsize, scaling, rise, cid: int, *args) -> float:  # type: ignore[no-untyped-def,override]
        if cid in self.codes:
            self.readings.append((_font_name(font.fontname), cid, _reading(font, cid)))
        return 0.0  # positions do not matter here


_FORM_DEPTH = 4  # forms inside forms looked into for their fonts


def _fonts(
    manager: PDFResourceManager, resources: object, names: set[str], depth: int = 0
) -> Iterable[PDFFont]:
    """The fonts a page's (or form's) resources list, and those of its forms, that may be
    named one of `names`: a font none of whose names is one is never built (widths,
    encodings, an embedded Type 1 header parsed: most of the time of reading glyphs)."""
    resources = resolve1(resources)
    if not isinstance(resources, dict):
        return
    fonts = resolve1(resources.get("Font"))
    for spec in fonts.values() if isinstance(fonts, dict) else ():
        font_dict = resolve1(spec)
        if isinstance(font_dict, dict) and not names.isdisjoint(_names_of(font_dict)):
            yield manager.get_font(getattr(spec, "objid", None), font_dict)
    forms = resolve1(resources.get("XObject"))
    for form in forms.values() if isinstance(forms, dict) and depth < _FORM_DEPTH else ():
        attributes = getattr(resolve1(form), "attrs", {})
        if attributes.get("Resources") is not None:
            yield from _fonts(manager, attributes["Resources"], names, depth + 1)


def _names_of(font: dict) -> set[str]:
    """Every name pdfminer may give this font (its `fontname`: the descriptor's FontName,
    a standard font's BaseFont, `unknown`; a composite font's from its descendant), as
    _font_name has it: a superset, so a font left out is never one that was wanted."""
    found = {"unknown"}
    for spec in (font, *_descendants(font)):
        for value in (spec.get("BaseFont"), _descriptor_name(spec)):
            value = resolve1(value)
            if isinstance(value, PSLiteral):
                value = literal_name(value)
            if isinstance(value, str | bytes):
                found.add(_font_name(value))
    return found


def _descendants(font: dict) -> list[dict]:
    kids = resolve1(font.get("DescendantFonts"))
    first = resolve1(kids[0]) if isinstance(kids, list) and kids else None
    return [first] if isinstance(first, dict) else []


def _descriptor_name(spec: dict) -> object:
    descriptor = resolve1(spec.get("FontDescriptor"))
    return descriptor.get("FontName") if isinstance(descriptor, dict) else None


_INHERITED = ("Resources", "MediaBox", "CropBox", "Rotate")
_TREE_DEPTH = 32


def _pages_at(document: PDFDocument, wanted: set[int]) -> Iterable[tuple[int, PDFPage]]:
    """The wanted 0-based pages (_page_leaves) as pdfminer's pages."""
    for index, objid, attributes in _page_leaves(document, wanted):
        yield index, PDFPage(document, objid, attributes, None)


def _page_leaves(document: PDFDocument, wanted: set[int]) -> Iterable[tuple[int, object, dict]]:
    """The wanted 0-based pages' object numbers and attributes (inherited ones merged),
    reached through the page tree's counts: the pages between are never resolved (walking
    them all parsed every object stream of a 1,300-page manual, 8x the time pdfium took to
    read its text). Not yet pdfminer's pages, which resolve their content streams."""

    def walk(
        ref: object, first: int, inherited: dict, depth: int
    ) -> Iterable[tuple[int, object, dict]]:
        node = resolve1(ref)
        if not isinstance(node, dict) or depth > _TREE_DEPTH:
            raise ValueError("not a page tree")
        attributes = {**inherited, **{k: node[k] for k in _INHERITED if k in node}}
        kids = resolve1(node.get("Kids"))
        if not isinstance(kids, list):  # a page
            if first in wanted:
                yield first, getattr(ref, "objid", None), {**attributes, **node}
            return
        leaves = resolve1(node.get("Count")) == len(kids)  # every kid a page: none resolved
        for kid in kids:
            count = 1 if leaves else _count(kid)
            if any(first <= page < first + count for page in wanted):
                yield from walk(kid, first, attributes, depth + 1)
            first += count

    yield from walk(document.catalog["Pages"], 0, {}, 0)


def _count(ref: object) -> int:
    node = resolve1(ref)
    kids = resolve1(node.get("Kids")) if isinstance(node, dict) else None
    return int(resolve1(node.get("Count"))) if isinstance(kids, list) else 1


def glyph_readings(path: Path, wanted: dict[int, set[tuple[str, int]]]) -> dict[int, list[Reading]]:
    """For each wanted 0-based page and its wanted (font name, code) pairs, pdfminer.six's
    reading of them (`_reading`). Read from the page's font tables alone when each name
    gives one reading, which costs no content parsing and is shared by the pages using
    the same fonts; else (two fonts of one name read a code apart, as TeX's split
    encodings can) from the page's content, every character in content order."""
    found: dict[int, list[Reading]] = {}
    with open(path, "rb") as handle:
        document = _open_document(handle, lazy=True)
        manager = PDFResourceManager(caching=True)
        # Each page's object number and attributes: its resources name the fonts, and
        # only a page read from its content becomes pdfminer's page (which reads its
        # content streams' dictionaries: a fifth of the time here).
        pages: dict[int, tuple[object, dict]]
        try:
            pages = {i: (objid, attrs) for i, objid, attrs in _page_leaves(document, set(wanted))}
        except (TypeError, ValueError, KeyError, AttributeError, RecursionError):
            pages = {}  # an odd page tree: walked page by page below
        if set(pages) != set(wanted):
            last = max(wanted, default=-1)
            for index, page in enumerate(PDFPage.create_pages(document)):
                if index > last:
                    break
                pages[index] = (page.pageid, page.attrs)
        for index, (objid, attributes) in sorted(pages.items()):
            if index not in wanted:
                continue
            resources = resolve1(attributes.get("Resources", {}))  # as PDFPage reads them
            codes = {code for _font, code in wanted[index]}
            names = {name for name, _code in wanted[index]}
            table = {
                (name, code, _reading(font, code))
                for font in _fonts(manager, resources, names)
                for name in [_font_name(font.fontname)]
                for code in codes
                if (name, code) in wanted[index]
            }
            pairs = [(name, code) for name, code, text in table if text]
            if len(pairs) == len(set(pairs)):
                found[index] = sorted(table, key=lambda r: (r[0], r[1], r[2] or ""))
            else:
                reader = _GlyphReader(manager, codes)
                page = PDFPage(document, objid, attributes, None)
                PDFPageInterpreter(manager, reader).process_page(page)
                found[index] = reader.readings
    return found


# -- layout of a few pages (page conversion) ------------------------------------------

_BOLD_MARKS = ("bold", "black", "heavy")
_SUBSET_TAG = re.compile(r"^[A-Z]{6}\+")  # "ABCDEF+Font-Bold": an embedded subset


def layout_pages(
    path: Path, page_numbers: list[int], deadline: float | None = None
) -> list[PageLayout]:
    """Layout analysis of just these 1-based pages, in ascending order, as plain records.

    `deadline` (a time.monotonic() value) is checked between pages: one page cannot be
    interrupted, but a long selection stops with TimeoutError instead of running on.
    Raises EncryptedDocument when the empty password does not open the file, and
    PageOutOfRange (with the valid range) for a page the document does not have.
    """
    return list(iter_layouts(path, page_numbers, deadline))


# pdfminer keeps every object it parsed (fonts, streams) for as long as its document is
# open, and the elements pass held every candidate page's layout until the last: the
# largest elements worker of a 48k build reached 474 MB. Opening the document again once
# this process has grown this much since the last opening bounds the first (a page's own
# layout still costs what it costs); iter_layouts ends the second.
REOPEN_GROWTH_MB = 48


def iter_layouts(
    path: Path, page_numbers: list[int], deadline: float | None = None
) -> Iterator[PageLayout]:
    """`layout_pages` one page at a time, so a caller that keeps only what it finds on
    each page (element detection) never holds every page's layout at once."""
    wanted = sorted(set(page_numbers))
    with open(path, "rb") as handle:
        document = _open_document(handle)
        pages = _wanted_pages(document, wanted)
        opened_at = private_mb()
        manager = PDFResourceManager(caching=True)
        for number in wanted:
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"layout analysis stopped before page {number}")
            if private_mb() - opened_at > REOPEN_GROWTH_MB:  # drop the parsed objects
                del pages, document, manager
                handle.seek(0)
                document = _open_document(handle)
                pages = _wanted_pages(document, wanted)
                manager = PDFResourceManager(caching=True)
                opened_at = private_mb()
            aggregator = PDFPageAggregator(manager, laparams=LAParams())
            PDFPageInterpreter(manager, aggregator).process_page(pages[number])
            layout = _page_layout(number, aggregator.get_result())
            aggregator.close()
            yield layout


def _wanted_pages(document: PDFDocument, wanted: list[int]) -> dict[int, PDFPage]:
    """The wanted 1-based pages by number, reached through the page tree's counts
    (`_pages_at`: listing every page was an eighth of the elements pass); the whole tree
    is walked when the counts do not lead to them, or to tell a page out of range."""
    try:
        total = int(resolve1(resolve1(document.catalog["Pages"])["Count"]))
        found = {i + 1: page for i, page in _pages_at(document, {n - 1 for n in wanted})}
    except (TypeError, ValueError, KeyError, AttributeError, RecursionError):
        total, found = 0, {}  # an odd page tree: walked page by page below
    if all(1 <= n <= total for n in wanted) and set(found) == set(wanted):
        return found
    pages = list(PDFPage.create_pages(document))
    for number in wanted:
        if not 1 <= number <= len(pages):
            valid = f"pages 1-{len(pages)}" if pages else "no pages"
            raise PageOutOfRange(f"page {number} is out of range: this document has {valid}")
    return {n: pages[n - 1] for n in wanted}


def _page_layout(number: int, page: LTPage) -> PageLayout:
    blocks: list[TextBlock] = []
    for box in _text_boxes(page):
        lines = [_text_line(page, line) for line in box if isinstance(line, LTTextLine)]
        lines = [line for line in lines if line.text]
        if lines:
            text = "\n".join(line.text for line in lines)
            blocks.append(TextBlock(text=text, bbox=_flip(page, box.bbox), lines=lines))
    return PageLayout(
        number=number,
        width=round(page.width, 2),
        height=round(page.height, 2),
        blocks=blocks,
        graphics=list(_graphics(page, page)),
    )


# Subclasses before their bases: LTRect and LTLine are LTCurves.
_GRAPHIC_TYPES = (
    (LTImage, "image"),
    (LTFigure, "figure"),
    (LTRect, "rect"),
    (LTLine, "line"),
    (LTCurve, "curve"),
)


def _graphics(page: LTPage, container: LTContainer) -> Iterable[Graphic]:
    """Images, figure containers, rectangles, lines and curves in drawing order, also
    those inside figure containers (element detection looks for figures and ruled
    tables among them)."""
    for item in container:
        if isinstance(item, LTChar | LTTextBox):
            continue
        for kind_type, kind in _GRAPHIC_TYPES:
            if isinstance(item, kind_type):
                yield Graphic(kind, _flip(page, item.bbox))
                break
        if isinstance(item, LTFigure):
            yield from _graphics(page, item)


def page_count(path: Path) -> int:
    """How many pages the document has (its page tree only, no content is parsed)."""
    with open(path, "rb") as handle:
        document = _open_document(handle)
        return sum(1 for _ in PDFPage.create_pages(document))


def _flip(page: LTPage, bbox: tuple[float, float, float, float]) -> BBox:
    """pdfminer's bottom-left origin -> (x0, top, x1, bottom) from the top-left corner."""
    x0, y0, x1, y1 = bbox
    return (
        round(x0 - page.x0, 2),
        round(page.y1 - y1, 2),
        round(x1 - page.x0, 2),
        round(page.y1 - y0, 2),
    )


def _text_boxes(container: LTContainer) -> Iterable[LTTextBox]:
    """Text boxes in pdfminer's reading order, including those inside figures."""
    for item in container:
        if isinstance(item, LTTextBox):
            yield item
        elif isinstance(item, LTContainer) and not isinstance(item, LTTextLine):
            yield from _text_boxes(item)


def _font_name(name: object) -> str:
    """The font's name without a subset tag (pdfminer may give bytes for odd fonts)."""
    text = name.decode("latin-1") if isinstance(name, bytes) else str(name)
    return _SUBSET_TAG.sub("", text)


def _text_line(page: LTPage, line: LTTextLine) -> TextLine:
    """Median character size, dominant font and boldness (most characters in a bold face)."""
    chars = [c for c in line if isinstance(c, LTChar) and c.get_text().strip()]
    sizes = [c.size for c in chars] or [line.height]
    fonts = Counter(_font_name(c.fontname) for c in chars)
    font_name = fonts.most_common(1)[0][0] if fonts else ""
    bold_chars = sum(n for f, n in fonts.items() if any(m in f.lower() for m in _BOLD_MARKS))
    return TextLine(
        text=normalize_text(line.get_text()).strip(),
        bbox=_flip(page, line.bbox),
        font_size=round(statistics.median(sizes), 2),
        bold=bool(chars) and bold_chars * 2 > len(chars),
        font_name=font_name,
    )
