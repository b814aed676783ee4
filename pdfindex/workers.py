"""Worker processes for single calls that must be stoppable: page rendering, conversion.

One pdfium render or one pdfminer layout of a hostile page can take gigabytes or minutes
in a single library call, which no check between pages can stop. So those calls run in
a small pool of spawned processes, each under the extraction workers' memory cap: a call
past its time limit kills its worker (the waiting request answers at once, nothing runs
on), a call past the memory cap ends its worker, and a fresh worker replaces it. The file
is passed as the descriptor the server opened and checked (`paths.open_regular`), never
by name, so the worker reads exactly the file that was checked.

The skeleton of a worker process (`WorkerProcess` to start, stop and reap it;
`prepare_worker` and `worker_jobs` inside it) is shared with the extraction workers of
`indexer/pool.py`.

The workers serve two lanes. A page render (get_page_image, get_element_image) is quick;
a conversion (extract_pdf_page: a layout parse of up to 50 pages) may hold its worker
for the whole extraction `timeout`. Conversions may use every worker but one, and they
let waiting renders go first, so however many conversions run, page images still get
a worker: a slow request never holds up a fast one.
"""

from __future__ import annotations

import importlib
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from multiprocessing.reduction import recv_handle, send_handle
from typing import Any

from pdfindex import deadline, errors
from pdfindex.errors import PdfIndexError, RequestTimeout, WorkerDied
from pdfindex.memory import cap_memory

log = logging.getLogger(__name__)
START_TIMEOUT = 30.0  # seconds a new worker may take to import its libraries
IDLE_SECONDS = 120.0  # an idle worker ends after this, so an idle server stays small
REUSE_SECONDS = IDLE_SECONDS - 15.0  # the server stops using a worker about to end
RENDER, CONVERT = "render", "convert"  # the lanes: quick page renders, slow conversions
LANE_WORDS = {RENDER: ("page render", "page renders"), CONVERT: ("conversion", "conversions")}
_SPAWN = multiprocessing.get_context("spawn")


def prepare_worker(conn: Connection, memory_mb: int, load: Callable[[], object]) -> None:
    """The start of every worker process: stdout goes to stderr (it belongs to the MCP
    protocol in the parent), `load` imports the libraries before the memory cap is set
    (their start-up size is not the file's fault), and the parent hears "ready" (its
    time limit for a job starts then)."""
    os.dup2(2, 1)
    load()
    cap_memory(memory_mb)
    conn.send("ready")


def worker_jobs(conn: Connection, idle: float | None = None) -> Iterator[Any]:
    """The jobs the parent sends, until it says stop (None), its pipe closes, or (with
    `idle`) that many seconds pass without one."""
    while True:
        try:
            if idle is not None and not conn.poll(idle):
                return
            job = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if job is None:
            return
        yield job


class WorkerProcess:
    """A spawned process running `target(its end of a pipe, *args)`, seen from the parent:
    started at once, stopped (asked, or killed) and always reaped. Spawned, not forked:
    a fork of a process that runs threads can copy a lock one of them holds."""

    def __init__(self, target: Callable[..., None], *args: Any) -> None:
        self.conn, child = _SPAWN.Pipe()
        self.process = _SPAWN.Process(target=target, args=(child, *args), daemon=True)
        self.process.start()
        child.close()
        self.ready = False  # until its "ready" (prepare_worker)

    def stop(self, kill: bool = False) -> None:
        """Ask the worker to end (None on its pipe) or kill it; reaped either way, and
        killed if it has not ended within 5 s."""
        if kill:
            self.process.kill()
        else:
            try:
                self.conn.send(None)
            except OSError:
                self.process.kill()
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()


