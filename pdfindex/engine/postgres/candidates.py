"""Exact search's candidate pages on the postgres engine (pdfindex.engine.PageCandidates):
their texts read in growing batches, and the candidates found by trigrams read as far
as exact search gets."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from pdfindex.models import PageRef

TEXT_BATCH = 64  # candidate pages whose texts are read in one query, at first
MAX_TEXT_BATCH = 512  # and at most
FIRST_CANDIDATES = 256  # candidates found by trigrams read first (PostgresEngine.candidates)
# and then at most this many at a time: a loop over every page of a million (fuzzy_search)
# read all their names in one query, 26-33 s past its time limit, before one text
MORE_CANDIDATES = 8192
KEPT_TEXTS = 2 * MAX_TEXT_BATCH  # texts kept: what a reader of every page has read lately
Texts = Callable[[list[tuple[str, int]]], dict[tuple[str, int], str]]  # by (slug, page)


class PostgresCandidates:
    """Candidate pages, their texts read on demand a batch at a time, each batch twice
    the last up to MAX_TEXT_BATCH (`page margins`: 400 candidates read in 3 round trips,
    not 7). Found by trigrams (exact search) or over a whole library, `refs` holds the
    first FIRST_CANDIDATES and grows, in order, MORE_CANDIDATES at a time when the texts
    read reach its end (`more`): a loop over it sees every candidate, `len` only those
    read so far. Texts are read after the query
    that found the pages: a page removed by a commit in between reads as empty text."""

    def __init__(
        self,
        texts: Texts,
        refs: list[PageRef],
        more: Callable[[PageRef], list[PageRef]] | None = None,
    ) -> None:
        self._read = texts
        self.refs = GrowingRefs(refs, more)
        self._position: dict[tuple[str, int], int] | None = None  # made when needed
        self._next = 0  # where the last batch ended: readers go in order
        self._batch = TEXT_BATCH
        self._texts: dict[tuple[str, int], str | None] = {}

    def _start(self, ref: PageRef) -> int:
        """Where `ref` is in refs (0 when it is not)."""
        if self._next < len(self.refs) and self.refs[self._next] == ref:
            return self._next
        if self._position is None:
            self._position = {(r.slug, r.page): n for n, r in enumerate(self.refs)}
        return self._position.get((ref.slug, ref.page), 0)

    def text(self, ref: PageRef) -> str:
        key = (ref.slug, ref.page)
        if key not in self._texts:
            start = self._start(ref)
            if start + self._batch >= len(self.refs) and self.refs.grow():
                self._position = None  # a loop over refs goes on
            batch = [(r.slug, r.page) for r in self.refs[start : start + self._batch]]
            batch = [k for k in batch if k not in self._texts] or [key]
            self._next = start + self._batch
            self._batch = min(2 * self._batch, MAX_TEXT_BATCH)
            found = self._read(batch)
            if len(self._texts) > KEPT_TEXTS:  # a reader of the whole library keeps a batch
                self._texts.clear()
            for k in batch:
                self._texts[k] = found.get(k)
        return self._texts.get(key) or ""

    def page_text(self, slug: str, page: int) -> str | None:
        key = (slug, page)
        if key not in self._texts:
            self._texts[key] = self._read([key]).get(key)
        return self._texts[key]

    def finished(self) -> None:
        self._texts.clear()


class GrowingRefs(list[PageRef]):
    """Candidates in order, the first of them listed: a loop over them reads the next
    MORE_CANDIDATES (`more`, after the last listed) when it gets to the end."""

    def __init__(
        self, refs: list[PageRef], more: Callable[[PageRef], list[PageRef]] | None
    ) -> None:
        super().__init__(refs)
        self._more = more if refs else None

    def grow(self) -> bool:
        """Read the next candidates; False when there are none."""
        if self._more is None:
            return False
        found = self._more(self[-1])
        self.extend(found)
        if len(found) < MORE_CANDIDATES:
            self._more = None
        return bool(found)

    def __iter__(self) -> Iterator[PageRef]:
        at = 0
        while True:
            while at < len(self):
                yield self[at]
                at += 1
            if not self.grow():
                return
