"""Archives as the registry sees them: the archive file's own record (what it holds, or
why it was refused) and the list of its member documents, which the indexer then reads
one by one as documents of their own (`pdfindex.extract.archives`)."""

from __future__ import annotations

import os
from importlib import metadata as distributions
from pathlib import Path

from pdfindex.errors import ArchiveRefused
from pdfindex.extract.adapters.base import Extraction
from pdfindex.extract.archives import (
    ARCHIVE_EXTENSIONS,
    VERSION,
    Limits,
    list_archive,
    listing_text,
    refused_status,
)
from pdfindex.models import FileStatus


class ArchiveAdapter:
    name = "archive"
    description = (
        "ZIP, TAR (.tar, .tar.gz, .tgz, .tar.bz2, .tar.xz) and 7z archives: each member "
        "document is indexed as ARCHIVE/MEMBER, nested archives included"
    )
    extensions: tuple[str, ...] = ARCHIVE_EXTENSIONS

    @property
    def version(self) -> str:
        return VERSION

    @property
    def binary(self) -> str:
        return f"libarchive-c {distributions.version('libarchive-c')}"

    def extract(
        self, path: Path, scratch: Path | None = None, limits: Limits | None = None
    ) -> Extraction:
        """The archive's page (its documents by name) and its members; `scratch` (the
        index folder's) holds nested archives while they are read: without it they are
        left out."""
        from pdfindex.extract.adapters import supported_extensions

        extensions = supported_extensions()
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            wanted = lambda chain: chain[-1].lower().endswith(extensions)  # noqa: E731
            listing = list_archive(fd, wanted, limits or Limits(), scratch)
        except ArchiveRefused as exc:
            reason = str(exc)
            return Extraction(
                status=refused_status(reason), error=f"archive refused: {reason}", engine=VERSION
            )
        finally:
            os.close(fd)
        return Extraction(
            status=FileStatus.OK,
            pages=[listing_text(listing)],
            engine=VERSION,
            notes=listing.notes,
            members=[member.to_dict() for member in listing.members],
        )
