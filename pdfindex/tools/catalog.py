"""Seed 004's document-library tools (and seed 002's get_document_info), over the index.

Formatted text where seed 004 returns text, so a model can build follow-up calls from it.
"""

from __future__ import annotations

import mimetypes
import time
from datetime import UTC, datetime
from typing import Any, TypeVar

from rapidfuzz import fuzz, process

from pdfindex.api import PdfIndex
from pdfindex.elements.detect import ELEMENT_TYPES
from pdfindex.errors import InvalidQuery
from pdfindex.models import ElementRecord, FileRecord, FileStatus
from pdfindex.names import unreadable
from pdfindex.ranking import notes, rank
from pdfindex.search.ranked import ranked_elements
from pdfindex.tools import names
from pdfindex.tools.budget import cap_text
from pdfindex.tools.outcomes import error
from pdfindex.tools.results import (
    DocumentInfoResult,
    FindDocumentResult,
    ListDocumentsPaginatedResult,
)

SORT_KEYS = ("title", "date_added", "page_count")
ELEMENTS_IN_SEARCH = 3  # elements search_documents adds after the pages
T = TypeVar("T")
U = TypeVar("U")
DOCUMENT = "Slug, or path under the files folder (extension optional)."


def iso(timestamp: float | None) -> str | None:
    return (
        datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds") if timestamp else None
    )


def record_by_slug(index: PdfIndex, slug: str) -> FileRecord:
    """A document by slug, path or path without extension (pdfindex.tools.names)."""
    return names.find_document(index, slug)


def search_documents(
    index: PdfIndex, query: str, limit: int = 10, document_slug: str | None = None
) -> str:
    """Ranked pages as every front ranks them (`pdfindex.ranking`: the query understood,
    corrected when a word is on no page, BM25 or hybrid), numbered, with type, label,
    slug, page and a snippet; the notes say what was corrected and whether a page clearly
    answers, the last line which ranking was used and the first page's confidence."""
    if not 1 <= limit <= 50:
        raise InvalidQuery("limit must be from 1 to 50")
    slug = record_by_slug(index, document_slug).slug if document_slug else None
    found = rank(index, query, limit, slug)
    total, hits = found.total, found.hits
    _, elements = ranked_elements(
        index.engine, found.query, min(ELEMENTS_IN_SEARCH, limit), slug=slug, captions_only=True
    )
    hits, elements = within_limit(hits, elements, limit)
    if not hits and not elements:
        return "\n".join([f'No results for "{query}".', *notes(found)])
    lines = [f'Found {total} pages for "{query}", showing {len(hits)}:', *notes(found), ""]
    for n, hit in enumerate(hits, start=1):
        snippet = " ".join(hit.snippet.split())
        lines += [
            f"[{n}] TEXT: Page {hit.page}",
            f"  Document: {hit.slug}",
            f"  Page: {hit.page}",
            f"  Score: {hit.score:.2f}",
            f"  {snippet}",
            "",
        ]
    if elements:
        lines += ["Figures, tables and equations whose caption matches:", ""]
        for n, (element, score) in enumerate(elements, start=len(hits) + 1):
            lines += [*element_lines(n, element, score), ""]
    if found.weights:  # explicit syntax has no words to weigh
        lines.append(f"Confidence: {found.confidence:.2f} (the first page's share of the query)")
    lines.append("Follow up with get_page_image(document_slug, page_number) to see a page.")
    if elements:
        lines.append("get_element_image(document_slug, element_label) shows an element.")
    lines.append(f"Ranking: {found.method}")
    return "\n".join(lines)


