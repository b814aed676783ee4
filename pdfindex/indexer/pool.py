"""A process pool for extraction with a per-file time limit and a memory cap.

concurrent.futures cannot stop a task that hangs, so each worker is a process of its
own: a file that hangs is killed and its worker replaced; a crash is a `failed` file.
A worker's start, memory cap and stop are `pdfindex.workers`' skeleton.
"""

from __future__ import annotations

import logging
import os
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from pdfindex.errors import PdfIndexError
from pdfindex.extract.adapters.base import Extraction
from pdfindex.extract.archives import Member
from pdfindex.extract.worker import ExtractOptions
from pdfindex.memory import private_mb, release_freed_memory
from pdfindex.models import FileStatus
from pdfindex.paths import Identity, fd_path, open_regular
from pdfindex.workers import WorkerProcess, prepare_worker, worker_jobs

ELEMENTS = "elements"  # the task name of an elements-pass job

log = logging.getLogger(__name__)


def _worker_main(
    conn: Connection, engine: str, memory_mb: int, options: ExtractOptions | None
) -> None:
    """Worker loop: receive a path, send back the extraction as a dict (and "alive" after
    each slow step, which restarts the time limit). Ctrl-C reaches the whole process
    group: the indexer decides what it stops (a worker killed by it mid-file would have
    its file recorded as crashed), so the worker ignores it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        prepare_worker(conn, memory_mb, lambda: _load_libraries(engine))
        _serve_jobs(conn, engine, options)
    except (BrokenPipeError, ConnectionResetError, EOFError):
        return  # the indexer is gone (killed): end quietly, no traceback on stderr


def _load_libraries(engine: str) -> None:
    """The extraction code and the PDF libraries, which load on first use otherwise."""
    from pdfindex.extract.adapters import fallback_for, get_adapter
    from pdfindex.extract.worker import extract_file  # noqa: F401

    for name in (engine, fallback_for(engine)):
        if name:
            get_adapter(name)


# A worker gives its freed heap back after a file that grew it by TRIM_GROWTH_MB or more,
# or once no next file has come for TRIM_WHEN_IDLE seconds. Trimming after every file made
# the next one fault the same pages in again (250 files of the 48k corpus: 0.35 s more
# system and 0.4 s more user CPU, 5.6 s over a 48k build); never trimming while busy let
# a worker reading the 60 largest files reach 276 MB where trimming after each held 202
# (after those that grew it 32 MB: 212 MB, 21 trims of 60; 2 of the 250).
TRIM_WHEN_IDLE = 0.25
TRIM_GROWTH_MB = 32


def _serve_jobs(conn: Connection, engine: str, options: ExtractOptions | None) -> None:
    """Extract each file sent until told to stop (None) or the pipe closes."""
    from pdfindex.extract.worker import extract_file

    settled = private_mb()  # the worker's size with its libraries loaded
    for job in worker_jobs(conn):

        def beat() -> None:
            conn.send("alive")

        if isinstance(job, tuple) and job[0] == ELEMENTS:  # (ELEMENTS, path, pages, identity)
            opts = options or ExtractOptions()
            result = find_elements(Path(job[1]), job[2], opts, beat, *job[3:])
        elif isinstance(job, tuple):  # (path, (st_dev, st_ino), sha[, member]): that file
            member = Member.from_dict(job[3]) if len(job) > 3 and job[3] else None
            result = extract_file(
                Path(job[0]), engine, options, heartbeat=beat, identity=job[1], member=member
            )
        else:
            result = extract_file(Path(job), engine, options, heartbeat=beat)
        conn.send(result.to_dict())
        del result
        if private_mb() - settled >= TRIM_GROWTH_MB or not conn.poll(TRIM_WHEN_IDLE):
            release_freed_memory()  # back to start-up size


def find_elements(
    path: Path,
    pages: list[int],
    options: ExtractOptions,
    beat: Callable[[], None],
    identity: Identity | None = None,
) -> Extraction:
    """The elements pass over `path`, read only from the file opened and checked against
    `identity` (what the indexer saw), as `extract_file` reads text."""
    from pdfindex.elements.detect import elements_of

    try:
        fd = open_regular(path, identity)
    except OSError as exc:
        return Extraction(status=FileStatus.FAILED, error=f"elements: refused: {exc}")
    try:
        return elements_of(fd_path(fd), pages, options, beat)
    finally:
        os.close(fd)


class _Worker(WorkerProcess):
    def __init__(self, engine: str, memory_mb: int, options: ExtractOptions | None) -> None:
        super().__init__(_worker_main, engine, memory_mb, options)
        self.job: tuple[Any, Any] | None = None  # (key, task) being read
        self.queued: list[tuple[Any, Any]] = []  # sent, read once `job` is done (prefetch)
        self.detached = False  # its run ended first: the next run may adopt the task
        self.deadline = 0.0


TICK = None  # what `run` yields when nothing finished for a tick: a caller's turn to act


class ExtractionPool:
    """Extract many files on all cores; `run` yields (key, Extraction) as files finish.

    A file's time limit is its whole budget, OCR included (an elements job's restarts
    after each slow step it reports). A kept pool (serve) lets a run end while files are
    still being read: they go on, and the next run that asks for the same task adopts
    them, so a slow file never holds new files back and is never read twice.

    With `prefetch` (a one-off run's pool), each worker also holds its next file, sent
    while it reads the current one: it starts that file at once, instead of waiting while
    the caller writes a large file or commits. Without it, at 48k pages each worker
    waited ~8 s in all, and the build left a core idle for part of that time.
    """

    def __init__(
        self,
        engine: str,
        workers: int,
        timeout: float,
        memory_mb: int,
        options: ExtractOptions | None = None,
        prefetch: bool = False,
    ) -> None:
        self.engine, self.size, self.timeout, self.memory_mb = engine, workers, timeout, memory_mb
        self.options = options
        self.prefetch = prefetch
        self._workers: list[_Worker] = []
        self._returned: list[tuple[Any, Any]] = []  # jobs a replaced worker held, unread
        self._start_failures = 0
        self._closing = False

    def __enter__(self) -> ExtractionPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop every worker (a busy one is killed: its file is not failed, only not
        read, and the next run reads it)."""
        self._closing = True
        for worker in self._workers:
            worker.stop(kill=worker.job is not None)
        self._workers = []

    def warm(self) -> None:
        """Start every worker now, so the first file waits for no start-up."""
        while len(self._workers) < self.size:
            self._workers.append(self._spawn())

    def detach(self) -> None:
        """End a run whose files are still being read: they go on, for the next run to
        adopt (see `run`); elements jobs are stopped (their pass starts over anyway)."""
        for worker in [w for w in self._workers if w.job is not None]:
            if _is_elements(worker.job[1]):  # type: ignore[index]
                self._replace(worker)
            else:
                worker.detached = True

    def busy(self) -> int:
        """Files being read now, by this run or (detached) for the next."""
        return sum(1 for w in self._workers if w.job is not None)

    def _spawn(self) -> _Worker:
        return _Worker(self.engine, self.memory_mb, self.options)

    def run(
        self, jobs: Iterable[tuple[Any, Any]], tick: float | None = None
    ) -> Iterator[tuple[Any, Extraction] | None]:
        """Each job is (key, path) or (key, (path, identity, ...)) to extract, or
        (key, (ELEMENTS, path, pages, identity)) for the elements pass; identity is the
        (st_dev, st_ino) the file must still have. Results come as files finish; with
        `tick`, TICK comes too whenever `tick` seconds pass without either (so the caller
        can commit or stop while a slow file is read, whatever the workers report). A
        detached worker reading a task of `jobs` is adopted; one reading a task no longer
        asked for is stopped."""
        pending = list(jobs)
        for worker in [w for w in self._workers if w.detached]:
            match = next((job for job in pending if job[1] == worker.job[1]), None)  # type: ignore[index]
            if match is None:
                self._replace(worker)
            else:
                pending.remove(match)
                worker.job, worker.detached = match, False
        pending.reverse()  # pop() from the end keeps the caller's order
        while len(self._workers) < min(self.size, len(pending) + self.busy()):
            self._workers.append(self._spawn())
        turn = time.monotonic()  # when the caller last came back from a result or a TICK
        while not self._closing and (pending or self._returned or self.busy()):
            pending.extend(reversed(self._returned))  # next out, in the order they were sent
            self._returned.clear()
            self._dispatch(pending)
            busy = [w for w in self._workers if w.job is not None]
            waiting = [w for w in self._workers if w.job is not None or not w.ready]
            wake = min((w.deadline for w in busy), default=time.monotonic() + 60)
            if tick is not None:
                wake = min(wake, turn + tick)
            ready = wait([w.conn for w in waiting], timeout=max(0.0, wake - time.monotonic()))
            if self._closing:
                return
            for worker in waiting:
                if worker.conn in ready:
                    # Its next file goes out before the caller writes this one: a worker
                    # idle while the indexer wrote was a fifth of a build's worker time.
                    results = list(self._receive(worker))
                    self._dispatch(pending)
                    if results:
                        yield from results
                        turn = time.monotonic()  # the caller is back: a tick from now
                elif worker.job is not None and time.monotonic() >= worker.deadline:
                    key, path = worker.job
                    log.warning("extraction of %s timed out after %ss", path, self.timeout)
                    yield (
                        key,
                        self._failed(
                            f"timeout: reading the file (text and OCR) took over {self.timeout:g} s"
                        ),
                    )
                    turn = time.monotonic()
                    self._replace(worker)
            # By the clock, not by silence: a worker OCRing reports each page ("alive"),
            # and pages of a quarter second kept every tick from ever passing unheard.
            if tick is not None and time.monotonic() - turn >= tick:
                yield TICK
                turn = time.monotonic()

    def _dispatch(self, pending: list[tuple[Any, Any]]) -> None:
        """Send the next pending job (popped from the end) to each ready, idle worker, and
        with `prefetch` one more to each busy one that holds none."""
        for worker in self._workers:
            if worker.ready and worker.job is None and pending:
                worker.job = pending.pop()
                worker.deadline = time.monotonic() + self.timeout
                _send(worker, worker.job)
            if self.prefetch and worker.job is not None and not worker.queued and pending:
                worker.queued.append(pending.pop())
                _send(worker, worker.queued[-1])

    def _receive(self, worker: _Worker) -> Iterator[tuple[Any, Extraction]]:
        """Take one message from a worker: its start-up signal, a result, or its death."""
        try:
            message = worker.conn.recv()
        except (EOFError, OSError):
            if self._closing:
                return  # killed by close(): the file is read by the next run
            worker.process.join(timeout=1)  # reaped, so its exit code is known
            code = worker.process.exitcode
            if worker.job is not None:
                reason = (
                    f"extraction worker crashed (exit code {code}; memory cap {self.memory_mb} MB)"
                )
                yield worker.job[0], self._failed(reason)
            else:
                self._start_failures += 1
                if self._start_failures >= 3:
                    raise PdfIndexError(
                        f"extraction workers fail to start (exit code {code})"
                    ) from None
            self._replace(worker)
            return
        if message == "ready":
            worker.ready = True
            self._start_failures = 0
            return
        if message == "alive":  # a slow step of an elements job is done: its limit restarts
            if worker.job is not None and _is_elements(worker.job[1]):
                worker.deadline = time.monotonic() + self.timeout
            return
        key = worker.job[0]  # type: ignore[index]
        worker.job = worker.queued.pop(0) if worker.queued else None
        if worker.job is not None:  # begun as soon as the last one was sent back
            worker.deadline = time.monotonic() + self.timeout
        yield key, Extraction.from_dict(message)

    def _failed(self, reason: str) -> Extraction:
        return Extraction(status=FileStatus.FAILED, error=reason, engine=self.engine)

    def _replace(self, worker: _Worker) -> None:
        self._returned.extend(worker.queued)  # never begun: another worker reads them
        worker.job, worker.queued, worker.detached = None, [], False
        worker.stop(kill=True)
        self._workers[self._workers.index(worker)] = self._spawn()


def _send(worker: _Worker, job: tuple[Any, Any]) -> None:
    task = job[1]
    worker.conn.send(task if isinstance(task, tuple) else str(task))


def _is_elements(task: Any) -> bool:
    return isinstance(task, tuple) and bool(task) and task[0] == ELEMENTS
