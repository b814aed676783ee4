"""Candidate pages for exact and regex search: narrowed by the query's pieces
(pdfindex.text.substrings) and read in (path, page) order a batch at a time, so a search
that stops after `limit` matches never lists the thousands of pages a common string is on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import tantivy
from tantivy import Occur, Order, Query

from pdfindex.engine.tantivy.places import page_of
from pdfindex.engine.tantivy.schema import CHUNK_FIELD, GRAM_FIELD, ORDER_FIELD, chunk_term, path_id
from pdfindex.models import PageRef
from pdfindex.text.substrings import GRAM, grams

# Pages fetched at first; each later batch is three times all before it (a batch re-runs
# the query, so growing ones keep the number of runs a logarithm of the pages read).
FIRST_BATCH = 32
LARGEST_BATCH = 8192
# In one file, ordered by page number, a batch costs little more for its size: a regex in
# the 1,321-page pgfmanual read its 34 candidate pages in two searches, now in one.
FIRST_ONE_FILE = 128


# Over this many pages hold every n-gram of the pieces, the first batch is read as it comes
# (most of them hold the pieces themselves: `Note that`), and the phrases of chunks, whose
# positions cost about 2 µs a page, rule out the rest only after it: each batch ordered
# by path costs in proportion to its size (a million pages: 13 ms for 32, 64 ms for 384),
# and `page margins` read 464 pages holding its trigrams apart in three batches (107 ms;
# now 47 ms). At 47,970 pages neither way is faster.
PHRASES_UP_TO = 2000
# Pages holding a string's rarest n-gram past which the pages holding them all are taken
# as many, not counted: 4 times PHRASES_UP_TO. At 47,970 pages the count cost common
# strings 1.1-1.5 ms (`Note that`: 5.3 -> 4.0 ms; `of the`, `for example`, `in this
# section` alike); the rarer ones, `page margins` and `bounding box`, are still counted.
COUNTED_UP_TO = 4 * PHRASES_UP_TO
SWITCH_AFTER = FIRST_BATCH
# Up to this many pages, a reader of every page a query matches (a regex over a folder,
# fuzzy_search over the library) gets them listed at once; past it, a group of files at a
# time (GroupedRefs): a million pages listed took 370 MB of the serving process before
# one was read, and batches ordered by the text field 0.9 s each. At 47,970 pages the
# groups read them all about as fast (fuzzy_search 3.1-3.6 s of CPU, listed 3.0-4.4, on a
# busy machine), and let go of the stored texts they mapped (serve after one call of each
# tool: 185 -> 131 MB).
LISTED_UP_TO = 20_000
FILES_PER_GROUP = 64
KEPT_REFS = 20_000  # page references an iteration keeps before letting the read ones go
KEPT_TEXTS = 64  # page texts kept per search, for the context of a match on its neighbours


def few_pages(searcher: tantivy.Searcher, query: Query, pieces: list[str], whole: bool) -> bool:
    """Whether at most PHRASES_UP_TO pages match `query`. Over the `whole` library, when
    even the n-gram held by the fewest pages is on more than COUNTED_UP_TO, not counted
    but taken as many (counting the pages holding them all cost a million pages 25 ms, as
    much as reading the first of them); below it a count costs little, and says that
    `page margins`' 400 are few."""
    if whole:
        every_gram = {gram for piece in pieces for gram in grams(piece)}
        fewest = min((searcher.doc_freq(GRAM_FIELD, gram) for gram in every_gram), default=0)
        if fewest > COUNTED_UP_TO:
            return False
    return bool(searcher.search(query, limit=1, count=True).count <= PHRASES_UP_TO)


def gram_clauses(schema: tantivy.Schema, pieces: list[str]) -> list[tuple[Occur, Query]]:
    """Every n-gram of every piece: a page without one of them cannot match."""
    every_gram = sorted({gram for piece in pieces for gram in grams(piece)})
    return [(Occur.Must, Query.term_query(schema, GRAM_FIELD, gram)) for gram in every_gram]


def phrase_clauses(schema: tantivy.Schema, pieces: list[str]) -> list[tuple[Occur, Query]]:
    """Each piece of 5 characters or more as the phrase of its chunks at each of the GRAM
    ways it can lie on a page's chunk grid: rules out pages that hold the n-grams apart."""
    clauses = []
    for piece in pieces:
        phases = [_chunks(piece, start) for start in range(GRAM)]
        if all(phases):  # an occurrence at any offset covers whole chunks of the page's grid
            either = [(Occur.Should, _phrase(schema, chunks)) for chunks in phases]
            clauses.append((Occur.Must, Query.boolean_query(either)))
    return clauses


def _chunks(piece: str, start: int) -> list[str]:
    return [chunk_term(piece[i : i + GRAM]) for i in range(start, len(piece) - GRAM + 1, GRAM)]


def _phrase(schema: tantivy.Schema, chunks: list[str]) -> Query:
    if len(chunks) == 1:
        return Query.term_query(schema, CHUNK_FIELD, chunks[0])
    return Query.phrase_query(schema, CHUNK_FIELD, chunks)


