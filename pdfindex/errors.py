"""The whole exception family, mapped once per front (CLI: ClickException, MCP: tool error).

InvalidQuery also is a ValueError (as pdfminer's PDFValueError is), so a caller that
knows only Python's exceptions still catches bad arguments; SourceUnreachable is a
FileNotFoundError and UnsafeFile an OSError for the same reason.
"""

from __future__ import annotations

import errno


class PdfIndexError(Exception):
    """Root of every error pdfindex reports to a user."""


class ConfigError(PdfIndexError):
    """The configuration (folders, options) cannot be used."""


class SourceTaken(ConfigError):
    """Another folder feeds this source of the library already."""

    @classmethod
    def about(cls, source: str, host: str, folder: str) -> SourceTaken:
        named = f"source '{source}'" if source else "its unnamed source"
        return cls(
            f"this library is fed by {folder} on {host} as {named}; give this folder its "
            'own source name (source = "…" in pdfindex.toml or PDFINDEX_SOURCE), or, if it '
            "replaces that folder, run pdfindex reindex --take-over-source once"
        )


class InvalidQuery(PdfIndexError, ValueError):
    """A query or a search argument is out of bounds or malformed."""


class QueryTooLarge(InvalidQuery):
    """A query over one of its bounds (length, phrase words, nesting): refused by name,
    never read some other way."""


class DocumentNotFound(PdfIndexError):
    """No indexed document matches the name or slug given."""


class SourceUnreachable(DocumentNotFound, FileNotFoundError):
    """A library path of another source whose folder this host cannot reach (also a
    FileNotFoundError: a caller asking only whether the file is there gets 'no')."""

    @classmethod
    def about(cls, path: str, source: str) -> SourceUnreachable:
        return cls(
            f"'{path}' is in the library from source '{source}', whose folder is not "
            "reachable from this host; its text is searchable here, and "
            f'source_folders.{source} = "/path" makes the file itself readable'
        )


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


class WorkerDied(PdfIndexError):
    """A worker ended in the middle of a call: its memory cap, or a crash of the library."""


class UnsafeFile(OSError):
    """A file the indexer refuses to read: not a regular file, or not the one scanned
    (an OSError, as the open's own refusals are: one `except OSError` takes both)."""


class UnsafeDocument(PdfIndexError, ValueError):
    """A document refused before a library parses it: too large, a zip bomb."""


class AnswerNotWritten(PdfIndexError):
    """A language model could not write query_documents' answer (the extractive one stands)."""


class RequestTimeout(PdfIndexError):
    """A request ran past its time limit and was stopped (its worker killed, if any)."""

    @classmethod
    def after(cls, seconds: float, what: str = "the request") -> RequestTimeout:
        return cls(
            f"{what} took longer than the time limit of {seconds:g} s and was stopped: "
            "narrow it (one document, fewer pages, a more specific query), or raise the "
            "request_timeout setting"
        )


class SessionNotFound(PdfIndexError):
    """No query_documents session has that id (or it expired)."""


class IndexWriteError(PdfIndexError):
    """Writing the index folder failed (disk full, quota, I/O error); nothing of the
    failed write was committed and its partial files were removed."""

    @classmethod
    def about(cls, exc: BaseException, folder: object = None) -> IndexWriteError | None:
        """The error to show for `exc`, when it is a failed write (an OSError, or an
        engine's error naming an OS error); None for anything else."""
        errno_ = exc.errno if isinstance(exc, OSError) else None
        text = str(exc)
        where = f"the index in {folder}" if folder else "the index"
        if errno_ == errno.ENOSPC or "No space left on device" in text or "os error 28" in text:
            return cls(
                f"the disk holding {where} is full: nothing was committed, "
                "the index is as it was. Free some space and run the command again"
            )
        if errno_ == errno.EDQUOT or "Disk quota exceeded" in text:
            return cls(
                f"the disk quota is exceeded writing {where}: nothing was "
                "committed, the index is as it was. Free some space and run the command again"
            )
        if isinstance(exc, OSError) and errno_ in (errno.EIO, errno.EROFS):
            return cls(f"cannot write {where} ({exc.strerror}): nothing was committed")
        return None


class ReadOnlyIndex(IndexWriteError):
    """The index may be read but not written: its database refused a write (a user with
    SELECT only, default_transaction_read_only, a hot standby). Searches still work;
    the message names the privilege or setting that refused it."""


class ArchiveRefused(PdfIndexError):
    """An archive (or a member of one) not read: over its budget (a bomb, too deep),
    corrupt or encrypted, or a member that changed or left since it was indexed."""
