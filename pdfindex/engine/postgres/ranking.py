"""Ranked search in PostgreSQL: the four ways a query's top pages are found, and the
choice between them (`Ranker.rank`). Every way gives the same pages, totals and scores
(BM25 as compiler.Compiler writes it in SQL); they differ in what they read.

- CONSTANT: a broad prefix alone scores the same on every page it is on
  (Compiler.constant), so its top pages are its first ones.
- POSTINGS: a query of words and stems over the whole library, scored with numpy from the
  postings of its lexemes (postings.py).
- BOUNDED: a query over the whole library whose phrases of neighbours are all the
  postings cannot rank: the postings bound each page's score (a phrase is on a page at
  most as often as its least found word), and pages are scored in SQL in the order of
  their bounds until the tenth score found beats every bound left.
- LISTS: a query over the whole library that the postings do not rank or bound (a
  prefix, a typo): the impact lists' candidates (topk.py), scored in SQL, when their
  bound shows that they hold the top.
- FULL: every matching page scored in SQL: within one document or a page range, and
  whenever the others cannot tell.

`Ranking.strategy` says which way a search went: the benchmark prints it, and the tests
compare each way with FULL.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from pdfindex import query as pq
from pdfindex.engine import RankedPages
from pdfindex.engine.postgres.compiler import (
    EVERYTHING,
    Compiler,
    beyond_neighbours,
    bm25_idf,
    narrowed,
    positional,
    stem_literals,
)
from pdfindex.engine.postgres.postings import FREQUENCIES, Key, Scorer, lexemes, rarest_words
from pdfindex.engine.postgres.schema import K1, MAX_POSITIONS, B, pairs_of
from pdfindex.engine.postgres.topk import Plan, Planner, stems_of
from pdfindex.engine.vocabulary import within
from pdfindex.models import PageHit
from pdfindex.text.words import word_set

POSTINGS, BOUNDED, LISTS, FULL, CONSTANT = "postings", "bounded", "lists", "full", "constant"
PREFIX_TERMS_MARKED = 200  # expansions of a prefix that snippets mark
FIRST_SCORED = 100  # candidates of highest bound scored first (Ranker._best_candidates)
FIRST_BOUNDED = 64  # pages of highest bound scored first (Ranker.from_bounds), then 4x more
Rows = Callable[..., list[tuple[Any, ...]]]  # PostgresEngine._rows(sql, params, indexed=, binary=)
Scored = Callable[[list[tuple[str, int]]], list[tuple[Any, ...]]]


class Ranking(NamedTuple):
    """A ranked search's pages, and how they were found."""

    pages: RankedPages
    strategy: str  # POSTINGS, BOUNDED, LISTS, FULL or CONSTANT
    scored: tuple[int, int] = (0, 0)  # BOUNDED, LISTS: candidates scored, of the candidates


@dataclass
class Weights:
    """What scoring one query reads of the index at one generation: BM25's page count
    and mean page length, from how many pages on a word has an impact list (schema), the
    pages of the query's words, its Stem leaves' stems and its broad prefixes' idf."""

    count: int
    mean: float
    listed: int
    document_frequency: dict[str, int]
    prefix_pages: Callable[[str], int]  # the pages of the words a prefix starts
    stems: dict[str, list[str]]  # each Stem leaf's word: its stems (topk.stems_of)
    constant: dict[str, float]  # prefixes on many pages (Compiler.constant): their idf

    def idf(self, word: str) -> float:
        return bm25_idf(self.count, self.document_frequency.get(word, 0))

    def prefix_idf(self, prefix: str) -> float:
        return bm25_idf(self.count, min(self.count, self.prefix_pages(prefix)))

    def norm_parts(self) -> tuple[float, float]:
        """BM25's k1 * (1 - b) and k1 * b / mean length."""
        return K1 * (1 - B), K1 * B / max(self.mean, 1.0)


