"""pdfindex: a persistent full-text index of a folder of PDFs, served over MCP and a CLI.

    from pdfindex import PdfIndex, load_settings
    index = PdfIndex(load_settings(root="~/papers"))
    index.reindex()
    total, hits = index.search("hyphenation")

PdfIndex loads on first use, so worker processes that import a submodule of pdfindex do
not pay for the index engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pdfindex import errors
from pdfindex.config import Settings, load_settings
from pdfindex.errors import PdfIndexError

if TYPE_CHECKING:
    from pdfindex.api import PdfIndex

__all__ = ["PdfIndex", "PdfIndexError", "Settings", "errors", "load_settings", "__version__"]


def __getattr__(name: str) -> Any:
    """PdfIndex and __version__ on first use: reading the package metadata costs every
    command 13 ms, though only `--version` and the MCP handshake need it."""
    if name == "PdfIndex":
        from pdfindex.api import PdfIndex

        return PdfIndex
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("pdfindex")
        except PackageNotFoundError:  # a source tree that was never installed
            return "0.0.0"
    raise AttributeError(f"module 'pdfindex' has no attribute {name!r}")
