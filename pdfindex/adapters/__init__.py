"""Extractor registry: which adapter reads which file type.

Another format plugs in as one module with an adapter class listed here.
"""

from __future__ import annotations

from pdfindex.adapters.base import Adapter
from pdfindex.adapters.pdfium import PdfiumAdapter
from pdfindex.adapters.pdfminer import PdfminerAdapter

_ADAPTERS: dict[str, type] = {"pdfium": PdfiumAdapter, "pdfminer": PdfminerAdapter}


def get_adapter(name: str) -> Adapter:
    """The adapter called `name` (see config.EXTRACTORS)."""
    return _ADAPTERS[name]()


def fallback_for(name: str) -> str:
    """The other PDF engine, tried when `name` cannot read a file."""
    return "pdfminer" if name == "pdfium" else "pdfium"


def supported_extensions() -> tuple[str, ...]:
    return (".pdf",)