def _worker_main(conn: Connection, memory_mb: int, preload: tuple[str, ...]) -> None:
    """Worker loop: receive (module, function, args, kwargs) and the descriptor of the
    file to read; call `function(path, *args, **kwargs)`; send back the result or the
    error. Idle for long, it ends: the server gets its memory back."""
    prepare_worker(conn, memory_mb, lambda: [importlib.import_module(m) for m in preload])
    for module, name, args, kwargs in worker_jobs(conn, idle=IDLE_SECONDS):
        fd = recv_handle(conn)
        try:
            function = getattr(importlib.import_module(module), name)
            reply: tuple[str, Any] = ("ok", function(f"/proc/self/fd/{fd}", *args, **kwargs))
        except MemoryError:
            reply = ("memory", None)
        except PdfIndexError as exc:
            reply = ("error", (type(exc).__name__, str(exc)))
        except Exception as exc:  # a library's own failure on a damaged file
            reply = ("error", ("PdfIndexError", f"{type(exc).__name__}: {exc}"))
        finally:
            os.close(fd)
        conn.send(reply)


class _Worker(WorkerProcess):
    def __init__(self, memory_mb: int, preload: tuple[str, ...]) -> None:
        super().__init__(_worker_main, memory_mb, preload)
        self.idle_since = time.monotonic()

    def wait_ready(self, deadline: float) -> None:
        if self.ready:
            return
        if not self.conn.poll(max(0.0, deadline - time.monotonic())):
            raise TimeoutError
        if self.conn.recv() != "ready":
            raise EOFError
        self.ready = True

    def stop(self, kill: bool = False) -> None:
        super().stop(kill or not self.ready)  # one still starting is not listening yet


def counted(number: int, lane: str) -> str:
    """'1 conversion', '2 page renders'."""
    one, many = LANE_WORDS[lane]
    return f"{number} {one if number == 1 else many}"


def shown_limit(timeout: float) -> float:
    """The time limit to name in a message: the request's configured limit (10, not the
    9.99879 s left of it when the call began), or `timeout` when it is a limit of its
    own (a conversion's: request_timeout per page, up to the extraction timeout)."""
    whole = deadline.seconds()
    return whole if whole is not None and timeout <= whole else timeout


