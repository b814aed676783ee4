"""Extractor registry: which adapter reads which file type.

PDFs are read by the configured engine (pdfium or pdfminer, each the other's fallback);
other formats by the adapter that lists their extension. Another format plugs in as one
module with an adapter class added to _BY_NAME.

The PDF libraries load when an adapter is first used, not with this registry: a process
that only searches the index (`pdfindex search`) never pays for them.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from pdfindex.extract.adapters.base import Adapter
from pdfindex.extract.archives import ARCHIVE_EXTENSIONS

PDF_ENGINES = ("pdfium", "pdfminer")
# name -> (module, class, extensions)
_BY_NAME: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "pdfium": ("pdfium", "PdfiumAdapter", (".pdf",)),
    "pdfminer": ("pdfminer", "PdfminerAdapter", (".pdf",)),
    "text": ("text", "TextAdapter", (".txt",)),
    "markdown": ("text", "MarkdownAdapter", (".md", ".markdown")),
    "docx": ("word", "WordAdapter", (".docx",)),
    "odt": ("odf", "OdtAdapter", (".odt",)),
    "rtf": ("rtf", "RtfAdapter", (".rtf",)),
    "pptx": ("slides", "SlidesAdapter", (".pptx",)),
    "xlsx": ("sheets", "SheetsAdapter", (".xlsx",)),
    "ods": ("odf", "OdsAdapter", (".ods",)),
    "epub": ("epub", "EpubAdapter", (".epub",)),
    "html": ("htmlpage", "HtmlAdapter", (".html", ".htm", ".xhtml")),
    "image": ("image", "ImageAdapter", (".png", ".jpg", ".jpeg", ".tif", ".tiff")),
    "archive": ("archive", "ArchiveAdapter", ARCHIVE_EXTENSIONS),
}


def _class(name: str) -> type:
    module, cls, _extensions = _BY_NAME[name]
    return getattr(importlib.import_module(f"{__name__}.{module}"), cls)  # type: ignore[no-any-return]


def get_adapter(name: str) -> Adapter:
    """The adapter called `name`."""
    adapter: Adapter = _class(name)()
    return adapter


def fallback_for(name: str) -> str | None:
    """The other PDF engine, tried when `name` cannot read a file."""
    return {"pdfium": "pdfminer", "pdfminer": "pdfium"}.get(name)


def adapter_name_for(path: str | Path, pdf_engine: str) -> str | None:
    """Which adapter reads this file (None: not a supported type)."""
    suffix = Path(path).suffix.lower()
    if suffix == ".pdf":
        return pdf_engine
    for name, (_module, _cls, extensions) in _BY_NAME.items():
        if name not in PDF_ENGINES and str(path).lower().endswith(extensions):
            return name
    return None


def supported_extensions() -> tuple[str, ...]:
    return tuple(sorted({ext for *_names, extensions in _BY_NAME.values() for ext in extensions}))


def describe(pdf_engine: str) -> list[dict[str, object]]:
    """Every adapter with its extensions and version, for adapters://list."""
    rows = []
    for name in _BY_NAME:
        cls = _class(name)
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
