"""Where a query's words stand on a page, and a document's outline: what the web page
draws over a page image and lists beside it. Both read the PDF in a killable worker,
as page images are made (`pdfindex.tools.pages`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from pdfindex import deadline
from pdfindex.api import PdfIndex
from pdfindex.errors import InvalidQuery, PageOutOfRange, PdfIndexError, WorkerDied
from pdfindex.models import FileRecord
from pdfindex.ranking import rank
from pdfindex.text.words import words
from pdfindex.tools.names import find_document, readable
from pdfindex.tools.pages import NO_LIMIT, opened, too_large

RANKED, EXACT, PHRASE, FUZZY = "ranked", "exact", "phrase", "fuzzy"
MODES = (RANKED, EXACT, PHRASE, FUZZY)

log = logging.getLogger(__name__)


@dataclass
class PageBoxes:
    """The boxes of a query's words on one page, as fractions of the page's width and
    height from its top-left corner (x0, top, x1, bottom), so they fit any image size."""

    slug: str
    page: int
    width: float  # the page in points
    height: float
    terms: list[str]
    boxes: list[tuple[float, float, float, float]]


def pdf_page(index: PdfIndex, slug: str, page: int) -> FileRecord:
    """The PDF document `slug` names (the tools' resolver), its page checked."""
    record = readable(find_document(index, slug))
    if not record.path.lower().endswith(".pdf"):
        raise InvalidQuery(f"{record.path} is not a PDF")
    if not 1 <= page <= record.pages:
        raise PageOutOfRange(f"page {page} is out of range: '{record.slug}' has {record.pages}")
    return record


def query_terms(index: PdfIndex, query: str, mode: str, slug: str, page: int) -> set[str]:
    """The words of the page a query matched: the index words the ranking stood the
    query for on that page (its stems, corrections, a prefix's expansions); an exact
    query's own words."""
    if mode == EXACT or not query.strip():
        return set(words(query))
    found = rank(index, ranked_query(query, mode), 1, slug, (page, page), snippets=False)
    return found.terms or set(words(found.query))


def ranked_query(query: str, mode: str) -> str:
    """The query the ranking gets for a mode: a phrase quoted, each word fuzzy (word~1
    from 4 letters, word~2 from 8: the typo rule of the query language) as typed."""
    text = query.strip()
    if mode == PHRASE and not (text.startswith('"') and text.endswith('"')):
        return '"' + text.replace('"', " ") + '"'
    if mode == FUZZY:
        return " ".join(
            w if len(w) < 4 or "~" in w else f"{w}~{2 if len(w) >= 8 else 1}"
            for w in text.replace('"', " ").split()
        )
    return text


def page_boxes(index: PdfIndex, slug: str, page: int, query: str, mode: str = RANKED) -> PageBoxes:
    """The boxes of the words `query` matched on a page of a PDF."""
    record = pdf_page(index, slug, page)
    terms = query_terms(index, query, mode, record.slug, page)
    if not terms:
        return PageBoxes(record.slug, page, 0.0, 0.0, [], [])
    real, _ = index.resolve(record.path)
    try:
        with opened(real, index, record.sha256) as fd:
            width, height, found = index.isolated.call(
                "pdfindex.extract.adapters.pdfium:page_words",
                fd,
                page,
                timeout=deadline.remaining(NO_LIMIT),
                what=f"reading the words of page {page}",
            )
    except (MemoryError, WorkerDied):
        raise InvalidQuery(too_large(record.slug, page)) from None
    boxes = [
        (x0 / width, top / height, x1 / width, bottom / height)
        for word, x0, top, x1, bottom in found
        if word in terms and width > 0 and height > 0
    ]
    return PageBoxes(record.slug, page, width, height, sorted(terms), boxes)


def document_outline(index: PdfIndex, slug: str) -> list[tuple[int, str, int]]:
    """A PDF's outline as (level, title, page); empty when it has none."""
    record = pdf_page(index, slug, 1)
    real, _ = index.resolve(record.path)
    try:
        with opened(real, index, record.sha256) as fd:
            return index.isolated.call(
                "pdfindex.extract.adapters.pdfium:outline",
                fd,
                timeout=deadline.remaining(NO_LIMIT),
                what="reading the outline",
            )
    except (MemoryError, PdfIndexError) as exc:  # a damaged outline is no outline
        log.warning("outline of %s not read: %s", record.path, exc)
        return []
