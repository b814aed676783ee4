"""Reading one searcher's documents: matching document numbers cheaply, and candidate
pages whose texts load lazily from the same searcher."""

from __future__ import annotations

from collections.abc import Iterator

from whoosh.query import And, Query, Term
from whoosh.searching import Searcher

from pdfindex.models import PageRef


def docnums(searcher: Searcher, query: Query) -> Iterator[int]:
    """Document numbers matching `query`, unscored, in index order.

    Not Searcher.docs_for_query: its intersection turns both sides into sets, so a rare
    term ANDed with a common one costs as much as the common one. Stepping the matcher
    leapfrogs with skip_to and costs about as much as the rarest side.
    """
    for subsearcher, offset in searcher.leaf_searchers():
        matcher = query.matcher(subsearcher, subsearcher.boolean_context())
        while matcher.is_active():
            yield matcher.id() + offset
            matcher.next()


class WhooshCandidates:
    """Candidate pages bound to the searcher that found them (document numbers are only
    valid for that searcher), so texts load lazily and consistently."""

    def __init__(self, searcher: Searcher, found: list[tuple[PageRef, int]]) -> None:
        self._searcher = searcher
        self.refs = [ref for ref, _ in found]
        self._by_page = {(ref.slug, ref.page): docnum for ref, docnum in found}
        self._texts: dict[int, str] = {}

    def text(self, ref: PageRef) -> str:
        text = self.page_text(ref.slug, ref.page)
        assert text is not None  # every ref came from this searcher
        return text

    def page_text(self, slug: str, page: int) -> str | None:
        docnum = self._by_page.get((slug, page))
        if docnum is None:
            # slug and page alone: intersecting the short posting lists is cheap.
            docnum = next(
                docnums(self._searcher, And([Term("slug", slug), Term("page", page)])), None
            )
            if docnum is None:
                return None
            self._by_page[(slug, page)] = docnum
        if docnum not in self._texts:
            self._texts[docnum] = self._searcher.stored_fields(docnum)["text"]
        return self._texts[docnum]

    def finished(self) -> None:
        self._texts.clear()
