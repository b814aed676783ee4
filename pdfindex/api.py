"""The library front: one object that the CLI and the MCP server both drive.

The indexer (and with it the extraction and element-detection code), the live updater,
the adapter registry, the document resolver (rapidfuzz), exact search and the page
workers (multiprocessing) load on first use, so a process that only searches (`pdfindex
search`) starts fast: tests/test_cli_imports.py lists what it must not load.
"""

from __future__ import annotations

import importlib
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pdfindex.config import Settings
from pdfindex.config.masking import without_password
from pdfindex.engine import RankedPages, open_engine
from pdfindex.errors import (
    ConfigError,
    DocumentNotFound,
    IndexLocked,
    PathOutsideFiles,
    PdfIndexError,
    SourceUnreachable,
)
from pdfindex.memory import fresh_copy, release_freed_memory
from pdfindex.models import ExactMatch, FileRecord, FileStatus, PageHit, Summary
from pdfindex.paths import check_extra_folders, check_folders, relative_posix, resolve_inside
from pdfindex.search.pages import page_range, parse_pages
from pdfindex.search.ranked import ranked_pages, ranked_search

if TYPE_CHECKING:
    import logging

    from pdfindex.extract.cache import ExtractionCache
    from pdfindex.indexer.live import LiveIndex
    from pdfindex.indexer.progress import Progress, Step
    from pdfindex.indexer.sources import Scope
    from pdfindex.indexer.update import Indexer
    from pdfindex.query import Node
    from pdfindex.semantic.library import Semantic
    from pdfindex.semantic.rerank import Reranker
    from pdfindex.workers import IsolatedCalls


def _log() -> logging.Logger:
    """This module's logger: logging (~3 ms to load) loads only when there is
    something to log, never in a search."""
    import logging

    return logging.getLogger(__name__)


T = TypeVar("T")


