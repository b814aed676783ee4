"""pdfindex query trees compiled to Tantivy queries (never Tantivy's own query parser,
which reads `AND NOT` and `prefix*` differently)."""

from __future__ import annotations

import tantivy
from tantivy import Occur, Query

from pdfindex import query as pq
from pdfindex.engine.tantivy.schema import STEM_FIELD, stem

# field -> boost: a word may match in any of these fields (element captions weigh double)
Fields = dict[str, float]


def compile_query(
    node: pq.Node, schema: tantivy.Schema, fields: Fields, stems: bool = False
) -> Query:
    """With `stems` (page ranking), a Stem leaf matches the stemmed field; without (element
    search, which has none), it is the word itself."""
    return _compile(node, schema, fields, 1.0, stems)


def _compile(
    node: pq.Node, schema: tantivy.Schema, fields: Fields, boost: float, stems: bool = False
) -> Query:
    if isinstance(node, pq.And):
        clauses = []
        for child in node.children:
            if isinstance(child, pq.Not):  # a NOT inside an AND excludes from the others
                clauses.append((Occur.MustNot, _compile(child.child, schema, fields, boost, stems)))
            else:
                clauses.append(
                    (Occur.Must, _compile(child, schema, fields, boost * node.boost, stems))
                )
        if all(occur == Occur.MustNot for occur, _ in clauses):
            clauses.append((Occur.Must, Query.all_query()))
        return Query.boolean_query(clauses)
    if isinstance(node, pq.Or):
        children = [_compile(c, schema, fields, boost * node.boost, stems) for c in node.children]
        clauses = [(Occur.Should, child) for child in children]
        if node.coord:  # each matching child adds a constant: more of them rank higher
            bonus = node.coord * boost * node.boost
            clauses += [(Occur.Should, Query.const_score_query(c, bonus)) for c in children]
        return Query.boolean_query(clauses)
    if isinstance(node, pq.Not):  # on its own: everything but it
        inner = _compile(node.child, schema, fields, boost, stems)
        return Query.boolean_query([(Occur.Must, Query.all_query()), (Occur.MustNot, inner)])
    if isinstance(node, pq.Stem):
        if stems:
            query = Query.term_query(schema, STEM_FIELD, stem(node.text))
            return _boosted(query, boost * node.boost)
        node = pq.Term(node.text, node.boost)
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
