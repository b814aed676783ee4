"""The MCP server (stdio): a thin, declarative layer over the library.

The only module that imports the MCP SDK. Tools validate arguments through typed
schemas, log each request and result to the session log, and raise ToolError with a
message saying what was wrong.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from pdfindex.config import Settings
from pdfindex.errors import PdfIndexError
from pdfindex.live import LiveIndex
from pdfindex.service import NOT_INDEXED, PdfIndex

log = logging.getLogger("pdfindex.server")
F = TypeVar("F", bound=Callable[..., Any])
PENDING_WAIT = 30.0

INSTRUCTIONS = """\
pdfindex answers searches over a folder of PDFs from a persistent full-text index.
search_pdf(pdf_name, query): exact, case-insensitive occurrences of `query` in one PDF
(name relative to the files folder, without .pdf), each with surrounding context and the
match marked **like this**."""


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


def _live(ctx: Context) -> LiveIndex:
    return ctx.request_context.lifespan_context


def open_live_index(settings: Settings, watch: bool = True) -> LiveIndex:
    """The open index with its writer thread (catch-up scan, then the watcher)."""
    return LiveIndex(PdfIndex(settings), watch=watch).start()


def build_server(
    settings: Settings, live: LiveIndex | None = None, watch: bool = True
) -> MCPServer:
    """An MCPServer over `live`, or over a LiveIndex its lifespan opens and closes."""

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[LiveIndex]:
        if live is not None:
            yield live
            return
        own = open_live_index(settings, watch=watch)
        try:
            yield own
        finally:
            own.close()
            own.index.close()

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
        live = _live(ctx)
        result = live.index.search_pdf(pdf_name, query, context_length=context_length, topk=topk)
        if result.get("error") == NOT_INDEXED and live.pending:
            live.wait_idle(PENDING_WAIT)  # just landed, or the start-up scan is on its way
            result = live.index.search_pdf(
                pdf_name, query, context_length=context_length, topk=topk
            )
        return result

    return server


def serve(settings: Settings, watch: bool = True) -> None:
    """Run the MCP server over stdio until stdin closes or SIGTERM; then stop the
    watcher, commit what the writer has, and join every thread."""
    live = open_live_index(settings, watch=watch)

    def shut_down() -> None:
        live.close()
        live.index.close()
        log.info("server stopped")

    def terminate(_signum: int, _frame: object) -> None:
        # The SDK's stdin reader thread cannot be woken, so after a clean shutdown of
        # our own threads the process ends here rather than in the event loop.
        log.info("stopping on signal %s", _signum)
        shut_down()
        logging.shutdown()
        os._exit(0)

    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGINT, terminate)
    try:
        build_server(settings, live=live).run("stdio")
    except KeyboardInterrupt:
        log.info("stopping on Ctrl-C")
    finally:
        shut_down()
