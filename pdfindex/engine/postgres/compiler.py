"""pdfindex query trees compiled to PostgreSQL full-text search: a `tsquery` (or SQL
conditions) that selects rows, and a score expression that ranks them.

Leaves become `tsquery` literals: a word `'w'`, a prefix `'p':*`, a phrase
`'a' <-> 'b'` (with slop N: `'a' <1> 'b' | … | 'a' <N> 'b'` for each pair of neighbours, a
superset of the embedded engines' slop), a typo's words from the vocabulary
`('w1' | 'w2')`; AND / OR / NOT become `&` / `|` / `!`. A word by its stem
(pdfindex.query.Stem) matches the `stems` column, so a tree holding one is compiled to SQL
conditions leaf by leaf instead of one `tsquery`.

Score: BM25 (k1 1.2, b 0.75, Lucene's idf) per positive leaf, in SQL. A leaf's frequency
on a page is `ts_rank_cd(words, leaf, 0)` × 10 (cover density ranks each occurrence of a
word, a phrase or a prefix's words 0.1), its idf comes from the vocabulary's page counts
(a phrase's: the sum of its words'), the page length from the `length` column; boosts
multiply, an OR's `coord` adds per matching child.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from pdfindex import query as pq
from pdfindex.engine.postgres.schema import (
    K1,
    MAX_LEXEME_BYTES,
    is_paired,
    neighbours_of,
    pairs_of,
)

NOTHING, EVERYTHING = "\x00nothing", "\x00everything"  # tsqueries with no literal


def lexeme(word: str) -> str:
    """A `\\w+` word as a tsquery literal (it holds no quote, backslash or space)."""
    return f"'{word}'" if len(word.encode("utf-8")) <= MAX_LEXEME_BYTES else NOTHING


def _join(parts: list[str], operator: str) -> str:
    if operator == "&":
        if NOTHING in parts:
            return NOTHING
        parts = [p for p in parts if p != EVERYTHING]
        if not parts:
            return EVERYTHING
    else:
        if EVERYTHING in parts:
            return EVERYTHING
        parts = [p for p in parts if p != NOTHING]
        if not parts:
            return NOTHING
    return parts[0] if len(parts) == 1 else "(" + f" {operator} ".join(parts) + ")"


def _not(part: str) -> str:
    if part == NOTHING:
        return EVERYTHING
    if part == EVERYTHING:
        return NOTHING
    return f"!{part}"


def phrase(words: tuple[str, ...], slop: int, relaxed: bool = False, counted: bool = False) -> str:
    """Words in this order (`relaxed`: anywhere on the page, for pages whose positions
    were cut; `counted`: as its frequency is counted, without the pairs that narrow
    what it matches)."""
    literals = [lexeme(w) for w in words]
    if relaxed:
        return _join(literals, "&")
    if NOTHING in literals:
        return NOTHING
    if slop <= 1:
        # Pairs of function words are lexemes of their own (schema.page_vector): a
        # phrase of two is one, and a longer one needs its pairs too (fewer candidates).
        # Not when counting: ts_rank_cd counts a cover holding a pair too as a third of
        # an occurrence (`"the name of the"`), where a phrase's frequency is how often
        # it is there, as on the other engines and as postings.Scorer bounds it.
        pairs = [f"'{p}'" for p in pairs_of(words)]
        if is_paired(words):
            return pairs[0]
        chain = "(" + " <-> ".join(literals) + ")"
        return chain if counted else _join([chain, *pairs], "&")
    pairs = [
        _join([f"{a} <{d}> {b}" for d in range(1, slop + 1)], "|")
        for a, b in zip(literals, literals[1:], strict=False)
    ]
    return _join(pairs, "&")


@dataclass
class Compiler:
    """Compiles one tree; `expand` gives a typo's words (Engine.similar_terms), `idf` a
    word's BM25 idf and `prefix_idf` a prefix's; `stems` lets Stem leaves use the stemmed
    column (page ranking), else they are plain words."""

    expand: Callable[[str, int], list[str]]
    idf: Callable[[str], float] = lambda _word: 1.0
    prefix_idf: Callable[[str], float] = lambda _prefix: 1.0
    stems: bool = False
    # The tsquery literal of each Stem leaf's stems, when looked up beforehand
    # (`stem_literals`): a constant, where plainto_tsquery would be run for every row.
    stemmed: dict[str, str] = field(default_factory=dict)
    # Words of several stems (`seq_item`: seq, item), each with its stems: such a word is
    # on a page as often as the least found of them (postings.Scorer does the same).
    several: dict[str, list[str]] = field(default_factory=dict)
    norm: str = str(K1)  # SQL: BM25's k1 * (1 - b + b * length / average length)
    params: list[object] = field(default_factory=list)
    # Prefixes on many pages, scored as a constant where they match (their idf, as one
    # occurrence on a page of average length): as Tantivy's and Elasticsearch's prefix
    # queries always are, and what lets a broad prefix be answered without scoring its
    # 20,000 pages (pdfindex.engine.postgres.engine.ranked).
    constant: frozenset[str] = frozenset()
    # Conditions as `ts_match_vq(column, q)`, which no index answers: where the `pairs`
    # column's index has found the few candidates (ranking.on_words_and_pairs), a bitmap
    # of `words`' index beside it cost more than it saved (`"the name of the"` at 48,000
    # pages: 9.4 -> 3.4 ms).
    unindexed: bool = False

    # -- one tsquery for a whole tree ---------------------------------------------------

    def tsquery(self, node: pq.Node, relaxed: bool = False) -> str:
        """The tree as one tsquery (NOTHING / EVERYTHING when it has no literal); Stem
        leaves are plain words here."""
        if isinstance(node, pq.And):
            return _join([self.tsquery(c, relaxed) for c in node.children], "&")
        if isinstance(node, pq.Or):
            return _join([self.tsquery(c, relaxed) for c in node.children], "|")
        if isinstance(node, pq.Not):
            return _not(self.tsquery(node.child, relaxed))
        return self.leaf(node, relaxed)

    def leaf(self, node: pq.Node, relaxed: bool = False) -> str:
        if isinstance(node, pq.Term | pq.Stem):
            return lexeme(node.text)
        if isinstance(node, pq.Prefix):
            literal = lexeme(node.text)
            return literal if literal == NOTHING else f"{literal}:*"
        if isinstance(node, pq.Phrase):
            return phrase(node.words, node.slop, relaxed)
        assert isinstance(node, pq.Fuzzy)
        if node.distance == 0:
            return lexeme(node.text)
        return _join([lexeme(w) for w in self.expand(node.text, node.distance)], "|")

    # -- SQL: what matches --------------------------------------------------------------

    def neighbours(self, node: pq.Node) -> str:
        """A tsquery on the `pairs` column (schema.page_pairs) that every page matching
        the tree meets: the pairs of its phrases of neighbours, as the tree combines them
        (EVERYTHING when it says nothing, as under a NOT)."""
        if isinstance(node, pq.And | pq.Or):
            operator = "&" if isinstance(node, pq.And) else "|"
            return _join([self.neighbours(c) for c in node.children], operator)
        if isinstance(node, pq.Phrase) and node.slop <= 1:
            return _join([lexeme(p) for p in neighbours_of(node.words)], "&")
        return EVERYTHING

    def match(self, node: pq.Node, column: str) -> str:
        """An SQL condition on `column` (a tsvector expression): one tsquery for the whole
        tree, or leaf by leaf when a Stem needs the stemmed column."""
        if not (self.stems and _has_stem(node)):
            return self.condition(column, self.tsquery(node))
        if isinstance(node, pq.And | pq.Or):
            # Children without a Stem share one tsquery, Stem leaves one on `stems`: two
            # tests of the page's vectors instead of one per child (nested groups of the
            # same kind flattened first).
            children = _flat(node)
            plain = [c for c in children if not _has_stem(c)]
            stems = [c.text for c in children if isinstance(c, pq.Stem)]
            mixed = [c for c in children if _has_stem(c) and not isinstance(c, pq.Stem)]
            joined = pq.And(tuple(plain)) if isinstance(node, pq.And) else pq.Or(tuple(plain))
            parts = [self.condition(column, self.tsquery(joined))] if plain else []
            if stems and all(w in self.stemmed for w in stems):
                operator = "&" if isinstance(node, pq.And) else "|"
                parts.append(
                    self.condition("stems", _join([self.stemmed[w] for w in stems], operator))
                )
            elif stems:
                self.params.append(stems)
                operator = "&" if isinstance(node, pq.And) else "|"
                parts.append(
                    f"(stems @@ (SELECT string_agg('(' || q::text || ')', ' {operator} ')"
                    " FROM unnest(%s::text[]) AS w, plainto_tsquery('pdfindex_stems', w) AS q"
                    " WHERE numnode(q) > 0)::tsquery)"
                )
            parts += [self.match(c, column) for c in mixed]
            operator = " AND " if isinstance(node, pq.And) else " OR "
            return "(" + operator.join(parts) + ")"
        if isinstance(node, pq.Not):
            return f"(NOT {self.match(node.child, column)})"
        assert isinstance(node, pq.Stem)
        if node.text in self.stemmed:
            return self.condition("stems", self.stemmed[node.text])
        self.params.append(node.text)
        return "(stems @@ plainto_tsquery('pdfindex_stems', %s))"

    def condition(self, column: str, tsquery: str) -> str:
        if tsquery in (NOTHING, EVERYTHING):
            return "false" if tsquery == NOTHING else "true"
        self.params.append(tsquery)
        if self.unindexed:
            return f"ts_match_vq({column}, %s::tsquery)"
        return f"({column} @@ %s::tsquery)"

    # -- SQL: the score -----------------------------------------------------------------

    def score(self, node: pq.Node, columns: dict[str, float], boost: float = 1.0) -> str:
        """A numeric SQL expression: the sum of the positive leaves' scores."""
        if isinstance(node, pq.Not):
            return "0"
        if isinstance(node, pq.And | pq.Or):
            weight = boost * node.boost
            parts = [self.score(c, columns, weight) for c in node.children]
            if isinstance(node, pq.Or) and node.coord:
                bonus = node.coord * weight
                first = next(iter(columns))
                for child in node.children:
                    condition = self.match(child, first if len(columns) == 1 else _any(columns))
                    parts.append(f"(CASE WHEN {condition} THEN {bonus!r} ELSE 0 END)")
            return "(" + " + ".join(parts) + ")"
        weight = boost * node.boost * self.leaf_idf(node)
        if isinstance(node, pq.Prefix) and node.text in self.constant:
            condition = self.condition(next(iter(columns)), self.leaf(node))
            return f"(CASE WHEN {condition} THEN {weight!r} ELSE 0 END)"
        if isinstance(node, pq.Stem) and self.stems:
            columns = {"stems": 1.0}
        parts = []
        for column, column_boost in columns.items():
            tf = self._frequency(node, column)
            if tf is None:
                return "0"
            parts.append(
                f"{weight * column_boost!r} * pdfindex_bm25(10 * {tf}, ({self.norm})::float8)"
            )
        return "(" + " + ".join(parts) + ")"

    def _frequency(self, node: pq.Node, column: str) -> str | None:
        """SQL of a leaf's frequency on a page, 0.1 per occurrence (`ts_rank_cd`), its
        parameter added; None when the leaf matches nothing. A Stem leaf is searched in
        `stems` (with `self.stems`), by its looked-up stems when `stemmed` has them."""
        if isinstance(node, pq.Stem) and self.stems:
            if node.text in self.several:
                self.params.extend(lexeme(s) for s in self.several[node.text])
                each = ["ts_rank_cd(stems, %s::tsquery, 0)"] * len(self.several[node.text])
                return f"least({', '.join(each)})"
            literal = self.stemmed.get(node.text)
            if literal is None:
                self.params.append(node.text)
                return "ts_rank_cd(stems, plainto_tsquery('pdfindex_stems', %s), 0)"
            column = "stems"
        elif isinstance(node, pq.Phrase):
            literal = phrase(node.words, node.slop, counted=True)
        else:
            literal = self.leaf(node)
        if literal in (NOTHING, EVERYTHING):
            return None
        self.params.append(literal)
        return f"ts_rank_cd({column}, %s::tsquery, 0)"

    # -- SQL: a page's score, each leaf's frequency computed once ------------------------

    def page_score(self, node: pq.Node) -> tuple[str, str, str]:
        """BM25 of a page (the `words` and `stems` columns) as (score, matched, lateral):
        `lateral` is the select list of a LATERAL subquery `tf` computing each leaf's
        frequency once, which `score` and `matched` (whether the page matches `node`) read.
        Scoring in place (`score`) searched a page's vectors again for every coordination
        bonus; the parameters are the lateral's, in order."""
        self._lateral: list[str] = []
        score, matched = self._page(node, 1.0)
        return score, matched, ", ".join(self._lateral) or "0 AS t0"

    def _column(self, sql: str) -> str:
        name = f"t{len(self._lateral)}"
        self._lateral.append(f"{sql} AS {name}")
        return f"tf.{name}"

    def _page(self, node: pq.Node, boost: float) -> tuple[str, str]:
        if isinstance(node, pq.Not):
            return "0", f"(NOT {self._column(self.match(node.child, 'words'))})"
        if isinstance(node, pq.And | pq.Or):
            weight = boost * node.boost
            parts = [self._page(c, weight) for c in node.children]
            scores = [score for score, _ in parts]
            if isinstance(node, pq.Or) and node.coord:
                bonus = node.coord * weight
                scores += [f"(CASE WHEN {m} THEN {bonus!r} ELSE 0 END)" for _, m in parts]
            joiner = " AND " if isinstance(node, pq.And) else " OR "
            return "(" + " + ".join(scores) + ")", "(" + joiner.join(m for _, m in parts) + ")"
        weight = boost * node.boost * self.leaf_idf(node)
        if isinstance(node, pq.Prefix) and node.text in self.constant:
            found = self._column(f"{self.condition('words', self.leaf(node))}::int")
            return f"({weight!r} * {found})", f"({found} > 0)"
        tf = self._frequency(node, "words")
        if tf is None:
            return "0", "false"
        found = self._column(tf)
        score = f"({weight!r} * pdfindex_bm25(10 * {found}, ({self.norm})::float8))"
        return score, f"({found} > 0)"

    def leaf_idf(self, node: pq.Node) -> float:
        """The idf a leaf's score is weighted by (a phrase: its words' sum)."""
        if isinstance(node, pq.Term | pq.Stem):
            return self.idf(node.text)
        if isinstance(node, pq.Phrase):
            return sum(self.idf(w) for w in node.words)
        if isinstance(node, pq.Prefix):
            return self.prefix_idf(node.text)
        assert isinstance(node, pq.Fuzzy)
        words = self.expand(node.text, node.distance) if node.distance else [node.text]
        return max((self.idf(w) for w in words), default=1.0)


