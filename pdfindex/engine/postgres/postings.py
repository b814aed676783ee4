"""Word queries ranked from per-document postings, with numpy, as SQL would rank them.

PostgreSQL scores a query's matches row by row, reading each page's `tsvector`s: a
question's words are on tens of thousands of pages (0.1-0.9 s at 48,000 pages, even with
the impact lists of topk.py). `pdfindex_postings` (schema) holds, per document and word or
stem, each page's (pid, frequency, length): a query's rows, at most a few MB, are read in
one statement, and scored here with the very arithmetic of the SQL score (compiler.py:
BM25 over `10 * ts_rank_cd`, the same float operations in the same order), so the scores,
the order and the total are those of scoring every match in SQL.

Answers trees of words and stems under AND / OR / NOT (questions, keyword lists, boolean
queries), and of pairs of CJK characters (a Chinese or Japanese question's units: each is
one lexeme, schema.pairs_with); `lexemes` says None for anything else (other phrases,
prefixes, typos, a word of no stem, a NOT that pages without any query word could meet)
and the engine ranks those in SQL.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pdfindex import query as pq
from pdfindex.engine.postgres.schema import MAX_LEXEME_BYTES, MAX_POSITIONS, is_paired, pair
from pdfindex.text.words import is_cjk

POSTING = np.dtype([("pid", ">i8"), ("tf", ">i4"), ("length", ">i4")])  # schema.POSTINGS
Key = tuple[str, str]  # (kind, lexeme): 'w' a word, 's' a stem
Bounding = Callable[[tuple[str, ...]], tuple[str, ...]]  # a phrase's words -> those read
DENSE_PIDS = 1 << 20  # pids spread over this many more than their number are sorted instead
# `10 * ts_rank_cd(vector, 'w', 0)` of a word found n times, as the SQL score reads it
# (ts_rank_cd sums 0.1 per occurrence in double and returns a float4): asked of the server.
FREQUENCIES = (
    "SELECT n, 10 * ts_rank_cd(('a:' || (SELECT string_agg(i::text, ',')"
    " FROM generate_series(1, n) AS i))::tsvector, 'a'::tsquery, 0)"
    f" FROM generate_series(1, {MAX_POSITIONS}) AS n"
)


def all_words(words: tuple[str, ...]) -> tuple[str, ...]:
    return words


def rarest_words(pages: dict[str, int]) -> Bounding:
    """The words whose postings bound a phrase: those on at most BOUND_SPREAD times as
    many pages (`pages`) as its rarest. A phrase is on a page at most as often as any of
    its words, so a few of them bound it too; a word on many more pages seldom lowers
    the bound and costs its postings: `"the name of the"` at 47,970 pages reads `name`'s,
    not those of `the` and `of` on most pages (4.2 -> 0.7 ms, the same pages scored)."""

    def bounding(words: tuple[str, ...]) -> tuple[str, ...]:
        fewest = min(pages.get(word, 0) for word in words)
        return tuple(word for word in words if pages.get(word, 0) <= BOUND_SPREAD * fewest)

    return bounding


BOUND_SPREAD = 2


def lexemes(
    query: pq.Node,
    stems: dict[str, list[str]],
    phrases: bool = False,
    bounding: Bounding = all_words,
) -> list[Key] | None:
    """The postings `query` reads, or None when they cannot rank it. `stems`: each Stem
    leaf's word, its stems (topk.stems_of; a word of several is found as often as the
    least found of them, as Compiler.several). With `phrases`, a phrase of neighbours
    (`bounded`) reads the postings of its words that `bounding` names, which bound it:
    the query is then not ranked, only its pages bounded (Scorer.rank)."""
    keys: set[Key] = set()
    for leaf in _leaves(query):
        if isinstance(leaf, pq.Term) and _fits(leaf.text):
            keys.add(("w", leaf.text))
        elif isinstance(leaf, pq.Stem) and stems.get(leaf.text):
            keys.update(("s", stem) for stem in stems[leaf.text])
        elif _posted_pair(leaf):
            keys.add(("w", pair(*leaf.words)))  # type: ignore[union-attr]
        elif phrases and bounded(leaf) and all(_fits(w) for w in leaf.words):  # type: ignore[union-attr]
            keys.update(("w", word) for word in bounding(leaf.words))  # type: ignore[union-attr]
        else:
            return None
    if phrases and not _bounded_alone(query):
        return None
    return sorted(keys) if _positive(query) else None


def bounded(node: pq.Node) -> bool:
    """A phrase of neighbours that is not one lexeme: on a page at most as often as the
    least found of its words (each occurrence starts at a different one of each), so
    their postings bound its score; whether the page holds it, only its positions say."""
    return isinstance(node, pq.Phrase) and node.slop <= 1 and not _posted_pair(node)


def _bounded_alone(node: pq.Node) -> bool:
    """Whether no bounded phrase is under a NOT (where a page without it would match,
    and its words' postings bound nothing)."""
    if isinstance(node, pq.And | pq.Or):
        return all(_bounded_alone(c) for c in node.children)
    if isinstance(node, pq.Not):
        return not any(bounded(leaf) for leaf in _leaves(node.child))
    return True


def _fits(word: str) -> bool:
    return len(word.encode("utf-8")) <= MAX_LEXEME_BYTES


def _posted_pair(node: pq.Node) -> bool:
    """A phrase of two CJK characters: one pair lexeme, posted (schema.POSTINGS)."""
    return (
        isinstance(node, pq.Phrase)
        and node.slop <= 1
        and is_paired(node.words)
        and is_cjk(node.words[0])
    )


def _leaves(node: pq.Node) -> list[pq.Node]:
    """Every leaf, those under NOT too (pq.leaves has the positive ones)."""
    if isinstance(node, pq.And | pq.Or):
        return [leaf for child in node.children for leaf in _leaves(child)]
    return _leaves(node.child) if isinstance(node, pq.Not) else [node]


def _positive(node: pq.Node) -> bool:
    """Whether every page `node` matches holds one of its words (so is in their postings)."""
    if isinstance(node, pq.And):
        return any(_positive(c) for c in node.children)
    if isinstance(node, pq.Or):
        return all(_positive(c) for c in node.children)
    return not isinstance(node, pq.Not)


@dataclass
class Ranked:
    """Every page the query matches: its pid and score, in pid order."""

    pids: np.ndarray
    scores: np.ndarray

    def best(self, limit: int) -> tuple[np.ndarray, np.ndarray]:
        """The pids and scores of the `limit` best pages and of any tied with the last
        of them (ties are broken by path and page, which the pids do not know)."""
        if len(self.scores) <= limit:
            return self.pids, self.scores
        last = np.partition(self.scores, len(self.scores) - limit)[len(self.scores) - limit]
        kept = self.scores >= last
        return self.pids[kept], self.scores[kept]


@dataclass
class Scorer:
    """BM25 as compiler.Compiler writes it in SQL: `idf` of a word, `frequencies` the
    server's `10 * ts_rank_cd` of n occurrences (index n), `norm` BM25's k1 * (1 - b) and
    k1 * b / mean length; `stems` each Stem leaf's word, its stems."""

    idf: Callable[[str], float]
    frequencies: np.ndarray
    norm: tuple[float, float]
    stems: dict[str, list[str]]
    bounding: Bounding = all_words  # a bounded phrase's words read (lexemes' `bounding`)

    def rank(self, query: pq.Node, postings: dict[Key, bytes]) -> Ranked:
        """Score every page in the query's postings (`postings`: each key's rows, their
        data joined) and keep those matching it."""
        found = {key: np.frombuffer(data, POSTING) for key, data in postings.items() if data}
        if not found:
            return Ranked(np.zeros(0, np.int64), np.zeros(0))
        pids, where = _distinct(np.concatenate([rows["pid"] for rows in found.values()]))
        length = np.zeros(len(pids))
        self._tf: dict[Key, np.ndarray] = {}
        start = 0
        for key, rows in found.items():
            at = where[start : start + len(rows)]
            start += len(rows)
            length[at] = rows["length"]
            tf = np.zeros(len(pids))
            tf[at] = self.frequencies[np.minimum(rows["tf"], len(self.frequencies) - 1)]
            self._tf[key] = tf
        # SQL: k1 * (1 - b) + k1 * b / mean * length, in float8 (compiler: norm).
        self._norm = self.norm[0] + self.norm[1] * length
        self._zero = np.zeros(len(pids))
        score, matched = self._score(query, 1.0)
        return Ranked(pids[matched], (score + self._zero)[matched])

    def _score(self, node: pq.Node, boost: float) -> tuple[np.ndarray | float, np.ndarray]:
        """(score, matched) of each page, as Compiler._page adds them up."""
        if isinstance(node, pq.Not):
            return 0.0, ~self._score(node.child, 1.0)[1]
        if isinstance(node, pq.And | pq.Or):
            weight = boost * node.boost
            parts = [self._score(c, weight) for c in node.children]
            scores = [score for score, _ in parts]
            if isinstance(node, pq.Or) and node.coord:
                bonus = node.coord * weight
                scores += [np.where(m, bonus, 0.0) for _, m in parts]
            total = scores[0]
            for score in scores[1:]:
                total = total + score
            combine = np.logical_and if isinstance(node, pq.And) else np.logical_or
            return total, combine.reduce([m for _, m in parts])
        if isinstance(node, pq.Phrase):  # idf: its words' sum (Compiler.leaf_idf)
            if bounded(node):  # at most as often as its least found word: a bound
                words = self.bounding(node.words)
                tf = np.minimum.reduce([self._tf.get(("w", w), self._zero) for w in words])
            else:  # a posted pair
                tf = self._tf.get(("w", pair(*node.words)), self._zero)
            weight = boost * node.boost * sum(self.idf(w) for w in node.words)
            return weight * (2.2 - 2.2 * self._norm / (tf + self._norm)), tf > 0
        assert isinstance(node, pq.Term | pq.Stem)
        if isinstance(node, pq.Term):
            tf = self._tf.get(("w", node.text), self._zero)
        else:  # least(...) of its stems' (the frequencies grow with n)
            tf = np.minimum.reduce(
                [self._tf.get(("s", s), self._zero) for s in self.stems[node.text]]
            )
        weight = boost * node.boost * self.idf(node.text)
        # pdfindex_bm25(10 * tf, norm) = 2.2 - 2.2 * norm / (tf + norm), times the weight.
        return weight * (2.2 - 2.2 * self._norm / (tf + self._norm)), tf > 0


def _distinct(pids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct pids, in order, and where each of `pids` is among them: marked over
    the range of pids when that is not much wider than their number (no sort: 4 -> 1 ms
    for 100,000), else sorted (np.unique; pids grow with every page written)."""
    pids = pids.astype(np.int64)
    top = int(pids.max()) + 1
    if top > 8 * len(pids) + DENSE_PIDS:
        return np.unique(pids, return_inverse=True)
    seen = np.zeros(top, bool)
    seen[pids] = True
    distinct = np.flatnonzero(seen)
    place = np.zeros(top, np.int64)
    place[distinct] = np.arange(len(distinct))
    return distinct, place[pids]
