"""The whole exception family, mapped once per front (CLI: ClickException, MCP: tool error).

InvalidQuery also is a ValueError (as pdfminer's PDFValueError is), so a caller that
knows only Python's exceptions still catches bad arguments.
"""


class PdfIndexError(Exception):
    """Root of every error pdfindex reports to a user."""


class ConfigError(PdfIndexError):
    """The configuration (folders, options) cannot be used."""


class InvalidQuery(PdfIndexError, ValueError):
    """A query or a search argument is out of bounds or malformed."""


class DocumentNotFound(PdfIndexError):
    """No indexed document matches the name or slug given."""


class PageOutOfRange(PdfIndexError):
    """A page number outside the document's pages."""


class PathOutsideFiles(PdfIndexError):
    """A path that resolves outside the files folder; nothing is read."""


class IndexLocked(PdfIndexError):
    """Another process holds the index writer lock."""


class EncryptedDocument(PdfIndexError):
    """The document needs a password we do not have."""


class ConversionError(PdfIndexError):
    """A page could not be converted (layout parse failed, pandoc missing or failed)."""


class SessionNotFound(PdfIndexError):
    """No query_documents session has that id (or it expired)."""
