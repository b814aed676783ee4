"""Questions without scoring every common word, and page counts read from posting
lists: the two halves of a ranked search that cost in proportion to the corpus.

A question (an OR of plain words, and of their stems and coordination bonuses when
pdfindex.search.understand made it) is answered much as Lucene's CommonTermsQuery does:
the pages holding one of its rarer words are ranked by them, and the best `limit` get
what its common words (on more than COMMON_SHARE of the pages) add to their scores, so
each hit carries the score the plain OR gives it. Pages holding common words only come
after them, when the rarer words fill fewer than `limit` places. `total` then counts
the pages holding a rarer word (the OR's true count would need every posting of every
common word decoded, positions included: ~0.25 s at 48,000 pages).
"""

from __future__ import annotations

from typing import Any

from whoosh import query as wq
from whoosh.searching import Results, Searcher

from pdfindex.engine.whoosh.compiler import Bonus, ScoredPrefix
from pdfindex.engine.whoosh.postings import SetPrefix, union_ids
from pdfindex.engine.whoosh.reader import docnums
from pdfindex.engine.whoosh.schema import STEM_FIELD

COMMON_SHARE = 0.05  # a word on more of the pages than this is common in a question


PAGE_FIELDS = ("content", STEM_FIELD)


def terms_of(query: Any, grouped: bool = False) -> list[Any] | None:
    """The page words of a question's part: a word (exact or stemmed), or the coordination
    bonus of a word or a group of them (`grouped`: inside one); None for anything else."""
    if isinstance(query, wq.Term):
        return [query] if query.fieldname in PAGE_FIELDS else None
    if isinstance(query, Bonus) or (grouped and isinstance(query, wq.Or) and not query.scale):
        parts = [terms_of(child, grouped=True) for child in query.children()]
        if not parts or any(part is None for part in parts):
            return None
        return [term for part in parts for term in part or []]
    return None


def split_question(searcher: Searcher, query: wq.Query) -> tuple[list[Any], list[Any]] | None:
    """(rarer parts, common parts) of an OR of page words (exact or stemmed, alone, in
    groups or as coordination bonuses: see `terms_of`) that has common ones; None for
    any other query. With every part common, the rarest one leads."""
    if not isinstance(query, wq.Or) or isinstance(query, ScoredPrefix) or query.scale is not None:
        return None
    words = query.subqueries
    found = [terms_of(w) for w in words]
    if len(words) < 2 or any(terms is None for terms in found):
        return None
    reader = searcher.reader()
    frequency = {
        w: max(reader.doc_frequency(t.fieldname, t.text) for t in terms or [])
        for w, terms in zip(words, found, strict=True)
    }
    cutoff = COMMON_SHARE * searcher.doc_count()
    rare = [w for w in words if frequency[w] <= cutoff]
    if len(rare) == len(words):
        return None
    if not rare:
        rare = [min(words, key=lambda w: frequency[w])]
    return rare, [w for w in words if w not in rare]


def ranked_question(
    searcher: Searcher,
    rare: list[Any],
    common: list[Any],
    filters: list[wq.Query],
    limit: int,
    mask: set[int],
) -> tuple[int, list[tuple[int, float]]]:
    """(total, [(docnum, score)]) of the OR of `rare` and `common`, best first.

    The best `limit` pages by their rarer words get their common words' scores added
    (read for those pages only), and are ordered by the sum, the plain OR's score.
    `total` counts the pages holding a rarer word; when those are fewer than `limit`,
    the best pages holding only common words follow, and `total` is the OR's count."""
    allowed = _allowed(searcher, filters)
    with_rare = _ids(searcher, rare, allowed, mask)
    results = searcher.search(wq.And([_any(rare), *filters]), limit=limit, mask=mask)
    first = {hit.docnum: hit.score for hit in results}
    added = _scores(searcher, common, sorted(first))
    found = sorted(((n, s + added[n]) for n, s in first.items()), key=lambda p: (-p[1], p[0]))
    if len(found) == limit:
        return len(with_rare), found
    rest = searcher.search(
        wq.And([_any(common), *filters]), limit=limit - len(found), mask=mask | with_rare
    )
    found += [(hit.docnum, hit.score) for hit in rest]
    return len(with_rare) + len(rest), found


