"""OpenDocument text (.odt) and spreadsheets (.ods), read from their ZIP's content.xml
and meta.xml with the safe XML parser of `containers` (no odfpy: it builds a pure-Python
DOM of the whole file, and its SAX parse expands entities).

An ODT has no pages of its own: a page is a part of about PART_CHARS characters cut
between paragraphs; a table row is one line, cells tab-separated. An ODS reads as an
XLSX does: a sheet, or a block of rows of a long sheet, is a page. Repeated cells and rows
(`number-columns-repeated`, how ODF stores a row of a million empty cells) are expanded
only when they hold text, and never past the XLSX limits.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from importlib import metadata as distributions
from pathlib import Path

from pdfindex.extract.adapters.base import Extraction, finish, split_parts
from pdfindex.extract.adapters.containers import check_zip, local, parse_xml, read_member
from pdfindex.extract.adapters.sheets import MAX_COLUMNS, ROWS_PER_PAGE, sheet_pages

VERSION = "odf-1"
_NS_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_NS_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
_NS_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_SKIPPED = {"tracked-changes", "note-citation", "sequence-decls", "annotation"}
_META = {
    "title": "title",
    "initial-creator": "author",
    "creator": "author",
    "subject": "subject",
    "keyword": "keywords",
    "creation-date": "created",
    "date": "modified",
}


def _read(path: Path) -> tuple[object, dict[str, str]]:
    """content.xml's root and meta.xml's metadata."""
    check_zip(path)
    with zipfile.ZipFile(path) as archive:
        content = parse_xml(read_member(archive, "content.xml"))
        names = set(archive.namelist())
        meta_root = parse_xml(read_member(archive, "meta.xml")) if "meta.xml" in names else None
    meta: dict[str, str] = {}
    for element in meta_root.iter() if meta_root is not None else ():
        key = _META.get(local(element.tag))
        if key and key not in meta and (element.text or "").strip():
            meta[key] = element.text.strip()
    return content, meta


def inline_text(element: object) -> str:
    """A paragraph's text: spans, links and fields inline; text:s as its spaces, tabs and
    line breaks as themselves; notes and tracked changes left out."""
    out: list[str] = [element.text or ""]  # type: ignore[attr-defined]
    for child in element:  # type: ignore[attr-defined]
        name = local(child.tag)
        if name == "s":
            out.append(" " * min(int(child.get(f"{{{_NS_TEXT}}}c", "1") or 1), 100))
        elif name == "tab":
            out.append("\t")
        elif name == "line-break":
            out.append("\n")
        elif name not in _SKIPPED and name != "note":
            out.append(inline_text(child))
        out.append(child.tail or "")
    return "".join(out)


def _blocks(element: object) -> Iterator[str]:
    """Paragraphs, headings, list items and table rows in document order."""
    for child in element:  # type: ignore[attr-defined]
        name = local(child.tag)
        if name in ("p", "h"):
            yield inline_text(child)
        elif name == "table":
            rows = [_row_cells(row) for row in child.iter(f"{{{_NS_TABLE}}}table-row")]
            yield "\n".join("\t".join(cells) for cells in rows if cells)
        elif name not in _SKIPPED:
            yield from _blocks(child)


def _row_cells(row: object) -> list[str]:
    cells: list[str] = []
    for cell in row:  # type: ignore[attr-defined]
        if local(cell.tag) not in ("table-cell", "covered-table-cell"):
            continue
        text = " ".join(" ".join(inline_text(p) for p in cell.iter(f"{{{_NS_TEXT}}}p")).split())
        repeat = int(cell.get(f"{{{_NS_TABLE}}}number-columns-repeated", "1") or 1)
        cells.extend([text] * (min(repeat, MAX_COLUMNS - len(cells)) if text else repeat))
        if len(cells) >= MAX_COLUMNS:
            break
    while cells and not cells[-1]:
        cells.pop()
    return cells[:MAX_COLUMNS]


def _sheet_rows(table: object) -> Iterator[list[str]]:
    for row in table.iter(f"{{{_NS_TABLE}}}table-row"):  # type: ignore[attr-defined]
        cells = _row_cells(row)
        if not cells:
            continue
        repeat = int(row.get(f"{{{_NS_TABLE}}}number-rows-repeated", "1") or 1)
        for _ in range(min(repeat, ROWS_PER_PAGE)):
            yield cells


class _OdfAdapter:
    """What ODT and ODS share: their version and the library they run."""

    @property
    def version(self) -> str:
        return VERSION

    @property
    def binary(self) -> str:
        return f"lxml {distributions.version('lxml')}"


class OdtAdapter(_OdfAdapter):
    name = "odt"
    description = "OpenDocument text (.odt); a page is a part of ~3,000 characters"
    extensions: tuple[str, ...] = (".odt",)

    def extract(self, path: Path) -> Extraction:
        content, meta = _read(path)
        bodies = list(content.iter(f"{{{_NS_OFFICE}}}body")) or [content]  # type: ignore[attr-defined]
        paragraphs = [text for body in bodies for text in _blocks(body)]
        return finish(split_parts(paragraphs), meta, self.version, unit="part")


class OdsAdapter(_OdfAdapter):
    name = "ods"
    description = (
        f"OpenDocument spreadsheets (.ods); a page is a sheet, or {ROWS_PER_PAGE} rows of one"
    )
    extensions: tuple[str, ...] = (".ods",)

    def extract(self, path: Path) -> Extraction:
        content, meta = _read(path)
        tables = content.iter(f"{{{_NS_TABLE}}}table")  # type: ignore[attr-defined]
        sheets = [
            (table.get(f"{{{_NS_TABLE}}}name", ""), (list(r) for r in _sheet_rows(table)))
            for table in tables
        ]
        return finish(sheet_pages(sheets), meta, self.version, unit="sheet")
