"""The MCP server (stdio): registers the plain functions of `pdfindex.tools`.

The only package that imports the MCP SDK. `tools.py` declares each tool's typed
arguments and what it does to the world and calls one function of `pdfindex.tools`;
`errors.py` maps errors once, per seed; `lanes.py` keeps each call within its time and
size limits, in its own thread lane; `protocol.py` answers what goes wrong around a
tool's code (bad arguments, unreadable lines). This module opens the index for the
server's lifetime (AppContext) and serves it.
"""

from __future__ import annotations

import json
import logging
import os
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from mcp.server.mcpserver import MCPServer

from pdfindex import __version__
from pdfindex.config import Settings
from pdfindex.extract.adapters import describe as describe_adapters
from pdfindex.server.context import AppContext
from pdfindex.server.protocol import PdfIndexServer, strict_tool
from pdfindex.server.tools import ONE_OF, TOOLS
from pdfindex.tools import catalog

if TYPE_CHECKING:
    from pdfindex.api import PdfIndex

__all__ = ["AppContext", "build_server", "serve"]

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
pdfindex answers searches over a folder of PDFs from a persistent full-text index.
- search_pdf(pdf_name, query): exact occurrences in one PDF with context.
- fuzzy_search(query, path): typo-tolerant search over many files, line by line.
- search_in_file(file, pattern): regular expression in one file.
- list_searchable_files(path), read_pdf(sources): what there is, and page texts.
- extract_pdf_page(file, pages, output_format): pages as Markdown, HTML, text, LaTeX, DOCX.
- find_document, search_documents, get_page_image, get_document_info, list_documents:
  the library by document slug (resource tour://library explains them).
- search_visual_elements, get_element_image, get_element_details: figures, tables and
  equations by caption, looked up by (document slug, label as printed).
- process_document, query_documents: index a file now; cited passages for a question.
Paths are relative to the files folder."""


def build_server(
    settings: Settings, app: AppContext | None = None, watch: bool = True
) -> MCPServer:
    """An MCPServer over `app`, or over an AppContext its lifespan opens and closes."""

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[AppContext]:
        if app is not None:
            yield app
            return
        own = AppContext.open(settings, watch=watch).start()
        try:
            yield own
        finally:
            own.close()

    server = PdfIndexServer(
        "pdfindex",
        title="pdfindex",
        instructions=INSTRUCTIONS,
        version=__version__,
        lifespan=lifespan,
        tools=[
            strict_tool(fn, hints, structured, ONE_OF.get(fn.__name__))
            for fn, hints, structured in TOOLS
        ],
    )

    @server.resource("tour://library", mime_type="text/markdown")
    def tour() -> str:
        """How to use this library: which tool for which need, with example calls."""
        return catalog.TOUR

    @server.resource("adapters://list", mime_type="application/json")
    def adapters_list() -> str:
        """Every adapter: name, description, extensions, binary (the library or program it
        runs), version and role; custom adapters (pdfindex.toml) first, marked custom."""
        adapters = describe_adapters(settings.extractor, settings.custom_adapters)
        return json.dumps({"adapters": adapters}, indent=2)

    @server.resource("config://settings", mime_type="application/json")
    def config_settings() -> str:
        """The effective configuration and where each value came from."""
        return json.dumps(settings.as_dict(), indent=2)

    return server


def serve(
    settings: Settings,
    watch: bool = True,
    alongside: Callable[[PdfIndex], Callable[[], None]] | None = None,
) -> None:
    """Run the MCP server over stdio until stdin closes or SIGTERM; then stop the
    watcher, commit what the writer has, and join every thread. `alongside`: started
    with the open index, and stopped first (the CLI's resident search)."""
    opened: list[AppContext] = []
    stops: list[Callable[[], None]] = []

    def shut_down() -> None:
        for stop in stops:
            stop()
        for app in opened:
            app.close()
        log.info("server stopped")

    def terminate(_signum: int, _frame: object) -> None:
        # The SDK's stdin reader thread cannot be woken, so after a clean shutdown of
        # our own threads the process ends here rather than in the event loop.
        log.info("stopping on signal %s", _signum)
        shut_down()
        logging.shutdown()
        os._exit(0)

    # Installed before anything starts, so a signal during start-up still ends cleanly.
    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGINT, terminate)
    app = AppContext.open(settings, watch=watch)
    opened.append(app)
    app.start()
    if alongside is not None:
        stops.append(alongside(app.index))
    try:
        build_server(settings, app=app).run("stdio")
    except KeyboardInterrupt:
        log.info("stopping on Ctrl-C")
    finally:
        shut_down()
