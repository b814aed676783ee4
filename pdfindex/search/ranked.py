"""Ranked search (BM25F) over page text, with snippets that mark the matched terms
(pdfindex.search.snippets)."""

from __future__ import annotations

from pdfindex.engine import Engine, RankedPages
from pdfindex.errors import InvalidQuery
from pdfindex.models import ElementRecord, PageHit
from pdfindex.query import Node, Phrase, Term, leaves, parse
from pdfindex.search.limits import MAX_LIMIT, check_range
from pdfindex.search.snippets import marked_terms, phrases_of, snippet
from pdfindex.search.understand import understand
from pdfindex.text.words import is_cjk


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
    phrases = phrases_of(tree)
    marked = marked_terms(tree, found.terms)
    for hit in found.hits if snippets else []:
        hit.snippet = snippet(hit.text, marked, phrases)
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
