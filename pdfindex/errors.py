"""One small error family, mapped once per front (CLI: ClickException, MCP: tool error)."""


class PdfIndexError(Exception):
    """Root of every error pdfindex reports to a user."""


class ConfigError(PdfIndexError):
    """The configuration (folders, options) cannot be used."""


class InvalidQuery(PdfIndexError):
    """A query or a search argument is out of bounds or malformed."""


class DocumentNotFound(PdfIndexError):
    """No indexed document matches the name or slug given."""


class PageOutOfRange(PdfIndexError):
    """A page number outside the document's pages."""


class PathOutsideFiles(PdfIndexError):
    """A path that resolves outside the files folder; nothing is read."""


class IndexLocked(PdfIndexError):
    """Another process holds the index writer lock."""
