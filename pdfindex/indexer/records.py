"""A file's catalog record, made from its extraction: title, language, stages, OCR
figures, and the pages the elements pass will read."""

from __future__ import annotations

import time

from pdfindex.elements.detect import candidate_pages
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
