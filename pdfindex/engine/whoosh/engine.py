"""The Whoosh engine: pure Python, the original engine (pdfindex.engine.Engine)."""

from __future__ import annotations

import contextlib
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from whoosh.index import LockError
from whoosh.query import And, NumericRange, Or, Phrase, Prefix, Query, Term
from whoosh.searching import Searcher
from whoosh.writing import CLEAR

from pdfindex.engine import OneFolder, RankedPages
from pdfindex.engine.vocabulary import CatalogCache, GenerationCache, Vocabulary
from pdfindex.engine.whoosh.common import page_count, ranked_question, split_question
from pdfindex.engine.whoosh.compiler import compile_query
from pdfindex.engine.whoosh.postings import SetPrefix
from pdfindex.engine.whoosh.reader import WhooshCandidates, docnums
from pdfindex.engine.whoosh.schema import (
    ELEMENT,
    FILE,
    PAGE,
    STEM_FIELD,
    open_or_create,
    splits_cjk,
    stem,
)
from pdfindex.engine.whoosh.writer import WhooshWriter
from pdfindex.errors import IndexLocked, IndexWriteError
from pdfindex.models import ElementRecord, FileRecord, PageHit, PageRef
from pdfindex.query import Node
from pdfindex.text.words import stem_candidates

MAX_SEGMENTS = 12  # more than this after a commit: merge them (fuzzy and highlights slow)
ELEMENT_SCALE = 0.9  # element search: matching more of the words ranks higher


# What the writer pools in memory before it sorts a run to disk (Whoosh's `limitmb`).
DEFAULT_WRITER_MB = 256


