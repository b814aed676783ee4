"""The persistent index behind one interface: the Engine and EngineWriter protocols.

Everything above this package (indexer, search, tools, fronts) talks to an Engine and
the engine-neutral records of `pdfindex.models`; queries arrive as `pdfindex.query`
trees, which each engine compiles for itself. Each engine is a subpackage here, the only
one that imports its library, and exports `open_index(folder) -> Engine`; nothing outside
it names its library.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from pdfindex.errors import ConfigError
from pdfindex.models import FileRecord, PageHit, PageRef
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

    def replace_record(self, record: FileRecord) -> None:
        """New catalog data for a file whose pages stay (mtime after a touch)."""
        ...

    def add_elements(self, record: FileRecord, elements: list[dict[str, Any]]) -> None: ...

    def set_elements(self, record: FileRecord, elements: list[dict[str, Any]]) -> None:
        """A file's elements replaced, and its record with them."""
        ...


class Engine(Protocol):
    """One index folder: catalog records, pages, elements, vocabulary, one writer."""

    name: str
    recovered: str | None  # why the index was found damaged and started empty at open
    # Whether each Chinese or Japanese character is an index word of its own
    # (pdfindex.query.words): exact search may then require the query's. False only for a
    # Whoosh index written before, whose analyzer (kept in the index) made runs of them one word.
    splits_cjk: bool

    # -- the catalog
    def generation(self) -> int:
        """Changes with every commit (a value per commit seen, not a count); negative
        when the engine cannot tell: then nothing may be kept from one call to the next."""
        ...

    def catalog(self) -> dict[str, FileRecord]:
        """path -> record; decoded once per generation, its records shared by every reader
        (read-only). The thread holding this engine's writer gets records of its own."""
        ...

    def record(self, path: str) -> FileRecord | None: ...

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
    ) -> PageCandidates:
        """Pages holding all `terms`, a word starting with each of `prefixes`, one word of
        each group in `any_of` and each phrase, of one document (`slug`) or under `path`
        (a file, or a folder ending in '/'); unscored."""
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
    def elements(self, slug: str) -> list[dict[str, Any]]:
        """Every element of a document, in page order."""
        ...

    def search_elements(
        self,
        query: Node,
        limit: int,
        kind: str | None = None,
        slug: str | None = None,
        captions_only: bool = False,
    ) -> tuple[int, list[tuple[dict[str, Any], float]]]:
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


DEFAULT_ENGINE = "tantivy"


def open_engine(
    index_dir: Path,
    name: str = DEFAULT_ENGINE,
    writer_memory_mb: int = 0,
    database_url: str = "",
    read_url: str = "",
) -> Engine:
    """The engine `name` over the index in `index_dir` (created when missing); each engine
    keeps its index in a folder of its own there, so a switch starts it empty and the
    next reindex fills it from the extraction cache. `writer_memory_mb` bounds what its
    writer buffers (0: the engine's default); `database_url` names the database of an
    engine that keeps its index in one (postgres), which the embedded engines ignore, and
    `read_url` a streaming replica of it to read from."""
    known = engines()
    if name not in known:
        raise ConfigError(f"unknown index engine {name!r}: choose one of {', '.join(known)}")
    try:
        module = importlib.import_module(f"{__name__}.{name}")
    except ImportError as exc:  # an optional engine whose library is not installed
        raise ConfigError(
            f"the {name} engine needs {exc.name}: pip install 'pdfindex[{name}]'"
        ) from exc
    takes = inspect.signature(module.open_index).parameters
    urls = {"database_url": database_url, "read_url": read_url}
    options = {key: value for key, value in urls.items() if key in takes}
    engine: Engine = module.open_index(index_dir, writer_memory_mb=writer_memory_mb, **options)
    return engine


__all__ = [
    "engines",
    "Engine",
    "EngineWriter",
    "PageCandidates",
    "RankedPages",
    "open_engine",
]
