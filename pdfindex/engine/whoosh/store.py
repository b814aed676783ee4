"""The Whoosh index: one document per page plus one catalog record per file.

The only module that imports whoosh, so a later backend can replace it behind the
same methods. Catalog and pages live in one index so they change in one commit.
"""

from __future__ import annotations

import json
import shutil
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rapidfuzz import process
from rapidfuzz.distance import OSA
from whoosh import index
from whoosh.analysis import Filter, RegexTokenizer
from whoosh.fields import ID, NUMERIC, STORED, TEXT, Schema
from whoosh.index import LockError
from whoosh.qparser import AndGroup, FuzzyTermPlugin, MultifieldParser, OrGroup, QueryParser
from whoosh.query import And, NumericRange, Or, Phrase, Prefix, Query, Term
from whoosh.searching import Searcher
from whoosh.writing import CLEAR

from pdfindex.errors import IndexLocked, InvalidQuery
from pdfindex.models import FileRecord, PageHit, PageRef

FORMAT_VERSION = 6
_FORMAT_FILE = "pdfindex-format.json"
PAGE, FILE, ELEMENT = "page", "file", "element"


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


class CasefoldFilter(Filter):
    """Unicode casefold (not just lower()): 'Straße' and 'STRASSE' meet as 'strasse'."""

    def __call__(self, tokens: Iterator[Any]) -> Iterator[Any]:
        for token in tokens:
            token.text = token.text.casefold()
            yield token


# Whoosh pickles the schema, analyzer classes by module path, into each index. Indexes of
# format 6 were written when this module was `pdfindex.store`: that name stays resolvable
# so they open without a rebuild.
sys.modules.setdefault("pdfindex.store", sys.modules[__name__])


def page_analyzer() -> Any:
    """Words are runs of \\w; no stop words, no minimum length (so "state of the art"
    stays a phrase)."""
    return RegexTokenizer(r"\w+") | CasefoldFilter()


def make_schema() -> Schema:
    return Schema(
        kind=ID(),
        path=ID(stored=True, sortable=True),
        slug=ID(stored=True, sortable=True),
        page=NUMERIC(int, stored=True, sortable=True),  # signed=False breaks NumericRange
        content=TEXT(analyzer=page_analyzer(), phrase=True),
        text=STORED(),
        record=STORED(),
        # Visual elements have fields of their own, so page queries (content, slug) never
        # see them; `path` is shared, so removing a file removes its elements too.
        eslug=ID(),
        etype=ID(),
        ecaption=TEXT(analyzer=page_analyzer(), field_boost=2.0),  # label and caption
        etext=TEXT(analyzer=page_analyzer()),  # type and the text around it
    )


class PageCandidates:
    """Candidate pages bound to the searcher that found them (document numbers are only
    valid for that searcher), so texts can be loaded lazily and consistently."""

    def __init__(self, searcher: Searcher, refs: list[PageRef]) -> None:
        self._searcher = searcher
        self.refs = refs
        self._by_page = {(r.slug, r.page): r.docnum for r in refs}
        self._texts: dict[int, str] = {}

    def text(self, ref: PageRef) -> str:
        return self._load(ref.docnum)

    def page_text(self, slug: str, page: int) -> str | None:
        """Any page of a document (the neighbours of a match, for its context)."""
        docnum = self._by_page.get((slug, page))
        if docnum is None:
            # slug and page alone: intersecting the short posting lists is cheap.
            query = And([Term("slug", slug), Term("page", page)])
            docnum = next(docnums(self._searcher, query), None)
            if docnum is None:
                return None
            self._by_page[(slug, page)] = docnum
        return self._load(docnum)

    def _load(self, docnum: int) -> str:
        if docnum not in self._texts:
            self._texts[docnum] = self._searcher.stored_fields(docnum)["text"]
        return self._texts[docnum]


