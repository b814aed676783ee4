"""The top pages of a broad query without scoring every page it matches.

PostgreSQL scores each matching row in turn (no block-max pruning as in Tantivy), so a
query matching 30,000 of 48,000 pages took 250-650 ms. Here the threshold algorithm
(Fagin's, as search engines' "impact-ordered" lists) bounds the work: for each word or
stem on many pages the schema keeps an impact list (`pdfindex_lists`), its pages of
highest BM25 term part, and `theta`, which no page outside the list exceeds. The
candidates are the lists of the query's common leaves and every page of its rare ones;
they are scored in full, and the answer stands when the last of the top `limit` scores
more than any page outside the candidates could (the sum of what each leaf can give a
page beyond its list, coordination bonuses included; a broad prefix gives every page
it is on the same constant). When it does not, or a leaf is neither rare nor listed (a
typo on many pages), `plan` says so and the engine scores every match as before: the
answer is always the same as scoring every page. The engine does that too when every
page the query matches holds one of its rare leaves: those pages are few, and one
statement scores them cheaper than the candidates' union.

Not every candidate is scored either: the plan bounds each one (`Plan.sql`: a
rare leaf's page gains at most its idf times BM25's most plus the coordination bonuses
over it, a listed page at most its impact beyond theta), and the engine scores those of
highest bound first, then only those whose bound reaches the tenth score found.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pdfindex import query as pq
from pdfindex.engine.postgres.compiler import NOTHING, Compiler, lexeme, positional
from pdfindex.engine.postgres.schema import K1, LIST_PAGES, pairs_of

MOST = K1 + 1  # BM25's term part reaches at most k1 + 1; an impact is the part over it
Rows = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]


@dataclass
class Plan:
    """The candidates' SQL with its parameters: (path, page, ub) rows, one per piece a
    candidate is in (a rare leaf's pages, a list), whose sum per page is the most it can
    score beyond `bound`; and `bound`, the most a page outside them could score."""

    sql: str
    params: list[Any]
    bound: float

    def exact(self, scores: list[float], limit: int) -> bool:
        """Whether the candidates' top `limit` (these scores, best first) is the top of
        every page the query matches."""
        return len(scores) >= limit and scores[limit - 1] > self.bound * (1 + 1e-9) + 1e-12


@dataclass
class Planner:
    """Plans one query: `rows` reads the database, `frequency` holds the pages of each
    query word, `idf` is the scorer's, `prefix_pages` and `expand` size prefixes and
    typos, `count` counts the narrow table's rows meeting a condition, `mean` is the
    mean page length now."""

    rows: Rows
    frequency: dict[str, int]
    idf: Callable[[str], float]
    prefix_pages: Callable[[str], int]
    expand: Callable[[str, int], list[str]]
    count: Callable[[str, list[Any], int], int]  # (condition, params, at most)
    mean: float
    stems: dict[str, list[str]]  # each Stem leaf's word: its stems (stems_of)
    leaf_idf: Callable[[pq.Node], float]  # the scorer's (Compiler.leaf_idf)
    rare: int = 2 * LIST_PAGES  # a leaf on at most this many pages has every page scored
    constant: dict[str, float] = field(default_factory=dict)  # broad prefixes: their idf
    _lists: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)
    _pieces: list[tuple[str, list[Any]]] = field(default_factory=list)  # (SQL, params)

    def plan(self, query: pq.Node) -> Plan | None:
        self._look_up(query)
        try:
            bound, can = self._bound(query, 1.0)
        except _Broad:
            return None
        if positional(query):
            # Pages whose positions were cut match phrases loosely (schema): always scored.
            lossy = "SELECT path, page, 'Infinity'::float8 FROM pdfindex_pages WHERE lossy > 0"
            self._pieces.append((lossy, []))
        if not can or not self._pieces:
            # Every page it matches holds a rare leaf: few, and scoring them all in one
            # statement (the GIN index intersecting the leaves) is the cheaper way. Or
            # nothing bounds it (NOT alone): every page may match.
            return None
        sql = " UNION ALL ".join(sql for sql, _ in self._pieces)
        return Plan(sql, [p for _, params in self._pieces for p in params], bound)

    # -- what the database knows of the query's lexemes ---------------------------------

    def _look_up(self, query: pq.Node) -> None:
        words = sorted(
            {leaf.text for leaf in pq.leaves(query) if isinstance(leaf, pq.Term)}
            | {
                w
                for leaf in pq.leaves(query)
                if isinstance(leaf, pq.Phrase)
                for w in (*leaf.words, *pairs_of(leaf.words))
            }
        )
        wanted = [("w", w) for w in words] + [
            ("s", s) for stems in self.stems.values() for s in stems
        ]
        if wanted:
            found = self.rows(
                "SELECT kind, lexeme, theta, mean FROM pdfindex_lists WHERE entries >= 0"
                ' AND (kind, lexeme) IN (SELECT * FROM unnest(%s::"char"[], %s::text[]))',
                ([k for k, _ in wanted], [w for _, w in wanted]),
            )
            self._lists = {(k, w): (theta, mean) for k, w, theta, mean in found}

    def _beyond(self, kind: str, word: str) -> float | None:
        """The most a page outside the list of this lexeme has of BM25's term part, now
        (None: no list). An impact grows with the mean length: by at most its ratio."""
        listed = self._lists.get((kind, word))
        if listed is None:
            return None
        theta, mean = listed
        return MOST * theta * max(1.0, self.mean / mean)

    # -- the bound: the most a page outside the candidates scores -----------------------

    def _bound(self, node: pq.Node, boost: float, above: float = 0.0) -> tuple[float, bool]:
        """(the most `node` adds to the score of a page outside the candidates, whether
        such a page can match `node`); candidates' SQL gathered on the way, with what each
        can add for a candidate in it (`above`: its ancestors' coordination bonuses)."""
        if isinstance(node, pq.Not):
            return 0.0, True
        if isinstance(node, pq.And | pq.Or):
            weight = boost * node.boost
            inner = above + (node.coord * weight if isinstance(node, pq.Or) else 0.0)
            parts = [self._bound(c, weight, inner) for c in node.children]
            total = sum(b for b, _ in parts)
            if isinstance(node, pq.Or):
                total += node.coord * weight * sum(can for _, can in parts)
                return total, any(can for _, can in parts)
            return total, all(can for _, can in parts)
        weight = boost * node.boost
        # A page holding this leaf gains at most its idf times BM25's most, and the bonuses.
        most = above + weight * self.leaf_idf(node) * MOST
        if isinstance(node, pq.Term):
            return self._word(node, weight, most)
        if isinstance(node, pq.Stem):
            return self._stem(node, weight, most)
        if isinstance(node, pq.Phrase):
            return self._phrase(node, weight, most)
        return self._other(node, weight, most)

    def _word(self, node: pq.Term, weight: float, most: float) -> tuple[float, bool]:
        if self.frequency.get(node.text, 0) <= self.rare:  # every page of it: exact, few
            return self._rare("words @@ %s::tsquery", [lexeme(node.text)], most)
        beyond = self._beyond("w", node.text)
        if beyond is None:
            raise _Broad
        self._listed("w", node.text, weight * self.idf(node.text))
        return weight * self.idf(node.text) * beyond, True

    def _stem(self, node: pq.Stem, weight: float, most: float) -> tuple[float, bool]:
        condition = "stems @@ plainto_tsquery('pdfindex_stems', %s)"
        # A stem is on every page of its word: a common word's is common, not counted.
        common = self.frequency.get(node.text, 0) > self.rare
        if not common and self.count(condition, [node.text], self.rare + 1) <= self.rare:
            return self._rare(condition, [node.text], most)
        stems = self.stems.get(node.text, [])
        beyond = self._beyond("s", stems[0]) if len(stems) == 1 else None
        if beyond is None:
            raise _Broad
        self._listed("s", stems[0], weight * self.idf(node.text))
        return weight * self.idf(node.text) * beyond, True

    def _phrase(self, node: pq.Phrase, weight: float, most: float) -> tuple[float, bool]:
        """A phrase is on a page at most as often as each of its words (and pairs of
        function words): every page of its rarest one when that is rare, else the
        candidates of the listed one with the lowest bound, and that bound with the
        phrase's idf."""
        lexemes = [*node.words, *(pairs_of(node.words) if node.slop <= 1 else [])]
        if min(self.frequency.get(w, 0) for w in lexemes) <= self.rare:
            literal = Compiler(self.expand).leaf(node)
            table = "pdfindex_pages" if positional(node) else "pdfindex_terms"
            return self._rare("words @@ %s::tsquery", [literal], most, table)
        bounds = [(b, w) for w in lexemes if (b := self._beyond("w", w)) is not None]
        if not bounds:
            raise _Broad
        beyond, word = min(bounds)
        idf = sum(self.idf(w) for w in node.words)
        self._listed("w", word, weight * idf)  # no page holds the phrase more than the word
        return weight * idf * beyond, True

    def _other(self, node: pq.Node, weight: float, most: float) -> tuple[float, bool]:
        """A prefix or a typo: every page of it when it is rare, else too broad; a
        broad prefix scores the same on every page it is on (`constant`)."""
        if isinstance(node, pq.Prefix):
            if node.text in self.constant:
                return weight * self.constant[node.text], True
            pages = self.prefix_pages(node.text)
        else:
            assert isinstance(node, pq.Fuzzy)
            words = self.expand(node.text, node.distance) if node.distance else [node.text]
            pages = sum(self.frequency.get(w, 0) for w in words)
        if pages > self.rare:
            raise _Broad
        literal = Compiler(self.expand).leaf(node)
        return self._rare("words @@ %s::tsquery", [literal], most)

    def _listed(self, kind: str, word: str, weight: float) -> None:
        """The pages of a lexeme's list as candidates; one in it gains at most `weight`
        times its impact (over theta, which the bound already counts)."""
        theta, mean = self._lists[(kind, word)]
        most = weight * MOST * max(1.0, self.mean / mean)
        sql = (
            "SELECT path, page, %s * greatest(impact - %s, 0) FROM pdfindex_impacts"
            " WHERE kind = %s AND lexeme = %s"
        )
        self._pieces.append((sql, [most, theta, kind, word]))

    def _rare(
        self, condition: str, params: list[Any], most: float, table: str = "pdfindex_terms"
    ) -> tuple[float, bool]:
        """Every page of a rare leaf as a candidate (`condition`'s %s: `params`), each
        gaining at most `most` from it."""
        if NOTHING in params:  # matches nothing: no candidates
            return 0.0, False
        sql = f"SELECT path, page, %s::float8 FROM {table} WHERE {condition}"
        self._pieces.append((sql, [most, *params]))
        return 0.0, False


class _Broad(Exception):
    """A leaf on many pages without a list: the query is scored in full."""


def stems_of(rows: Rows, query: pq.Node) -> dict[str, list[str]]:
    """The stems of the query's Stem leaves, as the `stems` column holds them."""
    words = sorted({leaf.text for leaf in pq.leaves(query) if isinstance(leaf, pq.Stem)})
    if not words:
        return {}
    found = rows(
        "SELECT w, array(SELECT lexeme FROM unnest(to_tsvector('pdfindex_stems', w)))"
        " FROM unnest(%s::text[]) AS w",
        (words,),
    )
    return {w: list(stems) for w, stems in found}
