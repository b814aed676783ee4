"""Search semantics behind every front: exact (seed 000) and ranked (BM25F).

Exact: the index narrows the candidate pages by whole words of the query; the stored
text confirms each match (textmatch rules) and gives its offsets. A match lies within
one page; its context may reach into the neighbouring pages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pdfindex.errors import InvalidQuery
from pdfindex.store import PageCandidates, PageHit, PageRef, Store
from pdfindex.textmatch import (
    compile_query,
    find_spans,
    fold,
    normalize_query,
    required_phrases,
    required_prefixes,
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
    # In one document the slug alone leaves few pages; across documents a prefix helps
    # only when few words start with it (a prefix like "the" stands for hundreds).
    prefixes = [] if slug else [p for p in required_prefixes(query) if store.prefix_is_narrow(p)]
    found = store.candidates(
        slug=slug,
        terms=required_terms(query),
        prefixes=prefixes,
        phrases=required_phrases(query),
    )
    matches: list[ExactMatch] = []
    for ref in found.refs:
        text = found.text(ref)
        folded, offsets = fold(text)
        for span in find_spans(pattern, folded):
            if len(matches) == limit:
                return matches, True
            start, end = to_original(offsets, *span)
            context = _context(found, ref, text, start, end, context_length)
            matches.append(ExactMatch(ref.path, ref.slug, ref.page, start, end, context))
    return matches, False


def _context(
    found: PageCandidates, ref: PageRef, text: str, start: int, end: int, length: int
) -> str:
    """About length/2 characters each side of the match, marked **like this**."""
    want_before = length // 2
    want_after = length - want_before
    before = text[max(0, start - want_before) : start]
    after = text[end : end + want_after]
    if len(before) < want_before and ref.page > 1:
        previous = found.page_text(ref.slug, ref.page - 1)
        if previous is not None:
            before = (previous + "\n" + before)[-want_before:]
    if len(after) < want_after:
        following = found.page_text(ref.slug, ref.page + 1)
        if following is not None:
            after = (after + "\n" + following)[:want_after]
    return f"{before}**{text[start:end]}**{after}"


def ranked_search(
    store: Store,
    query: str,
    limit: int = 10,
    slug: str | None = None,
    pages: tuple[int, int] | None = None,
    any_word: bool = False,
) -> tuple[int, list[PageHit]]:
    """BM25F-ranked pages for Whoosh query syntax: words (all required), "phrases",
    word~2 (fuzzy), AND / OR / NOT, prefix*; returns (total hits, top `limit`)."""
    check_range("limit", limit, 1, MAX_LIMIT)
    text = normalize_query(query)
    if pages is not None and (pages[0] < 1 or pages[1] < pages[0]):
        raise InvalidQuery(f"page range {pages[0]}-{pages[1]} is not valid")
    total, hits, terms = store.ranked(text, limit, slug=slug, pages=pages, any_word=any_word)
    for hit in hits:
        hit.snippet = snippet(hit.text, terms)
    return total, hits


def snippet(text: str, terms: set[str], width: int = 240, max_terms: int = 200) -> str:
    """About `width` characters around the first place where the terms cluster, with each
    term marked **like this** (whole words, casefolded as the index sees them)."""
    flat = " ".join(text.split())
    wanted = sorted(terms, key=len, reverse=True)[:max_terms]
    if not wanted:
        return flat[:width]
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, wanted)) + r")(?!\w)")
    folded = flat.casefold()
    if len(folded) != len(flat):  # rare: casefolding changed lengths; search the text as is
        folded = flat.lower()
    spans = [m.span() for m in pattern.finditer(folded)]
    if not spans:
        return flat[:width]
    # The window holding the most matches, starting a little before one of them.
    best = max(
        range(len(spans)),
        key=lambda i: sum(1 for s, _ in spans[i:] if s < spans[i][0] + width - 40),
    )
    start = max(0, spans[best][0] - 40)
    end = min(len(flat), start + width)
    out, cursor = [], start
    for s, e in spans:
        if s >= start and e <= end:
            out += [flat[cursor:s], "**", flat[s:e], "**"]
            cursor = e
    out.append(flat[cursor:end])
    return ("…" if start else "") + "".join(out) + ("…" if end < len(flat) else "")
