"""pdfindex query trees compiled to Whoosh queries: the only place that knows Whoosh's
query classes. Fuzzy words are expanded here, once, into the index words they stand
for: Whoosh would otherwise expand them again per segment and per highlight."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from whoosh import matching
from whoosh import query as wq

from pdfindex import query as pq
from pdfindex.engine.whoosh.postings import SetPrefix
from pdfindex.engine.whoosh.schema import STEM_FIELD, stem

# (field, word, distance) -> the index words of `field` within `distance` edits
Expand = Callable[[str, str, int], list[str]]
# (field, prefix) -> the index words of `field` starting with it, and their page counts
PrefixWords = Callable[[str, str], list[tuple[str, int]]]
SCORED_EXPANSIONS = 16  # as the Tantivy engine: a prefix's commonest words scored by BM25


class ScoredPrefix(wq.Or):
    """The words a prefix stands for, scored by BM25: an OR that is never read as a
    question (whose total counts only pages holding its rarer words)."""


def compile_query(
    node: pq.Node,
    fields: list[str],
    expand: Expand,
    scale: float | None = None,
    prefix: type[wq.Prefix] = SetPrefix,
    prefix_words: PrefixWords | None = None,
) -> wq.Query:
    """The Whoosh query for `node` over `fields` (several: a word may match in any); with
    `scale`, each OR gives a coordination bonus to documents matching more of its parts.
    A prefix matches as `prefix`: a constant score per page (SetPrefix), or Whoosh's own
    Prefix (element search, whose short captions it scores as before).

    Normalised as Whoosh's own parser leaves its queries (nested groups of one kind
    flattened, repeated parts merged), then each fuzzy word replaced by the words it
    stands for: the order pdfindex has always used, so scores stay as they were. With
    `prefix_words` (ranking pages), a SetPrefix is scored by BM25 as its words are: all of
    them when few, else it matches as before and its commonest words add their scores."""
    compiled = _compile(node, fields, 1.0, scale, None, prefix)
    if scale:  # the root is a scaled group, as Whoosh's parser made it; ORs merge into it
        compiled = wq.Or([compiled], scale=scale)
    return _expand_fuzzy(compiled.normalize(), expand, prefix_words)


def _compile(
    node: pq.Node,
    fields: list[str],
    boost: float,
    scale: float | None,
    here: float | None,
    prefix: type[wq.Prefix],
) -> wq.Query:
    """`here` is the scale of a multi-field OR made at this place: `scale` inside an OR
    (Whoosh's multi-field parser merged those into its scaled group), none below an AND
    or NOT."""
    if isinstance(node, pq.And):
        return wq.And(
            [_compile(c, fields, boost * node.boost, scale, None, prefix) for c in node.children]
        )
    if isinstance(node, pq.Or):
        children = [
            _compile(c, fields, boost * node.boost, scale, scale, prefix) for c in node.children
        ]
        if node.coord:  # each matching child adds a constant: more of them rank higher
            bonus = node.coord * boost * node.boost
            children += [Bonus(c, bonus) for c in children]
        return wq.Or(children, scale=scale)
    if isinstance(node, pq.Not):
        return wq.Not(_compile(node.child, fields, boost, scale, None, prefix))
    if isinstance(node, pq.Stem):
        if "content" in fields:  # pages have a stemmed field; elements do not
            return wq.Term(STEM_FIELD, stem(node.text), boost=boost * node.boost)
        node = pq.Term(node.text, node.boost)
    leaves = [_leaf(node, field, boost * node.boost, prefix) for field in fields]
    return leaves[0] if len(leaves) == 1 else wq.Or(leaves, scale=here)


class Bonus(wq.WrappingQuery):
    """`boost` for each page its child matches, whatever the child's score: the
    coordination bonus. Whoosh's own ConstantScoreQuery has no `boost`, which its
    normalize reads when it flattens nested groups."""

    def __init__(self, child: wq.Query, boost: float = 1.0) -> None:
        super().__init__(child)
        self.boost = boost

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Bonus) and (self.child, self.boost) == (other.child, other.boost)

    def __hash__(self) -> int:
        return hash((Bonus, self.child, self.boost))

    def _rewrap(self, child: wq.Query) -> Bonus:
        return Bonus(child, self.boost)

    def with_boost(self, boost: float) -> Bonus:
        return Bonus(self.child, boost)

    def matcher(self, searcher: Any, context: Any = None) -> Any:
        found = self.child.matcher(searcher, context)
        if not found.is_active():
            return found
        return BonusMatcher(found, score=self.boost)


class BonusMatcher(matching.ConstantScoreWrapperMatcher):
    """Its child's pages, each scored `score`. No block quality: Whoosh's would skip the
    child's blocks by the child's scores while reading this constant one, and spin."""

    def supports_block_quality(self) -> bool:
        return False


def _leaf(
    node: pq.Term | pq.Fuzzy | pq.Prefix | pq.Phrase,
    field: str,
    boost: float,
    prefix: type[wq.Prefix],
) -> wq.Query:
    if isinstance(node, pq.Term):
        return wq.Term(field, node.text, boost=boost)
    if isinstance(node, pq.Prefix):
        return prefix(field, node.text, boost=boost)
    if isinstance(node, pq.Phrase):
        return wq.Phrase(field, list(node.words), slop=node.slop, boost=boost)
    return wq.FuzzyTerm(field, node.text, boost=boost, maxdist=node.distance, prefixlength=0)


def _expand_fuzzy(
    query: wq.Query, expand: Expand, prefix_words: PrefixWords | None = None
) -> wq.Query:
    if isinstance(query, SetPrefix) and prefix_words is not None:
        words = prefix_words(query.fieldname, query.text)
        commonest = sorted(words, key=lambda pair: -pair[1])[:SCORED_EXPANSIONS]
        scored = ScoredPrefix(
            [wq.Term(query.fieldname, w, boost=query.boost) for w, _ in commonest]
        )
        if not words:
            return wq.Term(query.fieldname, query.text, boost=query.boost)  # matches nothing
        return scored if len(words) <= SCORED_EXPANSIONS else wq.AndMaybe(query, scored)
    if isinstance(query, wq.FuzzyTerm):
        words = expand(query.fieldname, query.text, query.maxdist)
        if not words:
            return wq.Term(query.fieldname, query.text, boost=query.boost)  # matches nothing
        return wq.Or([wq.Term(query.fieldname, w, boost=query.boost) for w in words])
    if query.is_leaf():
        return query
    rebuilt = query.apply(lambda q: _expand_fuzzy(q, expand, prefix_words))
    if isinstance(query, wq.Or):
        rebuilt.scale = query.scale  # apply() forgets it
    return rebuilt