class WhooshEngine(OneFolder):
    """Opens (or creates) the index in `folder`; searchers are per thread and refreshed."""

    name = "whoosh"

    def __init__(self, folder: Path, writer_memory_mb: int = 0) -> None:
        self.folder = folder
        self.whoosh_dir = folder / "whoosh"
        self.writer_memory_mb = writer_memory_mb or DEFAULT_WRITER_MB
        self._local = threading.local()
        self._vocabularies = {
            field: GenerationCache(
                lambda reader, field=field: Vocabulary(field_words(reader, field))
            )
            for field in ("content", "ecaption", "etext")
        }
        self._not_pages = GenerationCache(_not_page_docnums)
        self._catalog = CatalogCache(_read_catalog)
        self._ix = open_or_create(folder)
        self.recovered: str | None = self._ix.pdfindex_recovered  # why it was rebuilt
        self.splits_cjk = splits_cjk(self._ix.schema)

    def _searcher(self) -> Searcher:
        """This thread's searcher, refreshed to the last commit."""
        searcher = getattr(self._local, "searcher", None)
        if searcher is None:
            searcher = self._ix.searcher()
        elif not searcher.up_to_date():
            # Not searcher.refresh(): whoosh's reader reuse keeps merged-away segments and
            # stale deletion sets, so replaced pages would come back.
            searcher.close()
            searcher = self._ix.searcher()
        self._local.searcher = searcher
        return searcher

    # -- the catalog -----------------------------------------------------------------

    def generation(self) -> int:
        return _generation(self._searcher())

    def catalog(self) -> dict[str, FileRecord]:
        s = self._searcher()
        return self._catalog.get(s, _generation(s))

    def records(self) -> Iterator[FileRecord]:
        yield from self.catalog().values()

    def record(self, path: str) -> FileRecord | None:
        s = self._searcher()
        for n in docnums(s, And([Term("kind", FILE), Term("path", path)])):
            return FileRecord(**s.stored_fields(n)["record"])
        return None

    def records_starting(self, prefix: str) -> list[FileRecord]:
        s = self._searcher()
        query = And([Term("kind", FILE), Prefix("path", prefix)])
        found = [FileRecord(**s.stored_fields(n)["record"]) for n in docnums(s, query)]
        return sorted(found, key=lambda r: r.path)

    def record_by_slug(self, slug: str) -> FileRecord | None:
        """Found through one of its pages when it has any."""
        s = self._searcher()
        for n in docnums(s, Term("slug", slug)):
            return self.record(s.stored_fields(n)["path"])
        for n in docnums(s, Term("kind", FILE)):  # a record without pages: each in turn
            stored = s.stored_fields(n)["record"]
            if stored["slug"] == slug:
                return FileRecord(**stored)
        return None

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
    ) -> WhooshCandidates:
        s = self._searcher()
        # Only pages have content terms and a slug term (catalog records have neither),
        # so the long `kind` posting list is intersected only when nothing else narrows.
        clauses: list[Query] = [Term("content", t) for t in terms or []]
        clauses += [SetPrefix("content", p) for p in prefixes or []]
        clauses += [Or([Term("content", w) for w in group]) for group in any_of or []]
        clauses += [Phrase("content", words) for words in phrases or []]
        if slug is not None:
            clauses.append(Term("slug", slug))
        if path:
            clauses.append(SetPrefix("path", path) if path.endswith("/") else Term("path", path))
            clauses.append(Term("kind", PAGE))
        if not clauses:
            clauses.append(Term("kind", PAGE))
        reader = s.reader()
        paths, slugs, pages = (reader.column_reader(f) for f in ("path", "slug", "page"))
        found = [(PageRef(paths[n], slugs[n], pages[n]), n) for n in docnums(s, And(clauses))]
        found.sort(key=lambda pair: (pair[0].path, pair[0].page))
        return WhooshCandidates(s, found)

    def ranked(
        self,
        query: Node,
        limit: int,
        slug: str | None = None,
        pages: tuple[int, int] | None = None,
    ) -> RankedPages:
        s = self._searcher()
        reader = s.reader()

        def prefix_words(field: str, prefix: str) -> list[tuple[str, int]]:
            words = (
                w.decode() if isinstance(w, bytes) else w
                for w in reader.expand_prefix(field, prefix)
            )
            return [(w, reader.doc_frequency(field, w)) for w in words]

        compiled = compile_query(query, ["content"], self._expander(s), prefix_words=prefix_words)
        filters: list[Query] = []
        if slug:
            filters.append(Term("slug", slug))
        if pages:
            filters.append(NumericRange("page", pages[0], pages[1]))
        # Masking the few catalog records and elements is cheaper than intersecting every
        # page. A plain set, not a mask query: Whoosh turns a query mask into a bitset whose
        # truth test scans every byte, once per hit, when it counts the results.
        mask = self._not_pages.get(s, s.reader().generation())
        question = split_question(s, compiled)
        if question:
            total, found = ranked_question(s, *question, filters, limit, mask)
        else:
            results = s.search(And([compiled, *filters]), limit=limit, mask=mask)
            found = [(hit.docnum, hit.score) for hit in results]
            total = page_count(s, compiled, filters, mask, results)
        hits = []
        for docnum, score in found:
            stored = s.stored_fields(docnum)
            hits.append(
                PageHit(stored["path"], stored["slug"], stored["page"], score, "", stored["text"])
            )
        terms = {
            text.decode() if isinstance(text, bytes) else text
            for field, text in compiled.existing_terms(s.reader(), expand=True)
            if field == "content"
        }
        stems = {text for field, text in compiled.all_terms() if field == STEM_FIELD}
        if stems:  # the hits' words that share a stem with the query's
            maybe = stem_candidates([hit.text for hit in hits], stems)
            terms.update(w for w in maybe if stem(w) in stems)
        return RankedPages(total, hits, terms)

    # -- elements --------------------------------------------------------------------

    def elements(self, slug: str) -> list[ElementRecord]:
        s = self._searcher()
        found: list[ElementRecord] = [
            s.stored_fields(n)["record"]
            for n in docnums(s, And([Term("kind", ELEMENT), Term("eslug", slug)]))
        ]
        return sorted(found, key=lambda e: (e["page"], e["bbox"][1], e["label"]))

    def search_elements(
        self,
        query: Node,
        limit: int,
        kind: str | None = None,
        slug: str | None = None,
        captions_only: bool = False,
    ) -> tuple[int, list[tuple[ElementRecord, float]]]:
        s = self._searcher()
        fields = ["ecaption"] if captions_only else ["ecaption", "etext"]
        # Element search has always given a coordination bonus to elements matching more
        # of the words.
        clauses: list[Query] = [
            compile_query(query, fields, self._expander(s), scale=ELEMENT_SCALE, prefix=Prefix),
            Term("kind", ELEMENT),
        ]
        if kind:
            clauses.append(Term("etype", kind))
        if slug:
            clauses.append(Term("eslug", slug))
        results = s.search(And(clauses), limit=limit)
        return len(results), [(hit["record"], hit.score) for hit in results]

    # -- vocabulary ------------------------------------------------------------------

    def similar_terms(self, word: str, maxdist: int) -> list[str]:
        s = self._searcher()
        if maxdist == 0:
            return [word] if ("content", word) in s.reader() else []
        return self._words(s.reader(), "content").within(word, maxdist)

    def prefix_is_narrow(self, prefix: str, most: int = 8) -> bool:
        words = self._searcher().reader().expand_prefix("content", prefix)
        return sum(1 for _ in zip(words, range(most + 1), strict=False)) <= most

    def _words(self, reader: Any, field: str) -> Vocabulary:
        """Every word of `field`, read once per index generation."""
        vocabulary: Vocabulary = self._vocabularies[field].get(reader, reader.generation())
        return vocabulary

    def _expander(self, searcher: Searcher) -> Any:
        """Fuzzy expansion for the compiler, from the cached vocabularies: Whoosh's own
        FuzzyTerm walks an automaton in Python (tens of ms even on a small field)."""
        reader = searcher.reader()

        def expand(field: str, word: str, distance: int) -> list[str]:
            return self._words(reader, field).within(word, distance)

        return expand

    # -- writing and upkeep ----------------------------------------------------------

    @contextmanager
    def writer(self, timeout: float, clear: bool = False) -> Iterator[WhooshWriter]:
        with self._catalog.writing(), self._write(timeout, clear) as wrapped:
            yield wrapped

    @contextmanager
    def _write(self, timeout: float, clear: bool) -> Iterator[WhooshWriter]:
        try:
            raw = self._ix.writer(timeout=timeout, limitmb=self.writer_memory_mb)
        except LockError as exc:
            raise IndexLocked(
                f"another pdfindex process is writing the index in {self.folder} "
                f"(waited {timeout:g} s); try again when it has finished"
            ) from exc
        wrapped = WhooshWriter(raw)
        new_segment = raw.newsegment.segment_id()  # its files: <id>.seg, <id>.trm, ...
        try:
            yield wrapped
            if clear:
                raw.commit(mergetype=CLEAR)
            elif wrapped.changed:
                raw.commit(optimize=len(raw.segments) > MAX_SEGMENTS)
            else:
                raw.cancel()  # no new generation: readers keep their searchers
        except BaseException as exc:
            with contextlib.suppress(Exception):  # after a failed commit it is closed
                raw.cancel()
            # A failed write (a full disk) leaves its partial files: removed, so the retry
            # after freeing space finds the index as it was.
            for partial in self.whoosh_dir.glob(f"{new_segment}.*"):
                partial.unlink(missing_ok=True)
            shutil.rmtree(self.whoosh_dir / "MAIN.tmp", ignore_errors=True)
            failed = IndexWriteError.about(exc, self.folder)
            if failed is not None:
                raise failed from exc
            raise

    def size_bytes(self) -> int:
        return sum(f.stat().st_size for f in self.whoosh_dir.iterdir() if f.is_file())

    def indexed_pages(self) -> int:
        return sum(1 for _ in docnums(self._searcher(), Term("kind", PAGE)))

    def segment_count(self) -> int:
        leaves = self._searcher().reader().leaf_readers()
        return sum(1 for reader, _offset in leaves if reader.doc_count_all())

    def close(self) -> None:
        searcher = getattr(self._local, "searcher", None)
        if searcher is not None:
            searcher.close()
        self._ix.close()


def _generation(searcher: Searcher) -> int:
    """The index generation `searcher` reads (-1 for an index without segments, whose
    reader has none)."""
    generation = searcher.reader().generation()
    return -1 if generation is None else int(generation)


def _read_catalog(searcher: Searcher) -> dict[str, FileRecord]:
    """Every catalog record, decoded."""
    records = (searcher.stored_fields(n)["record"] for n in searcher.document_numbers(kind=FILE))
    return {r["path"]: FileRecord(**r) for r in records}


def _not_page_docnums(searcher: Searcher) -> set[int]:
    """Document numbers of catalog records and elements."""
    return set(docnums(searcher, Or([Term("kind", FILE), Term("kind", ELEMENT)])))


def field_words(reader: Any, field: str) -> list[str]:
    """Every word of a text field (`content`: the page text)."""
    return [w.decode("utf-8") if isinstance(w, bytes) else w for w in reader.lexicon(field)]
