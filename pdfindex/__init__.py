"""pdfindex: a persistent full-text index of a folder of PDFs, served over MCP and a CLI.

    from pdfindex import PdfIndex, load_settings
    index = PdfIndex(load_settings(root="~/papers"))
    index.reindex()
    total, hits = index.search("hyphenation")

PdfIndex loads on first use, so worker processes that import a submodule of pdfindex do
not pay for the index engine.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

from pdfindex import errors
from pdfindex.config import Settings, load_settings
from pdfindex.errors import PdfIndexError

if TYPE_CHECKING:
    from pdfindex.api import PdfIndex

try:
    __version__ = version("pdfindex")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

__all__ = ["PdfIndex", "PdfIndexError", "Settings", "errors", "load_settings", "__version__"]


def __getattr__(name: str) -> Any:
    if name == "PdfIndex":
        from pdfindex.api import PdfIndex

        return PdfIndex
    raise AttributeError(f"module 'pdfindex' has no attribute {name!r}")
