"""The MCP server (stdio): a thin, declarative layer over the library.

The only module that imports the MCP SDK. Tools validate arguments through typed
schemas, log each request and result to the session log, and raise ToolError with a
message saying what was wrong.
"""

from __future__ import annotations

import functools
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from pdfindex.config import Settings
from pdfindex.errors import PdfIndexError
from pdfindex.service import NOT_INDEXED, PdfIndex

log = logging.getLogger("pdfindex.server")
F = TypeVar("F", bound=Callable[..., Any])
CATCH_UP_WAIT = 30.0

INSTRUCTIONS = """\
pdfindex answers searches over a folder of PDFs from a persistent full-text index.
search_pdf(pdf_name, query): exact, case-insensitive occurrences of `query` in one PDF
(name relative to the files folder, without .pdf), each with surrounding context and the
match marked **like this**."""


@dataclass
class AppState:
    """What every tool reads: the open index and the start-up catch-up scan."""

    index: PdfIndex
    ready: threading.Event = field(default_factory=threading.Event)
    stop: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None

    def start_catch_up(self) -> None:
        self.thread = threading.Thread(target=self._catch_up, name="pdfindex-catch-up", daemon=True)
        self.thread.start()

    def _catch_up(self) -> None:
        try:
            summary = self.index.reindex(commit_interval=5.0, should_stop=self.stop.is_set)
            log.info("catch-up scan: %s", summary.line())
        except PdfIndexError as exc:
            log.warning("catch-up scan skipped: %s (serving the index as it is)", exc)
        except Exception:
            log.exception("catch-up scan failed (serving the index as it is)")
        finally:
            self.ready.set()

    def close(self) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(timeout=30)
        self.index.close()


def _logged(fn: F) -> F:
    """Log each call and its result (shortened) to the session log; map our errors."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        shown = {k: v for k, v in kwargs.items() if k != "ctx"}
        log.info("request %s %s", fn.__name__, json.dumps(shown, default=str)[:2000])
        try:
            result = fn(*args, **kwargs)
        except PdfIndexError as exc:
            log.info("error %s: %s", fn.__name__, exc)
            raise ToolError(str(exc)) from exc
        except ToolError as exc:
            log.info("error %s: %s", fn.__name__, exc)
            raise
        except Exception:
            log.exception("tool %s crashed", fn.__name__)
            raise
        log.info("response %s %s", fn.__name__, json.dumps(result, default=str)[:4000])
        return result

    return wrapper  # type: ignore[return-value]


def _state(ctx: Context) -> AppState:
    return ctx.request_context.lifespan_context


def build_server(settings: Settings, catch_up: bool = True) -> MCPServer:
    """An MCPServer whose lifespan opens the index (and brings it up to date)."""

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[AppState]:
        state = AppState(PdfIndex(settings))
        if catch_up:
            state.start_catch_up()
        else:
            state.ready.set()
        try:
            yield state
        finally:
            state.close()

    server = MCPServer("pdfindex", instructions=INSTRUCTIONS, lifespan=lifespan)

    @server.tool()
    @_logged
    def search_pdf(
        pdf_name: Annotated[
            str,
            Field(
                description="PDF file under the files folder, without the .pdf extension "
                "(a trailing .pdf is tolerated); may include sub-folders, e.g. 'reports/q3'.",
                min_length=1,
                max_length=1000,
            ),
        ],
        query: Annotated[
            str,
            Field(
                description="Text to find, case-insensitive. Whitespace matches any whitespace, "
                "line breaks included; words hyphenated at a line end match unbroken.",
                min_length=1,
                max_length=2000,
            ),
        ],
        context_length: Annotated[
            int,
            Field(
                description="Characters of context around each match (half before, half after).",
                ge=0,
                le=20_000,
            ),
        ] = 2000,
        topk: Annotated[
            int, Field(description="Maximum number of matches to return.", ge=1, le=100)
        ] = 10,
        ctx: Context = None,  # type: ignore[assignment]
    ) -> dict[str, Any]:
        """Find every occurrence of a text in one PDF, in document order, with context.

        Returns {file_exists, query_exists, matches}; `error` says why a file could not be
        searched (parse failure, encrypted, no text layer).
        """
        state = _state(ctx)
        result = state.index.search_pdf(pdf_name, query, context_length=context_length, topk=topk)
        if result.get("error") == NOT_INDEXED and not state.ready.is_set():
            state.ready.wait(CATCH_UP_WAIT)  # the start-up scan has not reached it yet
            result = state.index.search_pdf(
                pdf_name, query, context_length=context_length, topk=topk
            )
        return result

    return server


def serve(settings: Settings, catch_up: bool = True) -> None:
    """Run the MCP server over stdio until the client closes stdin."""
    build_server(settings, catch_up=catch_up).run("stdio")