def within_limit(hits: list[T], elements: list[U], limit: int) -> tuple[list[T], list[U]]:
    """At most `limit` results of both kinds: elements keep a third of the places (at most
    ELEMENTS_IN_SEARCH) and any the pages leave empty; pages, best first, fill the rest."""
    share = min(ELEMENTS_IN_SEARCH, limit // 3)
    kept = elements[: max(share, limit - len(hits))]
    return hits[: limit - len(kept)], kept


def element_lines(n: int, element: ElementRecord, score: float) -> list[str]:
    """One numbered element result: the compound key (slug, label) to follow up with."""
    lines = [
        f"[{n}] {element['kind'].upper()}: {element['label']}",
        f"  Document: {element['slug']}",
        f"  Page: {element['page']}",
        f"  Score: {score:.2f}",
    ]
    if element.get("caption", "").strip():
        lines.append(f"  Caption: {shorten(element['caption'], 300)}")
    return lines


def shorten(text: str, most: int) -> str:
    """Whitespace collapsed to single spaces, cut to `most` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= most else flat[: most - 1].rstrip() + "…"


def get_document_info(
    index: PdfIndex, document_slug: str | None, document_id: str | None
) -> DocumentInfoResult:
    """get_document_info by seed 004's document_slug or seed 002's document_id; with
    neither, seed 002's ValidationError (a signature cannot require one of two); with
    both, they must name the same document, else neither is silently preferred."""
    slug = document_slug or document_id
    if not slug:
        return error(
            "ValidationError",
            "Error: give document_slug or document_id.",
            {"parameter": "document_id", "expected": DOCUMENT, "received": None},
        )
    if document_slug and document_id:
        by_slug = record_by_slug(index, document_slug).slug
        by_id = record_by_slug(index, document_id).slug
        if by_slug != by_id:
            return error(
                "ValidationError",
                f"Error: document_slug {document_slug!r} and document_id {document_id!r} name "
                f"different documents ('{by_slug}' and '{by_id}'): give one of them, or both "
                "naming the same document.",
                {
                    "parameter": "document_id",
                    "expected": f"the document document_slug names ('{by_slug}'), or nothing",
                    "received": document_id,
                },
            )
    return document_info(index, slug)


def document_info(index: PdfIndex, slug: str) -> DocumentInfoResult:
    """Everything known about one document: seed 004's flat keys and seed 002's nested
    `document_info` in one answer."""
    record = record_by_slug(index, slug)
    return {
        "status": "success",
        "document_info": seed002_info(record, changed_on_disk(index, record)),
        "document_id": record.slug,
        "slug": record.slug,
        "title": record.title,
        "file_name": record.path.rsplit("/", 1)[-1],
        "path": record.path,
        "file_size": record.size,
        "total_pages": record.pages,
        "page_unit": record.page_unit,
        "index_status": record.status,
        "error": record.error,
        "processing_stages": record.stages,
        "language": record.language,
        "extractor": record.extractor,
        "metadata": record.metadata,
        "modified_at": iso(record.mtime),
        "indexed_at": iso(record.indexed_at),
        "indexed_elements": {
            "pages": record.pages if record.status == FileStatus.OK else 0,
            **{kind: record.elements.get(kind, 0) for kind in ELEMENT_TYPES},
        },
        "ocr": {
            "language": record.ocr_lang,
            "pages": record.ocr_pages,
            "mean_confidence": record.ocr_confidence,
            "pages_not_read": record.ocr_missing,
        },
        "notes": record.notes,
    }


def changed_on_disk(index: PdfIndex, record: FileRecord) -> bool:
    """The file differs from what was indexed (size or time): it is being re-indexed."""
    try:
        stat = index.resolve(record.path)[0].stat()
    except OSError:
        return False
    return (stat.st_size, stat.st_mtime) != (record.size, record.mtime)


def seed002_info(record: FileRecord, changed: bool = False) -> dict[str, Any]:
    """Seed 002's `document_info`: sizes as text, times as ISO strings, one chunk per
    indexed page, no embedding stage (the index is full-text)."""
    status = "completed" if record.status in (FileStatus.OK, FileStatus.EMPTY) else "failed"
    return {
        "id": record.slug,
        "file_name": record.path.rsplit("/", 1)[-1],
        "file_path": record.path,
        "file_size": human_size(record.size),
        "processing_status": "processing" if changed else status,
        "created_at": iso(record.mtime),
        "processed_at": iso(record.indexed_at),
        "metadata": {
            "page_count": record.pages,
            "processing_time": None,
            "language": record.language,
            "content_type": mimetypes.guess_type(record.path)[0] or "application/octet-stream",
            "chunk_count": record.pages if record.status == FileStatus.OK else 0,
        },
        "processing_stages": {
            "ocr": {
                "status": "completed" if record.ocr_pages else "skipped",
                "confidence": record.ocr_confidence,
                "duration": None,
                "pages": record.ocr_pages,
            },
            "embedding": {
                "status": "skipped",
                "model": "none (BM25 full-text index)",
                "dimensions": 0,
                "duration": None,
            },
        },
    }


def human_size(size: int) -> str:
    """Bytes as seed 002 shows them: '1.4 MB'."""
    amount = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if amount < 1024 or unit == "GB":
            return f"{amount:.0f} {unit}" if unit == "B" else f"{amount:.1f} {unit}"
        amount /= 1024
    return f"{size} B"


def find_document(index: PdfIndex, query: str, limit: int = 5) -> FindDocumentResult:
    """Partial and typo-tolerant match on slug, title and file name."""
    if not query.strip():
        raise InvalidQuery("query is empty: give part of a name, title or slug")
    records = list(index.engine.catalog().values())
    choices = {
        n: f"{r.slug} {r.title} {r.path.rsplit('/', 1)[-1]}".lower() for n, r in enumerate(records)
    }
    ranked = process.extract(
        query.lower(), choices, scorer=fuzz.partial_ratio, limit=max(1, min(limit, 50))
    )
    matches = []
    for _, score, key in ranked:
        if score < 60:
            continue
        record = records[key]
        match = {
            "slug": record.slug,
            "title": record.title,
            "path": record.path,
            "pages": record.pages,
            "score": round(score / 100, 3),
        }
        why = unreadable(record)
        if why is not None:  # e.g. a type no adapter reads: said with the name
            match.update(status=str(record.status), error=why)
        matches.append(match)
    return {"query": query, "matches": matches, "total": len(matches)}


def _sorted(index: PdfIndex, sort_by: str) -> list[FileRecord]:
    if sort_by not in SORT_KEYS:
        raise InvalidQuery(f"sort_by must be one of {', '.join(SORT_KEYS)}")
    records = list(index.engine.catalog().values())
    key = {
        "title": lambda r: (r.title.lower(), r.slug),
        "date_added": lambda r: (-r.indexed_at, r.slug),
        "page_count": lambda r: (-r.pages, r.slug),
    }[sort_by]
    return sorted(records, key=key)


def list_documents(index: PdfIndex, limit: int) -> str:
    """Every document, one line each; cut at `limit` characters with a pointer to
    list_documents_paginated."""
    records = _sorted(index, "title")
    if not records:
        return "The library is empty: add PDFs to the files folder."
    lines = [f"{len(records)} documents:"]
    for r in records:
        state = "" if r.status == FileStatus.OK else f" [{r.status}]"
        lines.append(f"- {r.slug}: {r.title} ({r.pages} pages){state}")
    return cap_text("\n".join(lines), limit, "list_documents_paginated(page=...) lists them all")


def list_documents_paginated(
    index: PdfIndex, page: int = 1, page_size: int = 20, sort_by: str = "title"
) -> ListDocumentsPaginatedResult:
    if page < 1 or not 1 <= page_size <= 100:
        raise InvalidQuery("page must be 1 or more and page_size from 1 to 100")
    records = _sorted(index, sort_by)
    pages = max(1, -(-len(records) // page_size))
    chunk = records[(page - 1) * page_size : page * page_size]
    return {
        "documents": [
            {
                "slug": r.slug,
                "title": r.title,
                "path": r.path,
                "pages": r.pages,
                "status": r.status,
                "date_added": iso(r.indexed_at),
            }
            for r in chunk
        ],
        "pagination": {
            "page": page,
            "page_size": page_size,
            "total": len(records),
            "pages": pages,
            "has_next": page < pages,
            "sort_by": sort_by,
        },
    }


def library_status(
    index: PdfIndex, watching: bool | str, pending: bool, last_error: str | None
) -> str:
    """The status page; `watching` is the watcher in words (LiveIndex.watcher_state) or
    whether it runs."""
    stats = index.stats()
    counts = ", ".join(f"{n} {status}" for status, n in stats["by_status"].items())
    settings = index.settings
    indexing = index.indexing()  # never waits: answers from what is indexed now
    state = "OK" if not indexing else "indexing (searches see what is indexed so far)"
    lines = [
        "Library status: " + (state if not last_error else f"degraded ({last_error})"),
        f"Documents: {stats['documents']} ({counts})",
        f"Pages: {stats['pages']}",
        f"Indexing: {indexing or 'idle'}",
        f"Pending changes: {'yes' if pending else 'none'}",
        f"Watcher: {watching if isinstance(watching, str) else 'running' if watching else 'off'}",
        f"Last commit: {stats['last_update'] or 'never'}",
        f"Index: {stats['index_bytes'] / 1e6:.1f} MB "
        + (f"in {stats['database']}" if stats["database"] else f"in {stats['segments']} segments")
        + (f", read from the replica {stats['read_database']}" if stats["read_database"] else ""),
        f"Files folder: {settings.files_dir} ({settings.sources.get('files_dir')})",
        *(
            f"Folder {f['name']}: {f['path']} ({f['documents']} documents, {f['pages']} pages; "
            f"its documents are {f['name']}/...)"
            for f in stats["folders"][1:]  # the `folders` setting's (and client roots)
        ),
        f"Configuration: root {settings.root} ({settings.sources.get('root')})",
        f"OCR: {index.describe_ocr(stats['ocr'])}",
        "Elements: "
        + (", ".join(f"{n} {kind}" for kind, n in stats["elements"].items()) or "none found")
        + (
            f" (found in {stats['elements_documents'] - stats['elements_pending']:,} of "
            f"{stats['elements_documents']:,} PDFs; {stats['elements_pending']:,} still to "
            "analyse, each at once when asked for)"
            if stats["elements_pending"]
            else ""
        ),
        f"Search: BM25 over page text ({index.engine.name.capitalize()}); "
        + semantic_status(index),
        f"Checked at {iso(time.time())}",
    ]
    return "\n".join(lines)


def semantic_status(index: PdfIndex) -> str:
    """The semantic extra in words: off, or its model and how many pages have vectors."""
    semantic = index.semantic
    if semantic is None:
        return "no embeddings (semantic = false; no embedding server is used)."
    info = semantic.status()
    state = "embedding in the background" if info["running"] else "idle"
    if info["error"]:
        state = f"failed: {info['error']}"
    return (
        f"hybrid with {info['model']} embeddings for questions: {info['embedded_pages']:,} "
        f"of {info['pages']:,} pages embedded ({state}; a local model, no embedding server)."
    )


TOUR = """\
# pdfindex library tour

Every answer comes from a full-text index of the PDFs in the files folder.

Find a document:
- find_document(query="attention") -> slugs of documents whose name or title matches
  (typos are fine). list_documents() or list_documents_paginated(page=1) list them all.

Search text:
- search_documents(query="transformer architecture", limit=10) -> numbered pages with
  slug, page number and snippet. Add document_slug="..." to stay in one document.
- search_pdf(pdf_name="research/attention-notes", query="multi-head") -> exact matches
  with context. fuzzy_search(query="atention") tolerates typos; search_in_file(file,
  pattern) takes a regular expression.
- query_documents(query="How does attention work?") -> the best passages with citations and
  an extractive answer; pass the returned session_id to follow up.

Look at pages:
- get_page_image(document_slug="...", page_number=3) -> the page as a PNG image.
- read_pdf(sources=[{"path": "a.pdf", "pages": "1-3"}]) or extract_pdf_page(file, pages)
  -> page text (Markdown, HTML, plain, LaTeX, DOCX).

Figures, tables and equations (found at index time from the page layout):
- search_visual_elements(query="mercator projection", element_type="figure") -> numbered
  elements with type, label as printed ("Figure 8-1"), document slug and page.
- get_element_image(document_slug="...", element_label="Table 5") -> the element as a PNG;
  add page_number=... when the label occurs on several pages.
- get_element_details(document_slug="...", element_label="Table 5") -> caption, the text
  around it, a table's cells as Markdown, an equation's LaTeX when it can be recovered.

Scanned pages are read by OCR at index time and searched like any other text.

About documents: get_document_info(document_slug="..."), get_library_status().
"""