class Store:
    """Opens (or creates) the index in `folder`; searchers are per thread and refreshed."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.whoosh_dir = folder / "whoosh"
        self._local = threading.local()
        self._caches_lock = threading.Lock()  # the per-generation vocabulary and page mask
        self._vocabulary_cache: tuple[int, list[str]] = (-2, [])
        self._not_pages_cache: tuple[int, set[int]] = (-2, set())
        self._ix = self._open()

    def _open(self) -> Any:
        format_file = self.folder / _FORMAT_FILE
        current = None
        if format_file.exists():
            try:
                current = json.loads(format_file.read_text()).get("format")
            except (OSError, ValueError):
                current = None
        if current == FORMAT_VERSION and index.exists_in(self.whoosh_dir):
            return index.open_dir(str(self.whoosh_dir))
        # First run or an older layout: start empty (the extraction cache keeps the text).
        if self.whoosh_dir.exists():
            shutil.rmtree(self.whoosh_dir)
        self.whoosh_dir.mkdir(parents=True)
        ix = index.create_in(str(self.whoosh_dir), make_schema())
        format_file.write_text(json.dumps({"format": FORMAT_VERSION}))
        return ix

    # -- reading -------------------------------------------------------------------

    def searcher(self) -> Searcher:
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

    def catalog(self) -> dict[str, FileRecord]:
        s = self.searcher()
        records = (s.stored_fields(n)["record"] for n in s.document_numbers(kind=FILE))
        return {r["path"]: FileRecord(**r) for r in records}

    def record(self, path: str) -> FileRecord | None:
        s = self.searcher()
        for n in docnums(s, And([Term("kind", FILE), Term("path", path)])):
            return FileRecord(**s.stored_fields(n)["record"])
        return None

    def record_by_slug(self, slug: str) -> FileRecord | None:
        """The catalog record of a slug: found through one of its pages when it has any."""
        s = self.searcher()
        for n in docnums(s, Term("slug", slug)):
            return self.record(s.stored_fields(n)["path"])
        return next((r for r in self.catalog().values() if r.slug == slug), None)

    def page_texts(self, slug: str) -> list[str]:
        """All page texts of a document, in page order."""
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
    ) -> PageCandidates:
        """Pages holding all `terms`, a word starting with each of `prefixes` and one word of
        each group in `any_of`, of one document (`slug`) or under `path` (a file, or a
        folder ending in '/'), in (path, page) order, their text loaded only when asked."""
        s = self.searcher()
        # Only pages have content terms and a slug term (catalog records have neither),
        # so the long `kind` posting list is intersected only when nothing else narrows.
        clauses: list[Query] = [Term("content", t) for t in terms or []]
        clauses += [Prefix("content", p) for p in prefixes or []]
        clauses += [Or([Term("content", w) for w in group]) for group in any_of or []]
        clauses += [Phrase("content", words) for words in phrases or []]
        if slug is not None:
            clauses.append(Term("slug", slug))
        if path:
            clauses.append(Prefix("path", path) if path.endswith("/") else Term("path", path))
            clauses.append(Term("kind", PAGE))
        if not clauses:
            clauses.append(Term("kind", PAGE))
        reader = s.reader()
        paths, slugs, pages = (reader.column_reader(f) for f in ("path", "slug", "page"))
        refs = [PageRef(paths[n], slugs[n], pages[n], n) for n in docnums(s, And(clauses))]
        refs.sort(key=lambda r: (r.path, r.page))
        return PageCandidates(s, refs)

    def ranked(
        self,
        query_text: str,
        limit: int,
        slug: str | None = None,
        pages: tuple[int, int] | None = None,
        any_word: bool = False,
    ) -> tuple[int, list[PageHit], set[str]]:
        """BM25F over page text with Whoosh query syntax; returns (total hits, top hits,
        the index terms the query stands for, to mark in snippets).

        Words are all required, unless `any_word` (natural-language questions): then pages
        holding more of them rank higher."""
        group = OrGroup.factory(0.9) if any_word else AndGroup
        parser = QueryParser("content", self._ix.schema, group=group)
        parser.add_plugin(FuzzyTermPlugin())
        try:
            parsed = parser.parse(query_text)
        except Exception as exc:  # whoosh raises assorted errors on odd syntax
            raise InvalidQuery(f"cannot parse query {query_text!r}: {exc}") from exc
        s = self.searcher()
        query = self._expand_fuzzy(parsed, s)
        clauses: list[Query] = [query]
        if slug:
            clauses.append(Term("slug", slug))
        if pages:
            clauses.append(NumericRange("page", pages[0], pages[1]))
        # Masking the few catalog records is cheaper than intersecting every page.
        results = s.search(And(clauses), limit=limit, mask=self._not_pages(s))
        hits = [
            PageHit(hit["path"], hit["slug"], hit["page"], hit.score, "", hit["text"])
            for hit in results
        ]
        terms = {
            text.decode() if isinstance(text, bytes) else text
            for field, text in query.existing_terms(s.reader(), expand=True)
            if field == "content"
        }
        return len(results), hits, terms

    def elements(self, slug: str) -> list[dict]:
        """Every element of a document, in page order."""
        s = self.searcher()
        found = [
            s.stored_fields(n)["record"]
            for n in docnums(s, And([Term("kind", ELEMENT), Term("eslug", slug)]))
        ]
        return sorted(found, key=lambda e: (e["page"], e["bbox"][1], e["label"]))

    def search_elements(
        self,
        query_text: str,
        limit: int,
        kind: str | None = None,
        slug: str | None = None,
        captions_only: bool = False,
    ) -> tuple[int, list[tuple[dict, float]]]:
        """BM25F over element labels, captions and surrounding text (or only labels and
        captions); more words matched rank higher (no word is required).
        Returns (total, [(element, score)])."""
        fields = ["ecaption"] if captions_only else ["ecaption", "etext"]
        parser = MultifieldParser(fields, self._ix.schema, group=OrGroup.factory(0.9))
        try:
            parsed = parser.parse(query_text)
        except Exception as exc:
            raise InvalidQuery(f"cannot parse query {query_text!r}: {exc}") from exc
        clauses: list[Query] = [parsed, Term("kind", ELEMENT)]
        if kind:
            clauses.append(Term("etype", kind))
        if slug:
            clauses.append(Term("eslug", slug))
        s = self.searcher()
        results = s.search(And(clauses), limit=limit)
        return len(results), [(hit["record"], hit.score) for hit in results]

    def prefix_is_narrow(self, prefix: str, most: int = 8) -> bool:
        """Whether at most `most` index words start with `prefix`."""
        words = self.searcher().reader().expand_prefix("content", prefix)
        return sum(1 for _ in zip(words, range(most + 1), strict=False)) <= most

    def similar_terms(self, word: str, maxdist: int) -> list[str]:
        """Index terms within `maxdist` edits of `word` (the word itself if present)."""
        reader = self.searcher().reader()
        if maxdist == 0:
            return [word] if (("content", word)) in reader else []
        return self._terms_within(reader, word, maxdist)

    def _terms_within(self, reader: Any, word: str, maxdist: int, prefix: int = 0) -> list[str]:
        """Index words within `maxdist` edits of `word` (a transposition is one edit, as in
        Whoosh) that share its first `prefix` letters. rapidfuzz over the vocabulary takes
        ~4 ms where Whoosh's automaton walk (`terms_within`, pure Python) takes ~400 ms on
        36,000 words, with the same answer."""
        vocabulary = self._vocabulary(reader)
        if prefix:
            vocabulary = [w for w in vocabulary if w.startswith(word[:prefix])]
        found = process.extract(
            word, vocabulary, scorer=OSA.distance, score_cutoff=maxdist, limit=None
        )
        return sorted(match for match, _distance, _index in found)

    def _not_pages(self, searcher: Searcher) -> set[int]:
        """Document numbers of catalog records and elements, once per index generation.

        A plain set, not a mask query: Whoosh turns a query mask into a bitset whose
        truth test scans every byte, once per hit, when it counts the results (80% of a
        common word's search time)."""
        generation = searcher.reader().generation()
        with self._caches_lock:
            if self._not_pages_cache[0] != generation or generation < 0:
                others = Or([Term("kind", FILE), Term("kind", ELEMENT)])
                self._not_pages_cache = (generation, set(docnums(searcher, others)))
            return self._not_pages_cache[1]

    def _vocabulary(self, reader: Any) -> list[str]:
        """Every word of the page text, read once per index generation."""
        generation = reader.generation()
        with self._caches_lock:
            if self._vocabulary_cache[0] != generation or generation < 0:
                words = [
                    w.decode("utf-8") if isinstance(w, bytes) else w
                    for w in reader.lexicon("content")
                ]
                self._vocabulary_cache = (generation, words)
            return self._vocabulary_cache[1]

    def _expand_fuzzy(self, query: Query, searcher: Searcher) -> Query:
        """Replace each fuzzy term by the real terms within its distance.

        Whoosh otherwise re-expands per segment and per highlight, which costs seconds
        on a multi-segment index (FINDINGS.md).
        """
        from whoosh.query import FuzzyTerm

        def expand(q: Query) -> Query:
            if isinstance(q, FuzzyTerm):
                reader = searcher.reader()
                if q.fieldname == "content":
                    words = self._terms_within(reader, q.text, q.maxdist, q.prefixlength)
                else:
                    words = list(
                        reader.terms_within(q.fieldname, q.text, q.maxdist, q.prefixlength)
                    )
                if not words:
                    return Term(q.fieldname, q.text)
                return Or([Term(q.fieldname, w) for w in sorted(words)])
            if q.is_leaf():
                return q
            return q.apply(expand)

        return expand(query)

    # -- writing -------------------------------------------------------------------

    @contextmanager
    def writer(self, timeout: float, clear: bool = False) -> Iterator[StoreWriter]:
        """A writer holding the index lock; commits on success, cancels on error."""
        try:
            raw = self._ix.writer(timeout=timeout, limitmb=256)
        except LockError as exc:
            raise IndexLocked(
                f"another pdfindex process is writing the index in {self.folder} "
                f"(waited {timeout:g} s); try again when it has finished"
            ) from exc
        wrapped = StoreWriter(raw)
        try:
            yield wrapped
        except BaseException:
            raw.cancel()
            raise
        else:
            if clear:
                raw.commit(mergetype=CLEAR)
            elif wrapped.changed:
                raw.commit(optimize=len(self._ix._segments()) > 12)
            else:
                raw.cancel()  # no new generation: readers keep their searchers

    def size_bytes(self) -> int:
        return sum(f.stat().st_size for f in self.whoosh_dir.iterdir() if f.is_file())

    def segment_count(self) -> int:
        return len(self._ix._segments())

    def close(self) -> None:
        searcher = getattr(self._local, "searcher", None)
        if searcher is not None:
            searcher.close()
        self._ix.close()


class StoreWriter:
    """Adds and removes files (catalog record + pages) inside one commit."""

    def __init__(self, raw: Any) -> None:
        self._raw = raw
        self.changed = False

    def add_file(self, record: FileRecord, pages: list[str], index_text: list[str]) -> None:
        """`index_text` is what gets tokenised per page (page text plus joined hyphenations)."""
        self.changed = True
        for number, (text, indexed) in enumerate(zip(pages, index_text, strict=True), start=1):
            self._raw.add_document(
                kind=PAGE,
                path=record.path,
                slug=record.slug,
                page=number,
                content=indexed,
                text=text,
            )
        self._raw.add_document(kind=FILE, path=record.path, record=asdict(record))

    def set_elements(self, record: FileRecord, elements: list[dict]) -> None:
        """Replace a file's elements (pdfindex.elements.Element dicts) and its record."""
        self._raw.delete_by_query(And([Term("kind", ELEMENT), Term("path", record.path)]))
        self.add_elements(record, elements)
        self.replace_record(record)

    def add_elements(self, record: FileRecord, elements: list[dict]) -> None:
        self.changed = True
        for element in elements:
            self._raw.add_document(
                kind=ELEMENT,
                path=record.path,
                eslug=record.slug,
                etype=element["kind"],
                page=element["page"],
                ecaption=f"{element['label']}\n{element['caption']}",
                etext=f"{element['kind']}\n{element['context']}",
                record={**element, "slug": record.slug, "path": record.path},
            )

    def remove_file(self, path: str) -> None:
        self.changed = True
        self._raw.delete_by_term("path", path)

    def replace_record(self, record: FileRecord) -> None:
        """New catalog data (mtime after a touch) for a file whose pages stay."""
        self.changed = True
        self._raw.delete_by_query(And([Term("kind", FILE), Term("path", record.path)]))
        self._raw.add_document(kind=FILE, path=record.path, record=asdict(record))
