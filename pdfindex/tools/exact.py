"""Seed 000's search_pdf: every occurrence of a text in one PDF, from the index."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from pdfindex.api import PdfIndex
from pdfindex.errors import InvalidQuery
from pdfindex.models import FileStatus
from pdfindex.names import lookup, unreadable
from pdfindex.search.exact import MAX_CONTEXT, check_range, exact_search
from pdfindex.tools import names
from pdfindex.tools.budget import cut_text, fit, items_budget, size_of
from pdfindex.tools.results import SearchPdfResult

if TYPE_CHECKING:
    from pdfindex.indexer.live import LiveIndex

PENDING_WAIT = 3.0  # seconds search_pdf_live waits for one file the writer has not reached
NOT_INDEXED = "the PDF is not indexed yet; run `pdfindex reindex` or retry shortly"
_PDF_SUFFIX = re.compile(r"\.pdf$", re.IGNORECASE)


def search_pdf(
    index: PdfIndex, pdf_name: str, query: str, context_length: int = 2000, topk: int = 10
) -> SearchPdfResult:
    """Seed 000: {file_exists, query_exists, matches[, error]} from the index, and
    `pages`: the page of each match (pages[i] for matches[i]), to cite without a call."""
    check_range("topk", topk, 1, 100)
    check_range("context_length", context_length, 0, MAX_CONTEXT)
    name = (pdf_name or "").strip()
    if not _PDF_SUFFIX.sub("", name):
        raise InvalidQuery(
            "pdf_name is empty: give a file name under the files folder, without .pdf"
        )
    with names.file_system(name):
        record = lookup(index, name)  # path, path without extension, or slug
        there = names.on_disk(index, name) if record is None else None
        result: dict[str, Any] = {
            "file_exists": record is not None or there is not None,
            "query_exists": False,
            "matches": [],
            "pages": [],
        }
    if not result["file_exists"]:
        return result
    if record is None:  # a type no adapter reads is never indexed: said at once
        result["error"] = (there and index.not_read(there[1])) or NOT_INDEXED
        return result
    why = unreadable(record, empty=True)
    if record.status == FileStatus.UNSUPPORTED:
        result["error"] = why
        return result
    if why is not None:  # seed 000's words first, then the one wording of the cause
        seed = "No text in PDF" if record.status == FileStatus.EMPTY else "Failed to parse PDF"
        result["error"] = f"{seed}: {why}"
        return result
    matches, _more = exact_search(
        index.engine, query, slug=record.slug, limit=topk, context_length=context_length
    )
    result["query_exists"] = bool(matches)
    result["matches"] = [m.context for m in matches]
    result["pages"] = [m.page for m in matches]
    return _bounded(result, index.settings.max_response_chars)


def with_suggestions(index: PdfIndex, result: SearchPdfResult, pdf_name: str) -> SearchPdfResult:
    """A missing file's answer, in seed 000's shape, with the closest names as `error`."""
    if not result["file_exists"] and "error" not in result:
        result["error"] = names.not_found(index, (pdf_name or "").strip())
    return result


def _bounded(result: dict[str, Any], budget: int) -> dict[str, Any]:
    """Cut the match list so one response stays under `budget` characters."""
    budget = items_budget(budget) - size_of(result["pages"])  # the pages go out too
    kept, truncated = fit(result["matches"], budget)
    if truncated or any(size_of(m) > budget for m in kept):
        result["matches"] = [cut_text(m, budget) for m in kept]
        result["pages"] = result["pages"][: len(kept)]
        result["truncated"] = True
        result["note"] = (
            f"response cut to {budget} characters; ask for a smaller context_length or topk"
        )
    return result


def search_pdf_live(
    index: PdfIndex,
    live: LiveIndex,
    pdf_name: str,
    query: str,
    context_length: int = 2000,
    topk: int = 10,
) -> SearchPdfResult:
    """search_pdf as the server answers it: a file that has just landed, or that the
    start-up scan has not reached, is waited for up to PENDING_WAIT instead of answered
    "not indexed"; a missing file's answer names the closest."""
    result = search_pdf(index, pdf_name, query, context_length, topk)
    if result.get("error") == NOT_INDEXED and live.pending:
        live.wait_for(lambda: index.is_indexed(pdf_name), PENDING_WAIT)
        result = search_pdf(index, pdf_name, query, context_length, topk)
        if result.get("error") == NOT_INDEXED:
            result["error"] += index.indexing_note()
    return with_suggestions(index, result, pdf_name)
