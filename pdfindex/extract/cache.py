"""Persistent extraction cache: page texts keyed by content hash + extractor version.

A rename, a copy or `reindex --full` never re-parses bytes seen before. Failures that
may be transient (timeouts, crashes) are not cached. An entry written under older text
rules (`TEXT_VERSION`) is normalised again as it is read: new rules cost no re-parse.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import tempfile
import threading
from pathlib import Path

from pdfindex.extract.adapters.base import Extraction, clean_metadata
from pdfindex.extract.text import TEXT_VERSION, normalize_text
from pdfindex.models import FileStatus
from pdfindex.paths import Identity, open_regular

_CHUNK = 1 << 20


def file_sha256(path: Path, identity: Identity | None = None, inside: Path | None = None) -> str:
    """The hash of the regular file at `path` (given the scan's `identity`: that very file;
    given `inside`: under that folder); a FIFO, device, link or swapped file raises
    OSError, never blocks."""
    digest = hashlib.sha256()
    with os.fdopen(open_regular(path, identity, inside), "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


class ExtractionCache:
    """Gzipped JSON files under `<index>/cache/ab/<sha256>-<engine version>.json.gz`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        # The entries' bytes: the folder is walked once per process, then `put` keeps the
        # figure (a walk per status call took seconds at 50,000 entries).
        self._size: int | None = None
        self._size_lock = threading.Lock()

    def _file(self, sha256: str, engine_version: str) -> Path:
        return self.folder / sha256[:2] / f"{sha256}-{engine_version}.json.gz"

    def get(self, sha256: str, engine_version: str) -> Extraction | None:
        try:
            with gzip.open(self._file(sha256, engine_version), "rt", encoding="utf-8") as handle:
                data = json.load(handle)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, EOFError):
            return None  # a damaged entry is simply re-extracted
        try:
            extraction = Extraction.from_dict(data)
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
        if data.get("text_version") != TEXT_VERSION:
            renormalize(extraction)
            try:
                self.put(sha256, engine_version, extraction)  # paid once, not at every read
            except OSError:
                pass  # a read-only cache still serves the renormalised text
        return extraction

    def put(self, sha256: str, engine_version: str, extraction: Extraction) -> None:
        if extraction.status == FileStatus.FAILED:
            return
        target = self._file(sha256, engine_version)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
        try:
            with (
                os.fdopen(fd, "wb") as raw,
                gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=3) as handle,
            ):
                handle.write(json.dumps(extraction.to_dict()).encode("utf-8"))
            with self._size_lock:
                replaced = _size_of(target)
                os.replace(tmp, target)  # atomic: a crash never leaves a half-written entry
                if self._size is not None:
                    self._size += _size_of(target) - replaced
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def size_bytes(self) -> int:
        with self._size_lock:
            if self._size is None:
                self._size = (
                    sum(f.stat().st_size for f in self.folder.rglob("*.json.gz"))
                    if self.folder.exists()
                    else 0
                )
            return self._size


def _size_of(path: Path) -> int:
    """The bytes of the file at `path` (0: there is none)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


_ELEMENT_TEXTS = ("label", "caption", "context")


def renormalize(extraction: Extraction) -> None:
    """Bring text cached under older rules to today's `normalize_text`, in place: pages,
    metadata and the texts of visual elements."""
    extraction.pages = [normalize_text(page) for page in extraction.pages]
    extraction.metadata = clean_metadata(extraction.metadata)
    for element in extraction.elements:
        for key in _ELEMENT_TEXTS:
            if isinstance(element.get(key), str):
                element[key] = normalize_text(element[key])
        if isinstance(element.get("cells"), list):
            element["cells"] = [
                [normalize_text(c) if isinstance(c, str) else c for c in row]
                for row in element["cells"]
                if isinstance(row, list)
            ]
