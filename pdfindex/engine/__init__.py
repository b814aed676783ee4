"""The persistent index behind one interface: the Engine and EngineWriter protocols.

Everything above this package (indexer, search, tools, fronts) talks to an Engine and
the engine-neutral records of `pdfindex.models`; queries arrive as `pdfindex.query`
trees, which each engine compiles for itself. Each engine is a subpackage here, the only
one that imports its library, and exports `open_index(settings) -> Engine`; nothing outside
it names its library. An engine in a folder of its own serves one files folder; a server
engine (postgres) can hold a library that several folders feed, each under its own source
name (pdfindex.indexer.sources): `Engine.shared` and the source methods say which, and
the embedded engines take their plain answers from `OneFolder` and `OneFolderWriter`.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager
from typing import NamedTuple, Protocol

from pdfindex.config import Settings
from pdfindex.errors import ConfigError
from pdfindex.models import ElementRecord, FileRecord, PageHit, PageRef
from pdfindex.query import Node, Or, Phrase, Prefix, Term

SERVER_ENGINES = ("postgres",)  # keep the index in a database server, not in a folder


def engines() -> list[str]:
    """The engines this installation has: the subpackages of pdfindex.engine."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg)


def embedded_engines() -> list[str]:
    """The engines that keep their index in a folder of their own: nothing to run."""
    return [name for name in engines() if name not in SERVER_ENGINES]


def candidate_nodes(
    terms: list[str] | None = None,
    prefixes: list[str] | None = None,
    any_of: list[list[str]] | None = None,
    phrases: list[list[str]] | None = None,
) -> list[Node]:
    """`Engine.candidates`' filters as query nodes, all required, for an engine to compile."""
    nodes: list[Node] = [Term(t) for t in terms or []]
    nodes += [Prefix(p) for p in prefixes or []]
    nodes += [Or(tuple(Term(w) for w in group)) for group in any_of or []]
    nodes += [Phrase(tuple(words)) for words in phrases or []]
    return nodes


class RankedPages(NamedTuple):
    """Ranked page hits: how many pages match, the best ones, and the index words the
    query stood for (prefixes and typos expanded) so snippets can mark them."""

    total: int
    hits: list[PageHit]
    terms: set[str]


class PageCandidates(Protocol):
    """Pages found by the index in (path, page) order, their text loaded on demand from
    the same index generation that found them."""

    refs: list[PageRef]

    def text(self, ref: PageRef) -> str: ...

    def page_text(self, slug: str, page: int) -> str | None:
        """Any page of a document (the neighbours of a match, for its context)."""
        ...

    def finished(self) -> None:
        """The reader is done: what reading the pages held (their texts, the index's
        stored texts mapped into the process) can go."""
        ...


class EngineWriter(Protocol):
    """Changes that land together in one commit (or not at all)."""

    changed: bool

    def add_file(self, record: FileRecord, pages: list[str], index_text: list[str]) -> None:
        """A file's catalog record and pages; `index_text` is what gets tokenised per page
        (page text plus re-joined hyphenations), `pages` what is stored and shown."""
        ...

    def replace_file(self, record: FileRecord, pages: list[str], index_text: list[str]) -> None:
        """Whatever the index held at `record.path` (record, pages, elements), replaced."""
        ...

    def remove_file(self, path: str) -> None:
        """A file's record, pages and elements."""
        ...

    def will_add(self, paths: Iterable[str]) -> None:
        """The files this run is about to add or replace, over one commit or several: an
        engine that keeps the files' order (Tantivy's places) spreads the new ones now."""
        ...

    def commit_so_far(self) -> bool:
        """Commit what this writer wrote and go on writing with it; False where the
        engine commits only as the writer closes (the caller closes it and opens another)."""
        ...

    def replace_record(self, record: FileRecord) -> None:
        """New catalog data for a file whose pages stay (mtime after a touch)."""
        ...

    def add_elements(self, record: FileRecord, elements: list[ElementRecord]) -> None: ...

    def set_elements(self, record: FileRecord, elements: list[ElementRecord]) -> None:
        """A file's elements replaced, and its record with them."""
        ...

    # -- a library several folders feed (Engine.shared)
    def claim_source(
        self, source: str, host: str, folder: str, take_over: bool = False
    ) -> tuple[str, str] | None:
        """Record that `folder` on `host` feeds `source`; when another folder does, its
        (host, folder) instead, unless `take_over`. None for an engine of one folder."""
        ...

    def forget_source(self, source: str) -> None:
        """`source` no longer fed by any folder (its records are gone or renamed)."""
        ...


