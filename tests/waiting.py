"""Waiting on a condition instead of sleeping for a guessed time: poll until it holds,
or fail saying what was awaited and the last value seen."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from mcp import Client

from tests.mcpclient import CATCH_UP, text_of

T = TypeVar("T")


def eventually(
    condition: Callable[[], T],
    what: str,
    timeout: float = 60.0,
    interval: float = 0.1,
    holds: Callable[[T], Any] = bool,
) -> T:
    """The first value of `condition()` that `holds` (by default: a true one), asked
    every `interval` seconds; AssertionError after `timeout` seconds without one."""
    ends = time.monotonic() + timeout
    while True:
        value = condition()
        if holds(value):
            return value
        if time.monotonic() >= ends:
            raise AssertionError(_failed(what, timeout, value))
        time.sleep(interval)


async def eventually_async(
    condition: Callable[[], Awaitable[T]],
    what: str,
    timeout: float = 60.0,
    interval: float = 0.1,
    holds: Callable[[T], Any] = bool,
) -> T:
    """`eventually` for a condition that is awaited (an MCP client's call), sleeping
    without blocking the event loop."""
    ends = time.monotonic() + timeout
    while True:
        value = await condition()
        if holds(value):
            return value
        if time.monotonic() >= ends:
            raise AssertionError(_failed(what, timeout, value))
        await asyncio.sleep(interval)


async def indexed(client: Client, pdf_name: str, query: str, timeout: float = CATCH_UP) -> None:
    """Wait until `query` is found in `pdf_name` through `client`: the start-up scan of
    the `serve` behind it has indexed that file."""

    async def found() -> bool:
        answer = await client.call_tool("search_pdf", {"pdf_name": pdf_name, "query": query})
        return bool(json.loads(text_of(answer))["query_exists"])

    await eventually_async(found, f"{pdf_name} indexed by the start-up scan", timeout, 0.25)


def _failed(what: str, timeout: float, value: object) -> str:
    shown = repr(value)
    if len(shown) > 2000:
        shown = shown[:2000] + "…"
    return f"waited {timeout:g} s for {what}; the last value seen: {shown}"
