"""Extractor registry: which adapter reads which file type.

PDFs are read by the configured engine (pdfium or pdfminer, each the other's fallback);
other formats by the adapter that lists their extension. Another format plugs in as one
module with an adapter class added to _BY_NAME.
"""

from __future__ import annotations

from pathlib import Path

from pdfindex.extract.adapters.base import Adapter
from pdfindex.extract.adapters.pdfium import PdfiumAdapter
from pdfindex.extract.adapters.pdfminer import PdfminerAdapter
from pdfindex.extract.adapters.text import MarkdownAdapter, TextAdapter

PDF_ENGINES = ("pdfium", "pdfminer")
_BY_NAME: dict[str, type] = {
    "pdfium": PdfiumAdapter,
    "pdfminer": PdfminerAdapter,
    "text": TextAdapter,
    "markdown": MarkdownAdapter,
}


def get_adapter(name: str) -> Adapter:
    """The adapter called `name`."""
    return _BY_NAME[name]()


def fallback_for(name: str) -> str | None:
    """The other PDF engine, tried when `name` cannot read a file."""
    return {"pdfium": "pdfminer", "pdfminer": "pdfium"}.get(name)


def adapter_name_for(path: str | Path, pdf_engine: str) -> str | None:
    """Which adapter reads this file (None: not a supported type)."""
    suffix = Path(path).suffix.lower()
    if suffix == ".pdf":
        return pdf_engine
    for name, cls in _BY_NAME.items():
        if name not in PDF_ENGINES and suffix in cls.extensions:
            return name
    return None


def supported_extensions() -> tuple[str, ...]:
    return tuple(sorted({ext for cls in _BY_NAME.values() for ext in cls.extensions}))


def describe(pdf_engine: str) -> list[dict[str, object]]:
    """Every adapter with its extensions and version, for adapters://list."""
    rows = []
    for name, cls in _BY_NAME.items():
        adapter = cls()
        role = (
            "index text for PDFs"
            if name == pdf_engine
            else ("fallback for PDFs" if name in PDF_ENGINES else "index text")
        )
        if name == "pdfminer":
            role += "; layout for extract_pdf_page"
        rows.append(
            {
                "name": name,
                "description": getattr(adapter, "description", ""),
                "extensions": [e.lstrip(".") for e in cls.extensions],
                "version": adapter.version,
                "role": role,
            }
        )
    return rows
