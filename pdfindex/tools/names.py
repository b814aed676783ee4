"""The tools' side of naming. The rule itself (a path, the path without extension, a
slug; the closest names; why a file cannot be read) is pdfindex.names, which the CLI
uses too; here are the tools' wordings of it and the files on disk not indexed (yet).

Every name first goes through `PdfIndex.resolve` (pdfindex.paths.resolve_inside), so
whatever a name looks like, nothing outside the files folder is ever looked at. In a
library fed by several folders, a document of another source is found by name all the
same; its file is read only through that source's folder in `source_folders`, with the
same checks, and is otherwise reported unreachable (SourceUnreachable).
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from pdfindex.api import PdfIndex
from pdfindex.errors import (
    DocumentNotFound,
    EncryptedDocument,
    InvalidQuery,
    PdfIndexError,
    SourceUnreachable,
)
from pdfindex.models import FileRecord, FileStatus
from pdfindex.names import NAMING, closest, lookup, unreadable


@contextmanager
def file_system(key: str) -> Iterator[None]:
    """A path the file system refuses (too long, a loop of links) as a named cause."""
    try:
        yield
    except PdfIndexError:  # SourceUnreachable is an OSError too, and says it all
        raise
    except OSError as exc:
        shown = key if len(key) <= 60 else f"{key[:60]}… ({len(key)} characters)"
        cause = (
            "too long for the file system (at most 255 bytes per folder or file name)"
            if exc.errno == errno.ENAMETOOLONG
            else f"not readable: {exc.strerror or type(exc).__name__}"
        )
        raise InvalidQuery(f"the path {shown!r} is {cause}") from None


def find_document(index: PdfIndex, name: str | None) -> FileRecord:
    """The indexed document `name` stands for; DocumentNotFound names the closest ones,
    or says the file is there but not indexed yet."""
    key = (name or "").strip()
    if not key:
        raise InvalidQuery(f"no document named: give {NAMING}")
    with file_system(key):
        record = lookup(index, key)
        if record is not None:
            return record
        there = on_disk(index, key)
    if there is not None:
        why = index.not_read(there[1])
        if why is not None:  # it will never be indexed: say so now, not "retry shortly"
            raise PdfIndexError(why)
        raise DocumentNotFound(
            f"Document '{key}' is in the files folder but not indexed yet; retry shortly "
            "(get_library_status shows progress)."
        )
    raise DocumentNotFound(not_found(index, key))


def readable(record: FileRecord) -> FileRecord:
    """`record`, if its text could be read; a failed or encrypted file says so (it has no
    pages to ask for, so a page number would only get a confusing range error)."""
    why = unreadable(record)
    if why is None:
        return record
    raise (EncryptedDocument if record.status == FileStatus.ENCRYPTED else PdfIndexError)(why)


def on_disk(index: PdfIndex, key: str) -> tuple[Path, str] | None:
    """(real path, library path) of the supported file `key` names on disk, with or
    without its extension; None when there is none (or it is another source's, whose
    folder this host cannot reach)."""
    try:
        real, rel = index.resolve(key)
        if real.is_file():
            return real, rel
        if rel == "." or PurePosixPath(rel).suffix.lower() in index.reads():
            return None
        for extension in sorted(index.reads(), key=lambda e: e != ".pdf"):
            real, rel = index.resolve(key + extension)
            if real.is_file():
                return real, rel
    except SourceUnreachable:
        return None
    return None


def resolve_file(index: PdfIndex, name: str | None) -> tuple[Path, str]:
    """A file on disk (indexed or not) by any of its names: (real path, relative path)."""
    key = (name or "").strip()
    if not key:
        raise InvalidQuery(f"no file named: give {NAMING}")
    with file_system(key):
        found = on_disk(index, key)
        if found is not None:
            return found
        record = lookup(index, key)
    if record is not None:
        return index.resolve(record.path)
    raise DocumentNotFound(not_found(index, key))


def resolve_scope(index: PdfIndex, path: str) -> tuple[Path, str]:
    """A folder, or one file by any of its names: (real path, relative path)."""
    with file_system(path):
        real, rel = index.resolve(path or ".")
        if real.exists():
            return real, rel
    return resolve_file(index, path)


def not_found(index: PdfIndex, key: str) -> str:
    """'Document X not found', the closest names, and how to look further."""
    near = closest(index, key)
    if near:
        listing = ", ".join(f"'{r.slug}' ({r.path})" for r in near)
        hint = f" Closest: {listing}."
    else:
        hint = " No indexed document has a similar name; list_documents lists them all."
    return (
        f"Document '{key}' not found.{hint} Give {NAMING}; "
        "use find_document to resolve partial names."
    )
