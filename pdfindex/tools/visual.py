"""Seed 004's element tools: figures, tables and equations found at index time, looked up
by the compound key (document slug, label as printed[, page]).

Answers are formatted text, like search_documents, so a model can build the follow-up
get_element_image / get_element_details call from what it reads.
"""

from __future__ import annotations

import re

from pdfindex import deadline
from pdfindex.api import PdfIndex
from pdfindex.elements.detect import ELEMENT_TYPES, Element
from pdfindex.errors import DocumentNotFound, InvalidQuery, WorkerDied
from pdfindex.models import ElementsState, FileRecord
from pdfindex.search.ranked import ranked_elements
from pdfindex.tools.catalog import element_lines, record_by_slug, shorten
from pdfindex.tools.pages import NO_LIMIT, checked_dpi, opened, too_large
from pdfindex.tools.pending import coverage_note, document_elements, matched

MAX_LIMIT = 50
HYBRID_DEPTH = 50  # elements BM25 finds for the hybrid ranking to re-order
MARGIN = 8.0  # points around an element's region in its image
_ABBREVIATIONS = {"fig": "figure", "tab": "table", "eq": "equation", "eqn": "equation"}


def normalize_label(label: str) -> str:
    """'Fig. 3-1' == 'figure 3-1'; 'Equation (4)' == 'equation 4'; case and spaces ignored."""
    text = label.casefold().strip().rstrip(".:")
    text = re.sub(r"^([a-z]+)\.?", lambda m: _ABBREVIATIONS.get(m[1], m[1]), text)
    return re.sub(r"[\s()]+", "", text)


def search_visual_elements(
    index: PdfIndex,
    query: str,
    element_type: str | None = None,
    limit: int = 10,
    document_slug: str | None = None,
) -> str:
    """Ranked elements (BM25 over label, caption and surrounding text; with the semantic
    extra, re-ordered by their page's similarity to the query), numbered; the last line
    says which ranking was used."""
    if not query.strip():
        raise InvalidQuery("query is empty: describe the figure or table you look for")
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidQuery(f"limit must be from 1 to {MAX_LIMIT}")
    kind = element_type.strip().lower() if element_type else None
    if kind and kind not in ELEMENT_TYPES:
        raise InvalidQuery(f"element_type must be one of {', '.join(ELEMENT_TYPES)}")
    record = record_by_slug(index, document_slug) if document_slug else None
    slug = record.slug if record else None
    note = None
    if record is not None and record.elements_state == ElementsState.PENDING:
        found = [e for e in document_elements(index, record) if kind in (None, e["kind"])]
        hits = matched(found, query)
        total, hits = len(hits), hits[:limit]
        ranking = "the query's words in label, caption and context (found just now)"
    else:
        depth = limit if index.semantic is None else max(limit, HYBRID_DEPTH)
        total, hits = ranked_elements(index.engine, query, depth, kind=kind, slug=slug)
        hits, ranking = index.rank_elements(query, hits, limit)
        note = None if slug else coverage_note(index)
    if not hits:
        where = f" in '{slug}'" if slug else ""
        return f'No {kind or "visual element"}s{where} match "{query}".' + (
            f"\n{note}" if note else ""
        )
    lines = [f'Found {total} elements for "{query}", showing {len(hits)}:', ""]
    for n, (found, score) in enumerate(hits, start=1):
        lines += [*element_lines(n, found, score), ""]
    lines.append(
        "Follow up with get_element_image(document_slug, element_label) to see one, or "
        "get_element_details(...) for its caption, context and cells."
    )
    lines.append(f"Ranking: {ranking}")
    if note:
        lines.append(note)
    return "\n".join(lines)


def find_element(
    index: PdfIndex, document_slug: str, element_label: str, page_number: int | None = None
) -> tuple[Element, FileRecord]:
    """The element with this label (and page), with its document's catalog record; the
    error lists what there is when the label is unknown or ambiguous."""
    record = record_by_slug(index, document_slug)
    everything = [Element.from_dict(e) for e in document_elements(index, record)]
    wanted = normalize_label(element_label)
    found = [e for e in everything if normalize_label(e.label) == wanted]
    if page_number is not None:
        found = [e for e in found if e.page == page_number]
    if len(found) == 1:
        return found[0], record
    if found:
        pages = ", ".join(str(e.page) for e in found)
        raise InvalidQuery(
            f"'{element_label}' occurs on several pages of '{record.slug}': pages {pages}. "
            "Call again with page_number."
        )
    where = f" on page {page_number}" if page_number is not None else ""
    known = ", ".join(f"{e.label} (p. {e.page})" for e in everything[:40])
    more = f" and {len(everything) - 40} more" if len(everything) > 40 else ""
    listing = (
        f" Elements in this document: {known}{more}."
        if everything
        else (" No figures, tables or equations were found in this document.")
    )
    raise DocumentNotFound(
        f"No element '{element_label}'{where} in document '{record.slug}'.{listing} "
        "Use search_visual_elements to find elements."
    )


def element_image(
    index: PdfIndex,
    document_slug: str,
    element_label: str,
    page_number: int | None = None,
    dpi: int | None = None,
) -> tuple[str, bytes]:
    """(description, PNG) of the element's region with a small margin, at a DPI that keeps
    the PNG under the page image budget."""
    wanted = checked_dpi(dpi)
    element, document = find_element(index, document_slug, element_label, page_number)
    real, _ = index.resolve(document.path)
    x0, top, x1, bottom = element.bbox
    region = (x0 - MARGIN, top - MARGIN, x1 + MARGIN, bottom + MARGIN)
    try:
        with opened(real, index, document.sha256) as fd:
            png, used = index.isolated.call(
                "pdfindex.tools.render:region_within_budget",
                fd,
                element.page,
                region,
                wanted,
                index.settings.page_image_bytes,
                timeout=deadline.remaining(NO_LIMIT),
                what=f"rendering {element.label}",
            )
    except (MemoryError, WorkerDied):
        raise InvalidQuery(too_large(document.slug, element.page)) from None
    text = "\n".join(
        [
            f"{element.kind.capitalize()}: {element.label}",
            f"Page {element.page} of {document.pages}",
            f"Document: {document.slug} ({document.title})",
            *([f"Caption: {shorten(element.caption, 500)}"] if element.caption else []),
            f"Region (points from the top-left): {', '.join(f'{v:.0f}' for v in element.bbox)}",
            f"Rendered at {used} dpi, {len(png)} bytes",
        ]
    )
    return text, png


def element_details(
    index: PdfIndex, document_slug: str, element_label: str, page_number: int | None = None
) -> str:
    """Type, label, caption, surrounding text, table cells as Markdown, LaTeX."""
    element, document = find_element(index, document_slug, element_label, page_number)
    lines = [
        f"Type: {element.kind}",
        f"Label: {element.label}",
        f"Document: {document.slug} ({document.title})",
        f"Page: {element.page}",
        f"Caption: {element.caption or '(none printed)'}",
        "",
        "Context:",
        element.context or "(no text around it)",
    ]
    table = element.markdown_table()
    if element.kind == "table":
        lines += ["", "Cells:", table or "Not available: the layout does not give the cells."]
    elif table:
        lines += ["", "Cells:", table]
    if element.kind == "equation":
        latex = element.latex
        lines += [
            "",
            "LaTeX (approximate, recovered from the text layer):" if latex else "LaTeX:",
            latex or "Not available: nothing in the text layer could be recovered.",
        ]
    return "\n".join(lines)
