"""A file's catalog record, made from its extraction: title, language, stages, OCR
figures, and the pages the elements pass will read."""

from __future__ import annotations

import time
from collections.abc import Iterable

from pdfindex.elements.detect import candidate_pages
from pdfindex.engine import Engine
from pdfindex.extract.adapters.base import Extraction
from pdfindex.indexer.titles import own_title
from pdfindex.models import FileRecord
from pdfindex.text.language import guess_language


def new_record(
    path: str, size: int, mtime: float, sha256: str, slug: str, extraction: Extraction, source: str
) -> FileRecord:
    """The record of a file just read; `source` says where its text came from (parsed,
    cache, or index for a moved file)."""
    ocr = extraction.ocr_pages
    return FileRecord(
        path=path,
        slug=slug,
        title=title_of(extraction, path),
        pages=len(extraction.pages),
        size=size,
        mtime=mtime,
        sha256=sha256,
        status=extraction.status,
        error=extraction.error,
        indexed_at=time.time(),
        extractor=extraction.engine,
        metadata=extraction.metadata,
        language=guess_language("\n".join(extraction.pages[:5])),
        stages=stages_of(extraction, source),
        ocr_lang=extraction.ocr_lang,
        ocr_pages=len(ocr),
        ocr_confidence=round(sum(ocr.values()) / len(ocr), 1) if ocr else None,
        ocr_missing=len(extraction.ocr_missing),
        notes=extraction.notes,
        image_pages=extraction.image_pages,
        page_lines=[len(page.splitlines()) for page in extraction.pages],
    )


def title_of(extraction: Extraction, path: str) -> str:
    """PDF metadata title when it looks like one, else the first heading, else the file
    name (titles.own_title)."""
    return own_title(extraction.metadata.get("title", ""), extraction.pages[:3], path)


def stages_of(extraction: Extraction, source: str) -> list[str]:
    """The processing stages a file went through, as get_document_info shows them."""
    stages = ["hash", f"extract ({extraction.engine}, {source})"]
    if extraction.ocr_pages:
        stages.append(f"ocr ({extraction.ocr_lang}, {len(extraction.ocr_pages)} pages)")
    return [*stages, "index"]


def element_pages(extraction: Extraction) -> list[int]:
    """Pages worth a layout pass: a caption or numbered equation in the text, or a large
    image (an uncaptioned figure). Decided while the text is at hand."""
    return sorted(set(candidate_pages(extraction.pages)) | set(extraction.image_pages))


def is_pdf(path: str) -> bool:
    return path.lower().endswith(".pdf")


def records_at(engine: Engine, paths: Iterable[str]) -> dict[str, FileRecord]:
    """The records at each library path of `paths` and under it (a folder's files, an
    archive's members), read one path at a time: a run limited to the changed paths
    never decodes the whole catalog."""
    found: dict[str, FileRecord] = {}
    for path in paths:
        record = engine.record(path)
        if record is not None:
            found[path] = record
        found.update((r.path, r) for r in engine.records_starting(path + "/"))
    return found


class TakenSlugs:
    """The slugs a new file may not take, for a run that read only some records: those
    it knows, and any other the library holds (asked of the engine), less those of the
    records it removes."""

    def __init__(self, engine: Engine, known: set[str], freed: set[str]) -> None:
        self._engine = engine
        self._known = known
        self._freed = freed - known

    def __contains__(self, slug: object) -> bool:
        if slug in self._known:
            return True
        if slug in self._freed or not isinstance(slug, str):
            return False
        return self._engine.record_by_slug(slug) is not None

    def add(self, slug: str) -> None:
        self._known.add(slug)
