"""The second pass of a reindex: the figures, tables and equations (pdfindex.elements) of
the PDFs whose text is indexed and whose elements are pending. Only their candidate pages
are read (records.element_pages), by the same worker pool as the text; each file's list is
cached by content hash and written, with its record, in the writer's commit."""

from __future__ import annotations

import functools
import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

from pdfindex.config import Settings
from pdfindex.elements.detect import DETECTOR_VERSION
from pdfindex.engine import Engine, EngineWriter
from pdfindex.extract.adapters import get_adapter
from pdfindex.extract.adapters.base import Extraction
from pdfindex.extract.cache import ExtractionCache
from pdfindex.indexer.pool import ELEMENTS, TICK, ExtractionPool
from pdfindex.indexer.progress import ELEMENTS_STAGE, TICK_SECONDS, PassProgress, Progress
from pdfindex.indexer.records import records_at
from pdfindex.indexer.sources import Scope, place
from pdfindex.models import ElementsState, FileRecord, FileStatus, Summary
from pdfindex.paths import Identity, open_regular

log = logging.getLogger(__name__)


@functools.cache
def elements_key() -> str:
    """The cache key part of element lists: detector and layout engine versions."""
    return f"elements-{DETECTOR_VERSION}+{get_adapter('pdfminer').version}"


class ElementsPass:
    """One elements pass over the records of `scope` in `engine`; `pool(n)` lends the
    worker pool for n files (Indexer.pool_for)."""

    def __init__(
        self,
        settings: Settings,
        engine: Engine,
        cache: ExtractionCache,
        scope: Scope,
        pool: Callable[[int], AbstractContextManager[ExtractionPool]],
        folders: dict[str, Path] | None = None,
        paths: list[str] | None = None,
    ) -> None:
        self.settings, self.engine, self.cache, self.scope = settings, engine, cache, scope
        self.paths = paths  # only the records at and under these (a run's changed paths)
        self.folders = settings.folders if folders is None else folders  # `folders`' sources
        self._pool = pool

    def run(
        self,
        summary: Summary,
        interval: float,
        should_stop: Callable[[], bool],
        progress: Progress | None = None,
        hard_stop: Callable[[], bool] | None = None,
    ) -> None:
        """Find figures, tables and equations in the PDFs whose text is indexed but whose
        elements are pending: only on candidate pages, cached by content hash."""
        timeout = self.settings.lock_timeout
        results: Generator[tuple[FileRecord, Extraction], None, None] | None = None
        finished = False
        try:
            with self.engine.writer(timeout=timeout) as writer:
                jobs = []
                records = (
                    self.engine.catalog()
                    if self.paths is None
                    else records_at(self.engine, self.paths)
                )
                for record in records.values():
                    pending = record.elements_state == ElementsState.PENDING
                    if not pending or not self.scope.owns(record.path):
                        continue
                    cached = self.cache.get(record.sha256, elements_key())
                    pages = [] if cached else record.element_pages
                    if cached or not pages:
                        self._write(writer, record, cached or Extraction(FileStatus.OK), summary)
                    else:
                        jobs.append((record, pages))
                if not jobs:
                    return
                counter = PassProgress(ELEMENTS_STAGE, len(jobs), progress, should_stop)
                results = self._find(jobs)
                finished = self._drain(writer, results, summary, interval, counter, hard_stop)
            while not finished:
                with self.engine.writer(timeout=timeout) as writer:
                    finished = self._drain(writer, results, summary, interval, counter, hard_stop)
        finally:
            if results is not None:
                results.close()

    def _find(
        self, jobs: list[tuple[FileRecord, list[int]]]
    ) -> Generator[tuple[FileRecord, Extraction], None, None]:
        files = self.settings.files_dir
        tasks = []
        for record, pages in jobs:
            checked = _checked(*place(record.path, self.scope, files, self.folders), record)
            if isinstance(checked, str):  # changed or replaced since its text was indexed
                yield record, Extraction(status=FileStatus.FAILED, error=f"elements: {checked}")
            else:
                tasks.append((record, (ELEMENTS, str(checked[0]), pages, checked[1])))
        if not tasks:
            return
        with self._pool(len(tasks)) as pool:
            for item in pool.run(tasks, tick=TICK_SECONDS):
                if item is TICK:
                    yield item  # type: ignore[misc]  # the pass checks its stops
                    continue
                record, found = item  # type: ignore[misc]
                folder, rel = place(record.path, self.scope, files, self.folders)
                local = folder / rel
                if found.status != FileStatus.FAILED and _unchanged(local, record):
                    self.cache.put(record.sha256, elements_key(), found)
                yield record, found

    def _drain(
        self,
        writer: EngineWriter,
        results: Iterator[tuple[FileRecord, Extraction]],
        summary: Summary,
        interval: float,
        counter: PassProgress,
        hard_stop: Callable[[], bool] | None = None,
    ) -> bool:
        """Write elements until they run out or the pass stops (True: after each file, or
        at once when `hard_stop` says the process ends) or `interval` passes (False)."""
        deadline = time.monotonic() + interval
        for item in results:
            if item is TICK:
                if hard_stop is not None and hard_stop():
                    return True
                continue
            record, found = item
            self._write(writer, record, found, summary)
            counter.step(record.path)
            if counter.stopped():
                return True  # the rest stays pending for the next run
            if time.monotonic() > deadline:
                return False
        return True

    def _write(
        self, writer: EngineWriter, record: FileRecord, found: Extraction, summary: Summary
    ) -> None:
        record.elements = dict(Counter(e["kind"] for e in found.elements))
        record.stages = [s for s in record.stages if not s.startswith("elements")]
        if found.status == FileStatus.FAILED:
            record.elements_state = ElementsState.FAILED
            record.notes = [*record.notes, found.error or "elements: failed"]
            record.stages.insert(-1, "elements: failed")
            log.warning("elements of %s: %s", record.path, found.error)
        else:
            record.elements_state = ElementsState.DONE
            record.stages.insert(-1, f"elements ({len(found.elements)})")
        writer.set_elements(record, found.elements)
        summary.elements_files += 1
        summary.elements_found += len(found.elements)


def _checked(files_dir: Path, rel: str, record: FileRecord) -> tuple[Path, Identity] | str:
    """The real path and (st_dev, st_ino) of the file `record` describes (at `rel` under
    the files folder), for the workers
    to read only that file; or why not: it left the folder, is no regular file, or changed
    (size or mtime) since its text was indexed."""
    base = files_dir.resolve()
    try:
        real = (base / rel).resolve(strict=True)
        if not real.is_relative_to(base):
            return "refused: the name now leads outside the files folder"
        fd = open_regular(real, inside=base)
        try:
            info = os.fstat(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        return f"cannot read: {exc}"
    if (info.st_size, info.st_mtime) != (record.size, record.mtime):
        return "the file changed since its text was indexed"
    return real, (info.st_dev, info.st_ino)


def _unchanged(path: Path, record: FileRecord) -> bool:
    """The file still has the bytes the record describes (size and mtime)."""
    try:
        stat = path.stat()
    except OSError:
        return False
    return stat.st_size == record.size and stat.st_mtime == record.mtime
