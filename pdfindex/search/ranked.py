"""Ranked search (BM25F) over page text, with snippets that mark the matched terms."""

from __future__ import annotations

import re

from pdfindex.engine.whoosh.store import Store
from pdfindex.errors import InvalidQuery
from pdfindex.models import PageHit
from pdfindex.search.exact import MAX_LIMIT, check_range
from pdfindex.search.textmatch import normalize_query


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