@dataclass
class Matching:
    """The pages a query matches, as an SQL condition on pdfindex_pages (`where`, with
    `params`); `loose` is how a page whose positions were cut (schema) meets its phrases,
    with `loose_params`; `stemmed` the Stem leaves' stems as tsquery literals; `strict`
    what the query's words and positions say alone, with `strict_params`."""

    where: str
    params: list[Any]
    loose: str
    loose_params: list[Any]
    phrases: bool
    stemmed: dict[str, str]
    strict: str = ""
    strict_params: list[Any] = field(default_factory=list)

    def pages(self) -> tuple[str, list[Any]]:
        """A statement of the pids of the pages matched over the whole library. A page
        whose positions were cut is looked for among those (few, indexed) apart: as one
        condition, the GIN index's candidates were tested for both (`"Note that"` at
        48,000 pages: 29 ms, against 21 apart)."""
        sql = f"SELECT pid FROM pdfindex_pages WHERE {self.strict}"
        if not self.loose:
            return sql, list(self.strict_params)
        sql += (
            f" UNION ALL SELECT pid FROM pdfindex_pages WHERE lossy > 0"
            f" AND NOT {self.strict} AND (false{self.loose})"
        )
        return sql, [*self.strict_params, *self.strict_params, *self.loose_params]


def on_words_and_pairs(matcher: Compiler, query: pq.Node) -> str:
    """The SQL condition of the pages `query` matches: its words and positions, and the
    pairs of its phrases of neighbours (schema.page_pairs), which the GIN index of
    `pairs` answers first; a phrase its pair decides alone (beyond_neighbours) is not
    looked for in `words` at all, and when phrases narrowed by pairs are all there is
    (narrowed), `words` is read only on the pages that index gave."""
    on_pairs = matcher.neighbours(query)
    if on_pairs == EVERYTHING:
        return matcher.match(query, "words")
    rest = beyond_neighbours(query)
    if rest is None:
        on_words = "true"
    else:
        matcher.unindexed = narrowed(rest)  # its candidates: those of `pairs` alone
        on_words = matcher.match(rest, "words")
        matcher.unindexed = False
    return f"({on_words} AND {matcher.condition('pairs', on_pairs)})"


