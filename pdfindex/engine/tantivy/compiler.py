"""pdfindex query trees compiled to Tantivy queries (never Tantivy's own query parser,
which reads `AND NOT` and `prefix*` differently).

Ranking pages, a prefix or a typo is scored by BM25 as the words it stands for are:
Tantivy scores its own prefix (regex) and fuzzy queries as constants, so they only decide
which pages match, and the commonest words a prefix expands to (or the typo's neighbours
that share its first two letters) add their BM25 scores.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

import tantivy
from tantivy import Occur, Query

from pdfindex import query as pq
from pdfindex.engine.tantivy.schema import (
    HEAD,
    HEAD_FIELD,
    PAIRED,
    STEM_FIELD,
    indexed_pair,
    stem,
)
from pdfindex.engine.vocabulary import within

# field -> boost: a word may match in any of these fields (element captions weigh double)
Fields = dict[str, float]
# The index words starting with a prefix and how many pages hold each, commonest first.
# The index words starting with a prefix, at most so many, commonest first: (word, pages)
Expand = Callable[[str, int], list[tuple[str, int]]]
# The index words within some edits of a word, or None where they are not at hand.
Typos = Callable[[str, int], list[str] | None]
SCORED_EXPANSIONS = 16  # of a prefix, the words scored by BM25 (64 cost con* twice 16); all match
EXPANSIONS_READ = 100_000  # the commonest are chosen among at most these (`con`: 1,734)
TYPO_SHARED_START = 2  # a typo's scored neighbours share its first letters
TYPO_NEIGHBOURS = 20_000  # words sharing them read at most (all of them: 2,300 at 48k)


def compile_query(
    node: pq.Node,
    schema: tantivy.Schema,
    fields: Fields,
    stems: bool = False,
    expand: Expand | None = None,
    everything: Query | None = None,
    typos: Typos | None = None,
) -> Query:
    """With `stems` (page ranking), a Stem leaf matches the stemmed field; without (element
    search, which has none), it is the word itself. With `expand` (page ranking, one
    field), prefixes and typos are scored as the words they expand to. `everything` is
    what a NOT on its own keeps the rest of (all documents if None: the page ranking gives
    the pages, so that it needs no filter by kind, which made every query an intersection
    with all pages: `the` took 16 ms at a million pages, 6.9 without). `typos` (with
    `expand`) gives a typo's words, which it then matches as, instead of Tantivy's
    automaton over each segment's words."""
    expand = expand if len(fields) == 1 else None
    return _Compiler(schema, fields, stems, expand, everything, typos).run(node, 1.0)


