"""Adds, replaces and removes files (catalog record + pages + elements) in one commit."""

from __future__ import annotations

from typing import Any

from whoosh.query import And, Term

from pdfindex.engine import OneFolderWriter
from pdfindex.engine.whoosh.schema import ELEMENT, FILE, PAGE
from pdfindex.models import ElementRecord, FileRecord


class WhooshWriter(OneFolderWriter):
    """Wraps one Whoosh writer; `changed` tells the engine whether to commit."""

    def __init__(self, raw: Any) -> None:
        self._raw = raw
        self.changed = False

    def add_file(self, record: FileRecord, pages: list[str], index_text: list[str]) -> None:
        self.changed = True
        for number, (text, indexed) in enumerate(zip(pages, index_text, strict=True), start=1):
            self._raw.add_document(
                kind=PAGE,
                path=record.path,
                slug=record.slug,
                page=number,
                content=indexed,
                stem=indexed,
                text=text,
            )
        self._raw.add_document(kind=FILE, path=record.path, record=record.to_dict())

    def replace_file(self, record: FileRecord, pages: list[str], index_text: list[str]) -> None:
        self.remove_file(record.path)
        self.add_file(record, pages, index_text)

    def remove_file(self, path: str) -> None:
        self.changed = True
        self._raw.delete_by_term("path", path)

    def replace_record(self, record: FileRecord) -> None:
        self.changed = True
        self._raw.delete_by_query(And([Term("kind", FILE), Term("path", record.path)]))
        self._raw.add_document(kind=FILE, path=record.path, record=record.to_dict())

    def add_elements(self, record: FileRecord, elements: list[ElementRecord]) -> None:
        self.changed = True
        for element in elements:
            self._raw.add_document(
                kind=ELEMENT,
                path=record.path,
                eslug=record.slug,
                etype=element["kind"],
                page=element["page"],
                ecaption=f"{element['label']}\n{element['caption']}",
                etext=f"{element['kind']}\n{element['context']}",
                record={**element, "slug": record.slug, "path": record.path},
            )

    def set_elements(self, record: FileRecord, elements: list[ElementRecord]) -> None:
        self._raw.delete_by_query(And([Term("kind", ELEMENT), Term("path", record.path)]))
        self.add_elements(record, elements)
        self.replace_record(record)
