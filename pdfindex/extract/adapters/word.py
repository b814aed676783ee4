"""DOCX with python-docx: body paragraphs and tables in document order, in parts.

A DOCX has no pages of its own (Word lays them out when it opens the file), so a page here
is a part of about PART_CHARS characters cut between paragraphs. A table row is one line,
its cells separated by tabs. Title, author, subject and keywords come from the core
properties. Headers, footers, footnotes and text boxes are not read.
"""

from __future__ import annotations

from importlib import metadata as distributions
from pathlib import Path
from typing import TYPE_CHECKING

from pdfindex.extract.adapters.base import Extraction, finish, office_metadata, split_parts
from pdfindex.extract.adapters.containers import check_zip

if TYPE_CHECKING:
    import docx.table


class WordAdapter:
    name = "docx"
    description = "Word documents (.docx) with python-docx; a page is a part of ~3,000 characters"
    extensions: tuple[str, ...] = (".docx",)

    @property
    def version(self) -> str:
        return f"python-docx-{distributions.version('python-docx')}"

    @property
    def binary(self) -> str:
        return f"python-docx {distributions.version('python-docx')}"

    def extract(self, path: Path) -> Extraction:
        import docx  # here, not at import: the indexing process only asks the version

        check_zip(path)
        document = docx.Document(str(path))
        paragraphs: list[str] = []
        for block in document.iter_inner_content():
            if isinstance(block, docx.table.Table):
                paragraphs.append(_table_text(block))
            else:
                paragraphs.append(block.text)
        meta = office_metadata(document.core_properties)
        return finish(split_parts(paragraphs), meta, self.version, unit="part")


def _table_text(table: docx.table.Table) -> str:
    """One line per row, cells tab-separated (a merged cell once)."""
    lines = []
    for row in table.rows:
        cells: list[str] = []
        for cell in row.cells:
            text = " ".join(cell.text.split())
            if not cells or text != cells[-1]:
                cells.append(text)
        lines.append("\t".join(cells).rstrip("\t"))
    return "\n".join(line for line in lines if line)
