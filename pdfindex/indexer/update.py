"""Keeps the index in step with the files folder: scan, diff, extract, write.

size+mtime decide what to look at, the sha256 decides what really changed, the
extraction cache (and the index itself, for moves) means known bytes are never
re-parsed. Catalog record and pages of a file change in the same commit.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

from pdfindex.config import Settings
from pdfindex.engine import Engine, EngineWriter
from pdfindex.errors import SourceTaken
from pdfindex.extract import ocr
from pdfindex.extract.adapters import custom_for
from pdfindex.extract.adapters.base import Extraction
from pdfindex.extract.archives import SCRATCH, Limits
from pdfindex.extract.cache import ExtractionCache, file_sha256
from pdfindex.extract.worker import ExtractOptions
from pdfindex.indexer.archives import expand_archives, member_task
from pdfindex.indexer.elements import ElementsPass
from pdfindex.indexer.pool import TICK, ExtractionPool
from pdfindex.indexer.progress import TEXT, TICK_SECONDS, PassProgress, Progress
from pdfindex.indexer.readers import Readers
from pdfindex.indexer.records import TakenSlugs, element_pages, is_pdf, new_record, records_at
from pdfindex.indexer.scan import DiskFile, scan_folder, scan_paths
from pdfindex.indexer.sources import (
    UNNAMED,
    Feeder,
    Scope,
    host_name,
    place,
    scan_folders,
    scope_of,
    sources_of,
)
from pdfindex.indexer.titles import Titles
from pdfindex.memory import release_freed_memory, worker_memory_mb
from pdfindex.models import ElementRecord, ElementsState, FileRecord, FileStatus, Summary
from pdfindex.paths import Identity, assign_slug
from pdfindex.text.index import index_text

log = logging.getLogger(__name__)
REPARSE_ROUNDS = 3  # reads of a file that changes while it is read, before it waits
# What a watcher saw change: (folder, path inside it), folder "" the files folder's.
Changes = set[tuple[str, str]]
IN_FLIGHT = object()  # no file finished for a tick, and every file left is being read
# A run that may commit as it goes commits at least every COMMIT_PAGES pages. Tantivy
# queues up to 10,000 documents for its indexing thread, ~20 KB of fields a page: fed
# faster than it indexes (a refill from the extraction cache), that queue held ~170 MB
# of a 430 MB indexer at 48k pages. A commit waits for it to drain (255 MB; the same CPU).
COMMIT_PAGES = 2_000


def commit_past_pages(writer: EngineWriter, written: int, committed: int) -> int:
    """Commit with the writer held (engines that can) once COMMIT_PAGES pages were written
    since `committed`; the count of pages written at the last commit."""
    if written - committed < COMMIT_PAGES:
        return committed
    writer.commit_so_far()
    return written


class Indexer:
    """Brings the index up to date with the files folder."""

    def __init__(self, settings: Settings, engine: Engine, cache: ExtractionCache) -> None:
        self.settings = settings
        self.engine = engine
        self.cache = cache
        self.readers = Readers(settings)
        self.shared_pool: ExtractionPool | None = None  # kept warm by a long-running process
        self.ocr_later = False  # this run leaves OCR to a later one (reindex's ocr_later)
        self.scope = Scope(settings.source, folders=frozenset(settings.folders))  # per reindex
        self.listed: dict[str, Extraction] = {}  # archives listed this run, by sha256
        # The `folders` setting's folders, each a source this process feeds (serve adds
        # the client's roots with index_client_roots).
        self.folders: dict[str, Path] = dict(settings.folders)
        self.titles = Titles(settings.index_dir)  # titles given by process_document
        engine.use_source(settings.source)  # a library several folders feed: its own lock

    def reindex(
        self,
        full: bool = False,
        progress: Progress | None = None,
        commit_interval: float = 60.0,
        should_stop: Callable[[], bool] | None = None,
        elements_should_stop: Callable[[], bool] | None = None,
        take_over_source: bool = False,
        elements_later: bool = False,
        changes: Changes | None = None,
        ocr_later: bool = False,
    ) -> Summary:
        """Update the index; `full` rebuilds it from scratch (cached text is reused).
        With `changes` (what a watcher saw change: (folder, path) pairs, folder "" the
        files folder's or a `folders` name), only those paths and what is under them
        are looked at, on disk and in the catalog; None looks at every file.

        Text first (committed, so it is searchable), then the slower elements pass over the
        PDFs that wait for it; `elements_later` leaves that pass to a later run (serve,
        watch, the next reindex) or to the first call that asks for a document's elements
        (pdfindex.tools.pending). `ocr_later` reads no page by OCR in this run (a process
        of its own: not with a kept pool): the pages without a text layer are recorded as
        not read, and the next run with OCR reads them (`ocr_stale`). `should_stop` is
        polled between files: when it turns true, what is done so far is committed and
        the rest is left for the next run;
        `elements_should_stop` can also end the elements pass early (new changes to index).
        In a library fed by several folders (pdfindex.indexer.sources) only this folder's
        records change; `take_over_source` lets this folder feed a source another fed.
        With a kept pool (serve), what is written is also committed whenever no file
        finishes for a moment (a slow file never holds back the others' commit); when only
        slow files are left being read and `elements_should_stop` says new changes wait,
        the run ends: those files go on being read for the next run, which adopts them.
        """
        if ocr_later and self.shared_pool is not None:
            raise ValueError("ocr_later is for a run with a pool of its own")
        self.ocr_later = ocr_later
        try:
            return self._reindex(
                full,
                progress,
                commit_interval,
                should_stop,
                elements_should_stop,
                take_over_source,
                elements_later,
                changes,
            )
        finally:
            self.ocr_later = False

    def _reindex(
        self,
        full: bool,
        progress: Progress | None,
        commit_interval: float,
        should_stop: Callable[[], bool] | None,
        elements_should_stop: Callable[[], bool] | None,
        take_over_source: bool,
        elements_later: bool,
        changes: Changes | None,
    ) -> Summary:
        yield_to = elements_should_stop if self.shared_pool is not None else None
        started = time.monotonic()
        summary = Summary()
        s = self.settings
        folders = dict(self.folders)
        scanned = None if full or changes is None else self._scan_changes(changes, folders)
        if scanned is None:
            found = scan_folder(s.files_dir, leave_out=(s.index_dir, s.log_dir))
            extra = scan_folders(folders, leave_out=(s.index_dir, s.log_dir))
            looked: list[str] | None = None
        else:
            found, extra, looked = scanned
            summary.scope = len(looked)
        timeout = self.settings.lock_timeout
        interval = None if full else commit_interval  # a full rebuild commits once
        shared = self.engine.shared  # other folders' records may be there
        results: Generator[tuple[_Job, Extraction], None, None] | None = None
        try:
            with self.engine.writer(timeout=timeout, clear=full and not shared) as writer:
                # Read the catalog only once we hold the lock, so no other writer races us.
                renamed = self._claim(writer, take_over_source)
                scope = self.scope = scope_of(s.source, self.engine, folders=set(folders))
                disk = self._owned(found, scope) | extra
                if looked is None:
                    library = self.engine.catalog()
                else:  # the changed paths' own and, for a folder or an archive, those under
                    library = records_at(self.engine, looked)
                # A folder given a source name takes its unnamed records along: they leave
                # as moves (same bytes) to their `SOURCE/` paths.
                before = Scope(UNNAMED, scope.others | {scope.source}) if renamed else scope
                previous = {p: r for p, r in library.items() if scope.owns(p) or before.owns(p)}
                pending = any(r.elements_state == ElementsState.PENDING for r in previous.values())
                catalog = {} if full else previous
                disk = expand_archives(self, disk, catalog)  # members as files of their own
                # Slugs kept: this folder's files still there, and every other source's.
                slugs = {p: r.slug for p, r in library.items() if p in disk or p not in previous}
                if full and shared:  # no clear: what left the folder is removed here
                    for path in sorted(set(previous) - set(disk)):
                        writer.remove_file(path)
                        summary.removed += 1
                taken: set[str] | TakenSlugs | None = None
                if looked is not None:  # every other slug of the library stays taken
                    freed = {r.slug for p, r in previous.items() if p not in disk}
                    taken = TakenSlugs(self.engine, set(slugs.values()), freed)
                paced = interval is not None
                jobs, counter = self._apply_cheap_changes(
                    writer, disk, catalog, slugs, summary, taken, paced, progress, should_stop
                )
                writer.will_add(job.file.path for job in jobs)  # before any is written
                results = self._extract(jobs, summary)
                finished = self._drain(writer, results, summary, counter, interval, yield_to)
                changed = writer.changed
            release_freed_memory()  # the writer's buffer and merges, until the next batch
            while not finished:  # later batches, each in its own commit
                with self.engine.writer(timeout=timeout) as writer:
                    finished = self._drain(writer, results, summary, counter, interval, yield_to)
                changed = True
                release_freed_memory()
        finally:
            if results is not None:
                results.close()  # stops the extraction workers (a kept pool's go on)
        # Nothing written and nothing waiting for it: the elements pass would only read
        # the catalog again (a third of a no-change rescan).
        left = counter.stopped() or counter.yielded
        run_elements = not left and (changed or pending or full)
        if self.settings.elements and run_elements and not elements_later:
            stops = [f for f in (should_stop, elements_should_stop) if f is not None]
            text_done = time.monotonic()
            elements = ElementsPass(
                self.settings, self.engine, self.cache, self.scope, self.pool_for, folders, looked
            )
            elements.run(
                summary, commit_interval, lambda: any(f() for f in stops), progress, should_stop
            )
            summary.elements_seconds = time.monotonic() - text_done
            if looked is not None and any(  # a pass cut short: the next run over these
                r.elements_state == ElementsState.PENDING
                for r in records_at(self.engine, looked).values()
            ):
                left = True
        stopped = should_stop is not None and should_stop()  # what is left, said when
        if self.settings.elements and (elements_later or stopped):  # the run leaves some
            summary.elements_pending = self._elements_pending()
        if self.ocr_later and self._ocr_available():  # else nothing reads them later
            summary.ocr_pending, summary.ocr_pending_files = self._ocr_pending()
        summary.finished = not left
        summary.seconds = time.monotonic() - started
        return summary

    def _scan_changes(
        self, changes: Changes, folders: dict[str, Path]
    ) -> tuple[dict[str, DiskFile], dict[str, DiskFile], list[str]] | None:
        """(files folder's files, `folders`' files by library path, the library paths
        looked at) for the changed paths alone; None when only a whole scan will do (the
        files folder itself, or a folder, changed)."""
        s = self.settings
        leave_out = (s.index_dir, s.log_dir)
        own = sorted({rel for name, rel in changes if not name})
        found = scan_paths(s.files_dir, own, leave_out) if own else {}
        if found is None:
            return None
        looked = [f"{s.source}/{rel}" if s.source else rel for rel in own]
        extra: dict[str, DiskFile] = {}
        for name in sorted({name for name, _ in changes if name}):
            rels = sorted({rel for n, rel in changes if n == name})
            folder = folders.get(name)
            if folder is None:
                continue  # no longer followed
            part = scan_paths(folder, rels, leave_out)
            if part is None:
                return None
            extra.update({f"{name}/{r}": replace(f, path=f"{name}/{r}") for r, f in part.items()})
            looked += [f"{name}/{rel}" for rel in rels]
        return found, extra, looked

    def _elements_pending(self) -> int:
        """This folder's PDFs whose elements wait for a pass (deferred, or stopped)."""
        return sum(
            1
            for record in self.engine.catalog().values()
            if record.elements_state == ElementsState.PENDING and self.scope.owns(record.path)
        )

    def _ocr_pending(self) -> tuple[int, int]:
        """(pages, files) of this folder's that OCR never read (ocr_later, or OCR off or
        unavailable then): what the next run with OCR reads."""
        waiting = [
            record.ocr_missing
            for record in self.engine.catalog().values()
            if record.ocr_missing and not record.ocr_lang and self.scope.owns(record.path)
        ]
        return sum(waiting), len(waiting)

    def _claim(self, writer: EngineWriter, take_over: bool) -> bool:
        """Record this folder as its source's in a library several folders can feed;
        refuse when another folder feeds that source (its scan would delete their
        records) unless `take_over`. True when this folder fed the library unnamed
        before: its unnamed records are its own, to rename."""
        if not self.engine.shared:  # an embedded engine: one index, one folder
            return False
        host, folder = host_name(), str(self.settings.files_dir.resolve())
        for name, extra in self.folders.items():  # each of `folders` is a source too
            other = writer.claim_source(name, host, str(extra.resolve()), take_over)
            if other is not None:
                raise SourceTaken.about(name, *other)
        other = writer.claim_source(self.settings.source, host, folder, take_over)
        if other is not None:
            raise SourceTaken.about(self.settings.source, *other)
        was = sources_of(self.engine).get(UNNAMED)
        if self.settings.source and was == Feeder(host, folder):
            writer.forget_source(UNNAMED)
            return True
        return False

    def _owned(self, found: dict[str, DiskFile], scope: Scope) -> dict[str, DiskFile]:
        """The scanned files by library path; with no source name, files in a sub-folder
        named as another source are left out (that source's paths), and logged."""
        disk = {}
        for rel, file in found.items():
            path = scope.library_path(rel)
            if scope.owns(path):
                disk[path] = replace(file, path=path)
            else:
                log.warning(
                    "%s: left out: its path is under source %r of the library; give this "
                    "folder a source name",
                    rel,
                    scope.source_of(path),
                )
        return disk

    # -- the text pass -------------------------------------------------------------

    def _drain(
        self,
        writer: EngineWriter,
        results: Iterator[tuple[_Job, Extraction] | object],
        summary: Summary,
        counter: PassProgress,
        interval: float | None,
        yield_to: Callable[[], bool] | None = None,
    ) -> bool:
        """Write results until they run out or the run stops or yields (True), or until
        `interval` seconds pass (False: commit, then go on). A kept pool's run (serve)
        also commits when no file finishes for a moment after one was written, closing
        its writer each time so that a writer waiting for the lock (a CLI run beside it)
        gets its turn; a one-off run (the CLI) keeps to `interval`, so a failed write
        leaves less committed, and commits without closing its writer where the engine
        can (Tantivy: its merges then run while the run goes on)."""
        quiet_commits = self.shared_pool is not None
        deadline = None if interval is None else time.monotonic() + interval
        wrote, committed = False, summary.pages
        for item in results:
            if item is TICK or item is IN_FLIGHT:
                if counter.stopped():
                    return True
                if item is IN_FLIGHT and yield_to is not None and yield_to():
                    counter.yielded = True  # the slow files go on for the next run
                    return True
                # While slow files are read, what is done so far is committed.
                late = deadline is not None and (quiet_commits or time.monotonic() > deadline)
                due = wrote and late
            else:
                job, extraction = item  # type: ignore[misc]
                self._write(writer, job, extraction, summary)
                wrote = True
                if deadline is not None:
                    committed = commit_past_pages(writer, summary.pages, committed)
                counter.step(job.file.path)
                if counter.stopped():
                    return True
                due = deadline is not None and time.monotonic() > deadline
            if due:
                if quiet_commits or not writer.commit_so_far():
                    return False  # the caller commits, closing the writer
                deadline, wrote = time.monotonic() + (interval or 0.0), False
        return True

    # -- planning ------------------------------------------------------------------

    def _apply_cheap_changes(
        self,
        writer: EngineWriter,
        disk: dict[str, DiskFile],
        catalog: dict[str, FileRecord],
        slugs: dict[str, str],
        summary: Summary,
        taken: set[str] | TakenSlugs | None,
        paced: bool,
        progress: Progress | None,
        should_stop: Callable[[], bool] | None,
    ) -> tuple[list[_Job], PassProgress]:
        """Handle removals, touches, moves and cache hits; return the files that need
        parsing, and the text pass's progress over every changed file: a cache hit is a
        step of it (a refill of 48k pages from the cache takes ~25 s), and a stop leaves
        the rest for the next run (no file to parse is returned then).

        `slugs` are the slugs files already have: kept even by a full rebuild; `taken`,
        the slugs a new file may not have (default: those of `slugs`). `paced`: the run
        may commit as it goes (commit_past_pages), as cache hits are written."""
        changed: list[tuple[DiskFile, FileRecord | None, str]] = []
        not_read: list[tuple[DiskFile, FileRecord | None, str]] = []
        for rel, file in sorted(disk.items()):
            record = catalog.get(rel)
            reason = self.readers.reason_not_read(rel)
            if reason is not None:  # listed, never hashed nor read
                not_read.append((file, record, reason))
                continue
            stale = record is not None and (self.ocr_stale(record) or self.readers.changed(record))
            if record and record.size == file.size and record.mtime == file.mtime and not stale:
                summary.unchanged += 1
                self._keep_title(writer, record)
                continue
            try:
                sha = file.member.sha256 if file.member else self._sha(file)
            except OSError as exc:
                log.warning("cannot read %s: %s", rel, exc)
                continue
            if record and record.sha256 == sha and record.status != FileStatus.FAILED and not stale:
                record.mtime, record.size = file.mtime, file.size
                writer.replace_record(record)
                summary.touched += 1
                continue
            changed.append((file, record, sha))

        gone = {p: r for p, r in catalog.items() if p not in disk}
        gone_by_hash = {r.sha256: r for r in gone.values() if r.status != FileStatus.FAILED}
        if taken is None:
            taken = set(slugs.values())
        for file, record, reason in not_read:
            self._list_unsupported(writer, file, record, reason, slugs, taken, summary)
        jobs: list[_Job] = []
        committed = summary.pages
        counter = PassProgress(TEXT, len(changed), progress, should_stop)
        for file, record, sha in changed:
            if counter.stopped():
                return [], counter
            slug = slugs.get(file.path) or assign_slug(file.path, taken)
            taken.add(slug)
            kind = "updated" if record else "added"
            source = gone_by_hash.pop(sha, None) if not record else None
            if source is not None:
                kind = "moved"
                del gone[source.path]
                writer.remove_file(source.path)
            job = _Job(file, sha, slug, kind, moved_from=source)
            extraction = self._cached(sha, file.path)
            if extraction is not None:
                job.source = "cache"
            elif source is not None:
                extraction = self._from_index(source)
                job.source = "index"
            if extraction is not None:
                summary.from_cache += 1
                self._write(writer, job, extraction, summary)
                if paced:
                    committed = commit_past_pages(writer, summary.pages, committed)
                counter.step(file.path)
            else:
                jobs.append(job)
        for path in gone:
            writer.remove_file(path)
            summary.removed += 1
        return jobs, counter

    def _sha(self, file: DiskFile) -> str:
        return file_sha256(file.opened_path(), file.identity, self.base_of(file.path))

    def base_of(self, path: str) -> Path:
        """The folder holding the library path `path`: one of `folders`, or the files
        folder; reads are checked to stay under it."""
        return place(path, self.scope, self.settings.files_dir, self.folders)[0]

    def _keep_title(self, writer: EngineWriter, record: FileRecord) -> None:
        title = self.titles.get(record.path)  # process_document's, for an unchanged file
        if title is not None and record.title != title:
            record.title = title
            writer.replace_record(record)

    def _list_unsupported(
        self,
        writer: EngineWriter,
        file: DiskFile,
        record: FileRecord | None,
        reason: str,
        slugs: dict[str, str],
        taken: set[str] | TakenSlugs,
        summary: Summary,
    ) -> None:
        """Give a file no adapter reads its catalog record (status `unsupported`, the
        `reason` as its error, no pages), without reading it: listed and followed like
        any file, so a call naming it answers at once."""
        if record is not None and record.status == FileStatus.UNSUPPORTED:
            if (record.size, record.mtime, record.error) == (file.size, file.mtime, reason):
                summary.unchanged += 1
                return
        slug = slugs.get(file.path) or assign_slug(file.path, taken)
        taken.add(slug)
        listed = FileRecord(
            path=file.path,
            slug=slug,
            title=file.path.rsplit("/", 1)[-1],
            pages=0,
            size=file.size,
            mtime=file.mtime,
            sha256="",
            status=FileStatus.UNSUPPORTED,
            error=reason,
            indexed_at=time.time(),
            extractor="",
            stages=["listed (no adapter reads this type)"],
            page_lines=[],
        )
        writer.replace_file(listed, [], [])
        summary.unsupported += 1

    def version_for(self, path: str) -> str:
        """The cache key part naming the adapter that reads `path`, with its version."""
        return self.readers.version_for(path)

    def cache_key(self, path: str, extraction: Extraction) -> str:
        """Where an extraction is cached: OCR'd text is kept apart per OCR language."""
        key = self.version_for(path)
        return f"{key}+ocr-{extraction.ocr_lang}" if extraction.ocr_lang else key

    def ocr_ready(self) -> bool:
        """OCR is on, not left for later in this run, and its engine can read the
        configured language."""
        return not self.ocr_later and self._ocr_available()

    def _ocr_available(self) -> bool:
        s = self.settings
        return s.ocr and ocr.unavailable_reason(s.ocr_lang, s.ocr_engine) is None

    def _cached(self, sha: str, path: str) -> Extraction | None:
        """The cached extraction for these bytes made with today's settings, if any."""
        if sha in self.listed:  # an archive listed this run (a refused one is not cached)
            return self.listed[sha]
        key = self.version_for(path)
        if self.ocr_ready() or (self.ocr_later and self._ocr_available()):  # read before
            found = self.cache.get(sha, f"{key}+ocr-{self.settings.ocr_lang}")
            if found is not None:
                return found
        found = self.cache.get(sha, key)
        if found is not None and found.ocr_missing and self.ocr_ready():
            return None  # pages OCR could not read then, it can now
        return found

    def ocr_stale(self, record: FileRecord) -> bool:
        """An unchanged file whose pages should be read again because OCR changed: it is
        now available, or now set to another language."""
        if not self.settings.ocr or not (record.ocr_missing or record.ocr_lang):
            return False
        if record.ocr_lang and record.ocr_lang == self.settings.ocr_lang:
            return False
        return self.ocr_ready()

    def _from_index(self, record: FileRecord) -> Extraction:
        """A moved file's pages as the index holds them (when the cache lost them)."""
        return Extraction(
            status=record.status,
            pages=self.engine.page_texts(record.slug),
            metadata=dict(record.metadata),
            error=record.error,
            engine=record.extractor,
            ocr_lang=record.ocr_lang,
            image_pages=list(record.image_pages),
            notes=list(record.notes),
        )

    def _stored_elements(self, slug: str) -> list[ElementRecord]:
        """A document's elements as the index holds them, less the slug and path the
        engine stored them under (for a moved file)."""
        return [
            cast(ElementRecord, {k: v for k, v in element.items() if k not in ("slug", "path")})
            for element in self.engine.elements(slug)
        ]

    def _extract(
        self, jobs: list[_Job], summary: Summary
    ) -> Generator[tuple[_Job, Extraction] | object, None, None]:
        """Parse each job's file; TICK, or IN_FLIGHT (every file left is being read),
        when none finished for a tick. A file that changed while it was hashed or parsed
        (its size, mtime or inode differ from the scan's) is hashed and parsed again, never
        cached or indexed under the hash of other bytes; one that keeps changing is left
        for the next scan (the watcher sees its next change)."""
        if self.shared_pool is None:  # a one-off run: the largest files first, so the
            jobs = sorted(jobs, key=lambda job: -job.file.size)  # last is not one alone
        for _round in range(REPARSE_ROUNDS):
            if not jobs:
                return
            changed: list[_Job] = []
            outstanding = len(jobs)
            with self.pool_for(len(jobs)) as pool:
                tasks = ((job, _task(job)) for job in jobs)
                for item in pool.run(tasks, tick=TICK_SECONDS):
                    if item is TICK:
                        yield IN_FLIGHT if pool.busy() >= outstanding else TICK
                        continue
                    job, extraction = item  # type: ignore[misc]
                    outstanding -= 1
                    custom = custom_for(job.file.path, self.settings.custom_adapters)
                    if custom is not None:  # the pool's own failures (time, memory) too
                        extraction.engine = custom.version
                    again = self._recheck(job)
                    if again is None and extraction.status == FileStatus.FAILED:
                        again = job  # now unreadable (e.g. swapped for a link): say why
                    if again is not job:
                        log.info("%s changed while it was read: read again", job.file.path)
                        if again is not None:
                            changed.append(again)
                        continue
                    summary.parsed += 1
                    summary.parsed_paths.append(job.file.path)
                    self.cache.put(job.sha, self.cache_key(job.file.path, extraction), extraction)
                    yield job, extraction
            jobs = []
            for job in changed:
                cached = self._cached(job.sha, job.file.path)
                if cached is not None:
                    job.source = "cache"
                    summary.from_cache += 1
                    yield job, cached
                else:
                    jobs.append(job)
        for job in jobs:
            log.warning(
                "%s: still changing after %d reads; left for later", job.file.path, REPARSE_ROUNDS
            )

    def _recheck(self, job: _Job) -> _Job | None:
        """`job` when its file still has the scan's size, mtime and inode; else a job for
        the file as it is now, hashed again (checked the same way after it is parsed), or
        None when it is gone or unreadable (the next scan sees that)."""
        file = job.file
        try:
            info = os.stat(file.opened_path(), follow_symlinks=False)
        except OSError:
            return None
        identity = (info.st_dev, info.st_ino)
        seen = file.archive or file  # a member: its archive file as the scan saw it
        if (info.st_size, info.st_mtime, identity) == (seen.size, seen.mtime, seen.identity):
            return job
        if file.archive is not None:
            return None  # the archive changed: the next scan lists it again
        fresh = replace(file, size=info.st_size, mtime=info.st_mtime, identity=identity)
        try:
            sha = file_sha256(fresh.opened_path(), fresh.identity, self.base_of(file.path))
        except OSError:
            return None
        kind = "added" if job.kind == "moved" else job.kind  # other bytes: no longer a move
        return _Job(fresh, sha, job.slug, kind)

    @contextmanager
    def pool_for(self, jobs: int) -> Iterator[ExtractionPool]:
        """The warm shared pool (its abandoned work dropped afterwards), or a pool of its
        own for this run, closed afterwards."""
        pool = self.shared_pool or self.new_pool(min(self.settings.worker_count, jobs))
        try:
            yield pool
        finally:
            if pool is self.shared_pool:
                pool.detach()  # files still being read go on, for the next run
            else:
                pool.close()

    def new_pool(self, workers: int | None = None) -> ExtractionPool:
        s = self.settings
        memory_mb = worker_memory_mb(s.memory_mb, s.worker_count)
        options = ExtractOptions(
            ocr=s.ocr and not self.ocr_later,
            ocr_later=s.ocr and self.ocr_later,
            ocr_lang=s.ocr_lang,
            ocr_engine=s.ocr_engine,
            timeout=s.timeout,
            scratch=str(s.index_dir / SCRATCH),
            archive_limits=Limits.of(s),
            custom_adapters=s.custom_adapters,
            memory_mb=memory_mb,
        )
        count = workers or s.worker_count
        # A kept pool (workers=None: serve, watch) sends a file only when a worker is free:
        # a run ending while files are read leaves them to the next run (`detach`).
        prefetch = workers is not None
        return ExtractionPool(s.extractor, count, s.timeout, memory_mb, options, prefetch)

    # -- writing -------------------------------------------------------------------

    def _write(
        self, writer: EngineWriter, job: _Job, extraction: Extraction, summary: Summary
    ) -> None:
        file = job.file
        record = new_record(
            file.path, file.size, file.mtime, job.sha, job.slug, extraction, job.source
        )
        record.title = self.titles.get(file.path) or record.title
        moved = job.moved_from
        carried: list[ElementRecord] = []
        if moved is not None and moved.elements_state in (ElementsState.DONE, ElementsState.FAILED):
            # A move keeps what the index knew (same bytes): OCR figures and elements.
            record.stages, record.notes = list(moved.stages), list(moved.notes)
            record.ocr_pages, record.ocr_confidence = moved.ocr_pages, moved.ocr_confidence
            record.elements, record.elements_state = dict(moved.elements), moved.elements_state
            record.image_pages = list(moved.image_pages)
            record.element_pages = list(moved.element_pages)
            carried = self._stored_elements(moved.slug)
        elif (
            self.settings.elements
            and extraction.status == FileStatus.OK
            and is_pdf(file.path)
            and file.member is None  # the elements pass reads files on disk only
        ):
            record.elements_state = ElementsState.PENDING
            record.stages.insert(-1, "elements: pending")
            record.element_pages = element_pages(extraction)
        writer.replace_file(record, extraction.pages, [index_text(p) for p in extraction.pages])
        if carried:
            writer.add_elements(record, carried)
        summary.pages += len(extraction.pages)
        if extraction.status == FileStatus.FAILED:
            summary.failed += 1
            summary.failures[file.path] = extraction.error or "unknown error"
        else:
            setattr(summary, job.kind, getattr(summary, job.kind) + 1)


def _task(job: _Job) -> tuple[str, Identity | None, str, dict[str, object] | None]:
    """What a worker reads for `job` (a member: in its archive); the hash tells a kept
    pool's reads of other bytes of the same file apart (the worker ignores it)."""
    return str(job.file.opened_path()), job.file.identity, job.sha, member_task(job.file)


@dataclass
class _Job:
    file: DiskFile
    sha: str
    slug: str
    kind: str  # added | updated | moved
    source: str = "parsed"  # parsed | cache | index (moved pages)
    moved_from: FileRecord | None = None
