"""The library front: one object that the CLI and the MCP server both drive."""

from __future__ import annotations

import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pdfindex.config import Settings
from pdfindex.engine import open_engine
from pdfindex.errors import ConfigError, DocumentNotFound, InvalidQuery, PageOutOfRange
from pdfindex.extract import ocr
from pdfindex.extract.adapters.base import EMPTY, ENCRYPTED, FAILED, OK
from pdfindex.extract.cache import ExtractionCache
from pdfindex.indexer.live import LiveIndex
from pdfindex.indexer.update import Indexer, Progress
from pdfindex.models import ExactMatch, FileRecord, PageHit, Summary
from pdfindex.paths import relative_posix, resolve_inside
from pdfindex.search.exact import exact_search
from pdfindex.search.ranked import ranked_search

_PAGE_PART = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


class PdfIndex:
    """An open index over a files folder."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        try:
            settings.index_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot create index folder {settings.index_dir}: {exc}") from exc
        if not os.access(settings.index_dir, os.W_OK):
            raise ConfigError(f"index folder {settings.index_dir} is not writable")
        self.engine = open_engine(settings.index_dir, settings.engine)
        self.cache = ExtractionCache(settings.index_dir / "cache")
        self.indexer = Indexer(settings, self.engine, self.cache)

    def live(
        self,
        watch: bool = True,
        quiet: float = 1.0,
        on_summary: Callable[[Summary], None] | None = None,
    ) -> LiveIndex:
        """A live index over this one (call `.start()`): catch-up scan, then the watcher."""
        return LiveIndex(self.indexer, watch=watch, quiet=quiet, on_summary=on_summary)

    def close(self) -> None:
        self.engine.close()

    # -- indexing ------------------------------------------------------------------

    def reindex(
        self,
        full: bool = False,
        progress: Progress | None = None,
        commit_interval: float = 60.0,
        should_stop: Callable[[], bool] | None = None,
        elements_should_stop: Callable[[], bool] | None = None,
    ) -> Summary:
        return self.indexer.reindex(
            full=full,
            progress=progress,
            commit_interval=commit_interval,
            should_stop=should_stop,
            elements_should_stop=elements_should_stop,
        )

    def stats(self) -> dict[str, Any]:
        catalog = self.engine.catalog()
        by_status = {s: 0 for s in (OK, EMPTY, ENCRYPTED, FAILED)}
        for record in catalog.values():
            by_status[record.status] = by_status.get(record.status, 0) + 1
        last = max((r.indexed_at for r in catalog.values()), default=None)
        return {
            "documents": len(catalog),
            "pages": sum(r.pages for r in catalog.values() if r.status in (OK, EMPTY)),
            "by_status": by_status,
            "problems": [
                {"path": r.path, "status": r.status, "reason": r.error}
                for r in sorted(catalog.values(), key=lambda r: r.path)
                if r.status != OK
            ],
            "index_bytes": self.engine.size_bytes(),
            "cache_bytes": self.cache.size_bytes(),
            "segments": self.engine.segment_count(),
            "last_update": (
                time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(last)) if last else None
            ),
            "files_dir": str(self.settings.files_dir),
            "index_dir": str(self.settings.index_dir),
            "extractor": self.settings.extractor,
            "engine": self.engine.name,
            "ocr": self.ocr_status(catalog.values()),
            "elements": dict(
                sum((Counter(r.elements) for r in catalog.values()), Counter()).most_common()
            ),
            "elements_pending": sum(1 for r in catalog.values() if r.elements_state == "pending"),
        }

    def ocr_status(self, records: Iterable[FileRecord]) -> dict[str, Any]:
        """OCR in one place (not per page): can it run, what it read, what it could not."""
        records = list(records)
        missing = [r for r in records if r.ocr_missing]
        engine = ocr.engine()
        reason = (
            "OCR is switched off (ocr = false)"
            if not self.settings.ocr
            else ocr.unavailable_reason(self.settings.ocr_lang)
        )
        return {
            "enabled": self.settings.ocr,
            "language": self.settings.ocr_lang,
            "engine": engine.version or None,
            "unavailable": reason,
            "pages_read": sum(r.ocr_pages for r in records),
            "pages_not_read": sum(r.ocr_missing for r in records),
            "files_not_read": len(missing),
        }

    def describe_ocr(self, info: dict[str, Any]) -> str:
        """One line on OCR for stats and get_library_status."""
        if info["unavailable"]:
            line = f"unavailable: {info['unavailable']}"
        else:
            line = f"{info['engine']}, language {info['language']}"
        line += f"; {info['pages_read']} pages read by OCR"
        if info["pages_not_read"]:
            line += (
                f"; {info['pages_not_read']} image pages in {info['files_not_read']} files "
                "have no text layer and were not read (not searchable)"
            )
        return line

    # -- documents -----------------------------------------------------------------

    def resolve(self, user_path: str) -> tuple[Path, str]:
        """A client-given path as (real path, path under the files folder); refuses any
        path outside the files folder (symlinks included) without reading it."""
        real = resolve_inside(self.settings.files_dir, user_path)
        try:
            return real, relative_posix(self.settings.files_dir, real)
        except ValueError:  # the files folder itself
            return real, "."

    def find_record(self, name: str) -> FileRecord:
        """A document by path under the files folder, by path without `.pdf`, or by slug."""
        key = name.strip()
        _, rel = self.resolve(key)
        for candidate in (rel, rel + ".pdf"):
            record = self.engine.record(candidate)
            if record is not None:
                return record
        record = self.engine.record_by_slug(key.lower())
        if record is not None:
            return record
        raise DocumentNotFound(
            f"no indexed document {name!r}; give a path under {self.settings.files_dir} "
            "or a slug (`pdfindex stats` lists them)"
        )

    def page_texts(
        self, name: str, pages: str | None = None
    ) -> tuple[FileRecord, list[tuple[int, str]]]:
        """The stored text of some pages (`"1-3,5"`, all when None) of one document."""
        record = self.find_record(name)
        texts = self.engine.page_texts(record.slug)
        wanted = parse_pages(pages, len(texts)) if pages else list(range(1, len(texts) + 1))
        return record, [(n, texts[n - 1]) for n in wanted]

    # -- searching -----------------------------------------------------------------

    def search(
        self,
        query: str,
        limit: int = 10,
        document: str | None = None,
        pages: str | None = None,
    ) -> tuple[int, list[PageHit]]:
        slug = self.find_record(document).slug if document else None
        page_range = _page_range(pages) if pages else None
        return ranked_search(self.engine, query, limit=limit, slug=slug, pages=page_range)

    def exact(
        self, query: str, document: str | None = None, limit: int = 10, context_length: int = 200
    ) -> tuple[list[ExactMatch], bool]:
        slug = self.find_record(document).slug if document else None
        return exact_search(
            self.engine, query, slug=slug, limit=limit, context_length=context_length
        )


def parse_pages(spec: str | list[int], page_count: int) -> list[int]:
    """`"1-3,5"` or [1, 2] -> sorted unique page numbers, checked against the document."""
    numbers: set[int] = set()
    parts = spec if isinstance(spec, list) else str(spec).split(",")
    for part in parts:
        if isinstance(part, int) and not isinstance(part, bool):
            first = last = part
        else:
            match = _PAGE_PART.match(str(part))
            if not match:
                raise InvalidQuery(f"bad page list {spec!r}: use numbers and ranges like '1-3,5'")
            first = int(match.group(1))
            last = int(match.group(2) or first)
        if first < 1 or last > page_count or last < first:
            raise PageOutOfRange(
                f"pages {first}-{last} are out of range: this document has pages 1-{page_count}"
            )
        numbers.update(range(first, last + 1))
    return sorted(numbers)


def _page_range(spec: str) -> tuple[int, int]:
    match = _PAGE_PART.match(spec)
    if not match:
        raise InvalidQuery(f"bad page range {spec!r}: use a number or a range like '3-7'")
    first = int(match.group(1))
    return first, int(match.group(2) or first)
