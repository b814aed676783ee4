"""Ranked search (BM25F) over page text, with snippets that mark the matched terms."""

from __future__ import annotations

import re

from pdfindex.engine import Engine, RankedPages
from pdfindex.errors import InvalidQuery
from pdfindex.models import ElementRecord, PageHit
from pdfindex.query import Node, Phrase, Term, leaves, parse
from pdfindex.search.exact import MAX_LIMIT, check_range
from pdfindex.search.understand import understand
from pdfindex.text.words import is_cjk, words_regex


def ranked_search(
    engine: Engine,
    query: str | Node,
    limit: int = 10,
    slug: str | None = None,
    pages: tuple[int, int] | None = None,
    any_word: bool = False,
) -> tuple[int, list[PageHit]]:
    """BM25F-ranked pages for a query in pdfindex's query language (`pdfindex.query`):
    words (all required, or any with `any_word`), "phrases", word~2, prefix*, AND / OR /
    NOT, groups, boosts; or an already built tree. Returns (total hits, top `limit`)."""
    tree = parse(query, any_word=any_word) if isinstance(query, str) else query
    total, hits, _ = ranked_pages(engine, tree, limit, slug=slug, pages=pages)
    return total, hits


def ranked_pages(
    engine: Engine,
    tree: Node,
    limit: int = 10,
    slug: str | None = None,
    pages: tuple[int, int] | None = None,
    snippets: bool = True,
) -> RankedPages:
    """`ranked_search` of a tree, with the index words the query stood for (a word's
    other forms by stem, a prefix's and a typo's words): what passages are cut around.
    Without `snippets`, hits have none (query_documents cuts passages itself)."""
    check_range("limit", limit, 1, MAX_LIMIT)
    if pages is not None and (pages[0] < 1 or pages[1] < pages[0]):
        raise InvalidQuery(f"page range {pages[0]}-{pages[1]} is not valid")
    found = engine.ranked(tree, limit, slug=slug, pages=pages)
    found = found._replace(terms=cjk_marks(tree, found.terms))
    for hit in found.hits if snippets else []:
        hit.snippet = snippet(hit.text, found.terms)
    return found


def cjk_marks(tree: Node, terms: set[str]) -> set[str]:
    """The terms with each phrase of CJK characters as one string: a snippet marks
    "安定版" where it stands, not every 安, 定 and 版 of the page."""
    runs = [
        leaf.words
        for leaf in leaves(tree)
        if isinstance(leaf, Phrase) and all(map(is_cjk, leaf.words))
    ]
    if not runs:
        return terms
    alone = {leaf.text for leaf in leaves(tree) if isinstance(leaf, Term)}
    kept = {t for t in terms if not (is_cjk(t) and len(t) == 1) or t in alone}
    return kept | {"".join(run) for run in runs}


def ranked_elements(
    engine: Engine,
    query: str | Node,
    limit: int,
    kind: str | None = None,
    slug: str | None = None,
    captions_only: bool = False,
) -> tuple[int, list[tuple[ElementRecord, float]]]:
    """Figures, tables and equations whose label and caption (and, unless
    `captions_only`, the text around them) match; no word is required, more words rank
    higher (`pdfindex.search.understand`). Returns (total, [(element, score)])."""
    tree = understand(query) if isinstance(query, str) else query
    return engine.search_elements(tree, limit, kind=kind, slug=slug, captions_only=captions_only)


def snippet(text: str, terms: set[str], width: int = 240, max_terms: int = 200) -> str:
    """About `width` characters around the first place where the terms cluster, with each
    term marked **like this** (whole words, casefolded as the index sees them)."""
    flat = " ".join(text.split())
    wanted = sorted(terms, key=len, reverse=True)[:max_terms]
    if not wanted:
        return flat[:width]
    plain = [re.escape(w) for w in wanted if not is_cjk(w)]
    pattern = re.compile(words_regex(plain, [re.escape(w) for w in wanted if is_cjk(w)]))
    folded = flat.casefold()
    if len(folded) != len(flat):  # rare: casefolding changed lengths; search the text as is
        folded = flat.lower()
    spans: list[tuple[int, int]] = []
    for match in pattern.finditer(folded):  # marks that touch are one (CJK pairs: 安定|定版)
        if spans and spans[-1][1] == match.start():
            spans[-1] = (spans[-1][0], match.end())
        else:
            spans.append(match.span())
    if not spans:
        return flat[:width]
    # The window holding the most matches, starting a little before one of them.
    best = densest(spans, width - 40)
    start = max(0, spans[best][0] - 40)
    end = min(len(flat), start + width)
    out, cursor = [], start
    for s, e in spans:
        if s >= start and e <= end:
            out += [flat[cursor:s], "**", flat[s:e], "**"]
            cursor = e
    out.append(flat[cursor:end])
    return ("…" if start else "") + "".join(out) + ("…" if end < len(flat) else "")


def densest(spans: list[tuple[int, int]], reach: int) -> int:
    """The index of the first span whose window [start, start + reach) holds the most
    span starts: one pass with two pointers (spans are in order), so a word found 40,000
    times on a page costs 40,000 steps, not 40,000²."""
    best, most, end = 0, 0, 0
    for i, (start, _) in enumerate(spans):
        end = max(end, i)
        while end < len(spans) and spans[end][0] < start + reach:
            end += 1
        if end - i > most:
            best, most = i, end - i
    return best
