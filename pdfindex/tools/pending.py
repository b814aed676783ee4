"""The elements of documents whose elements pass has not run yet (`reindex
--elements-later`, or a start-up scan still on its text): one document's are found when a
call asks for them, and a library-wide answer says how much of the library it covers.

Found on demand, a document's elements are cached by content hash (never written to the
index here: that would wait for the writer's lock); the pass then writes them without
reading the file again.
"""

from __future__ import annotations

from pdfindex import deadline
from pdfindex.api import PdfIndex
from pdfindex.errors import PdfIndexError
from pdfindex.extract.adapters.base import Extraction
from pdfindex.indexer.elements import elements_key
from pdfindex.models import ElementRecord, ElementsState, FileRecord, FileStatus
from pdfindex.tools.pages import opened

GRACE = 5.0  # seconds past the detector's own limit before its worker is killed


def document_elements(index: PdfIndex, record: FileRecord) -> list[ElementRecord]:
    """A document's figures, tables and equations as the engine returns them: the
    index's once its pass is done; while pending, from the cache or found now in an
    isolated worker within the request's time."""
    if record.elements_state != ElementsState.PENDING:
        return index.engine.elements(record.slug)
    found = index.cache.get(record.sha256, elements_key())
    if found is None and record.element_pages:  # no candidate page: nothing to find
        found = _find_now(index, record)
    listed = found.elements if found is not None else []
    return [ElementRecord(**e, slug=record.slug, path=record.path) for e in listed]  # type: ignore[typeddict-item]


def _find_now(index: PdfIndex, record: FileRecord) -> Extraction:
    """The elements of `record`'s candidate pages, read from the bytes it was indexed
    from (`opened` checks the hash-free identity; size and mtime say they are the same
    bytes, else nothing is cached and the next scan reads the file again)."""
    real, _ = index.resolve(record.path)
    seconds = deadline.remaining(index.settings.timeout)
    with opened(real, index, record.sha256) as fd:
        found = Extraction.from_dict(
            index.isolated.call(
                "pdfindex.elements.detect:elements_now",
                fd,
                record.element_pages,
                seconds,
                timeout=seconds + GRACE,
                what=f"finding the figures, tables and equations of '{record.slug}'",
            )
        )
    if found.status == FileStatus.FAILED:
        raise PdfIndexError(f"the elements of '{record.slug}' could not be found: {found.error}")
    if _unchanged(index, record):
        index.cache.put(record.sha256, elements_key(), found)
    return found


def _unchanged(index: PdfIndex, record: FileRecord) -> bool:
    real, _ = index.resolve(record.path)
    try:
        info = real.stat()
    except OSError:
        return False
    return (info.st_size, info.st_mtime) == (record.size, record.mtime)


def coverage_note(index: PdfIndex) -> str | None:
    """'Partial: …' when some PDFs' elements are not found yet, else None."""
    pending, analysed = index.per_generation("elements coverage", _coverage)
    if not pending:
        return None
    return (
        f"Partial: the elements of {pending:,} of {analysed:,} PDFs are not found yet "
        "(the elements pass runs after the text is indexed); these results cover the "
        f"other {analysed - pending:,}. A document's own elements are found when asked "
        "for (document_slug, get_element_details)."
    )


def _coverage(catalog: dict[str, FileRecord]) -> tuple[int, int]:
    """(PDFs whose elements are pending, PDFs the elements pass is for)."""
    states = [r.elements_state for r in catalog.values()]
    return states.count(ElementsState.PENDING), len(states) - states.count(ElementsState.NONE)


def matched(elements: list[ElementRecord], query: str) -> list[tuple[ElementRecord, float]]:
    """A pending document's elements found now, ranked by the query's words in their
    label, caption and context (the share of the words found): BM25 ranks them once the
    pass has written them to the index."""
    words = set(query.casefold().split())
    scored = []
    for element in elements:
        text = " ".join((element["label"], element["caption"], element["context"])).casefold()
        share = sum(1 for w in words if w in text) / max(1, len(words))
        if share > 0:
            scored.append((element, share))
    return sorted(scored, key=lambda pair: -pair[1])
