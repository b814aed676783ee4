"""A call's limits: its thread lane, its time limit counted from its receipt, the size of
its answer.

Each tool call runs in a thread of its lane, and each lane has threads of its own: 200
page images waiting for the page workers leave every thread of the quick lane free (the
SDK's one pool of 40 threads made a search wait 19 s behind them). A call's time limit
runs from its receipt, waiting for a thread included.
"""

from __future__ import annotations

import functools
import json
import logging
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from anyio.lowlevel import RunVar
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult

from pdfindex import deadline
from pdfindex.errors import RequestTimeout
from pdfindex.server import roots
from pdfindex.server.context import app_of, settings_of
from pdfindex.server.errors import client_answer, error_answer, error_result, seed002_kind
from pdfindex.server.roots import ASK_SECONDS
from pdfindex.tools.budget import serialise

log = logging.getLogger("pdfindex.server")  # one name for the session log's call lines
F = TypeVar("F", bound=Callable[..., Any])

LANES: dict[str, str] = {
    **dict.fromkeys(("get_page_image", "get_element_image"), "page image"),
    "extract_pdf_page": "conversion",
    "process_document": "indexing",
}
QUICK = "quick"
LANE_THREADS = {"page image": 8, "conversion": 4, "indexing": 2, QUICK: 24}
# Tools not under request_timeout: indexing a file now has the extraction limits instead.
UNLIMITED = ("process_document",)
# When the server received the call being run (PdfIndexServer.call_tool sets it).
received_at: ContextVar[float | None] = ContextVar("pdfindex_received", default=None)
_limiters: RunVar[dict[str, anyio.CapacityLimiter]] = RunVar("pdfindex_lanes")


def answered_within_limits(fn: F) -> F:
    """`fn` under its time limit (request_timeout, from the call's receipt), its answer
    capped at max_response_chars (client_answer) and every error, expected or not, turned
    into its tool's error answer (error_answer); the call and its answer are logged
    (shortened) to the session log."""
    tool = fn.__name__

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        shown = {k: v for k, v in kwargs.items() if k != "ctx"}
        log.info("request %s %s", tool, json.dumps(shown, default=str)[:2000])
        settings = settings_of(kwargs.get("ctx"))
        limit = settings.request_timeout if settings is not None else None
        size = settings.max_response_chars if settings is not None else None
        try:
            # From the request's receipt (in_lane), so time spent queued counts.
            with deadline.limit(None if tool in UNLIMITED else limit, start=received_at.get()):
                answer = client_answer(tool, fn(*args, **kwargs), size, shown)
        except Exception as exc:
            files_dir = settings.files_dir if settings is not None else None
            answer = error_answer(tool, exc, shown, files_dir)
        if isinstance(answer, CallToolResult):
            shown_result = serialise([c.model_dump() for c in answer.content])
            log.info(
                "%s %s %s", "error" if answer.is_error else "response", tool, shown_result[:4000]
            )
        else:
            shown_result = json.dumps(answer, default=lambda o: f"<{type(o).__name__}>")
            log.info("response %s %s", tool, shown_result[:4000])
        return answer

    return wrapper  # type: ignore[return-value]


def lane_limiters() -> dict[str, anyio.CapacityLimiter]:
    """This event loop's thread limiters: one per lane, and "all" for their threads."""
    try:
        return _limiters.get()
    except LookupError:
        limiters = {name: anyio.CapacityLimiter(n) for name, n in LANE_THREADS.items()}
        limiters["all"] = anyio.CapacityLimiter(sum(LANE_THREADS.values()))
        _limiters.set(limiters)
        return limiters


def in_lane(fn: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
    """`fn` (a tool wrapped by answered_within_limits) as a coroutine function that runs
    it in a thread of its lane (LANES); a call that gets no thread before its time limit,
    counted from its receipt, is answered at once with a named error instead."""
    tool = fn.__name__
    lane = LANES.get(tool, QUICK)

    async def run(**kwargs: Any) -> Any:
        received = received_at.get()
        if received is None:
            received = time.monotonic()
        settings = settings_of(kwargs.get("ctx"))
        limit = settings.request_timeout if settings is not None else 0.0
        with anyio.move_on_after(ASK_SECONDS):  # the client's roots: once per session
            await roots.refresh(kwargs.get("ctx"), again=tool == "get_library_status")
        if tool in UNLIMITED:
            limit = 0.0
        limiters = lane_limiters()
        try:
            limiters[lane].acquire_nowait()
        except anyio.WouldBlock:  # every thread of the lane is busy: wait, within the limit
            left = received + limit - time.monotonic() if limit > 0 else None
            with anyio.move_on_after(left) as waiting:
                await limiters[lane].acquire()
            if waiting.cancelled_caught:
                return queued_too_long(tool, lane, limit, kwargs.get("ctx"))

        def call() -> Any:
            token = received_at.set(received)
            try:
                return fn(**kwargs)
            finally:
                received_at.reset(token)

        try:
            return await anyio.to_thread.run_sync(call, limiter=limiters["all"])
        finally:
            limiters[lane].release()

    run.__name__ = run.__qualname__ = tool
    run.__doc__ = fn.__doc__
    return run


def queued_too_long(tool: str, lane: str, limit: float, ctx: Context | None) -> CallToolResult:
    """The answer of a call that waited its whole time limit for a thread of its lane:
    what holds them, and that retrying (not narrowing the request) is the remedy."""
    stats = lane_limiters()[lane].statistics()
    queued = f"{stats.tasks_waiting} more {lane} requests queued"
    if lane == QUICK:
        busy = f"no thread was free within {limit:g} s: {stats.borrowed_tokens} requests are "
        busy += f"running and {queued}"
    else:
        try:
            running = app_of(ctx).index.isolated.running(waiting=False)
        except (AttributeError, LookupError, ValueError):
            running = f"{stats.borrowed_tokens} {lane} requests are running"
        busy = f"no worker was free within {limit:g} s: {running}, {queued}"
    message = f"{busy}; retry in a moment"
    log.info("error %s %s", tool, message)
    return error_result(tool, seed002_kind(RequestTimeout()), message)
