"""The Tantivy engine: compiled (Rust), embedded; one writer and many reader processes,
atomic commits (pdfindex.engine.Engine)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import tantivy
from tantivy import FieldType, Occur, Query

from pdfindex import query as pq
from pdfindex.engine import OneFolder, OneFolderWriter, RankedPages, candidate_nodes
from pdfindex.engine.tantivy.candidates import (
    KEPT_TEXTS,
    LISTED_UP_TO,
    GroupedRefs,
    ListedRefs,
    OrderedRefs,
    few_pages,
    gram_clauses,
    phrase_clauses,
)
from pdfindex.engine.tantivy.compiler import Expand, Typos, broad_prefix, compile_query
from pdfindex.engine.tantivy.places import UNPLACED, PlaceSession, place, rank_of
from pdfindex.engine.tantivy.schema import (
    CHUNK_FIELD,
    ELEMENT,
    FILE,
    GRAM_FIELD,
    HEAD_FIELD,
    ORDER_FIELD,
    PAGE,
    PAIR_FIELD,
    PLACE_FIELD,
    STEM_FIELD,
    STEMMER,
    chunked,
    open_or_create,
    order_key,
    path_id,
    stem,
    word_fields,
)
from pdfindex.engine.vocabulary import CatalogCache, GenerationCache, Vocabulary, within
from pdfindex.errors import IndexLocked, IndexWriteError
from pdfindex.memory import release_mapped
from pdfindex.models import ElementRecord, FileRecord, PageHit, PageRef
from pdfindex.text.substrings import plain_form
from pdfindex.text.words import stem_candidates, word_set

# What the writer buffers before it writes a segment: the most of the builder's memory that
# grows with what is indexed. At 48k pages, 20/50/100 MB gave a peak of 172/176/221 MB and
# 32 MB costs no build speed; Tantivy refuses less than 15 MB per indexing thread.
DEFAULT_WRITER_MB = 32
FULL_DISK_BYTES = 1 << 20  # free space below which a failed segment write means a full disk
PREFIX_TERMS_MARKED = 200  # expansions of a prefix that snippets mark
TYPO_WORDS_MARKED = 200  # a typo's vocabulary words marked as they are, if no more
EXPANSIONS_KEPT = 512  # prefixes whose expansions a process keeps for its current generation


class TantivyEngine(OneFolder):
    """Opens (or creates) the index in `folder`/tantivy; every read sees the last commit."""

    name = "tantivy"
    splits_cjk = True

    def __init__(self, folder: Path, writer_memory_mb: int = 0) -> None:
        self.folder = folder
        self.directory = folder / "tantivy"
        self._meta = str(self.directory / "meta.json")  # read for the generation
        self.writer_heap = (writer_memory_mb or DEFAULT_WRITER_MB) * 1_000_000
        # Why a damaged index was started empty (None: it was not); PdfIndex rebuilds it.
        self._index, self._schema, self.recovered = open_or_create(folder)
        self._commits = 0  # by this process: tells its own commits apart within a tick
        self._reloaded_at = -1  # the generation the reader last reloaded at
        self._files = GenerationCache(self._read_files)
        # Whether every file has a place (pdfindex.engine.tantivy.places), per generation
        self._placed = GenerationCache(self._read_placed)
        self._planned: dict[str, int] = {}  # ranks a build planned, for its later commits
        # (generation, the ranks) as this process's last commit left them
        self._kept_places: tuple[int, tuple[list[str], list[int]]] | None = None
        self._catalog = CatalogCache(self._read_catalog)
        # (generation, prefix, most) -> the words a prefix expands to, for ranking
        self._expansions: dict[tuple[int, str, int], list[tuple[str, int]]] = {}
        self._vocabulary = GenerationCache(
            lambda searcher: Vocabulary(
                word for word, _count in searcher.terms_with_prefix("content", "", limit=None)
            )
        )

    # -- reading ---------------------------------------------------------------------

    def _searcher(self) -> tantivy.Searcher:
        """A searcher of the last commit: the reader reloads only when the generation
        moved (a reload that finds nothing new cost every search 0.17 ms at 47,970 pages)."""
        generation = self._generation()
        if generation < 0 or generation != self._reloaded_at:
            self._index.reload()
            self._reloaded_at = generation
        return self._index.searcher()

    def _generation(self) -> int:
        """Changes with every commit: Tantivy rewrites meta.json atomically (a new file,
        so a new inode; its mtime alone can repeat, the clock advancing by ticks of a
        few milliseconds), and this process counts its own commits."""
        try:
            meta = os.stat(self._meta)  # a str: pathlib's join and stat took 3 times as long
        except OSError:
            return -1
        stamp = (meta.st_ino, meta.st_mtime_ns, meta.st_size, self._commits)
        return hash(stamp) & sys.maxsize  # not negative: negative means "do not cache"

    def generation(self) -> int:
        return self._generation()

    def _term(self, field: str, value: str | int) -> Query:
        return Query.term_query(self._schema, field, value)

    def _all(self, searcher: tantivy.Searcher, query: Query) -> list[Any]:
        """Addresses of every document matching `query`."""
        if searcher.num_docs == 0:
            return []
        result = searcher.search(query, limit=searcher.num_docs, count=False)
        return [address for _score, address in result.hits]

    def _record_docs(self, searcher: tantivy.Searcher, query: Query) -> list[dict[str, Any]]:
        return [json.loads(searcher.doc(a).get_first("record")) for a in self._all(searcher, query)]

    def _read_files(self, searcher: tantivy.Searcher) -> dict[int, tuple[str, str]]:
        """file id -> (path, slug), each looked up when first asked for in this
        generation (reading every record for it cost a new process's first search_pdf
        seconds at 40,000 files)."""
        return _FileNames(self, searcher)

    def file_name(self, searcher: tantivy.Searcher, file: int) -> tuple[str, str]:
        """(path, slug) of the file whose id is `file`, from its record document's
        stored fields (no JSON); KeyError when no record has it."""
        query = Query.boolean_query(
            [(Occur.Must, self._term("kind", FILE)), (Occur.Must, self._term("file", file))]
        )
        hits = searcher.search(query, limit=1, count=False).hits
        if not hits:
            raise KeyError(file)
        document = searcher.doc(hits[0][1])
        return document.get_first("path"), document.get_first("slug")

    # -- the catalog -----------------------------------------------------------------

    def catalog(self) -> dict[str, FileRecord]:
        generation = self._generation()  # before the searcher: a commit in between is
        # cached under the generation before it, and read again on the next call
        return self._catalog.get(self._searcher(), generation)

    def _read_catalog(self, searcher: tantivy.Searcher) -> dict[str, FileRecord]:
        # One record decoded at a time: the decoded JSON of every record at once, beside
        # the records, doubled a million-page serve's start-up peak (182 MB at 40,000).
        return {record.path: record for record in self._records(searcher)}

    def records(self) -> Iterator[FileRecord]:
        return self._records(self._searcher())

    def _records(self, searcher: tantivy.Searcher) -> Iterator[FileRecord]:
        for address in self._all(searcher, self._term("kind", FILE)):
            yield FileRecord(**json.loads(searcher.doc(address).get_first("record")))

    def record(self, path: str) -> FileRecord | None:
        found = self._record_docs(self._searcher(), self._term("key", f"{FILE}:{path}"))
        return FileRecord(**found[0]) if found else None

    def records_starting(self, prefix: str) -> list[FileRecord]:
        searcher = self._searcher()
        # The key terms, read from the term dictionary: a regex of a 1,000-character path
        # outgrew Tantivy's 1,000 automaton states.
        keys = [key for key, _count in searcher.terms_with_prefix("key", f"{FILE}:{prefix}")]
        if not keys:
            return []
        query = Query.term_set_query(self._schema, "key", keys)
        found = [FileRecord(**r) for r in self._record_docs(searcher, query)]
        return sorted(found, key=lambda r: r.path)

    def record_by_slug(self, slug: str) -> FileRecord | None:
        query = Query.boolean_query(
            [(Occur.Must, self._term("kind", FILE)), (Occur.Must, self._term("slug", slug))]
        )
        found = self._record_docs(self._searcher(), query)
        return FileRecord(**found[0]) if found else None

    # -- pages -----------------------------------------------------------------------

    def page_texts(self, slug: str) -> list[str]:
        found = self.candidates(slug=slug)
        return [found.text(ref) for ref in found.refs]

    def candidates(
        self,
        slug: str | None = None,
        terms: list[str] | None = None,
        prefixes: list[str] | None = None,
        any_of: list[list[str]] | None = None,
        path: str | None = None,
        phrases: list[list[str]] | None = None,
        pieces: list[str] | None = None,
    ) -> TantivyCandidates:
        nodes = candidate_nodes(terms, prefixes, any_of, phrases)
        clauses = [
            (Occur.Must, compile_query(node, self._schema, {"content": 1.0})) for node in nodes
        ]
        clauses += gram_clauses(self._schema, pieces or [])
        clauses.append((Occur.Must, self._term("kind", PAGE)))
        if slug is not None:
            clauses.append((Occur.Must, self._term("slug", slug)))
        if path and not path.endswith("/"):
            clauses.append((Occur.Must, self._term("path", path)))
        searcher = self._searcher()
        one_file = slug is not None or bool(path and not path.endswith("/"))
        query, stricter = Query.boolean_query(clauses), None
        phrases = phrase_clauses(self._schema, pieces or [])
        if phrases:
            stricter = Query.boolean_query(clauses + phrases)
            # In one file the pages holding the n-grams are few (under PHRASES_UP_TO but in
            # a file of thousands of pages): counting them to know it cost one search more
            # (a regex in a 1,321-page manual: 4 searches, now 3).
            if one_file or few_pages(searcher, query, pieces or [], whole=not path):
                query, stricter = stricter, None
        generation = self._generation()
        files = self._files.get(searcher, generation)

        def keep(page_path: str) -> bool:
            return not path or not path.endswith("/") or page_path.startswith(path)

        # No n-gram narrows, over the library or a folder: many pages, maybe
        grouped = not pieces and not one_file
        if grouped:
            grouped = searcher.search(query, limit=1, count=True).count > LISTED_UP_TO
        if grouped:  # a large library read whole: a group of files at a time
            paths = self._paths(searcher, path)
            refs = GroupedRefs(searcher, self._schema, query, paths, files)
            return TantivyCandidates(self, searcher, refs)
        if not pieces:  # read whole (regex, page texts): all at once is cheaper
            addresses = self._all(searcher, query)
            ids = searcher.fast_field_values("file", addresses) if addresses else []
            numbers = searcher.fast_field_values("page", addresses) if addresses else []
            found = [
                (PageRef(*files[i], page), address)
                for i, page, address in zip(ids, numbers, addresses, strict=True)
                if keep(files[i][0])
            ]
            return TantivyCandidates(self, searcher, ListedRefs(found))

        # By an integer (in one file the page number, else the place): a text fast
        # field's keys cost ~15 µs each per segment and batch to convert (a 32-page batch
        # over 4 segments: 1.4 ms).
        if one_file:
            by = "page"
        else:
            by = PLACE_FIELD if self._placed.get(searcher, generation) else ORDER_FIELD
        refs = OrderedRefs(searcher, query, files, keep, by, stricter)
        return TantivyCandidates(self, searcher, refs)

    def _read_placed(self, searcher: tantivy.Searcher) -> bool:
        """Whether every page and record has a place: none is UNPLACED."""
        if searcher.num_docs == 0:
            return True
        unplaced = Query.range_query(
            self._schema, PLACE_FIELD, FieldType.Integer, UNPLACED, UNPLACED
        )
        return searcher.search(unplaced, limit=1, count=True).count == 0

    def _read_places(self) -> list[tuple[str, int]]:
        """Every file's (path, rank), sorted by path: for a writer adding files."""
        searcher = self._searcher()
        if searcher.num_docs == 0:
            return []
        addresses = self._all(searcher, self._term("kind", FILE))
        if not addresses:
            return []
        ids = searcher.fast_field_values("file", addresses)
        keys = searcher.fast_field_values(PLACE_FIELD, addresses)
        ranks = {i: rank_of(key) for i, key in zip(ids, keys, strict=True)}
        found = ((path, ranks.get(path_id(path))) for path in self._paths(searcher, None))
        return [(path, rank) for path, rank in found if rank is not None]

    def _read_place(self, path: str) -> int | None:
        """One file's committed rank, or None."""
        searcher = self._searcher()
        if searcher.num_docs == 0:
            return None
        hits = searcher.search(self._term("key", f"{FILE}:{path}"), limit=1, count=False).hits
        if not hits:
            return None
        return rank_of(searcher.fast_field_values(PLACE_FIELD, [hits[0][1]])[0])

    def _paths(self, searcher: tantivy.Searcher, folder: str | None) -> list[str]:
        """The paths of the files under `folder` (all: None), sorted, from the term
        dictionary (which may still hold removed ones). Sorted here: tantivy-py lists
        the terms by their document counts, and a file rewritten but not yet merged
        counts twice."""
        keys = searcher.terms_with_prefix("key", f"{FILE}:{folder or ''}", limit=None)
        return sorted(key.split(":", 1)[1] for key, _count in keys)

    def page_address(self, searcher: tantivy.Searcher, slug: str, page: int) -> Any | None:
        query = Query.boolean_query(
            [
                (Occur.Must, self._term("slug", slug)),
                (Occur.Must, self._term("kind", PAGE)),
                (
                    Occur.Must,
                    Query.range_query(self._schema, "page", FieldType.Integer, page, page),
                ),
            ]
        )
        hits = searcher.search(query, limit=1, count=False).hits
        return hits[0][1] if hits else None

    def ranked(
        self,
        query: pq.Node,
        limit: int,
        slug: str | None = None,
        pages: tuple[int, int] | None = None,
    ) -> RankedPages:
        # The generation before the searcher: a commit in between leaves what is kept
        # for the words under the generation before it, read again on the next call.
        generation = self._generation()
        searcher = self._searcher()
        expand = self._expander(searcher)
        typos = self._typos(searcher, generation)
        parts = None if slug or pages else broad_prefix(query, self._schema, expand)
        result = searcher.search(parts[0], limit=limit, count=False) if parts else None
        # Fewer hits than asked for: pages the prefix's unscored words hold (at 0) are
        # among the top, which the one query ranks.
        if parts is not None and result is not None and len(result.hits) == limit:
            total = searcher.search(parts[1], limit=1, count=True).count
        else:
            whole = self._whole(query, expand, typos, slug, pages)
            result = searcher.search(whole, limit, count=True)
            total = result.count
        hits = [_hit(searcher.doc(address), score) for score, address in result.hits]
        return RankedPages(total, hits, self._marked_terms(expand, typos, query, hits))

    def _whole(
        self,
        query: pq.Node,
        expand: Expand,
        typos: Typos,
        slug: str | None,
        pages: tuple[int, int] | None,
    ) -> Query:
        """The query ranking pages, within one document or page range if given."""
        # Only pages hold the content, stem and pair fields, and a NOT on its own keeps the
        # other pages: no filter by kind.
        pages_only = self._term("kind", PAGE)
        compiled = compile_query(
            query,
            self._schema,
            {"content": 1.0},
            stems=True,
            expand=expand,
            everything=pages_only,
            typos=typos,
        )
        clauses = [(Occur.Must, compiled)]
        if slug:
            clauses.append((Occur.Must, self._term("slug", slug)))
        if pages:
            page_range = Query.range_query(
                self._schema, "page", FieldType.Integer, pages[0], pages[1]
            )
            clauses.append((Occur.Must, page_range))
        return compiled if len(clauses) == 1 else Query.boolean_query(clauses)

    def _expander(self, searcher: tantivy.Searcher) -> Expand:
        """The index words starting with a prefix (at most `most`, with their page counts),
        commonest first, kept per commit: reading them took `con*` 1.5 ms a call, and
        choosing its commonest 16 of 1,735 words 0.2 ms more."""
        generation = self._generation()

        def expand(prefix: str, most: int) -> list[tuple[str, int]]:
            key = (generation, prefix, most)
            if key not in self._expansions:
                if len(self._expansions) >= EXPANSIONS_KEPT or generation < 0:
                    self._expansions.clear()
                found = searcher.terms_with_prefix("content", prefix, limit=most)
                self._expansions[key] = sorted(found, key=lambda pair: (-pair[1], pair[0]))
            return self._expansions[key]

        return expand

    def _typos(self, searcher: tantivy.Searcher, generation: int) -> Typos:
        """A typo's words, from the vocabulary once it is read for this commit: Tantivy's
        automaton over each segment's words took `hypenaton~2` 8.9 ms at 48,000 pages
        (5 segments) and 30 at a million (13), the vocabulary ~1.3 ms. Until then (a
        lasting process reads it in a thread after the first typo of each commit; a
        one-shot one never) None: the automaton matches."""
        found: dict[tuple[str, int], list[str] | None] = {}  # the query and its marks ask

        def typos(word: str, distance: int) -> list[str] | None:
            if (word, distance) not in found:
                vocabulary = self._vocabulary.ready(searcher, generation)
                found[word, distance] = (
                    None if vocabulary is None else vocabulary.within(word, distance)
                )
            return found[word, distance]

        return typos

    def _marked_terms(
        self, expand: Expand, typos: Typos, node: pq.Node, hits: list[PageHit]
    ) -> set[str]:
        """The index words the query stands for, for snippets to mark; a fuzzy word's are
        its vocabulary words where at hand and few, else looked for in the hits' own
        words (3 ms for ten pages)."""
        terms: set[str] = set()
        hit_words: list[str] | None = None
        stems = {stem(leaf.text) for leaf in pq.leaves(node) if isinstance(leaf, pq.Stem)}
        if stems:  # the hits' words that share a stem with the query's
            maybe = stem_candidates([hit.text for hit in hits], stems)
            stemmed = STEMMER.analyze(" ".join(maybe))
            if len(stemmed) == len(maybe):  # one stem per \w+ word, in order
                terms.update(w for w, s in zip(maybe, stemmed, strict=True) if s in stems)
        for leaf in pq.leaves(node):
            if isinstance(leaf, pq.Term | pq.Stem):
                terms.add(leaf.text)
            elif isinstance(leaf, pq.Phrase):
                terms.update(leaf.words)
            elif isinstance(leaf, pq.Prefix):
                terms.update(word for word, _count in expand(leaf.text, PREFIX_TERMS_MARKED))
            else:
                words = typos(leaf.text, leaf.distance)
                if words is not None and len(words) <= TYPO_WORDS_MARKED:
                    terms.update(words)
                    continue
                if hit_words is None:
                    hit_words = sorted(word_set([hit.text for hit in hits]))
                terms.update(within(hit_words, leaf.text, leaf.distance))
        return terms

    # -- elements --------------------------------------------------------------------

    def elements(self, slug: str) -> list[ElementRecord]:
        query = Query.boolean_query(
            [(Occur.Must, self._term("kind", ELEMENT)), (Occur.Must, self._term("slug", slug))]
        )
        found = cast(list[ElementRecord], self._record_docs(self._searcher(), query))
        return sorted(found, key=lambda e: (e["page"], e["bbox"][1], e["label"]))

    def search_elements(
        self,
        query: pq.Node,
        limit: int,
        kind: str | None = None,
        slug: str | None = None,
        captions_only: bool = False,
    ) -> tuple[int, list[tuple[ElementRecord, float]]]:
        fields = {"ecaption": 2.0} if captions_only else {"ecaption": 2.0, "etext": 1.0}
        clauses = [
            (Occur.Must, compile_query(query, self._schema, fields)),
            (Occur.Must, self._term("kind", ELEMENT)),
        ]
        if kind:
            clauses.append((Occur.Must, self._term("etype", kind)))
        if slug:
            clauses.append((Occur.Must, self._term("slug", slug)))
        searcher = self._searcher()
        result = searcher.search(Query.boolean_query(clauses), limit=limit, count=True)
        found = [
            (json.loads(searcher.doc(address).get_first("record")), score)
            for score, address in result.hits
        ]
        return result.count, found

    # -- vocabulary ------------------------------------------------------------------

    def similar_terms(self, word: str, maxdist: int) -> list[str]:
        searcher = self._searcher()
        if maxdist == 0:
            return [word] if searcher.doc_freq("content", word) else []
        vocabulary: Vocabulary = self._vocabulary.get(searcher, self._generation())
        return vocabulary.within(word, maxdist)

    def prefix_is_narrow(self, prefix: str, most: int = 8) -> bool:
        found = self._searcher().terms_with_prefix("content", prefix, limit=most + 1)
        return len(found) <= most

    # -- writing and upkeep ----------------------------------------------------------

    @contextmanager
    def writer(self, timeout: float, clear: bool = False) -> Iterator[TantivyWriter]:
        with self._catalog.writing(), self._write(timeout, clear) as wrapped:
            yield wrapped

    @contextmanager
    def _write(self, timeout: float, clear: bool) -> Iterator[TantivyWriter]:
        raw = self._open_writer(timeout)
        kept, self._kept_places = self._kept_places, None
        known = kept[1] if kept is not None and kept[0] == self._generation() else None
        places = PlaceSession(
            self._planned, self._read_places, self._read_place, empty=clear, known=known
        )
        committed = -1  # the generation this session's commit made
        fresh = clear or self._searcher().num_docs == 0
        wrapped = TantivyWriter(raw, places, self._count_commit, fresh)
        try:
            if clear:
                raw.delete_all_documents()
                wrapped.changed = True
            yield wrapped
            if wrapped.changed:
                wrapped.commit_so_far()
                committed = self._generation()  # under the lock: nobody else's commit
            else:
                raw.rollback()
        except BaseException as exc:
            cause = _killed_by_full_disk(exc, self.directory) or exc  # before files go
            _discard(raw)
            failed = IndexWriteError.about(cause, self.folder)
            if failed is not None:
                raise failed from exc
            raise
        finally:
            raw.wait_merging_threads()  # releases the writer lock
            # The ranks are the next session's, unless another commit (or a merge, which
            # moves the generation too) comes between.
            leaves = places.known()
            if committed >= 0 and leaves is not None:
                self._kept_places = (committed, leaves)

    def _count_commit(self) -> None:
        self._commits += 1

    def _open_writer(self, timeout: float) -> tantivy.IndexWriter:
        """The writer; another process's lock is waited for, up to `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self._index.writer(heap_size=self.writer_heap, num_threads=1)
            except ValueError as exc:
                if "LockBusy" not in str(exc):
                    raise
                if time.monotonic() >= deadline:
                    raise IndexLocked(
                        f"another pdfindex process is writing the index in {self.folder} "
                        f"(waited {timeout:g} s); try again when it has finished"
                    ) from exc
                time.sleep(0.05)

    def size_bytes(self) -> int:
        return sum(f.stat().st_size for f in self.directory.iterdir() if f.is_file())

    def segment_count(self) -> int:
        return int(self._searcher().num_segments)

    def indexed_pages(self) -> int:
        searcher = self._searcher()
        if searcher.num_docs == 0:  # tantivy refuses a search of an empty index
            return 0
        return int(searcher.search(self._term("kind", PAGE), limit=1, count=True).count)

    def close(self) -> None:
        """Nothing to release: readers hold no lock, and the writer is closed per use."""


def _killed_by_full_disk(exc: BaseException, directory: Path) -> OSError | None:
    """Tantivy says only that its writer thread was killed when writing a segment failed
    (its commit would name the cause, but must not be tried); a disk left full by that
    write is the cause to report."""
    if "index writer was killed" not in str(exc):
        return None
    try:
        full = shutil.disk_usage(directory).free < FULL_DISK_BYTES
    except OSError:
        return None
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)) if full else None


def _discard(raw: tantivy.IndexWriter) -> None:
    """Back to the last commit, and the files written since deleted: a failed write (a
    full disk) leaves no partial segment to fill the disk again on the retry."""
    try:
        raw.rollback()
        raw.garbage_collect_files()
    except Exception:  # the writer may be broken too: the failure itself is what to show
        pass


class _FileNames(dict[int, tuple[str, str]]):
    """file id -> (path, slug) of one generation, filled as ids are asked for."""

    def __init__(self, engine: TantivyEngine, searcher: tantivy.Searcher) -> None:
        super().__init__()
        self._engine, self._searcher = engine, searcher

    def __missing__(self, file: int) -> tuple[str, str]:
        found = self[file] = self._engine.file_name(self._searcher, file)
        return found


def _hit(page: tantivy.Document, score: float) -> PageHit:
    text = bytes(page.get_first("text")).decode("utf-8")
    return PageHit(
        page.get_first("path"), page.get_first("slug"), page.get_first("page"), score, "", text
    )


def _text(searcher: tantivy.Searcher, address: Any) -> str:
    return bytes(searcher.doc(address).get_first("text")).decode("utf-8")


class TantivyCandidates:
    """Candidate pages of one searcher, in order as they are read, their texts loaded on
    demand from it."""

    def __init__(
        self,
        engine: TantivyEngine,
        searcher: tantivy.Searcher,
        refs: OrderedRefs | ListedRefs | GroupedRefs,
    ) -> None:
        self._engine = engine
        self._searcher = searcher
        self.refs = refs
        # The last pages read, for a match's context on the page before or after: a
        # reader of the whole library must not keep every page it has read.
        self._texts: OrderedDict[tuple[str, int], str] = OrderedDict()

    def text(self, ref: PageRef) -> str:
        text = self.page_text(ref.slug, ref.page)
        assert text is not None  # every ref came from this searcher
        return text

    def page_text(self, slug: str, page: int) -> str | None:
        key = (slug, page)
        if key not in self._texts:
            address = self.refs.addresses.get(key)
            if address is None:
                address = self._engine.page_address(self._searcher, slug, page)
                if address is None:
                    return None
            self._texts[key] = _text(self._searcher, address)
            if len(self._texts) > KEPT_TEXTS:
                self._texts.popitem(last=False)
        else:
            self._texts.move_to_end(key)
        return self._texts[key]

    def finished(self) -> None:
        # Pages read across a large library map a block of the stored texts each (11,000
        # pages holding `hyphenation` among a million: 160 MB of a serving process).
        self._texts.clear()
        release_mapped(self._engine.directory, ".store")


class TantivyWriter(OneFolderWriter):
    """Adds, replaces and removes a file's parts; `changed` tells the engine to commit."""

    def __init__(
        self,
        raw: tantivy.IndexWriter,
        places: PlaceSession,
        committed: Callable[[], None],
        fresh: bool = False,
    ) -> None:
        self._raw = raw
        self._places = places
        self._committed = committed
        # The index held nothing as this writer began: a path it has not written has
        # nothing to delete. Each delete is a term query run over every segment at a
        # flush (a build from nothing: 1 s of 45 at 48k pages, more with more segments).
        self._fresh = fresh
        self._written: set[str] = set()
        self.changed = False
        # Catalog records are added last, together: stored next to each other they are
        # read from a few blocks of the store, where among their pages reading the
        # catalog of 48,000 pages mapped 27 MB of it into every serving process.
        self._records: dict[str, tantivy.Document] = {}

    def _document(self, kind: str, owner: FileRecord, **fields: Any) -> tantivy.Document:
        self._written.add(owner.path)
        document = tantivy.Document()
        document.add_text("key", f"{kind}:{owner.path}")
        document.add_text("kind", kind)
        document.add_text("path", owner.path)
        document.add_text("slug", owner.slug)
        document.add_integer("file", path_id(owner.path))
        for name, value in fields.items():
            if isinstance(value, int):
                document.add_integer(name, value)
            elif isinstance(value, bytes):
                document.add_bytes(name, value)
            else:
                document.add_text(name, value.casefold())  # words as pdfindex.query sees them
        return document

    def will_add(self, paths: Iterable[str]) -> None:
        self._places.plan(paths)

    def commit_so_far(self) -> bool:
        """The catalog records, then the commit; Tantivy merges the segments it made in
        its own threads while this writer goes on. Closing the writer waits for those
        merges: 2.5 s with nothing written, mid-way through a build of 48,000 pages."""
        self.add_records()
        self._raw.commit()
        self._committed()
        return True

    def add_file(self, record: FileRecord, pages: list[str], index_text: list[str]) -> None:
        self._add(record, pages, index_text, self._places.rank(record.path))

    def _add(self, record: FileRecord, pages: list[str], index_text: list[str], rank: int) -> None:
        self.changed = True
        for number, (text, indexed) in enumerate(zip(pages, index_text, strict=True), start=1):
            fields = {"page": number, PLACE_FIELD: place(rank, number)}
            document = self._document(PAGE, record, **fields, text=text.encode())
            cut = word_fields(indexed.casefold())
            document.add_text("content", cut.words)
            document.add_text(STEM_FIELD, cut.words)
            document.add_text(PAIR_FIELD, cut.pairs)
            document.add_text(HEAD_FIELD, cut.heads)
            plain = plain_form(text)
            document.add_text(GRAM_FIELD, plain)
            document.add_text(CHUNK_FIELD, chunked(plain))
            document.add_text(ORDER_FIELD, order_key(record.path, number))
            self._raw.add_document(document)
        self._add_record(record, rank)

    def replace_file(self, record: FileRecord, pages: list[str], index_text: list[str]) -> None:
        rank = self._places.rank(record.path)  # a file rewritten keeps its place
        self._remove(record.path)
        self._add(record, pages, index_text, rank)

    def remove_file(self, path: str) -> None:
        self._remove(path)
        self._places.forget(path)

    def _remove(self, path: str) -> None:
        self.changed = True
        self._records.pop(path, None)
        if self._fresh and path not in self._written:
            return
        for kind in (PAGE, FILE, ELEMENT):
            self._raw.delete_documents_by_term("key", f"{kind}:{path}")

    def replace_record(self, record: FileRecord) -> None:
        self.changed = True
        self._raw.delete_documents_by_term("key", f"{FILE}:{record.path}")
        self._add_record(record, self._places.rank(record.path))

    def _add_record(self, record: FileRecord, rank: int) -> None:
        fields = {PLACE_FIELD: place(rank, 0), "record": _json(record.to_dict())}
        document = self._document(FILE, record, **fields)
        self._records[record.path] = document  # added by add_records, before the commit

    def add_records(self) -> None:
        """The catalog records of this commit, one after another in the store."""
        for document in self._records.values():
            self._raw.add_document(document)
        self._records.clear()

    def add_elements(self, record: FileRecord, elements: list[ElementRecord]) -> None:
        self.changed = True
        for element in elements:
            stored: ElementRecord = {**element, "slug": record.slug, "path": record.path}
            self._raw.add_document(
                self._document(
                    ELEMENT,
                    record,
                    etype=element["kind"],
                    page=element["page"],
                    ecaption=f"{element['label']}\n{element['caption']}",
                    etext=f"{element['kind']}\n{element['context']}",
                    record=_json(stored),
                )
            )

    def set_elements(self, record: FileRecord, elements: list[ElementRecord]) -> None:
        self.changed = True
        self._raw.delete_documents_by_term("key", f"{ELEMENT}:{record.path}")
        self.add_elements(record, elements)
        self.replace_record(record)


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")