def _scores(searcher: Searcher, words: list[Any], docnums: list[int]) -> dict[int, float]:
    """The scores `words` add to each of `docnums` (sorted), as an OR of them would: each
    word's posting list is read only in the blocks holding those pages (a block of a
    common word, positions included, costs ~0.2 ms to decode)."""
    added = dict.fromkeys(docnums, 0.0)
    for sub, offset in searcher.leaf_searchers():
        local = [n - offset for n in docnums if offset <= n < offset + sub.doc_count_all()]
        if not local:
            continue
        context = sub.context()
        for word in words:
            matcher = word.matcher(sub, context)
            for n in local:
                if not matcher.is_active():
                    break
                matcher.skip_to(n)
                if matcher.is_active() and matcher.id() == n:
                    added[n + offset] += matcher.score()
    return added


def page_count(
    searcher: Searcher, query: wq.Query, filters: list[wq.Query], mask: set[int], results: Results
) -> int:
    """How many pages match: read from the posting lists for a word, a prefix or an OR of
    them (Whoosh counts by stepping every match again), else as Whoosh counts."""
    leaves = _counted_leaves(query)
    if not all(isinstance(q, wq.Term | SetPrefix) and q.fieldname == "content" for q in leaves):
        return len(results)
    if isinstance(query, wq.Term) and not filters:  # only pages have content words
        return _term_count(searcher, query)
    return len(_ids(searcher, leaves, _allowed(searcher, filters), mask))


def _counted_leaves(query: wq.Query) -> list[wq.Query]:
    """The leaves whose pages, together, are the query's: an OR's parts, nested ORs (a
    prefix's scored words) flattened, and an AND-MAYBE's required part (a prefix that
    matches as a set while its commonest words add their scores)."""
    if isinstance(query, wq.AndMaybe):
        return _counted_leaves(query.a)
    if isinstance(query, wq.Or):
        return [leaf for part in query.subqueries for leaf in _counted_leaves(part)]
    return [query]


def _term_count(searcher: Searcher, word: wq.Term) -> int:
    """Pages holding `word`: its document frequency in each segment, its postings read
    only where a segment has deleted pages."""
    count = 0
    for reader, _offset in searcher.reader().leaf_readers():
        if (word.fieldname, word.text) not in reader:
            continue
        if reader.has_deletions():
            count += len(union_ids(reader, word.fieldname, [_bytes(reader, word)]))
        else:
            count += reader.doc_frequency(word.fieldname, word.text)
    return count


def _bytes(reader: Any, word: wq.Term) -> bytes:
    text: bytes = reader.schema[word.fieldname].to_bytes(word.text)
    return text


def _any(words: list[Any]) -> wq.Query:
    """The OR of `words`, its matcher a tree of unions that skips to the pages asked
    for: on a segment of 5,000 pages or fewer Whoosh would preload and score every
    posting of every word (PreloadedOr), common ones included."""
    if len(words) == 1:
        return words[0]
    any_of = wq.Or(words)
    any_of.matcher_type = wq.Or.DEFAULT_MATCHER
    return any_of


def _allowed(searcher: Searcher, filters: list[wq.Query]) -> set[int] | None:
    """The pages the filters (a document, a page range) let through; None for all."""
    return set(docnums(searcher, wq.And(filters))) if filters else None


def _ids(
    searcher: Searcher, leaves: list[Any], allowed: set[int] | None, mask: set[int]
) -> set[int]:
    """Global document numbers holding any of the words or prefixes `leaves`."""
    found: set[int] = set()
    for reader, offset in searcher.reader().leaf_readers():
        words: dict[str, set[bytes]] = {}
        for leaf in leaves:
            if isinstance(leaf, SetPrefix):
                ids = leaf.ids_in(reader)
                found.update((n + offset for n in ids) if offset else ids)
                continue
            for term in terms_of(leaf) or []:
                if (term.fieldname, term.text) in reader:
                    words.setdefault(term.fieldname, set()).add(_bytes(reader, term))
        for field, texts in words.items():
            ids = union_ids(reader, field, texts)
            found.update((n + offset for n in ids) if offset else ids)
    found -= mask
    return found & allowed if allowed is not None else found