class ListedRefs(list[PageRef]):
    """Every page a query matches, sorted: for readers of all of them (a regex over one
    document, page texts), for whom one search and two fast-field reads beat batches
    ordered by a text field (1,321 pages: 9 against 14+ ms)."""

    def __init__(self, found: list[tuple[PageRef, Any]]) -> None:
        found.sort(key=lambda pair: (pair[0].path, pair[0].page))
        super().__init__(ref for ref, _ in found)
        self.addresses = {(ref.slug, ref.page): address for ref, address in found}


class OrderedRefs:
    """The pages a query matches, in (path, page) order, fetched in growing batches as they
    are iterated; len() or indexing reads them all. Past KEPT_REFS pages, an iteration
    keeps only the batch it is in (a scan of a million pages must not keep every one)."""

    def __init__(
        self,
        searcher: tantivy.Searcher,
        query: Query,
        files: Mapping[int, tuple[str, str]],
        keep: Callable[[str], bool],
        by: str = ORDER_FIELD,
        stricter: Query | None = None,
    ) -> None:
        """`files`: file id -> (path, slug); `keep`: whether a page's path is wanted. `by`:
        the fast field giving the order: ORDER_FIELD (text), PLACE_FIELD, or "page" when
        every page is of one file. `stricter`, if given, replaces `query` after
        SWITCH_AFTER pages."""
        self._searcher = searcher
        self._query = query
        self._stricter = stricter
        self._files = files
        self._keep = keep
        self._by = by
        self._last_key: Any = None
        self._refs: list[PageRef] = []
        self.addresses: dict[tuple[str, int], Any] = {}
        self._offset = 0
        self._done = False
        self._dropped = 0  # refs an iteration has let go of

    def __iter__(self) -> Iterator[PageRef]:
        index = 0
        while True:
            while index < len(self._refs):
                yield self._refs[index]
                index += 1
            if self._done:
                return
            if len(self._refs) > KEPT_REFS:  # all read: only the next batch is kept
                self._dropped += len(self._refs)
                self._refs, self.addresses, index = [], {}, 0
            self._fetch()

    def __len__(self) -> int:
        if self._dropped:
            raise RuntimeError("the pages were read as they came: they cannot be counted")
        while not self._done:
            self._fetch()
        return len(self._refs)

    def __getitem__(self, index: Any) -> Any:
        len(self)
        return self._refs[index]

    def _fetch(self) -> None:
        if self._stricter is not None and self._offset >= SWITCH_AFTER:
            self._query, self._stricter, self._offset = self._stricter, None, 0
        first = FIRST_ONE_FILE if self._by == "page" else FIRST_BATCH
        size = min(LARGEST_BATCH, max(first, 3 * self._offset))
        hits = self._searcher.search(
            self._query,
            limit=size,
            offset=self._offset,
            count=False,
            order_by_field=self._by,
            order=Order.Asc,
        ).hits
        self._offset += len(hits)
        self._done = len(hits) < size
        hits = [(key, address) for key, address in hits if self._after(key)]
        for ref, address in zip(self._pages(hits), (address for _, address in hits), strict=True):
            if self._keep(ref.path):
                self._refs.append(ref)
                self.addresses[(ref.slug, ref.page)] = address

    def _after(self, key: Any) -> bool:
        """Whether `key` is past the last one read (those read before the switch repeat)."""
        if self._last_key is not None and key <= self._last_key:
            return False
        self._last_key = key
        return True

    def _pages(self, hits: list[tuple[Any, Any]]) -> list[PageRef]:
        if self._by == ORDER_FIELD:
            split = (key.rsplit("\0", 1) for key, _ in hits)
            return [PageRef(path, self._files[path_id(path)][1], int(n)) for path, n in split]
        ids = self._searcher.fast_field_values("file", [a for _, a in hits]) if hits else []
        pages = (key if self._by == "page" else page_of(key) for key, _ in hits)
        return [PageRef(*self._files[i], page) for i, page in zip(ids, pages, strict=True)]


class GroupedRefs:
    """The pages a query matches, FILES_PER_GROUP files at a time in path order (the
    files' keys come sorted from the term dictionary), each group one search: a reader of
    a whole large library holds one group's pages, and reads the first of them at once."""

    def __init__(
        self,
        searcher: tantivy.Searcher,
        schema: tantivy.Schema,
        query: Query,
        paths: list[str],
        files: dict[int, tuple[str, str]],
    ) -> None:
        self._searcher = searcher
        self._schema = schema
        self._query = query
        self._paths = paths
        self._files = files
        self.addresses: dict[tuple[str, int], Any] = {}  # the group being read

    def __iter__(self) -> Iterator[PageRef]:
        for start in range(0, len(self._paths), FILES_PER_GROUP):
            group = self._paths[start : start + FILES_PER_GROUP]
            query = Query.boolean_query(
                [
                    (Occur.Must, self._query),
                    (Occur.Must, Query.term_set_query(self._schema, "path", group)),
                ]
            )
            size = self._searcher.search(query, limit=1, count=True).count
            if not size:
                continue
            hits = self._searcher.search(query, limit=size, count=False).hits
            addresses = [address for _score, address in hits]
            ids = self._searcher.fast_field_values("file", addresses)
            numbers = self._searcher.fast_field_values("page", addresses)
            found = sorted(
                (self._files[i][0], number, address)
                for i, number, address in zip(ids, numbers, addresses, strict=True)
            )
            self.addresses = {(self._files[path_id(p)][1], n): a for p, n, a in found}
            for path, number, _address in found:
                yield PageRef(path, self._files[path_id(path)][1], number)
