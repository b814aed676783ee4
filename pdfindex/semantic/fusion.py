"""Hybrid ranking: BM25 (the query as `pdfindex.search.understand` reads it) fused with
the similarity of the query's embedding to each page's.

Two ways were measured on the tuning set (benchmarks/results/2026-11-23-semantic.md):
`rerank` re-orders BM25's best DEPTH pages by reciprocal rank fusion of their BM25 rank
and their similarity rank; `rrf` fuses BM25's best DEPTH pages with the DEPTH pages most
similar over the whole library, so a page that shares no word with the question can
still come first. MODE is the one kept.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from pdfindex.engine import Engine, RankedPages
from pdfindex.models import PageHit
from pdfindex.query import Node
from pdfindex.search.ranked import ranked_pages
from pdfindex.search.snippets import marked_terms, phrases_of, snippet
from pdfindex.search.understand import content_words, is_natural, is_sentence
from pdfindex.semantic.library import Semantic
from pdfindex.text.words import normalize_query

MODES = ("rerank", "rrf")
MODE = "rrf"
DEPTH = 50  # pages taken from each ranking
RRF_K = 20  # reciprocal rank fusion's constant (tuned: 10, 20 and 60 tried)
DENSE_WEIGHT = 2.0  # the similarity ranking's weight next to BM25's (tuned: 0.5-2)
# Only questions and sentences rank hybrid; lists of keywords stay BM25, where every
# fusion tried cost query_documents first-page or top-ten hits (like stems, README).
SENTENCES_ONLY = True
# Elements: their page's similarity only breaks ties between caption matches (no labelled
# element questions exist to tune it; a page's meaning is a weak sign of its figure's).
ELEMENT_WEIGHT = 0.5

Key = tuple[str, int]  # (slug, page)


def fuse(rankings: Iterable[tuple[list[Key], float]], k: float = RRF_K) -> dict[Key, float]:
    """Reciprocal rank fusion: each page scores the sum of weight / (k + rank)."""
    scores: dict[Key, float] = {}
    for order, weight in rankings:
        for rank, key in enumerate(order, start=1):
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    return scores


def applies(query: str) -> bool:
    """Whether a query ranks hybrid: natural language (no explicit syntax) and, with
    SENTENCES_ONLY, a question or a sentence rather than a list of keywords."""
    text = normalize_query(query)
    if not is_natural(text):
        return False
    return not SENTENCES_ONLY or is_sentence(text, content_words(text))


def hybrid_pages(
    engine: Engine,
    semantic: Semantic,
    text: str,
    tree: Node,
    limit: int,
    slug: str | None = None,
    snippets: bool = True,
    query: np.ndarray | None = None,
) -> RankedPages:
    """The best `limit` pages by BM25 fused with similarity (MODE, DENSE_WEIGHT, RRF_K,
    read at each call so the benchmark can vary them), scored by the fused score;
    `query` is the question's vector when the caller has it already."""
    mode, weight, k = MODE, DENSE_WEIGHT, RRF_K
    found = ranked_pages(engine, tree, max(limit, DEPTH), slug=slug, snippets=False)
    vector = semantic.query_vector(text) if query is None else query
    by_key = {(h.slug, h.page): h for h in found.hits}
    bm25 = list(by_key)
    if mode == "rerank":
        similar = semantic.similarities(vector)
        known = [key for key in bm25 if key in similar]
        dense = sorted(known, key=lambda key: -similar[key])
        paths: dict[Key, str] = {}
    else:
        nearest = semantic.dense(vector, DEPTH, slug=slug)
        dense = [(s, p) for (_, s, p), _ in nearest]
        paths = {(s, p): path for (path, s, p), _ in nearest}
    scores = fuse([(bm25, 1.0), (dense, weight)], k)
    best = sorted(scores, key=lambda key: (-scores[key], key))[:limit]
    hits = []
    for key in best:
        hit = by_key.get(key) or _page_hit(engine, paths[key], key)
        hit.score = round(scores[key], 6)
        if snippets:
            hit.snippet = snippet(hit.text, marked_terms(tree, found.terms), phrases_of(tree))
        hits.append(hit)
    total = found.total + sum(1 for key in dense if key not in by_key)
    return RankedPages(total, hits, found.terms)


def _page_hit(engine: Engine, path: str, key: Key) -> PageHit:
    slug, page = key
    text = engine.candidates(slug=slug).page_text(slug, page) or ""  # that page's text only
    return PageHit(path=path, slug=slug, page=page, score=0.0, snippet="", text=text)


def hybrid_elements(
    semantic: Semantic, text: str, hits: list[tuple[dict, float]], limit: int
) -> list[tuple[dict, float]]:
    """Elements found by BM25 (their label, caption and text around), re-ordered by
    reciprocal rank fusion with the similarity of the page each one is on: a figure on
    the page that answers the question comes first. Scores are the fused scores."""
    similar = semantic.similarities(semantic.query_vector(text))
    keys = [(e.get("slug", ""), int(e.get("page", 0)), n) for n, (e, _) in enumerate(hits)]
    bm25 = [(slug, n) for slug, _, n in keys]
    known = [(slug, n) for slug, page, n in keys if (slug, page) in similar]
    dense = sorted(known, key=lambda key: -similar[(key[0], keys[key[1]][1])])
    scores = fuse([(bm25, 1.0), (dense, ELEMENT_WEIGHT)], RRF_K)
    best = sorted(scores, key=lambda key: (-scores[key], key[1]))[:limit]
    return [(hits[n][0], round(scores[(slug, n)], 6)) for slug, n in best]
