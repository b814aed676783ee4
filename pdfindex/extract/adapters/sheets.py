"""XLSX with openpyxl (read-only, values as last saved): a sheet is a page, or a block of
ROWS_PER_PAGE rows of a long sheet.

Each page starts with its sheet's name; then one line a row, cells tab-separated, trailing
empty cells and wholly empty rows left out. openpyxl parses with defusedxml when it is
installed (it is a dependency), which refuses entity bombs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from importlib import metadata as distributions
from pathlib import Path
from typing import BinaryIO

from pdfindex.extract.adapters.base import MAX_TEXT_CHARS, Extraction, finish, office_metadata
from pdfindex.extract.adapters.containers import check_zip

ROWS_PER_PAGE = 100
MAX_COLUMNS = 1_000  # cells past this in a row are not read (a sheet may claim XFD = 16,384)


class SheetsAdapter:
    name = "xlsx"
    description = (
        f"Excel workbooks (.xlsx) with openpyxl; a page is a sheet, or {ROWS_PER_PAGE} rows of one"
    )
    extensions: tuple[str, ...] = (".xlsx",)

    @property
    def version(self) -> str:
        return f"openpyxl-{distributions.version('openpyxl')}"

    @property
    def binary(self) -> str:
        return f"openpyxl {distributions.version('openpyxl')}"

    def extract(self, path: Path) -> Extraction:
        check_zip(path)
        with path.open("rb") as stream:  # a stream: openpyxl judges a path by its extension
            return self._read(stream)

    def _read(self, stream: BinaryIO) -> Extraction:
        import openpyxl  # here, not at import: the indexing process only asks the version

        book = openpyxl.load_workbook(stream, read_only=True, data_only=True)
        try:
            sheets = [
                (sheet.title, sheet.iter_rows(values_only=True, max_col=MAX_COLUMNS))
                for sheet in book.worksheets
            ]
            pages = sheet_pages(sheets)
            meta = office_metadata(book.properties)
        finally:
            book.close()
        return finish(pages, meta, self.version, unit="sheet")


def cell_text(value: object) -> str:
    """A cell as one line: 3.0 as '3', dates as ISO, tabs and line breaks as spaces."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()  # type: ignore[no-any-return]
    return " ".join(str(value).split())


def sheet_pages(sheets: Iterable[tuple[str, Iterable[Iterable[object]]]]) -> list[str]:
    """Pages of sheets given as (name, rows of cell values): each sheet starts a page, and
    a long one goes on in pages of ROWS_PER_PAGE rows; reading stops at MAX_TEXT_CHARS."""
    pages: list[str] = []
    total = 0
    for name, rows in sheets:
        for block in _blocks(rows):
            pages.append("\n".join([name, *block]))
            total += len(pages[-1])
            if total > MAX_TEXT_CHARS:
                return pages
    return pages


def _blocks(rows: Iterable[Iterable[object]]) -> Iterator[list[str]]:
    block: list[str] = []
    for row in rows:
        cells = [cell_text(value) for value in row]
        while cells and not cells[-1]:
            cells.pop()
        if not cells:
            continue
        block.append("\t".join(cells))
        if len(block) == ROWS_PER_PAGE:
            yield block
            block = []
    if block:
        yield block