class Ranker:
    """Ranks the pages of the index `rows` reads (PostgresEngine._rows); `similar_terms`
    expands typos."""

    def __init__(self, rows: Rows, similar_terms: Callable[[str, int], list[str]]) -> None:
        self._rows = rows
        self.similar_terms = similar_terms

    def rank(
        self,
        query: pq.Node,
        limit: int,
        stats: tuple[int, float, int],
        slug: str | None = None,
        pages: tuple[int, int] | None = None,
        use_postings: bool = True,
    ) -> Ranking:
        """The top `limit` pages, the cheapest way that can rank the query: over the whole
        library CONSTANT, POSTINGS (unless `use_postings` is off) or LISTS when they can,
        else FULL. `stats`: (pages, mean length, list_pages) now."""
        weights = self._weights(query, stats)
        whole = not slug and not pages
        if whole and isinstance(query, pq.Prefix) and query.text in weights.constant:
            score = query.boost * weights.constant[query.text]
            return Ranking(self.first_pages(query, limit, score), CONSTANT)
        if use_postings and whole:
            found = self.from_postings(query, weights, limit)
            if found is not None:
                return Ranking(found, POSTINGS)
        matching = self._matching(query, weights, slug, pages)
        if use_postings and whole and matching.phrases:
            bounded = self.from_bounds(query, weights, matching, limit)
            if bounded is not None:
                return bounded
        if whole:
            listed = self.from_lists(query, weights, matching, limit)
            if listed is not None:
                return listed
        return Ranking(self.every_match(query, weights, matching, limit), FULL)

    def _weights(self, query: pq.Node, stats: tuple[int, float, int]) -> Weights:
        count, mean, listed = stats
        frequency = self._document_frequency(query)
        prefix_pages = functools.cache(self._prefix_pages)
        prefixes = {leaf.text for leaf in pq.leaves(query) if isinstance(leaf, pq.Prefix)}
        constant = {  # broad prefixes (Compiler.constant): their idf
            p: bm25_idf(count, min(count, prefix_pages(p)))
            for p in prefixes
            if prefix_pages(p) > 2 * listed
        }
        stems = stems_of(self._rows, query)
        return Weights(count, mean, listed, frequency, prefix_pages, stems, constant)

    def _matching(
        self,
        query: pq.Node,
        weights: Weights,
        slug: str | None,
        pages: tuple[int, int] | None,
    ) -> Matching:
        stemmed = stem_literals(weights.stems)
        matcher = Compiler(self.similar_terms, stems=True, stemmed=stemmed)
        match = on_words_and_pairs(matcher, query)
        strict, strict_params = match, list(matcher.params)
        phrases = positional(query)
        loose, loose_params = "", []
        if phrases:
            # Pages whose positions were cut (schema): their phrases as words anywhere.
            relaxed = matcher.tsquery(query, relaxed=True)
            before = len(matcher.params)
            loose = f" OR (lossy = 1 AND {matcher.condition('words', relaxed)})"
            loose_params = matcher.params[before:]
            match = f"({match}{loose})"
        conditions = [match]
        params: list[Any] = list(matcher.params)  # the conditions' (`where`)
        if slug:
            conditions.append("slug = %s")
            params.append(slug)
        if pages:
            conditions.append("page BETWEEN %s AND %s")
            params += [pages[0], pages[1]]
        return Matching(
            " AND ".join(conditions),
            params,
            loose,
            loose_params,
            phrases,
            stemmed,
            strict,
            strict_params,
        )

    def _scoring(self, weights: Weights, stemmed: dict[str, str]) -> Compiler:
        """A Compiler that scores (one per SQL form: each keeps its parameters)."""
        norm_parts = weights.norm_parts()
        # In float8, as postings.Scorer computes it: the same scores either way.
        norm = f"{norm_parts[0]!r}::float8 + {norm_parts[1]!r}::float8 * length"
        return Compiler(
            self.similar_terms,
            weights.idf,
            weights.prefix_idf,
            stems=True,
            norm=norm,
            stemmed=stemmed,
            several={word: found for word, found in weights.stems.items() if len(found) > 1},
            constant=frozenset(weights.constant),
        )

    # -- CONSTANT --------------------------------------------------------------------

    def first_pages(self, query: pq.Prefix, limit: int, score: float) -> RankedPages:
        """A broad prefix alone: every page it is on scores the same (Compiler.constant),
        so its top pages are its first ones, in the order ties are broken."""
        literal = Compiler(self.similar_terms).leaf(query)
        rows = self._rows(
            "SELECT t.path, p.slug, t.page, p.text FROM (SELECT path, page"
            " FROM pdfindex_terms WHERE words @@ %s::tsquery ORDER BY path, page LIMIT %s) t"
            " JOIN pdfindex_pages p ON p.path = t.path AND p.page = t.page"
            " ORDER BY t.path, t.page",
            [literal, limit],
            indexed=True,
        )
        hits = [PageHit(path, slug, page, score, "", text) for path, slug, page, text in rows]
        total = self._count_terms("words @@ %s::tsquery", [literal])
        return RankedPages(total, hits, self._marked_terms(query, hits))

    # -- POSTINGS --------------------------------------------------------------------

    def from_postings(self, query: pq.Node, weights: Weights, limit: int) -> RankedPages | None:
        """The top `limit` pages of a query of words and stems, scored from the postings
        of its lexemes (pdfindex.engine.postgres.postings). None when the postings cannot
        rank it, or when a writer's commits kept removing the best pages between reading
        the postings and the pages (the query is then ranked in SQL, in one statement)."""
        keys = lexemes(query, weights.stems)
        if keys is None:
            return None
        scorer = Scorer(weights.idf, self._frequencies, weights.norm_parts(), weights.stems)
        for _ in range(3):
            ranked = scorer.rank(query, self._postings(keys))
            pids, scores = ranked.best(limit)
            hits = self._best_pages(pids.tolist(), scores.tolist(), limit)
            if hits is None:  # removed since: read again
                continue
            return RankedPages(len(ranked.scores), hits, self._marked_terms(query, hits))
        return None

    def _postings(self, keys: list[Key]) -> dict[Key, bytes]:
        """Each key's postings, its documents' rows joined."""
        # One aggregate per key over its index range: a GROUP BY over all the keys' rows
        # sorted them first (8,747 rows of a question at 48,000 pages: 7 -> 4 ms).
        rows = self._rows(
            "SELECT k.kind, k.lexeme, (SELECT string_agg(p.data, ''::bytea)"
            " FROM pdfindex_postings p WHERE p.kind = k.kind AND p.lexeme = k.lexeme)"
            ' FROM unnest(%s::"char"[], %s::text[]) AS k(kind, lexeme)',
            ([kind for kind, _ in keys], [word for _, word in keys]),
            binary=True,
        )
        return {(kind, word): data for kind, word, data in rows if data}

    def _best_pages(self, pids: list[int], scores: list[float], limit: int) -> list[PageHit] | None:
        """The `limit` best of `pids` with their texts, ties broken by path and page as
        SQL's ORDER BY; None when one of them is no longer in the index. Beyond `limit`
        (ties: copies of one file may tie by the thousand) only the kept pages' texts are
        read."""
        text = "text" if len(pids) <= limit else "''"
        pages = self._rows(
            f"SELECT pid, path, slug, page, {text} FROM pdfindex_pages WHERE pid = ANY(%s)",
            (pids,),
        )
        if len(pages) < len(pids):
            return None
        score = dict(zip(pids, scores, strict=True))
        pages = sorted(pages, key=lambda row: (-score[row[0]], row[1], row[3]))[:limit]
        if len(pids) > limit:
            texts = dict(
                self._rows(
                    "SELECT pid, text FROM pdfindex_pages WHERE pid = ANY(%s)",
                    ([row[0] for row in pages],),
                )
            )
            if len(texts) < len(pages):
                return None
            pages = [(pid, path, slug, page, texts[pid]) for pid, path, slug, page, _ in pages]
        return [
            PageHit(path, slug, page, score[pid], "", text) for pid, path, slug, page, text in pages
        ]

    @functools.cached_property
    def _frequencies(self) -> np.ndarray:
        """`10 * ts_rank_cd` of a word found n times (index n), as the server computes it."""
        found = np.zeros(MAX_POSITIONS + 1)
        for n, value in self._rows(FREQUENCIES):
            found[n] = value
        return found

    # -- BOUNDED ---------------------------------------------------------------------

    def from_bounds(
        self, query: pq.Node, weights: Weights, matching: Matching, limit: int
    ) -> Ranking | None:
        """The top `limit` pages of a query with phrases of neighbours, from the bounds
        the postings of their words give every page (postings.bounded): pages scored in
        SQL a batch at a time in the order of their bounds, until the `limit`-th score
        found is above the bound of every page left. None when the postings cannot bound
        the query. `"Note that"` at 48,000 pages: 4,229 pages hold both words; scoring
        every match read each one's positions twice (62 ms)."""
        rarest = rarest_words(weights.document_frequency)  # bound each phrase
        keys = lexemes(query, weights.stems, phrases=True, bounding=rarest)
        if keys is None:
            return None
        scorer = Scorer(
            weights.idf, self._frequencies, weights.norm_parts(), weights.stems, bounding=rarest
        )
        bounds = scorer.rank(query, self._postings(keys))
        # The pages it matches, from the index and their positions: the total, and only
        # those are scored. A phrase of common words (`"the name of the"`: 4,463 pages
        # with its words, 702 with it) is rarely as often on a page as its words are.
        sql, params = matching.pages()
        found = self._rows(  # in one value: 3,011 rows cost 1.4 ms to fetch
            f"SELECT string_agg(int8send(pid), ''::bytea) FROM ({sql}) m", params, binary=True
        )
        matched = np.frombuffer(found[0][0] or b"", ">i8").astype(np.int64)
        ceiling = np.full(len(matched), np.inf)  # a page the bounds missed: scored first
        at = np.searchsorted(bounds.pids, matched)  # Ranked.pids are sorted (_distinct)
        known = at < len(bounds.pids)
        known[known] = bounds.pids[at[known]] == matched[known]
        ceiling[known] = bounds.scores[at[known]]
        order = np.lexsort((matched, -ceiling))
        pids, ceilings = matched[order].tolist(), ceiling[order].tolist()
        score = self._scored_by_pid(query, weights, matching, limit)
        best: list[tuple[Any, ...]] = []
        done, size = 0, FIRST_BOUNDED
        while done < len(pids):
            best = sorted(
                [*best, *score(pids[done : done + size])], key=lambda r: (-r[3], r[0], r[2])
            )[:limit]
            done, size = done + size, 4 * size
            if done < len(pids) and len(best) == limit:
                left = ceilings[done]  # the most a page not scored yet can score
                if float(best[-1][3]) > left * (1 + 1e-9) + 1e-12:
                    break
        hits = [PageHit(path, s, n, float(sc), "", text) for path, s, n, sc, text in best]
        pages = RankedPages(len(pids), hits, self._marked_terms(query, hits))
        return Ranking(pages, BOUNDED, (min(done, len(pids)), len(pids)))

    def _scored_by_pid(
        self, query: pq.Node, weights: Weights, matching: Matching, limit: int
    ) -> Callable[[list[int]], list[tuple[Any, ...]]]:
        """Scores pages given by pid in SQL: the best `limit` of those matching, as
        (path, slug, page, score, text)."""
        scorer = self._scoring(weights, matching.stemmed)
        score, matched, lateral = scorer.page_score(query)

        def scored(pids: list[int]) -> list[tuple[Any, ...]]:
            return self._rows(
                "WITH scored AS MATERIALIZED ("
                f" SELECT p.path, p.page, {score} AS score FROM pdfindex_pages p"
                f" CROSS JOIN LATERAL (SELECT {lateral} OFFSET 0) tf"
                f" WHERE p.pid = ANY(%s) AND ({matched}{matching.loose})),"
                " top AS (SELECT path, page, score FROM scored"
                " ORDER BY score DESC, path, page LIMIT %s)"
                " SELECT t.path, p.slug, t.page, t.score, p.text FROM top t"
                " JOIN pdfindex_pages p ON p.path = t.path AND p.page = t.page"
                " ORDER BY t.score DESC, t.path, t.page",
                [*scorer.params, pids, *matching.loose_params, limit],
            )

        return scored

    # -- LISTS -----------------------------------------------------------------------

    def from_lists(
        self, query: pq.Node, weights: Weights, matching: Matching, limit: int
    ) -> Ranking | None:
        """The top `limit` pages from the impact lists' candidates (topk.Planner); None
        when there is no plan or its candidates may not hold the top."""
        scorer = self._scoring(weights, matching.stemmed)  # weighs the bounds and scores
        planner = Planner(
            self._rows,
            weights.document_frequency,
            weights.idf,
            weights.prefix_pages,
            self.similar_terms,
            self._count_terms,
            weights.mean,
            weights.stems,
            scorer.leaf_idf,
            rare=2 * weights.listed,
            constant=weights.constant,
        )
        plan = planner.plan(query)
        if plan is None:
            return None
        # Few candidates: each leaf's frequency read once (tf), by the score and by
        # whether the candidate matches.
        score, matched, lateral = scorer.page_score(query)

        def scored(candidates: list[tuple[str, int]]) -> list[tuple[Any, ...]]:
            return self._rows(
                "WITH candidates AS (SELECT * FROM unnest(%s::text[], %s::int[])"
                " AS c(path, page)), scored AS MATERIALIZED ("
                f" SELECT p.path, p.page, {score} AS score FROM candidates c"
                " JOIN pdfindex_pages p ON p.path = c.path AND p.page = c.page"
                f" CROSS JOIN LATERAL (SELECT {lateral} OFFSET 0) tf"
                f" WHERE {matched}{matching.loose}),"
                " top AS (SELECT path, page, score FROM scored"
                " ORDER BY score DESC, path, page LIMIT %s)"
                " SELECT t.path, p.slug, t.page, t.score, p.text FROM top t"
                " JOIN pdfindex_pages p ON p.path = t.path AND p.page = t.page"
                " ORDER BY t.score DESC, t.path, t.page",
                [
                    [path for path, _ in candidates],
                    [page for _, page in candidates],
                    *scorer.params,
                    *matching.loose_params,
                    limit,
                ],
                indexed=True,
            )

        found = self._best_candidates(plan, scored, limit)
        if found is None:
            return None
        rows, counts = found
        if matching.phrases:
            sql = f"SELECT count(*) FROM pdfindex_pages WHERE {matching.where}"
            total = int(self._rows(sql, matching.params)[0][0])
        else:
            total = self._count_terms(*self._on_terms(query, matching.stemmed))
        hits = [PageHit(path, s, n, float(sc), "", text) for path, s, n, sc, text in rows]
        return Ranking(RankedPages(total, hits, self._marked_terms(query, hits)), LISTS, counts)

    def _best_candidates(
        self, plan: Plan, scored: Scored, limit: int
    ) -> tuple[list[tuple[Any, ...]], tuple[int, int]] | None:
        """The top `limit` of the plan's candidates, scoring few of them: those of highest
        upper bound first (a rare leaf's pages each gain at most its idf times BM25's
        most, a list's at most its impact), then every one whose bound reaches the tenth
        score found; with how many were scored, of how many. None when that top is not
        the top of every page (`plan.exact`). A question's rare words hold thousands of
        pages, most with one of its words: their bounds fall below pages holding several."""
        bounded = self._rows(
            f"SELECT path, page, sum(ub) AS ub FROM ({plan.sql}) u(path, page, ub)"
            " GROUP BY path, page ORDER BY ub DESC, path, page",
            plan.params,
            indexed=True,
        )
        first = bounded[:FIRST_SCORED]
        rows = scored([(path, page) for path, page, _ in first])
        scores = [float(row[3]) for row in rows]
        if len(bounded) <= FIRST_SCORED:  # every candidate scored
            counts = (len(first), len(bounded))
            return (rows, counts) if plan.exact(scores, limit) else None
        rest = plan.bound + float(bounded[FIRST_SCORED][2])  # the most an unscored one scores
        if plan.exact(scores, limit) and scores[limit - 1] > rest * (1 + 1e-9) + 1e-12:
            return rows, (len(first), len(bounded))
        # Every candidate whose bound reaches the tenth score so far (all, without one).
        floor = scores[limit - 1] * (1 - 1e-9) - 1e-12 if len(scores) >= limit else -math.inf
        more = [(path, page) for path, page, ub in bounded if plan.bound + ub >= floor]
        rows = scored(more)
        counts = (len(first) + len(more), len(bounded))
        return (rows, counts) if plan.exact([float(row[3]) for row in rows], limit) else None

    # -- FULL ------------------------------------------------------------------------

    def every_match(
        self, query: pq.Node, weights: Weights, matching: Matching, limit: int
    ) -> RankedPages:
        """Every matching page scored in SQL, the top `limit` kept. A LATERAL subquery per
        row cost more than it saved (the 10-word question ORed, 36,282 pages: 470 -> 780
        ms)."""
        inline = self._scoring(weights, matching.stemmed)
        inline_score = inline.score(query, {"words": 1.0})
        rows = self._rows(
            # Scored first, apart (MATERIALIZED): the count's window then holds (path,
            # page, score) rows, not whole pages with their tsvectors, which spilled to
            # disk past work_mem (390 of 620 ms for `the` at 48,000 pages).
            "WITH scored AS MATERIALIZED ("
            f" SELECT path, page, {inline_score} AS score FROM pdfindex_pages"
            f" WHERE {matching.where}),"
            " hits AS (SELECT path, page, score, count(*) OVER () AS total FROM scored"
            " ORDER BY score DESC, path, page LIMIT %s)"
            " SELECT h.path, p.slug, h.page, h.score, p.text, h.total FROM hits h"
            " JOIN pdfindex_pages p ON p.path = h.path AND p.page = h.page"
            " ORDER BY h.score DESC, h.path, h.page",
            [*inline.params, *matching.params, limit],
        )
        hits = [PageHit(path, s, page, float(sc), "", text) for path, s, page, sc, text, _ in rows]
        total = int(rows[0][5]) if rows else 0
        return RankedPages(total, hits, self._marked_terms(query, hits))

    # -- what every way reads ----------------------------------------------------------

    def _on_terms(self, query: pq.Node, stemmed: dict[str, str]) -> tuple[str, list[Any]]:
        """What `query` matches, as a condition on the narrow pdfindex_terms (no phrase:
        its vectors hold no positions)."""
        matcher = Compiler(self.similar_terms, stems=True, stemmed=stemmed)
        return matcher.match(query, "words"), matcher.params

    def _count_terms(self, condition: str, params: list[Any], most: int = 0) -> int:
        """Pages meeting `condition` on pdfindex_terms (`most`: counted up to that many),
        from its GIN indexes and narrow heap."""
        rows = f"SELECT 1 FROM pdfindex_terms WHERE {condition}" + (
            f" LIMIT {int(most)}" if most else ""
        )
        found = self._rows(f"SELECT count(*) FROM ({rows}) AS r", params, indexed=True)
        return int(found[0][0]) if found else 0

    def _document_frequency(self, node: pq.Node) -> dict[str, int]:
        """Pages holding each word of the query (its typos' words too)."""
        wanted: set[str] = set()
        for leaf in pq.leaves(node):
            if isinstance(leaf, pq.Term | pq.Stem):
                wanted.add(leaf.text)
            elif isinstance(leaf, pq.Phrase):
                wanted.update(leaf.words)
                wanted.update(pairs_of(leaf.words))
            elif isinstance(leaf, pq.Fuzzy):
                wanted.update(self.similar_terms(leaf.text, leaf.distance))
        if not wanted:
            return {}
        rows = self._rows(
            "SELECT word, pages FROM pdfindex_words WHERE word = ANY(%s)", (sorted(wanted),)
        )
        return dict(rows)  # type: ignore[arg-type]

    def _prefix_pages(self, prefix: str) -> int:
        """The pages of the words starting with `prefix`, summed (a page with two of
        them counts twice): the prefix's idf, and how broad it is."""
        rows = self._rows(
            "SELECT coalesce(sum(pages), 0) FROM pdfindex_words WHERE word LIKE %s",
            (like_prefix(prefix),),
        )
        return int(rows[0][0])

    def _marked_terms(self, node: pq.Node, hits: list[PageHit]) -> set[str]:
        """The index words the query stands for, for snippets to mark; a typo's and a
        stem's are looked for in the hits' own words."""
        terms: set[str] = set()
        leaves = pq.leaves(node)
        stems = [leaf.text for leaf in leaves if isinstance(leaf, pq.Stem)]
        fuzzy = any(isinstance(leaf, pq.Fuzzy) for leaf in leaves)
        # The hits' words, only when a stem or a typo is looked for in them (2.6 ms for
        # ten pages of a question at 48,000 pages).
        hit_words = sorted(word_set([hit.text for hit in hits])) if stems or fuzzy else []
        if stems and hit_words:
            rows = self._rows(
                "SELECT w FROM unnest(%s::text[]) AS w WHERE to_tsvector('pdfindex_stems', w)"
                " @@ (SELECT string_agg(plainto_tsquery('pdfindex_stems', s)::text, ' | ')"
                " FROM unnest(%s::text[]) AS s)::tsquery",
                (hit_words, stems),
            )
            terms.update(w for (w,) in rows)
        for leaf in leaves:
            if isinstance(leaf, pq.Term | pq.Stem):
                terms.add(leaf.text)
            elif isinstance(leaf, pq.Phrase):
                terms.update(leaf.words)
            elif isinstance(leaf, pq.Prefix):
                rows = self._rows(
                    "SELECT word FROM pdfindex_words WHERE word LIKE %s ORDER BY word LIMIT %s",
                    (like_prefix(leaf.text), PREFIX_TERMS_MARKED),
                )
                terms.update(w for (w,) in rows)
            else:
                terms.update(within(hit_words, leaf.text, leaf.distance))
        return terms


def like_prefix(prefix: str) -> str:
    """A LIKE pattern for text starting with `prefix` (its % and _ taken literally)."""
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"