class PdfIndex:
    """An open index over a files folder."""

    def __init__(
        self, settings: Settings, rebuild: bool = True, refilled_by: str | None = None
    ) -> None:
        """Open the index; one found damaged (or of an older format) is started empty and,
        with `rebuild`, refilled now from the extraction cache. Without, `refilled_by`
        names what refills it (the log says so): `serve`'s start-up scan while the tools
        already answer, or the `reindex` that opened it, with that run's own options
        (`--elements-later` included)."""
        self.settings = settings
        check_folders(settings.root, settings.files_dir, settings.index_dir)
        check_extra_folders(settings.files_dir, settings.index_dir, settings.folders)
        if settings.custom_adapters:  # the adapter registry loads only to check them
            from pdfindex.extract.adapters import check_custom

            check_custom(settings.custom_adapters)
        try:
            settings.index_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot create index folder {settings.index_dir}: {exc}") from exc
        if not os.access(settings.index_dir, os.W_OK):
            raise ConfigError(f"index folder {settings.index_dir} is not writable")
        self.engine = open_engine(settings)
        self._cache: ExtractionCache | None = None
        self._indexer: Indexer | None = None
        self._live: LiveIndex | None = None
        self._semantic: Semantic | None = None
        self._reranker: Reranker | None = None
        # Values derived from the catalog (counts, names), kept for one index generation
        self._derived: dict[str, Any] = {}
        self._derived_generation = -1
        self._derived_lock = threading.Lock()
        # lagging(): key -> (generation, value), and the keys a thread is computing again
        self._lagging: dict[str, tuple[int, Any]] = {}
        self._refreshing: set[str] = set()
        self._lagging_lock = threading.Lock()
        self._first_lagging = threading.Lock()  # one first computation at a time
        self._pages: tuple[int, int] = (-1, 0)  # (generation, indexed pages) of pages()
        self._isolated: IsolatedCalls | None = None
        damage = self.engine.recovered
        if damage and rebuild:
            self._rebuild(damage)
        elif damage:
            _log().warning(
                "the index in %s was damaged or older (%s): started it empty; %s refills it "
                "from the extraction cache",
                settings.index_dir / self.engine.name,
                damage,
                refilled_by or "the start-up scan",
            )

    def _rebuild(self, damage: str) -> None:
        """Refill an index that was found damaged (and started empty) from the extraction
        cache, which holds every file's text: no PDF is parsed again."""
        where = self.settings.index_dir / self.engine.name
        try:
            summary = self.reindex()
        except IndexLocked:  # another process opened it first and is refilling it
            _log().warning(
                "the index in %s was damaged (%s): another process is rebuilding it", where, damage
            )
            return
        _log().warning(
            "the index in %s was damaged or older (%s): rebuilt it (%d files: %d from the "
            "extraction cache, %d parsed)",
            where,
            damage,
            summary.added,
            summary.from_cache,
            summary.parsed,
        )

    @property
    def isolated(self) -> IsolatedCalls:
        """Killable processes that render and convert pages, made on first use (their
        workers start at the first call): a search never loads multiprocessing."""
        if self._isolated is None:
            from pdfindex.memory import PAGE_WORKERS, worker_memory_mb
            from pdfindex.workers import IsolatedCalls

            self._isolated = IsolatedCalls(
                PAGE_WORKERS,
                worker_memory_mb(self.settings.memory_mb, self.settings.worker_count),
                preload=("pdfindex.extract.adapters.pdfium",),
            )
        return self._isolated

    @isolated.setter
    def isolated(self, pool: IsolatedCalls) -> None:
        self._isolated = pool

    @property
    def cache(self) -> ExtractionCache:
        if self._cache is None:
            from pdfindex.extract.cache import ExtractionCache

            self._cache = ExtractionCache(self.settings.index_dir / "cache")
        return self._cache

    @property
    def indexer(self) -> Indexer:
        if self._indexer is None:
            from pdfindex.indexer.update import Indexer

            self._indexer = Indexer(self.settings, self.engine, self.cache)
        return self._indexer

    @property
    def semantic(self) -> Semantic | None:
        """The page embeddings (setting `semantic`), loaded on first use; None when off,
        so a process without it never imports the model's libraries."""
        if not self.settings.semantic:
            return None
        if self._semantic is None:
            self._semantic = _extra("library").Semantic(self.settings, self.engine)
        return self._semantic

    @property
    def reranker(self) -> Reranker | None:
        """The cross-encoder of `rerank_model` (its model loads at the first question);
        None when unset."""
        if not self.settings.rerank_model.strip():
            return None
        if self._reranker is None:
            rerank = _extra("rerank", "rerank_model", "fastembed")
            self._reranker = rerank.Reranker(self.settings.rerank_model)
        return self._reranker

    def ranked(
        self, query: str, tree: Node, limit: int, slug: str | None = None, snippets: bool = True
    ) -> tuple[RankedPages, str]:
        """Ranked pages for a user's query and the ranking used: BM25, or with the
        semantic extra hybrid and / or re-ranked (`pdfindex.semantic.rerank.ranked`)."""
        semantic, reranker = self.semantic, self.reranker
        if semantic is None and reranker is None:
            return ranked_pages(self.engine, tree, limit, slug=slug, snippets=snippets), "bm25"
        rank = _extra("rerank", "rerank_model", "fastembed").ranked
        return rank(self.engine, semantic, reranker, query, tree, limit, slug, snippets)

    def rank_elements(
        self, query: str, hits: list[tuple[dict[str, Any], float]], limit: int
    ) -> tuple[list[tuple[dict[str, Any], float]], str]:
        """Elements found by BM25, re-ordered with their page's similarity to the query
        when `semantic` is on and the query a question; and the ranking used."""
        semantic = self.semantic
        if semantic is not None:
            from pdfindex.semantic.fusion import applies, hybrid_elements
        if semantic is None or not applies(query):
            return hits[:limit], "bm25"
        return hybrid_elements(semantic, query, hits, limit), semantic.label()

    def live(
        self,
        watch: bool = True,
        quiet: float = 1.0,
        on_summary: Callable[[Summary], None] | None = None,
        on_step: Callable[[Step], None] | None = None,
    ) -> LiveIndex:
        """A live index over this one (call `.start()`): catch-up scan, then the watcher."""
        from pdfindex.indexer.live import LiveIndex

        self._live = LiveIndex(
            self.indexer, watch=watch, quiet=quiet, on_summary=on_summary, on_step=on_step
        )
        return self._live

    def indexing(self) -> str | None:
        """What the live updater is doing now, in words (`start-up scan: indexing 120 of
        300 files (page text)`), or None when it is idle or there is none. Never waits."""
        live = self._live
        if live is None or not live.pending:
            return None
        run = "start-up scan" if not live.caught_up.is_set() else "update"
        step = live.step
        if step is None:
            return f"{run}: looking for changed files"
        what = "page text" if step.stage == "text" else "figures, tables and equations"
        current = f", last {step.path}" if step.path else ""
        return f"{run}: indexing {step.done} of {step.total} files ({what}{current})"

    def indexing_note(self) -> str:
        """A sentence to add to 'not found' answers while indexing is under way."""
        doing = self.indexing()
        return f" (indexing is under way: {doing}; retry shortly)" if doing else ""

    def close(self) -> None:
        if self._semantic is not None:
            self._semantic.stop()
        if self._isolated is not None:
            self._isolated.close()
        self.engine.close()

    # -- indexing ------------------------------------------------------------------

    def reindex(
        self,
        full: bool = False,
        progress: Progress | None = None,
        commit_interval: float = 60.0,
        should_stop: Callable[[], bool] | None = None,
        elements_should_stop: Callable[[], bool] | None = None,
        take_over_source: bool = False,
        elements_later: bool = False,
        ocr_later: bool = False,
    ) -> Summary:
        if self._semantic is not None:
            self._semantic.changed()  # its vectors are checked against the new catalog
        return self.indexer.reindex(
            full=full,
            progress=progress,
            commit_interval=commit_interval,
            should_stop=should_stop,
            elements_should_stop=elements_should_stop,
            take_over_source=take_over_source,
            elements_later=elements_later,
            ocr_later=ocr_later,
        )

    def per_generation(self, key: str, derive: Callable[[Any], T], one_by_one: bool = False) -> T:
        """`derive(catalog)`, computed once per index generation (the engine's, which
        changes with every commit) and kept under `key` until the next: counts and names
        for calls that would otherwise go through every record each time. What it
        returns is shared by every caller: not to be changed. The records themselves are
        not kept (at 40,000 files, ~200 MB for as long as no commit came): each key
        decodes the catalog once per generation, and the freed heap goes back. With
        `one_by_one`, `derive` gets the records as an iterable instead, one at a time
        (Engine.records): none held together."""
        generation = self.engine.generation()  # before the catalog: see Engine.catalog
        with self._derived_lock:
            if generation < 0 or generation != self._derived_generation:
                self._derived = {}
                self._derived_generation = generation
            if key not in self._derived:
                if one_by_one:  # kept apart from the records it was counted among
                    self._derived[key] = fresh_copy(derive(self.engine.records()))
                else:
                    self._derived[key] = derive(self.engine.catalog())
                release_freed_memory()
            value: T = self._derived[key]
            return value

    def lagging(self, key: str, derive: Callable[[Iterable[FileRecord]], T]) -> T:
        """`derive` over the records one at a time, as per_generation(one_by_one=True) has
        it, for what may lag a commit by a moment (the document names a question may use):
        after a commit the value of before is answered while a thread computes the new
        one. Going through every record made the first query_documents after each commit
        wait 1.5 s at a million pages. The first call computes it."""
        generation = self.engine.generation()
        if generation < 0:  # no generation to tell values apart by: computed each time
            return fresh_copy(derive(self.engine.records()))
        with self._lagging_lock:
            known = self._lagging.get(key)
            if known is not None and known[0] != generation and key not in self._refreshing:
                self._refreshing.add(key)
                threading.Thread(
                    target=self._refresh,
                    args=(key, derive, generation),
                    name=f"pdfindex-{key}",
                    daemon=True,
                ).start()
            if known is not None:
                kept: T = known[1]
                return kept
        with self._first_lagging:  # a caller arriving meanwhile (serve's warm-up) waits
            with self._lagging_lock:
                known = self._lagging.get(key)
            if known is not None:
                return cast(T, known[1])
            value = fresh_copy(derive(self.engine.records()))
            with self._lagging_lock:
                self._lagging[key] = (generation, value)
        release_freed_memory()
        return value

    def _refresh(
        self, key: str, derive: Callable[[Iterable[FileRecord]], Any], generation: int
    ) -> None:
        try:
            value = fresh_copy(derive(self.engine.records()))
            with self._lagging_lock:
                self._lagging[key] = (generation, value)
        except Exception:  # the index closed or failed meanwhile: the next call tries again
            _log().debug("computing %s again failed", key, exc_info=True)
        finally:
            with self._lagging_lock:
                self._refreshing.discard(key)
            release_freed_memory()

    def pages(self) -> int:
        """The pages of the library (as `stats` counts them: its ok and empty records'),
        counted by the engine without reading the catalog, once per index generation."""
        generation = self.engine.generation()
        known, count = self._pages
        if generation < 0 or generation != known:
            count = self.engine.indexed_pages()
            self._pages = (generation, count)
        return count

    def stats(self) -> dict[str, Any]:
        from pdfindex.indexer.figures import catalog_figures

        figures = self.per_generation("stats", catalog_figures, one_by_one=True)
        last = figures["last"]
        return {
            "documents": figures["documents"],
            "pages": figures["pages"],
            "by_status": dict(figures["by_status"]),
            "problems": [dict(problem) for problem in figures["problems"]],
            "index_bytes": self.engine.size_bytes(),
            "cache_bytes": self.cache.size_bytes(),
            "segments": self.engine.segment_count(),
            "last_update": (
                time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(last)) if last else None
            ),
            "files_dir": str(self.settings.files_dir),
            "folders": self.folder_figures(figures["by_folder"]),
            "index_dir": str(self.settings.index_dir),
            # postgres: the index is in the database; index_dir keeps the extraction cache
            "database": (
                without_password(self.settings.database_url)
                if self.engine.name == "postgres"
                else None
            ),
            # the standby that searches read, when one is set (read_url)
            "read_database": (
                without_password(self.settings.read_url)
                if self.engine.name == "postgres" and self.settings.read_url
                else None
            ),
            "extractor": self.settings.extractor,
            "engine": self.engine.name,
            "ocr": self._ocr_status(figures["ocr"]),
            "elements": dict(figures["elements"]),
            "elements_pending": figures["elements_pending"],
            "elements_documents": figures["elements_documents"],  # PDFs the pass is for
            "semantic": self.semantic.status() if self.semantic is not None else None,
        }

    def ocr_status(self, records: Iterable[FileRecord]) -> dict[str, Any]:
        """OCR in one place (not per page): can it run, what it read, what it could not."""
        from pdfindex.indexer.figures import ocr_counts

        return self._ocr_status(ocr_counts(records))

    def _ocr_status(self, counts: tuple[int, int, int, int]) -> dict[str, Any]:
        """ocr_status from the records' (pages read, pages not read, files not read,
        pages OCR never ran on)."""
        from pdfindex.extract import ocr

        engine = ocr.engine(self.settings.ocr_lang, self.settings.ocr_engine)
        reason = (
            "OCR is switched off (ocr = false)"
            if not self.settings.ocr
            else ocr.unavailable_reason(self.settings.ocr_lang, self.settings.ocr_engine)
        )
        return {
            "enabled": self.settings.ocr,
            "language": self.settings.ocr_lang,
            "engine": engine.version or None,
            "unavailable": reason,
            "pages_read": counts[0],
            "pages_not_read": counts[1],
            "files_not_read": counts[2],
            # with OCR available, the next reindex, serve or watch reads these
            "pages_waiting": counts[3] if reason is None else 0,
        }

    def describe_ocr(self, info: dict[str, Any]) -> str:
        """One line on OCR for stats and get_library_status."""
        if info["unavailable"]:
            line = f"unavailable: {info['unavailable']}"
        else:
            line = f"{info['engine']}, language {info['language']}"
        line += f"; {info['pages_read']} pages read by OCR"
        waiting = info.get("pages_waiting", 0)
        if waiting:
            line += f"; {waiting} image pages wait for OCR (the next reindex, serve or watch)"
        if info["pages_not_read"] > waiting:
            line += (
                f"; {info['pages_not_read'] - waiting} image pages in {info['files_not_read']}"
                " files have no text layer and were not read (not searchable)"
            )
        return line

    # -- documents -----------------------------------------------------------------

    def resolve(self, user_path: str) -> tuple[Path, str]:
        """A client-given path as (real path, library path: the path under the files
        folder, `SOURCE/`-prefixed when sources are named); refuses any path outside the
        files folder (symlinks included) without reading it. Another source's path
        resolves in its folder from `source_folders` with the same checks, else raises
        SourceUnreachable."""
        real, path = self._place(user_path)
        if real is None:
            raise SourceUnreachable.about(path, path.partition("/")[0])
        return real, path

    def library_path(self, user_path: str) -> str:
        """The library path a client-given path names (as `resolve`, without needing
        another source's folder to be reachable)."""
        return self._place(user_path)[1]

    @property
    def folders(self) -> dict[str, Path]:
        """The folders beside the files folder that this process indexes, by source name:
        the `folders` setting's, and the client's roots once serve adds them."""
        return self._indexer.folders if self._indexer is not None else self.settings.folders

    def scope(self) -> Scope:
        """This folder's source in the library, and the library's other named sources."""
        from pdfindex.indexer.sources import scope_of

        also = set(self.settings.source_folders)
        return scope_of(self.settings.source, self.engine, also, set(self.folders))

    def folder_of(self, real: Path) -> Path:
        """The files folder or source folder holding the real path `real`."""
        others = (*self.folders.values(), *self.settings.source_folders.values())
        for folder in (self.settings.files_dir, *others):
            if real.is_relative_to(folder.resolve()):
                return folder
        return self.settings.files_dir

    def folder_figures(self, by_folder: dict[str, tuple[int, int]]) -> list[dict[str, Any]]:
        """Each folder this process indexes, with its documents and pages."""
        from pdfindex.indexer.sources import folder_figures

        return folder_figures(self.settings, self.folders, self.scope(), by_folder)

    def _place(self, user_path: str) -> tuple[Path | None, str]:
        """(real path or None where its source's folder is unknown here, library path)."""
        from pdfindex.indexer.sources import root_relative, split_named

        files = self.settings.files_dir
        folders = {**self.settings.source_folders, **self.folders}
        scope = self.scope()
        user_path = root_relative(self.settings, self.folders, user_path) or user_path
        if isinstance(user_path, str) and not user_path.startswith(("/", "~")):
            named = (
                set(scope.others) | set(scope.folders) | ({scope.source} if scope.source else set())
            )
            split = split_named(user_path, named)  # 'hostb/a.pdf': source hostb's a.pdf
            if split is not None:
                source, inside = split
                folder = files if source == scope.source else folders.get(source)
                if folder is None:
                    return None, source if inside == "." else f"{source}/{inside}"
                real = resolve_inside(folder, user_path.partition("/")[2] or ".")
                return real, _under(source, folder, real)
        try:
            real = resolve_inside(files, user_path)
        except PathOutsideFiles:  # an absolute path inside another source's folder?
            for source, folder in folders.items():
                try:
                    real = resolve_inside(folder, user_path)
                except PathOutsideFiles:
                    continue
                return real, _under(source, folder, real)
            raise
        return real, _under(scope.source, files, real, own=True)

    def find_record(self, name: str) -> FileRecord:
        """A document by any of its names (pdfindex.names); an unknown name gets the
        closest names in the error."""
        from pdfindex import names

        record = names.lookup(self, name.strip())
        if record is not None:
            return record
        try:
            real, rel = self.resolve(name.strip())
            why = self.not_read(rel) if real.is_file() else None
        except (SourceUnreachable, OSError):
            why = None
        if why is not None:  # on disk, never indexed: not "no indexed document"
            raise PdfIndexError(why)
        close = [r.path for r in names.closest(self, name)]
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise DocumentNotFound(
            f"no indexed document {name!r}{hint}. Give a path under the files folder, "
            "without extension, or a slug (list_documents or `pdfindex list` shows them)"
            + self.indexing_note()
        )

    def reads(self) -> tuple[str, ...]:
        """The extensions read here: the adapter registry's and the custom adapters'."""
        from pdfindex.extract.adapters import supported_extensions

        return supported_extensions(self.settings.custom_adapters)

    def not_read(self, rel: str) -> str | None:
        """Why the file `rel` is never indexed (a type no adapter reads), in the wording
        of pdfindex.names; None when an adapter reads it."""
        from pdfindex import names
        from pdfindex.extract.adapters import adapter_name_for

        s = self.settings
        if adapter_name_for(rel, s.extractor, s.custom_adapters) is not None:
            return None
        return names.unsupported(rel, self.reads())

    def is_indexed(self, name: str) -> bool:
        """Whether `name` (as find_record takes it) has a catalog record now."""
        from pdfindex import names

        try:
            return names.lookup(self, name.strip()) is not None
        except PdfIndexError:
            return False

    def documents(self) -> list[FileRecord]:
        """Every catalog record, by path."""
        return sorted(self.engine.catalog().values(), key=lambda r: r.path)

    def page_texts(
        self, name: str, pages: str | None = None
    ) -> tuple[FileRecord, list[tuple[int, str]]]:
        """The stored text of some pages (`"1-3,5"`, all when None) of one document."""
        record = self.find_record(name)
        texts = self.engine.page_texts(record.slug)
        wanted = parse_pages(pages, len(texts)) if pages else list(range(1, len(texts) + 1))
        return record, [(n, texts[n - 1]) for n in wanted]

    # -- searching -----------------------------------------------------------------

    def search(
        self,
        query: str | Node,
        limit: int = 10,
        document: str | None = None,
        pages: str | None = None,
    ) -> tuple[int, list[PageHit]]:
        slug = self.find_record(document).slug if document else None
        span = page_range(pages) if pages else None
        return ranked_search(self.engine, query, limit=limit, slug=slug, pages=span)

    def exact(
        self, query: str, document: str | None = None, limit: int = 10, context_length: int = 200
    ) -> tuple[list[ExactMatch], bool]:
        from pdfindex.search.exact import exact_search

        slug = self.find_record(document).slug if document else None
        return exact_search(
            self.engine, query, slug=slug, limit=limit, context_length=context_length
        )

    def files_with(self, query: str, document: str | None = None) -> list[str]:
        """Paths of the documents holding an exact occurrence of `query` (grep -l)."""
        from pdfindex.search.exact import MAX_LIMIT, exact_search

        slug = self.find_record(document).slug if document else None
        matches, more = exact_search(
            self.engine, query, slug=slug, limit=MAX_LIMIT, context_length=0
        )
        paths = list(dict.fromkeys(m.path for m in matches))
        if more:  # a document per query past the last path seen: one match each is enough
            last = matches[-1].path
            for record in self.documents():
                if record.path > last and record.status == FileStatus.OK:
                    hit, _ = exact_search(
                        self.engine, query, slug=record.slug, limit=1, context_length=0
                    )
                    paths += [record.path] if hit else []
        return paths

    def match_lines(self, matches: list[ExactMatch]) -> list[str]:
        """grep-style `path:page:line` for each line holding a match (once per line)."""
        lines: list[str] = []
        texts: dict[str, list[str]] = {}
        seen: set[tuple[str, int, int]] = set()
        for m in matches:
            if m.slug not in texts:
                texts[m.slug] = self.engine.page_texts(m.slug)
            text = texts[m.slug][m.page - 1]
            first = text.rfind("\n", 0, m.start) + 1
            last = text.find("\n", m.end)
            last = len(text) if last < 0 else last
            if (m.path, m.page, first) in seen:
                continue
            seen.add((m.path, m.page, first))
            shown = " ".join(text[first:last].split())  # a match across lines: one line
            lines.append(f"{m.path}:{m.page}:{shown}")
        return lines


def _under(source: str, folder: Path, real: Path, own: bool = False) -> str:
    """The library path of `real` in `source`'s `folder` ('.' for this host's folder
    itself: the whole library)."""
    rel = relative_posix(folder, real)
    if rel == ".":  # the folder itself
        return "." if own else source
    return f"{source}/{rel}" if source else rel


def _extra(module: str, setting: str = "semantic = true", extra: str = "semantic") -> ModuleType:
    """A module of the semantic package, imported only when a setting needs it; one line
    naming the extra to install when its libraries are not there."""
    try:
        return importlib.import_module(f"pdfindex.semantic.{module}")
    except ImportError as exc:
        raise ConfigError(
            f"{setting} needs the {extra} extra ({exc.name} is not installed): "
            f"pip install -e '.[{extra}]'"
        ) from exc
