"""A time limit per request (the `request_timeout` setting), checked where work loops.

A tool's work runs in a thread the MCP SDK cannot stop, so the loops that can grow with
the library (documents, pages) call `check()`: past the limit the request stops there
with RequestTimeout, instead of burning CPU long after the client has given up. Work
that one check cannot split (rendering a page, converting one) runs in a worker process
that is killed at the limit instead (`pdfindex.workers`). The limit starts when the
request is received, not when a thread gets to it: a request that waited in a queue
has that much less time left.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from pdfindex.errors import RequestTimeout

_deadline: ContextVar[tuple[float, float] | None] = ContextVar("deadline", default=None)


@contextmanager
def limit(seconds: float | None, start: float | None = None) -> Iterator[None]:
    """Run the block under a time limit of `seconds` (None or <= 0: none), counted from
    `start` (a `time.monotonic()` reading: when the request was received, so time spent
    waiting for a thread or a worker counts) or from now."""
    begun = time.monotonic() if start is None else start
    token = _deadline.set((begun + seconds, seconds) if seconds and seconds > 0 else None)
    try:
        yield
    finally:
        _deadline.reset(token)


def check() -> None:
    """Raise RequestTimeout when the current request is past its limit."""
    current = _deadline.get()
    if current is not None and time.monotonic() >= current[0]:
        raise RequestTimeout.after(current[1])


def remaining(default: float) -> float:
    """Seconds left to the current request (`default` when it has no limit)."""
    current = _deadline.get()
    return default if current is None else max(0.0, current[0] - time.monotonic())


def seconds() -> float | None:
    """The current request's whole time limit, for messages."""
    current = _deadline.get()
    return None if current is None else current[1]


def soft_stop(share: float) -> float | None:
    """When work that can answer in part (a scan of every line of the library) should stop
    and answer with what it found: after `share` of the time left to the current request
    (a `time.monotonic()` reading; None when the request has no limit)."""
    current = _deadline.get()
    if current is None:
        return None
    now = time.monotonic()
    return now + share * max(0.0, current[0] - now)