class Engine(Protocol):
    """One index folder: catalog records, pages, elements, vocabulary, one writer."""

    name: str
    recovered: str | None  # why the index was found damaged and started empty at open
    # Whether each Chinese or Japanese character is an index word of its own
    # (pdfindex.text.words.words): exact search may then require the query's. False only for a
    # Whoosh index written before, whose analyzer (kept in the index) made runs of them one word.
    splits_cjk: bool
    # Whether several files folders may feed this index, each under its own source name
    # (pdfindex.indexer.sources): False for an index in a folder of its own.
    shared: bool

    # -- the catalog
    def generation(self) -> int:
        """Changes with every commit (a value per commit seen, not a count); negative
        when the engine cannot tell: then nothing may be kept from one call to the next."""
        ...

    def catalog(self) -> dict[str, FileRecord]:
        """path -> record, every record decoded afresh on each call (each caller's own):
        for what needs them all (stats, listings, a whole rescan). The common paths read
        one record at a time (record, record_by_slug, records_starting)."""
        ...

    def records(self) -> Iterator[FileRecord]:
        """Every record, decoded one at a time as the caller goes: counts over the whole
        catalog (stats) without holding it (Tantivy; the others may decode it first)."""
        ...

    def record(self, path: str) -> FileRecord | None: ...

    def records_starting(self, prefix: str) -> list[FileRecord]:
        """The records whose path starts with `prefix` (a folder's `a/`, an archive's
        `a.zip/`, a stem's `a/b.`), in path order, decoded afresh: what a change under
        one folder or a name without extension needs, without the whole catalog (at
        40,000 files decoding it costs seconds and ~200 MB)."""
        ...

    def indexed_pages(self) -> int:
        """Pages in the index (its page documents), without reading the catalog: the
        pages of its ok and empty records, each written together with its pages. A new
        process's first search counts them (ranking's IDF), where decoding the catalog of
        48,000 pages cost it ~50 ms."""
        ...

    def record_by_slug(self, slug: str) -> FileRecord | None: ...

    # -- pages
    def page_texts(self, slug: str) -> list[str]:
        """All page texts of a document, in page order."""
        ...

    def candidates(
        self,
        slug: str | None = None,
        terms: list[str] | None = None,
        prefixes: list[str] | None = None,
        any_of: list[list[str]] | None = None,
        path: str | None = None,
        phrases: list[list[str]] | None = None,
        pieces: list[str] | None = None,
    ) -> PageCandidates:
        """Pages holding all `terms`, a word starting with each of `prefixes`, one word of
        each group in `any_of` and each phrase, of one document (`slug`) or under `path`
        (a file, or a folder ending in '/'); unscored. `pieces`
        (pdfindex.text.substrings.query_pieces) are strings each page's plain form holds:
        an engine with n-grams narrows by them, any other may ignore them."""
        ...

    def ranked(
        self,
        query: Node,
        limit: int,
        slug: str | None = None,
        pages: tuple[int, int] | None = None,
    ) -> RankedPages:
        """BM25F over page text, best first, of one document and a page range if given."""
        ...

    # -- elements (figures, tables, equations)
    def elements(self, slug: str) -> list[ElementRecord]:
        """Every element of a document, in page order."""
        ...

    def search_elements(
        self,
        query: Node,
        limit: int,
        kind: str | None = None,
        slug: str | None = None,
        captions_only: bool = False,
    ) -> tuple[int, list[tuple[ElementRecord, float]]]:
        """BM25F over labels and captions (and the text around, unless `captions_only`):
        (total, [(element, score)])."""
        ...

    # -- vocabulary
    def similar_terms(self, word: str, maxdist: int) -> list[str]:
        """Index words within `maxdist` edits of `word` (a transposition is one edit)."""
        ...

    def prefix_is_narrow(self, prefix: str, most: int = 8) -> bool:
        """Whether at most `most` index words start with `prefix`."""
        ...

    # -- writing and upkeep
    def writer(self, timeout: float, clear: bool = False) -> AbstractContextManager[EngineWriter]:
        """The only writer (waits up to `timeout` s for another process's, then raises
        IndexLocked); commits on success, cancels on error; `clear` starts empty."""
        ...

    def size_bytes(self) -> int: ...

    def segment_count(self) -> int: ...

    def close(self) -> None: ...

    # -- a library several folders feed (`shared`)
    def use_source(self, source: str) -> None:
        """Write as `source`: its own writer lock, so other sources write meanwhile."""
        ...

    def sources(self) -> dict[str, tuple[str, str]]:
        """Each source of the library: (host, folder) of the folder feeding it."""
        ...


class OneFolder:
    """The shared-library part of Engine for an index in a folder of its own: one files
    folder feeds it, so there are no sources to keep apart."""

    shared = False

    def use_source(self, source: str) -> None:
        """Nothing to do: one writer lock, one folder."""

    def sources(self) -> dict[str, tuple[str, str]]:
        return {}


class OneFolderWriter:
    """The shared-library part of EngineWriter for an index in a folder of its own."""

    def will_add(self, paths: Iterable[str]) -> None:
        """Nothing to plan, unless the engine's writer says otherwise."""

    def commit_so_far(self) -> bool:
        return False  # commits as the writer closes

    def claim_source(
        self, source: str, host: str, folder: str, take_over: bool = False
    ) -> tuple[str, str] | None:
        return None  # nobody else writes this index

    def forget_source(self, source: str) -> None:
        """Nothing to do: no sources recorded."""


def open_engine(settings: Settings) -> Engine:
    """The engine `settings.engine` over the index in `settings.index_dir` (created when
    missing); each engine keeps its index in a folder of its own there, so a switch starts
    it empty and the next reindex fills it from the extraction cache. Each engine's
    `open_index(settings)` takes from the settings what it needs (the writer's memory, a
    database and its replica)."""
    name, known = settings.engine, engines()
    if name not in known:
        raise ConfigError(f"unknown index engine {name!r}: choose one of {', '.join(known)}")
    try:
        module = importlib.import_module(f"{__name__}.{name}")
    except ImportError as exc:  # an optional engine whose library is not installed
        raise ConfigError(
            f"the {name} engine needs {exc.name}: pip install 'pdfindex[{name}]'"
        ) from exc
    engine: Engine = module.open_index(settings)
    return engine


__all__ = [
    "engines",
    "Engine",
    "EngineWriter",
    "OneFolder",
    "OneFolderWriter",
    "PageCandidates",
    "RankedPages",
    "open_engine",
]