@dataclass(frozen=True)
class _Compiler:
    schema: tantivy.Schema
    fields: Fields
    stems: bool
    expand: Expand | None
    everything: Query | None = None  # what a NOT on its own excludes from (default: all)
    typos: Typos | None = None

    def all(self) -> Query:
        return self.everything if self.everything is not None else Query.all_query()

    def run(self, node: pq.Node, boost: float) -> Query:
        if isinstance(node, pq.And):
            clauses = []
            for child in node.children:
                if isinstance(child, pq.Not):  # a NOT inside an AND excludes from the others
                    clauses.append((Occur.MustNot, self.run(child.child, boost)))
                else:
                    clauses.append((Occur.Must, self.run(child, boost * node.boost)))
            if all(occur == Occur.MustNot for occur, _ in clauses):
                clauses.append((Occur.Must, self.all()))
            return Query.boolean_query(clauses)
        if isinstance(node, pq.Or):
            children = [self.run(c, boost * node.boost) for c in node.children]
            clauses = [(Occur.Should, child) for child in children]
            if node.coord:  # each matching child adds a constant: more of them rank higher
                bonus = node.coord * boost * node.boost
                clauses += [
                    (Occur.Should, Query.const_score_query(self.matching(child, c), bonus))
                    for child, c in zip(node.children, children, strict=True)
                ]
            return Query.boolean_query(clauses)
        if isinstance(node, pq.Not):  # on its own: everything but it
            inner = self.run(node.child, boost)
            return Query.boolean_query([(Occur.Must, self.all()), (Occur.MustNot, inner)])
        if isinstance(node, pq.Stem):
            if self.stems:
                query = Query.term_query(self.schema, STEM_FIELD, stem(node.text))
                return _boosted(query, boost * node.boost)
            node = pq.Term(node.text, node.boost)
        leaves = [
            _boosted(self.leaf(node, field), boost * node.boost * field_boost)
            for field, field_boost in self.fields.items()
        ]
        if len(leaves) == 1:
            return leaves[0]
        return Query.boolean_query([(Occur.Should, leaf) for leaf in leaves])

    def matching(self, node: pq.Node, compiled: Query) -> Query:
        """What finds the pages `node` matches (`compiled` scores them too), for a
        coordination bonus. A word or its stem (a question's word, as understood) is on
        every page of its stem, the stemmed field being cut from the same text: the stem
        alone reads one list where both read two (a question at a million pages,
        17.9 -> 16.2 ms)."""
        if not (self.stems and isinstance(node, pq.Or)):
            return compiled
        stems = {c.text for c in node.children if isinstance(c, pq.Stem)}
        if not stems or not all(
            isinstance(c, pq.Stem) or (isinstance(c, pq.Term) and c.text in stems)
            for c in node.children
        ):
            return compiled
        terms = [Query.term_query(self.schema, STEM_FIELD, stem(word)) for word in sorted(stems)]
        if len(terms) == 1:
            return terms[0]
        return Query.boolean_query([(Occur.Should, term) for term in terms])

    def leaf(self, node: pq.Term | pq.Fuzzy | pq.Prefix | pq.Phrase, field: str) -> Query:
        schema = self.schema
        if isinstance(node, pq.Term):
            return Query.term_query(schema, field, node.text)
        if isinstance(node, pq.Prefix):
            query = prefix_query(schema, field, node.text)
            if self.expand is None:
                return query
            words = self.expand(node.text, EXPANSIONS_READ)
            if len(words) <= SCORED_EXPANSIONS:  # all of them: the words are the query
                return self.scored(field, [word for word, _ in words])
            commonest = words[:SCORED_EXPANSIONS]
            return self.scored(field, [word for word, _ in commonest], matching=query)
        if isinstance(node, pq.Phrase):
            return self.phrase(node, field)
        if node.distance == 0:
            return Query.term_query(schema, field, node.text)
        start = node.text[:TYPO_SHARED_START]
        words = self.typos(node.text, node.distance) if self.expand and self.typos else None
        if words is not None:  # the pages the automaton finds, from the words it would
            matching = Query.term_set_query(schema, field, words) if words else None
            scored = [word for word in words if word.startswith(start)]
            return self.scored(field, scored, matching=matching or Query.empty_query())
        query = Query.fuzzy_term_query(
            schema, field, node.text, distance=node.distance, transposition_cost_one=True
        )
        if self.expand is None:
            return query
        near = [word for word, _ in self.expand(start, TYPO_NEIGHBOURS)]
        return self.scored(field, within(near, node.text, node.distance), matching=query)

    def phrase(self, node: pq.Phrase, field: str) -> Query:
        """Adjacent words: two as their pair's term, more confirmed by position on the pages
        holding all their indexed pairs (schema.PAIR_FIELD); a Tantivy phrase alone reads
        the positions of its words on every page holding them all."""
        words = list(node.words)
        query = Query.phrase_query(self.schema, field, words, slop=node.slop - 1)
        if node.slop > 1 or field not in PAIRED:
            return query
        pairs = [pair for a, b in pairwise(words) if (pair := indexed_pair(a, b))]
        terms = [Query.term_query(self.schema, PAIRED[field], pair) for pair in pairs]
        if len(words) == 2 and terms:
            return terms[0]
        if not terms:
            return query
        holding = [(Occur.Must, Query.const_score_query(term, 0.0)) for term in terms]
        return Query.boolean_query([*holding, (Occur.Must, query)])

    def scored(self, field: str, words: list[str], matching: Query | None = None) -> Query:
        """Pages holding any of `words`, or those `matching` if given, ranked by the BM25
        scores of the words they hold."""
        clauses = [(Occur.Should, Query.term_query(self.schema, field, w)) for w in words]
        if matching is not None:
            clauses.append((Occur.Must, Query.const_score_query(matching, 0.0)))
        if not clauses:
            return Query.empty_query()
        return Query.boolean_query(clauses)


def broad_prefix(
    node: pq.Node, schema: tantivy.Schema, expand: Expand
) -> tuple[Query, Query] | None:
    """A query that is one prefix of more words than are scored, as two: its commonest
    words, which rank its pages (each of them starts with the prefix, so every page they
    score matches it), and the prefix itself, which counts them. Together (`leaf`) a
    must-match prefix made Tantivy score every page it matches: `con*` at a million
    pages, 19 ms; apart, 3 ms for the top pages and 11 for the count. None for any other
    query."""
    if not isinstance(node, pq.Prefix):
        return None
    words = expand(node.text, EXPANSIONS_READ)
    if len(words) <= SCORED_EXPANSIONS:
        return None
    commonest = words[:SCORED_EXPANSIONS]
    compiler = _Compiler(schema, {"content": 1.0}, True, expand)
    scored = compiler.scored("content", [word for word, _ in commonest])
    matching = prefix_query(schema, "content", node.text)
    return _boosted(scored, node.boost), matching


def prefix_query(schema: tantivy.Schema, field: str, prefix: str) -> Query:
    """The pages whose `field` holds a word starting with `prefix` (\\w+ only, so no regex
    syntax). A prefix of the content field of HEAD characters or fewer is one term of the
    head field; a longer one a regex query, kept for the next query (a query holds no
    index state): compiling `con.*` took 0.3-0.5 ms of `con*`'s 3.5 at 48,000 pages."""
    if field == "content" and 0 < len(prefix) <= HEAD:
        return Query.term_query(schema, HEAD_FIELD, prefix)
    key = (field, prefix)
    with _PREFIX_LOCK:  # searches of several threads
        kept = _PREFIX_QUERIES.get(key)
        if kept is not None and kept[0] is schema:
            _PREFIX_QUERIES.move_to_end(key)
            return kept[1]
    query = Query.regex_query(schema, field, f"{prefix}.*")
    with _PREFIX_LOCK:
        _PREFIX_QUERIES[key] = (schema, query)
        if len(_PREFIX_QUERIES) > PREFIX_QUERIES_KEPT:
            _PREFIX_QUERIES.popitem(last=False)
    return query


PREFIX_QUERIES_KEPT = 256
_PREFIX_QUERIES: OrderedDict[tuple[str, str], tuple[tantivy.Schema, Query]] = OrderedDict()
_PREFIX_LOCK = threading.Lock()


def _boosted(query: Query, boost: float) -> Query:
    return query if boost == 1.0 else Query.boost_query(query, boost)
