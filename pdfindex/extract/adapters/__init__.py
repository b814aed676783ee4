"""Extractor registry: which adapter reads which file type.

PDFs are read by the configured engine (pdfium or pdfminer, each the other's fallback);
other formats by the adapter that lists their extension. Another format plugs in as one
module with an adapter class added to _BY_NAME.

Custom adapters (`custom_adapters` in pdfindex.toml: a program that prints the text,
`command.py`) come first: one for an extension a built-in adapter reads takes precedence
over it, as in ripgrep-all. The lookups take them as `custom`, from the settings.

The PDF libraries load when an adapter is first used, not with this registry: a process
that only searches the index (`pdfindex search`) never pays for them.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path

from pdfindex.config.adapters import CustomAdapter
from pdfindex.errors import ConfigError
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


def custom_for(path: str | Path, custom: Sequence[CustomAdapter]) -> CustomAdapter | None:
    """The custom adapter that reads this file, if one does (the first declared)."""
    name = str(path).rpartition("/")[2].lower()  # no Path: it runs for every file listed
    for adapter in custom:
        if name.endswith(adapter.extensions):
            return adapter
    return None


def adapter_name_for(
    path: str | Path, pdf_engine: str, custom: Sequence[CustomAdapter] = ()
) -> str | None:
    """Which adapter reads this file (None: not a supported type); a custom one first."""
    chosen = custom_for(path, custom)
    if chosen is not None:
        return chosen.name
    name = str(path).rpartition("/")[2]
    dot = name.rfind(".")
    suffix = name[dot:].lower() if 0 < dot < len(name) - 1 else ""  # Path.suffix's rule
    if suffix == ".pdf":
        return pdf_engine
    for name, (_module, _cls, extensions) in _BY_NAME.items():
        if name not in PDF_ENGINES and str(path).lower().endswith(extensions):
            return name
    return None


def supported_extensions(custom: Sequence[CustomAdapter] = ()) -> tuple[str, ...]:
    """Every extension an adapter reads, sorted: what "pdfindex reads: ..." lists."""
    built_in = {ext for *_names, extensions in _BY_NAME.values() for ext in extensions}
    return tuple(sorted(built_in.union(*(a.extensions for a in custom))))


def check_custom(custom: Sequence[CustomAdapter]) -> None:
    """Refuse a custom adapter named as a built-in one: the name says which adapter read
    a file (list_searchable_files, fuzzy_search, adapters://list)."""
    for adapter in custom:
        if adapter.name in _BY_NAME:
            raise ConfigError(
                f"custom_adapters: the name {adapter.name!r} is a built-in adapter's "
                f"({', '.join(_BY_NAME)}); give yours another name"
            )


def describe(pdf_engine: str, custom: Sequence[CustomAdapter] = ()) -> list[dict[str, object]]:
    """Every adapter with the seed's fields (name, description, extensions, binary: the
    library or program it runs) and its version and role, custom ones first."""
    rows: list[dict[str, object]] = []
    for spec in custom:
        shown = [e.lstrip(".") for e in spec.extensions]
        rows.append(
            {
                "name": spec.name,
                "description": spec.description
                or f"custom adapter: {spec.command} for " + ", ".join(f".{e}" for e in shown),
                "extensions": shown,
                "binary": spec.command,
                "version": spec.version,
                "role": "index text (custom: takes precedence over a built-in adapter)",
                "custom": True,
                "command": [spec.command, *spec.args],
            }
        )
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
                "binary": adapter.binary,
                "version": adapter.version,
                "role": role,
                "custom": False,
            }
        )
    return rows
