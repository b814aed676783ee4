"""Search semantics behind every front: exact (seed 000) and ranked (BM25F).

Exact: the index narrows the candidate pages by whole words of the query; the stored
text confirms each match (textmatch rules) and gives its offsets. A match lies within
one page; its context may reach into the neighbouring pages.
"""

from __future__ import annotations

from dataclasses import dataclass

from pdfindex.errors import InvalidQuery
from pdfindex.store import PageHit, PageText, Store
from pdfindex.textmatch import (
    compile_query,
    find_spans,
    fold,
    normalize_query,
    required_terms,
    to_original,
)

MAX_LIMIT = 1000
MAX_CONTEXT = 20_000


@dataclass
class ExactMatch:
    """One occurrence: where it is, its offsets in the page text, and its context."""

    path: str
    slug: str
    page: int
    start: int
    end: int
    context: str


def check_range(name: str, value: int, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidQuery(f"{name} must be an integer from {low} to {high}, got {value!r}")


def exact_search(
    store: Store,
    query: str,
    slug: str | None = None,
    limit: int = 10,
    context_length: int = 2000,
) -> tuple[list[ExactMatch], bool]:
    """Occurrences in document order (path, page, offset), at most `limit`, and whether
    more exist."""
    check_range("limit", limit, 1, MAX_LIMIT)
    check_range("context_length", context_length, 0, MAX_CONTEXT)
    pattern = compile_query(query)
    pages = sorted(
        store.pages(slug=slug, terms=required_terms(query)), key=lambda p: (p.path, p.page)
    )
    by_page = {(p.slug, p.page): p.text for p in pages}
    matches: list[ExactMatch] = []
    for page in pages:
        folded, offsets = fold(page.text)
        for span in find_spans(pattern, folded):
            if len(matches) == limit:
                return matches, True
            start, end = to_original(offsets, *span)
            context = _context(store, by_page, page, start, end, context_length)
            matches.append(ExactMatch(page.path, page.slug, page.page, start, end, context))
    return matches, False


def _context(
    store: Store,
    known: dict[tuple[str, int], str],
    page: PageText,
    start: int,
    end: int,
    length: int,
) -> str:
    """About length/2 characters each side of the match, marked **like this**."""
    want_before = length // 2
    want_after = length - want_before
    text = page.text
    before = text[max(0, start - want_before) : start]
    after = text[end : end + want_after]
    if len(before) < want_before and page.page > 1:
        previous = _neighbour(store, known, page.slug, page.page - 1)
        if previous is not None:
            before = (previous + "\n" + before)[-want_before:]
    if len(after) < want_after:
        following = _neighbour(store, known, page.slug, page.page + 1)
        if following is not None:
            after = (after + "\n" + following)[:want_after]
    return f"{before}**{text[start:end]}**{after}"


def _neighbour(store: Store, known: dict[tuple[str, int], str], slug: str, page: int) -> str | None:
    if (slug, page) not in known:
        known[(slug, page)] = store.page_text(slug, page)  # type: ignore[assignment]
    return known[(slug, page)]


def ranked_search(
    store: Store,
    query: str,
    limit: int = 10,
    slug: str | None = None,
    pages: tuple[int, int] | None = None,
) -> tuple[int, list[PageHit]]:
    """BM25F-ranked pages for Whoosh query syntax: words (all required), "phrases",
    word~2 (fuzzy), AND / OR / NOT, prefix*; returns (total hits, top `limit`)."""
    check_range("limit", limit, 1, MAX_LIMIT)
    text = normalize_query(query)
    if pages is not None and (pages[0] < 1 or pages[1] < pages[0]):
        raise InvalidQuery(f"page range {pages[0]}-{pages[1]} is not valid")
    return store.ranked(text, limit, slug=slug, pages=pages)
