"""pdfminer.six text extraction: the layout engine, selectable for index text.

The only module that imports pdfminer. One pass over the pages with a converter whose
buffer is cleared per page (extract_text(page_numbers=[i]) would re-parse per page).
"""

from __future__ import annotations

import io
from importlib.metadata import version as package_version
from pathlib import Path

from pdfminer.converter import TextConverter
from pdfminer.layout import LAParams
from pdfminer.pdfdocument import PDFDocument, PDFPasswordIncorrect
from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
from pdfminer.pdfpage import PDFPage
from pdfminer.pdfparser import PDFParser
from pdfminer.pdftypes import resolve1

from pdfindex.adapters.base import EncryptedDocument, Extraction, finish

_META_KEYS = {
    "Title": "title",
    "Author": "author",
    "Subject": "subject",
    "Keywords": "keywords",
    "Creator": "creator",
    "Producer": "producer",
    "CreationDate": "created",
    "ModDate": "modified",
}


def _decode(value: object) -> str:
    if isinstance(value, bytes):
        if value.startswith(b"\xfe\xff"):
            return value[2:].decode("utf-16-be", errors="replace")
        return value.decode("latin-1", errors="replace")
    return str(value)


class PdfminerAdapter:
    name = "pdfminer"
    extensions = (".pdf",)

    @property
    def version(self) -> str:
        return f"pdfminer.six-{package_version('pdfminer.six')}"

    def extract(self, path: Path) -> Extraction:
        with open(path, "rb") as handle:
            try:
                document = PDFDocument(PDFParser(handle), password="")
            except PDFPasswordIncorrect as exc:
                raise EncryptedDocument("a password is required to open this PDF") from exc
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
                    if key in _META_KEYS:
                        metadata[_META_KEYS[key]] = _decode(resolve1(value))
        return finish(pages, metadata, self.version)
