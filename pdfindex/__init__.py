"""pdfindex: a persistent full-text index of a folder of PDFs, served over MCP and a CLI.

    from pdfindex import PdfIndex, load_settings
    index = PdfIndex(load_settings(root="~/papers"))
    index.reindex()
    total, hits = index.search("hyphenation")

Each name loads on first use, so worker processes that import a submodule of pdfindex do
not pay for the index engine, and a search handed to a resident process
(pdfindex.quick) loads nothing of pdfindex's settings.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without loading typing (~2 ms) at every start
if TYPE_CHECKING:
    from typing import Any

    from pdfindex import errors
    from pdfindex.api import PdfIndex
    from pdfindex.config import Settings, load_settings
    from pdfindex.errors import PdfIndexError

__all__ = ["PdfIndex", "PdfIndexError", "Settings", "errors", "load_settings", "__version__"]


def __getattr__(name: str) -> Any:
    """Each name on first use; reading the package metadata for __version__ costs every
    command 13 ms, though only `--version` and the MCP handshake need it."""
    if name == "PdfIndex":
        from pdfindex.api import PdfIndex

        return PdfIndex
    if name in ("Settings", "load_settings"):
        from pdfindex import config

        return getattr(config, name)
    if name in ("errors", "PdfIndexError"):
        from pdfindex import errors

        return errors if name == "errors" else errors.PdfIndexError
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("pdfindex")
        except PackageNotFoundError:  # a source tree that was never installed
            return "0.0.0"
    raise AttributeError(f"module 'pdfindex' has no attribute {name!r}")
