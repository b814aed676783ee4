"""The ranking of `search_documents` and `query_documents` once the semantic extra has a
part in it: BM25 or the hybrid (`fusion`), then, with `rerank_model`, a cross-encoder
that reads the question with each of the best DEPTH pages and orders them by its score.

A cross-encoder reads question and page together, so it judges better than comparing two
vectors, at the price of one model run per page and question: hence DEPTH pages only, and
WIDTH characters of each (the part where the question's words cluster; it reads 512
tokens at most). Explicit syntax (quotes, operators, `~`, `*`) keeps BM25's order.
"""

from __future__ import annotations

import threading

from pdfindex.engine import Engine, RankedPages
from pdfindex.errors import ConfigError
from pdfindex.models import PageHit
from pdfindex.query import Node
from pdfindex.search.ranked import ranked_pages, snippet
from pdfindex.search.understand import is_natural
from pdfindex.semantic.fastembed_models import CrossEncoder
from pdfindex.semantic.fusion import applies, hybrid_pages
from pdfindex.semantic.library import Semantic
from pdfindex.text.words import normalize_query

DEPTH = 30  # pages re-scored per question: one model run each
WIDTH = 1500  # characters of a page the cross-encoder reads


class Reranker:
    """The cross-encoder of `rerank_model`, loaded at the first question; a model that
    cannot load raises the same ConfigError at each question, trying once per process."""

    def __init__(self, name: str, threads: int = 0) -> None:
        self.name, self.threads = name.strip(), threads
        self._model: CrossEncoder | None = None
        self._error: ConfigError | None = None
        self._lock = threading.Lock()

    @property
    def model(self) -> CrossEncoder:
        with self._lock:
            if self._error is not None:
                raise self._error
            if self._model is None:
                try:
                    self._model = CrossEncoder(self.name, self.threads)
                except ConfigError as exc:
                    self._error = exc
                    raise
            return self._model

    def rerank(self, query: str, found: RankedPages, limit: int) -> RankedPages:
        """The best DEPTH pages of `found` in the cross-encoder's order, scored by it (0-1),
        then the rest in their order with score 0; `limit` of them."""
        top, rest = found.hits[:DEPTH], found.hits[DEPTH:]
        texts = [snippet(hit.text, found.terms, width=WIDTH).replace("**", "") for hit in top]
        scores = self.model.scores(query, texts)
        order = sorted(range(len(top)), key=lambda n: -scores[n])  # ties keep their order
        hits: list[PageHit] = []
        for n in order:
            top[n].score = round(scores[n], 6)
            hits.append(top[n])
        for hit in rest:
            hit.score = 0.0
        return RankedPages(found.total, (hits + rest)[:limit], found.terms)


def ranked(
    engine: Engine,
    semantic: Semantic | None,
    reranker: Reranker | None,
    query: str,
    tree: Node,
    limit: int,
    slug: str | None = None,
    snippets: bool = True,
) -> tuple[RankedPages, str]:
    """Ranked pages for a user's query and the ranking used, in words: hybrid for
    questions when `semantic` is on (`fusion.applies`), else BM25; re-ordered by the
    cross-encoder for natural-language queries when `rerank_model` is set."""
    rerank = reranker is not None and is_natural(normalize_query(query))
    depth = max(limit, DEPTH) if rerank else limit
    if semantic is not None and applies(query):
        found = hybrid_pages(engine, semantic, query, tree, depth, slug, snippets=False)
        label = semantic.label()
    else:
        found = ranked_pages(engine, tree, depth, slug=slug, snippets=False)
        label = "bm25"
    if rerank and reranker is not None:
        found = reranker.rerank(query, found, limit)
        label += f", reranked by {reranker.name} (best {DEPTH})"
    hits = found.hits[:limit]
    for hit in hits if snippets else []:
        hit.snippet = snippet(hit.text, found.terms)
    return RankedPages(found.total, hits, found.terms), label
