"""pdfindex query trees compiled to Tantivy queries (never Tantivy's own query parser,
which reads `AND NOT` and `prefix*` differently)."""

from __future__ import annotations

import tantivy
from tantivy import Occur, Query

from pdfindex import query as pq

# field -> boost: a word may match in any of these fields (element captions weigh double)
Fields = dict[str, float]


def compile_query(node: pq.Node, schema: tantivy.Schema, fields: Fields) -> Query:
    return _compile(node, schema, fields, 1.0)


def _compile(node: pq.Node, schema: tantivy.Schema, fields: Fields, boost: float) -> Query:
    if isinstance(node, pq.And):
        clauses = []
        for child in node.children:
            if isinstance(child, pq.Not):  # a NOT inside an AND excludes from the others
                clauses.append((Occur.MustNot, _compile(child.child, schema, fields, boost)))
            else:
                clauses.append((Occur.Must, _compile(child, schema, fields, boost * node.boost)))
        if all(occur == Occur.MustNot for occur, _ in clauses):
            clauses.append((Occur.Must, Query.all_query()))
        return Query.boolean_query(clauses)
    if isinstance(node, pq.Or):
        children = [_compile(c, schema, fields, boost * node.boost) for c in node.children]
        return Query.boolean_query([(Occur.Should, child) for child in children])
    if isinstance(node, pq.Not):  # on its own: everything but it
        inner = _compile(node.child, schema, fields, boost)
        return Query.boolean_query([(Occur.Must, Query.all_query()), (Occur.MustNot, inner)])
    leaves = [
        _boosted(_leaf(node, schema, field), boost * node.boost * field_boost)
        for field, field_boost in fields.items()
    ]
    if len(leaves) == 1:
        return leaves[0]
    return Query.boolean_query([(Occur.Should, leaf) for leaf in leaves])


def _leaf(
    node: pq.Term | pq.Fuzzy | pq.Prefix | pq.Phrase, schema: tantivy.Schema, field: str
) -> Query:
    if isinstance(node, pq.Term):
        return Query.term_query(schema, field, node.text)
    if isinstance(node, pq.Prefix):
        return Query.regex_query(schema, field, f"{node.text}.*")  # the prefix is \w+ only
    if isinstance(node, pq.Phrase):
        return Query.phrase_query(schema, field, list(node.words), slop=node.slop - 1)
    if node.distance == 0:
        return Query.term_query(schema, field, node.text)
    return Query.fuzzy_term_query(
        schema, field, node.text, distance=node.distance, transposition_cost_one=True
    )


def _boosted(query: Query, boost: float) -> Query:
    return query if boost == 1.0 else Query.boost_query(query, boost)
