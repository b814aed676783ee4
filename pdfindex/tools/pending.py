"""search_pdf as the server answers it: a file that has just landed, or that the start-up
scan has not reached, is waited for briefly instead of answered "not indexed"."""

from __future__ import annotations

from pdfindex.api import PdfIndex
from pdfindex.indexer.live import LiveIndex
from pdfindex.tools import exact
from pdfindex.tools.results import SearchPdfResult

PENDING_WAIT = 3.0  # seconds search_pdf waits for one file the writer has not reached


def search_pdf(
    index: PdfIndex,
    live: LiveIndex,
    pdf_name: str,
    query: str,
    context_length: int = 2000,
    topk: int = 10,
) -> SearchPdfResult:
    """Seed 000's answer (exact.search_pdf), after waiting up to PENDING_WAIT for a file
    on disk that the writer has yet to index; a missing file's answer names the closest."""
    result = exact.search_pdf(index, pdf_name, query, context_length, topk)
    if result.get("error") == exact.NOT_INDEXED and live.pending:
        live.wait_for(lambda: index.is_indexed(pdf_name), PENDING_WAIT)
        result = exact.search_pdf(index, pdf_name, query, context_length, topk)
        if result.get("error") == exact.NOT_INDEXED:
            result["error"] += index.indexing_note()
    return exact.with_suggestions(index, result, pdf_name)