def _flat(node: pq.And | pq.Or) -> list[pq.Node]:
    """The children of a group, those of nested groups of its kind in its place (what
    matches does not depend on boosts)."""
    found: list[pq.Node] = []
    for child in node.children:
        found += _flat(child) if type(child) is type(node) else [child]  # type: ignore[arg-type]
    return found


def _has_stem(node: pq.Node) -> bool:
    if isinstance(node, pq.And | pq.Or):
        return any(_has_stem(c) for c in node.children)
    if isinstance(node, pq.Not):
        return _has_stem(node.child)
    return isinstance(node, pq.Stem)


def _any(columns: dict[str, float]) -> str:
    return "(" + " || ".join(columns) + ")"


def bm25_idf(pages: int, with_word: int) -> float:
    """BM25's idf (Lucene's, always positive)."""
    return math.log(1 + (pages - with_word + 0.5) / (with_word + 0.5))


def stem_literals(stems: dict[str, list[str]]) -> dict[str, str]:
    """Each word's stems (as `to_tsvector('pdfindex_stems', word)` gives them) as the
    tsquery plainto_tsquery would make of the word: its stems ANDed."""
    return {word: _join([lexeme(s) for s in found], "&") for word, found in stems.items()}


def beyond_neighbours(node: pq.Node) -> pq.Node | None:
    """The tree less the phrases its `pairs` condition (Compiler.neighbours) decides
    alone, None when nothing is left: a phrase of two neighbours, one a function word,
    that the whole tree needs (the tree itself, or a child of its top AND). Its pair is
    on a page exactly when the two are side by side there, so no position is read for it
    (`"Note that"` at 48,000 pages: 3,011 pages' positions)."""
    if _decided(node):
        return None
    if not isinstance(node, pq.And):
        return node
    kept = tuple(c for c in node.children if not _decided(c))
    if len(kept) == len(node.children):
        return node
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else pq.And(kept, node.boost)


def narrowed(node: pq.Node) -> bool:
    """Whether every leaf of the tree is a phrase that the `pairs` column narrows: its
    index then finds fewer candidates than that of `words` would (a pair is on a page only
    with both its words)."""
    return all(
        isinstance(leaf, pq.Phrase) and leaf.slop <= 1 and bool(neighbours_of(leaf.words))
        for leaf in pq.leaves(node)
    )


def _decided(node: pq.Node) -> bool:
    return (
        isinstance(node, pq.Phrase)
        and node.slop <= 1
        and len(node.words) == 2
        and len(neighbours_of(node.words)) == 1
    )


def positional(node: pq.Node) -> bool:
    """Whether the tree holds a phrase that needs the words' positions (not one pair)."""
    return any(
        isinstance(leaf, pq.Phrase) and not (leaf.slop <= 1 and is_paired(leaf.words))
        for leaf in pq.leaves(node)
    )
