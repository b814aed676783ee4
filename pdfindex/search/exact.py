"""Exact search (seed 000), the same behind every front.

Exact: the index narrows the candidate pages by whole words of the query; the stored
text confirms each match (textmatch rules) and gives its offsets. A match lies within
one page; its context may reach into the neighbouring pages.
"""

from __future__ import annotations

from pdfindex import deadline
from pdfindex.engine import Engine, PageCandidates
from pdfindex.models import ExactMatch, PageRef
from pdfindex.search.limits import MAX_LIMIT, check_range
from pdfindex.search.textmatch import (
    compile_query,
    find_spans,
    fold,
    required_cjk_words,
    required_phrases,
    required_prefixes,
    required_terms,
    to_original,
)
from pdfindex.text.substrings import query_pieces

# Words of a phrase the index checks (a longer phrase's first words keep every page it can
# be on): a 999-word query made Whoosh walk positions for minutes.
MAX_PHRASE_WORDS = 4
MAX_CONTEXT = 20_000


def exact_search(
    engine: Engine,
    query: str,
    slug: str | None = None,
    limit: int = 10,
    context_length: int = 2000,
) -> tuple[list[ExactMatch], bool]:
    """Occurrences in document order (path, page, offset), at most `limit`, and whether
    more exist."""
    check_range("limit", limit, 1, MAX_LIMIT)
    check_range("context_length", context_length, 0, MAX_CONTEXT)
    pattern = compile_query(query)
    # The n-grams of the query's pieces narrow as any prefix would. Without them, in one
    # document the slug alone leaves few pages; across documents a prefix helps only when
    # few words start with it (a prefix like "the" stands for hundreds).
    pieces = query_pieces(query)
    prefixes = (
        []
        if slug or pieces
        else [p for p in required_prefixes(query) if engine.prefix_is_narrow(p)]
    )
    terms = required_terms(query) + (required_cjk_words(query) if engine.splits_cjk else [])
    found = engine.candidates(
        slug=slug,
        terms=terms,
        prefixes=prefixes,
        phrases=[phrase[:MAX_PHRASE_WORDS] for phrase in required_phrases(query)],
        pieces=pieces,
    )
    matches: list[ExactMatch] = []
    for ref in found.refs:
        deadline.check()  # a page at a time: a request past its limit stops here
        text = found.text(ref)
        folded, offsets = fold(text)
        for span in find_spans(pattern, folded):
            if len(matches) == limit:
                return matches, True
            start, end = to_original(offsets, *span)
            context = _context(found, ref, text, start, end, context_length)
            matches.append(ExactMatch(ref.path, ref.slug, ref.page, start, end, context))
    return matches, False


def _context(
    found: PageCandidates, ref: PageRef, text: str, start: int, end: int, length: int
) -> str:
    """About length/2 characters each side of the match, marked **like this**."""
    want_before = length // 2
    want_after = length - want_before
    before = text[max(0, start - want_before) : start]
    after = text[end : end + want_after]
    if len(before) < want_before and ref.page > 1:
        previous = found.page_text(ref.slug, ref.page - 1)
        if previous is not None:
            before = (previous + "\n" + before)[-want_before:]
    if len(after) < want_after:
        following = found.page_text(ref.slug, ref.page + 1)
        if following is not None:
            after = (after + "\n" + following)[:want_after]
    return f"{before}**{text[start:end]}**{after}"
