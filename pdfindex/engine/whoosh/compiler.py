"""pdfindex query trees compiled to Whoosh queries: the only place that knows Whoosh's
query classes. Fuzzy words are expanded here, once, into the index words they stand
for: Whoosh would otherwise expand them again per segment and per highlight."""

from __future__ import annotations

from collections.abc import Callable

from whoosh import query as wq

from pdfindex import query as pq

# (field, word, distance) -> the index words of `field` within `distance` edits
Expand = Callable[[str, str, int], list[str]]


def compile_query(node: pq.Node, fields: list[str], expand: Expand) -> wq.Query:
    """The Whoosh query for `node` over `fields` (several: a word may match in any)."""
    return _compile(node, fields, expand, 1.0)


def _compile(node: pq.Node, fields: list[str], expand: Expand, boost: float) -> wq.Query:
    if isinstance(node, pq.And):
        return wq.And([_compile(c, fields, expand, boost * node.boost) for c in node.children])
    if isinstance(node, pq.Or):
        children = [_compile(c, fields, expand, boost * node.boost) for c in node.children]
        return wq.Or(children, scale=node.scale) if node.scale else wq.Or(children)
    if isinstance(node, pq.Not):
        return wq.Not(_compile(node.child, fields, expand, boost))
    leaves = [_leaf(node, field, expand, boost * node.boost) for field in fields]
    return leaves[0] if len(leaves) == 1 else wq.Or(leaves)


def _leaf(
    node: pq.Term | pq.Fuzzy | pq.Prefix | pq.Phrase, field: str, expand: Expand, boost: float
) -> wq.Query:
    if isinstance(node, pq.Term):
        return wq.Term(field, node.text, boost=boost)
    if isinstance(node, pq.Prefix):
        return wq.Prefix(field, node.text, boost=boost)
    if isinstance(node, pq.Phrase):
        return wq.Phrase(field, list(node.words), slop=node.slop, boost=boost)
    words = expand(field, node.text, node.distance)
    if not words:
        return wq.Term(field, node.text, boost=boost)  # matches nothing, says so plainly
    return wq.Or([wq.Term(field, w, boost=boost) for w in words])
