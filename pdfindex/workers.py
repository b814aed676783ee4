"""Worker processes for single calls that must be stoppable: page rendering, conversion.

One pdfium render or one pdfminer layout of a hostile page can take gigabytes or minutes
in a single library call, which no check between pages can stop. So those calls run in
a small pool of spawned processes, each under the extraction workers' memory cap: a call
past its time limit kills its worker (the waiting request answers at once, nothing runs
on), a call past the memory cap ends its worker, and a fresh worker replaces it. The file
is passed as the descriptor the server opened and checked (`paths.open_regular`), never
by name, so the worker reads exactly the file that was checked.
"""

from __future__ import annotations

import importlib
import logging
import multiprocessing
import os
import threading
import time
from multiprocessing.connection import Connection
from multiprocessing.reduction import recv_handle, send_handle
from typing import Any

from pdfindex import errors
from pdfindex.errors import PdfIndexError, RequestTimeout
from pdfindex.memory import cap_memory

log = logging.getLogger(__name__)
START_TIMEOUT = 30.0  # seconds a new worker may take to import its libraries
IDLE_SECONDS = 120.0  # an idle worker ends after this, so an idle server stays small
REUSE_SECONDS = IDLE_SECONDS - 15.0  # the server stops using a worker about to end


class WorkerDied(PdfIndexError):
    """A worker ended in the middle of a call: its memory cap, or a crash of the library."""


def _worker_main(conn: Connection, memory_mb: int, preload: tuple[str, ...]) -> None:
    """Worker loop: receive (module, function, args, kwargs) and the descriptor of the
    file to read; call `function(path, *args, **kwargs)`; send back the result or the
    error."""
    os.dup2(2, 1)  # stdout belongs to the MCP protocol in the parent: never write to it
    for module in preload:  # the libraries load before the cap, as in extraction workers
        importlib.import_module(module)
    cap_memory(memory_mb)
    conn.send("ready")
    while True:
        try:
            if not conn.poll(IDLE_SECONDS):
                return  # idle for long: the server gets its memory back
            job = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if job is None:
            return
        module, name, args, kwargs = job
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


class _Worker:
    def __init__(self, ctx: Any, memory_mb: int, preload: tuple[str, ...]) -> None:
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(
            target=_worker_main, args=(child, memory_mb, preload), daemon=True
        )
        self.process.start()
        child.close()
        self.ready = False
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
        stop_worker(self.process, self.conn, kill or not self.ready)


def stop_worker(process: Any, conn: Connection, kill: bool = False) -> None:
    """Ask a worker process to end (None on its pipe) or kill it; reaped either way, and
    killed if it has not ended within 5 s."""
    if kill:
        process.kill()
    else:
        try:
            conn.send(None)
        except OSError:
            process.kill()
    process.join(timeout=5)
    if process.is_alive():
        process.kill()
        process.join()
    conn.close()


class IsolatedCalls:
    """At most `size` worker processes, started on first use, each running one call at
    a time; `call` blocks the calling thread until the answer, the time limit or the
    worker's death."""

    def __init__(self, size: int, memory_mb: int, preload: tuple[str, ...] = ()) -> None:
        self.size, self.memory_mb, self.preload = max(1, size), memory_mb, preload
        self._ctx = multiprocessing.get_context("spawn")
        self._idle: list[_Worker] = []
        self._started = 0  # workers alive, idle or busy
        self._free = threading.Condition()
        self._closed = False

    def call(
        self,
        function: str,
        fd: int,
        *args: Any,
        timeout: float,
        what: str = "the request",
        **kwargs: Any,
    ) -> Any:
        """`function` ("module:name") called as name(path of `fd`, *args, **kwargs) in a
        worker; RequestTimeout after `timeout` seconds (the worker is killed), WorkerDied
        when the worker ends (its memory cap), its own PdfIndexError passed on."""
        deadline = time.monotonic() + timeout
        worker = self._take(deadline, timeout, what)
        module, name = function.split(":")
        try:
            worker.wait_ready(deadline)
        except TimeoutError:  # before OSError, of which it is a kind
            self._discard(worker)
            raise RequestTimeout.after(timeout, what) from None
        except (EOFError, OSError):
            code = worker.process.exitcode
            self._discard(worker)
            raise PdfIndexError(
                f"{what}: its worker process could not start (exit code {code}); "
                "the server log has its error"
            ) from None
        try:
            worker.conn.send((module, name, args, kwargs))
            send_handle(worker.conn, fd, worker.process.pid)
            if not worker.conn.poll(max(0.0, deadline - time.monotonic())):
                raise TimeoutError
            status, value = worker.conn.recv()
        except TimeoutError:  # before OSError, of which it is a kind
            log.warning("%s stopped after %ss: its worker is killed", function, timeout)
            self._discard(worker)
            raise RequestTimeout.after(timeout, what) from None
        except (EOFError, OSError):
            code = worker.process.exitcode
            self._discard(worker)
            raise WorkerDied(
                f"{what} ended its worker process (exit code {code}): it needs more than the "
                f"memory cap of {self.memory_mb} MB (memory_mb) or crashed the PDF library"
            ) from None
        if status == "memory":  # its heap is no use to the next call
            self._discard(worker)
            raise MemoryError
        self._give_back(worker)
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

    def _take(self, deadline: float, timeout: float, what: str) -> _Worker:
        with self._free:
            if self._closed:
                raise PdfIndexError("the server is stopping: no new page work is started")
            while not self._idle and self._started >= self.size:
                if self._closed or not self._free.wait(max(0.0, deadline - time.monotonic())):
                    raise RequestTimeout.after(timeout, what + " (waiting for a worker)")
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
            return _Worker(self._ctx, self.memory_mb, self.preload)
        except BaseException:
            with self._free:
                self._started -= 1
                self._free.notify()
            raise

    def _give_back(self, worker: _Worker) -> None:
        with self._free:
            worker.idle_since = time.monotonic()
            closed = self._closed
            if closed:
                self._started -= 1
            else:
                self._idle.append(worker)
            self._free.notify()
        if closed:
            worker.stop()

    def _discard(self, worker: _Worker) -> None:
        worker.stop(kill=True)
        with self._free:
            self._started -= 1
            self._free.notify()