class IsolatedCalls:
    """At most `size` worker processes (at least 2), started on first use, each running
    one call at a time, in two lanes: page renders may use every worker, conversions all
    but one and only when no render is waiting. `call` blocks the calling thread until
    the answer, the time limit or the worker's death."""

    def __init__(self, size: int, memory_mb: int, preload: tuple[str, ...] = ()) -> None:
        self.size, self.memory_mb, self.preload = max(2, size), memory_mb, preload
        self.lane_size = {RENDER: self.size, CONVERT: self.size - 1}
        self._idle: list[_Worker] = []
        self._started = 0  # workers alive, idle or busy
        self._busy = {RENDER: 0, CONVERT: 0}  # calls running, per lane
        self._waiting = {RENDER: 0, CONVERT: 0}  # calls waiting for a worker, per lane
        self._free = threading.Condition()
        self._closed = False

    def running(self, waiting: bool = True) -> str:
        """What holds the workers now, in words: '1 conversion and 1 page render are
        running' (and, with `waiting`, ', 3 more waiting')."""
        with self._free:
            busy, queued = dict(self._busy), sum(self._waiting.values())
        parts = [counted(n, lane) for lane, n in busy.items() if n] or ["no call"]
        verb = "is" if sum(busy.values()) == 1 else "are"
        more = f", {queued} more waiting" if waiting and queued else ""
        return f"{' and '.join(parts)} {verb} running{more}"

    def call(
        self,
        function: str,
        fd: int,
        *args: Any,
        timeout: float,
        what: str = "the request",
        lane: str | None = None,
        **kwargs: Any,
    ) -> Any:
        """`function` ("module:name") called as name(path of `fd`, *args, **kwargs) in a
        worker of `lane` (by default: CONVERT for pdfindex.convert, else RENDER);
        RequestTimeout after `timeout` seconds, waiting for a worker included (a running
        worker is killed), WorkerDied when the worker ends (its memory cap), its own
        PdfIndexError passed on."""
        lane = lane or (CONVERT if function.startswith("pdfindex.convert") else RENDER)
        ends = time.monotonic() + timeout
        shown = shown_limit(timeout)
        worker = self._take(lane, ends, shown, what)
        module, name = function.split(":")
        try:
            worker.wait_ready(ends)
        except TimeoutError:  # before OSError, of which it is a kind
            self._discard(worker, lane)
            raise RequestTimeout.after(shown, what) from None
        except (EOFError, OSError):
            code = worker.process.exitcode
            self._discard(worker, lane)
            raise PdfIndexError(
                f"{what}: its worker process could not start (exit code {code}); "
                "the server log has its error"
            ) from None
        try:
            worker.conn.send((module, name, args, kwargs))
            send_handle(worker.conn, fd, worker.process.pid)
            if not worker.conn.poll(max(0.0, ends - time.monotonic())):
                raise TimeoutError
            status, value = worker.conn.recv()
        except TimeoutError:  # before OSError, of which it is a kind
            log.warning("%s stopped after %gs: its worker is killed", function, shown)
            self._discard(worker, lane)
            raise RequestTimeout.after(shown, what) from None
        except (EOFError, OSError):
            code = worker.process.exitcode
            self._discard(worker, lane)
            raise WorkerDied(
                f"{what} ended its worker process (exit code {code}): it needs more than the "
                f"memory cap of {self.memory_mb} MB (memory_mb) or crashed the PDF library"
            ) from None
        if status == "memory":  # its heap is no use to the next call
            self._discard(worker, lane)
            raise MemoryError
        self._give_back(worker, lane)
        if status == "ok":
            return value
        kind, message = value
        raise getattr(errors, kind, PdfIndexError)(message)

    def close(self) -> None:
        """Stop every idle worker (busy ones are killed by their callers' limits)."""
        with self._free:
            self._closed = True
            idle, self._idle = self._idle, []
            self._free.notify_all()
        for worker in idle:
            worker.stop()

    def _can_start(self, lane: str) -> bool:
        """Whether a call of `lane` may take a worker now (the lock held)."""
        if not self._idle and self._started >= self.size:
            return False
        if lane == CONVERT and self._waiting[RENDER]:
            return False  # a waiting page render goes first
        return self._busy[lane] < self.lane_size[lane]

    def _take(self, lane: str, ends: float, shown: float, what: str) -> _Worker:
        with self._free:
            if self._closed:
                raise PdfIndexError("the server is stopping: no new page work is started")
            self._waiting[lane] += 1
            try:
                while not self._can_start(lane):
                    left = ends - time.monotonic()
                    if self._closed or left <= 0 or not self._free.wait(left):
                        if self._closed or self._can_start(lane):
                            break
                        raise self._no_worker(lane, shown, what)
            finally:
                self._waiting[lane] -= 1
            if self._closed:
                raise PdfIndexError("the server is stopping: no new page work is started")
            self._busy[lane] += 1
            now = time.monotonic()
            stale = [w for w in self._idle if now - w.idle_since > REUSE_SECONDS]
            self._idle = [w for w in self._idle if w not in stale]
            self._started -= len(stale)
            chosen = self._idle.pop() if self._idle else None
            if chosen is None:
                self._started += 1
        for old in stale:
            old.stop(kill=True)
        if chosen is not None:
            return chosen
        try:
            return _Worker(self.memory_mb, self.preload)
        except BaseException:
            with self._free:
                self._started -= 1
                self._busy[lane] -= 1
                self._free.notify_all()
            raise

    def _no_worker(self, lane: str, shown: float, what: str) -> RequestTimeout:
        """The error of a call that found no worker free within its limit: what holds
        them, and that retrying (not narrowing the request) is the remedy."""
        share = ""
        if lane == CONVERT:
            share = (
                f" (conversions use at most {self.lane_size[CONVERT]} of the {self.size} page "
                "workers; the other is kept for page images)"
            )
        return RequestTimeout(
            f"{what}: no worker was free within {shown:g} s: {self.running(waiting=False)}"
            f"{share}; retry in a moment"
        )

    def _give_back(self, worker: _Worker, lane: str) -> None:
        with self._free:
            worker.idle_since = time.monotonic()
            self._busy[lane] -= 1
            closed = self._closed
            if closed:
                self._started -= 1
            else:
                self._idle.append(worker)
            self._free.notify_all()  # waiters of either lane recheck their own rule
        if closed:
            worker.stop()

    def _discard(self, worker: _Worker, lane: str) -> None:
        worker.stop(kill=True)
        with self._free:
            self._started -= 1
            self._busy[lane] -= 1
            self._free.notify_all()
