"""The MCP server (stdio): registers the plain functions of `pdfindex.tools`.

The only module that imports the MCP SDK. Each tool here only declares its typed
arguments and what it does to the world, fetches the open index from the lifespan
context and calls one function of `pdfindex.tools`; errors are mapped once, per seed.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from pdfindex.api import PdfIndex
from pdfindex.config import Settings
from pdfindex.errors import PdfIndexError
from pdfindex.extract.adapters import describe as describe_adapters
from pdfindex.indexer.live import LiveIndex
from pdfindex.tools import catalog, exact, files, fuzzy, grep, passages, results, visual
from pdfindex.tools import pages as pages_tool
from pdfindex.tools.pages import DEFAULT_DPI, MAX_DPI, MIN_DPI
from pdfindex.tools.sessions import SessionStore

log = logging.getLogger("pdfindex.server")
F = TypeVar("F", bound=Callable[..., Any])
PENDING_WAIT = 30.0

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
        shown_result = json.dumps(result, default=lambda o: f"<{type(o).__name__}>")
        log.info("response %s %s", fn.__name__, shown_result[:4000])
        return result

    return wrapper  # type: ignore[return-value]


@dataclass
class AppContext:
    """What every tool reads: the open index, its live updater, query_documents sessions."""

    index: PdfIndex
    live: LiveIndex
    sessions: SessionStore

    @classmethod
    def open(cls, settings: Settings, watch: bool = True) -> AppContext:
        """Open the index and start its writer thread (catch-up scan, then the watcher)."""
        index = PdfIndex(settings)
        return cls(index, index.live(watch=watch), SessionStore(settings.index_dir / "sessions"))

    def start(self) -> AppContext:
        self.live.start()
        return self

    def close(self) -> None:
        self.live.close()
        self.index.close()


def _app(ctx: Context) -> AppContext:
    """The lifespan context; in the first seconds after start, once the catch-up scan is
    done."""
    app: AppContext = ctx.request_context.lifespan_context
    app.live.wait_caught_up(PENDING_WAIT)
    return app


def _seed004(answer: Callable[[], Any]) -> Any:
    """Seed 004 answers errors as text starting with 'Error:', not as tool errors."""
    try:
        return answer()
    except PdfIndexError as exc:
        return f"Error: {exc}"


class PdfSource(BaseModel):
    """One source of read_pdf."""

    path: str | None = Field(None, description="File under the files folder.")
    url: str | None = Field(None, description="Not supported: files are read from the index.")
    pages: str | list[int] | None = Field(
        None, description="Pages to return, like '1-3,5' or [1, 2]; omit for none."
    )


# -- the tools, in the seeds' order ----------------------------------------


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
) -> results.SearchPdfResult:
    """Find every occurrence of a text in one PDF, in document order, with context.

    Returns {file_exists, query_exists, matches}; `error` says why a file could not be
    searched (parse failure, encrypted, no text layer).
    """
    app = _app(ctx)
    result = exact.search_pdf(app.index, pdf_name, query, context_length, topk)
    if result.get("error") == exact.NOT_INDEXED and app.live.pending:
        app.live.wait_idle(PENDING_WAIT)  # just landed, or the start-up scan is on its way
        result = exact.search_pdf(app.index, pdf_name, query, context_length, topk)
    return result


@_logged
def fuzzy_search(
    query: Annotated[
        str | None,
        Field(
            description="Words to find, typos tolerated (1 edit for words of 4-7 letters, 2 "
            "beyond). Omit to list the first lines of every document.",
            max_length=2000,
        ),
    ] = None,
    path: Annotated[
        str,
        Field(description="A folder or one file under the files folder ('.' = everything)."),
    ] = ".",
    file_types: Annotated[
        list[str] | None,
        Field(description="Only these extensions, e.g. ['pdf', 'md']; default all supported."),
    ] = None,
    interactive: Annotated[
        bool,
        Field(description="Interactive fzf needs a terminal; over MCP the answer is a batch."),
    ] = True,
    preview: Annotated[
        bool, Field(description="Give each match with the line before and after it.")
    ] = True,
    max_results: Annotated[int, Field(description="Matches to return.", ge=1, le=500)] = 50,
    offset: Annotated[int, Field(description="Skip this many matches (paging).", ge=0)] = 0,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.FuzzySearchResult:
    """Typo-tolerant search over every indexed file under `path`, line by line.

    Returns {mode, matches: [{file, page, line_number, content, adapter}], total_matches};
    `next_offset` when more matches are left.
    """
    return fuzzy.fuzzy_search(
        _app(ctx).index, query, path, file_types, interactive, preview, max_results, offset
    )


@_logged
def search_in_file(
    file: Annotated[str, Field(description="File under the files folder, e.g. 'a/b.pdf'.")],
    pattern: Annotated[
        str,
        Field(
            description="Regular expression (Python `regex` syntax), matched line by line.",
            min_length=1,
            max_length=1000,
        ),
    ],
    context_lines: Annotated[int, Field(description="Lines around each match.", ge=0, le=20)] = 2,
    case_sensitive: Annotated[bool, Field(description="Match case exactly.")] = False,
    offset: Annotated[int, Field(description="Skip this many matches (paging).", ge=0)] = 0,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.SearchInFileResult:
    """Regex search in one file's indexed text: {matches: [{page, line_number, content,
    context_before, context_after}], total_matches}; line numbers are within the page."""
    return grep.search_in_file(
        _app(ctx).index, file, pattern, context_lines, case_sensitive, offset
    )


@_logged
def extract_pdf_page(
    file: Annotated[str, Field(description="PDF under the files folder, e.g. 'report.pdf'.")],
    pages: Annotated[
        list[int],
        Field(
            description="Page numbers, 1-based, e.g. [5] or [1, 2, 3].",
            min_length=1,
            max_length=50,
        ),
    ],
    output_format: Annotated[
        Literal["markdown", "html", "plain", "latex", "docx"],
        Field(
            description="markdown, html or plain; latex and docx need pandoc (docx comes "
            "base64-encoded)."
        ),
    ] = "markdown",
    preserve_layout: Annotated[
        bool,
        Field(description="Keep the page's spatial layout (columns) instead of reflowing text."),
    ] = False,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.ExtractPdfPageResult:
    """Convert pages of a PDF (layout parsed on demand): {content, pages_extracted, format}."""
    return pages_tool.extract_pdf_page(_app(ctx).index, file, pages, output_format, preserve_layout)


@_logged
def list_searchable_files(
    path: Annotated[str, Field(description="Folder or file under the files folder.")] = ".",
    file_types: Annotated[
        list[str] | None, Field(description="Only these extensions, e.g. ['pdf'].")
    ] = None,
    offset: Annotated[int, Field(description="Skip this many files (paging).", ge=0)] = 0,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.ListSearchableFilesResult:
    """Files that can be searched: {files: [{path, type, size, adapter, status, pages}]};
    status is ok, empty, encrypted, failed (with `error`) or pending (not indexed yet)."""
    return files.list_searchable_files(_app(ctx).index, path, file_types, offset)


@_logged
def read_pdf(
    sources: Annotated[
        list[PdfSource],
        Field(description="Files to read, each {path, pages?}.", min_length=1, max_length=20),
    ],
    include_full_text: Annotated[
        bool, Field(description="Whole text of sources without `pages`.")
    ] = False,
    include_metadata: Annotated[bool, Field(description="Title, author, dates...")] = True,
    include_page_count: Annotated[bool, Field(description="Number of pages.")] = True,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.ReadPdfResult:
    """Read PDFs from the index: per source {source, success, data | error}; data has
    num_pages, info, metadata, page_texts [{page, text}] or full_text."""
    return files.read_pdf(
        _app(ctx).index,
        [src.model_dump() for src in sources],
        include_full_text,
        include_metadata,
        include_page_count,
    )


@_logged
def search_documents(
    query: Annotated[str, Field(description="What to look for, in words.", max_length=2000)],
    limit: Annotated[int, Field(description="Results to return (1-50).")] = 10,
    document_slug: Annotated[
        str | None,
        Field(description="Only this document (a slug from find_document or list_documents)."),
    ] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> str:
    """Ranked search (BM25) over all pages: numbered results with document slug, page
    and snippet, to follow up with get_page_image or search_pdf."""
    return _seed004(lambda: catalog.search_documents(_app(ctx).index, query, limit, document_slug))


@_logged
def get_page_image(
    document_slug: Annotated[str, Field(description="Document slug, e.g. 'usgs_snyder'.")],
    page_number: Annotated[int, Field(description="Page number, 1-based.")],
    dpi: Annotated[
        int | None,
        Field(
            description=f"Resolution {MIN_DPI}-{MAX_DPI} (default {DEFAULT_DPI}; lowered to "
            "keep the PNG under the size budget)."
        ),
    ] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> Any:
    """A full page as a PNG image: [page info text, image]."""

    def render() -> list[Any]:
        caption, png = pages_tool.get_page_image(_app(ctx).index, document_slug, page_number, dpi)
        return [caption, Image(data=png, format="png")]

    return _seed004(render)


@_logged
def search_visual_elements(
    query: Annotated[str, Field(description="What the figure, table or equation shows, in words.")],
    element_type: Annotated[
        str | None,
        Field(description="Only this type: 'figure', 'table', 'equation', 'diagram', 'chart'."),
    ] = None,
    limit: Annotated[int, Field(description="Maximum results, 1-50.")] = 10,
    document_slug: Annotated[str | None, Field(description="Only this document (slug).")] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> str:
    """Search figures, tables, equations, diagrams and charts by their captions and the
    text around them. Each result shows the element's type and label, document slug and
    page: pass slug and label to get_element_image or get_element_details."""
    return _seed004(
        lambda: visual.search_visual_elements(
            _app(ctx).index, query, element_type, limit, document_slug
        )
    )


@_logged
def get_element_image(
    document_slug: Annotated[str, Field(description="Document slug, e.g. 'usgs_snyder'.")],
    element_label: Annotated[
        str, Field(description="Element label as printed, e.g. 'Table 5', 'Figure 3-1'.")
    ],
    page_number: Annotated[
        int | None, Field(description="Page, when the label occurs on several pages.")
    ] = None,
    dpi: Annotated[
        int | None,
        Field(description=f"Resolution {MIN_DPI}-{MAX_DPI} (default {DEFAULT_DPI})."),
    ] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> Any:
    """An element's region of its page as a PNG image: [element info text, image]."""

    def render() -> list[Any]:
        text, png = visual.element_image(
            _app(ctx).index, document_slug, element_label, page_number, dpi
        )
        return [text, Image(data=png, format="png")]

    return _seed004(render)


@_logged
def get_element_details(
    document_slug: Annotated[str, Field(description="Document slug.")],
    element_label: Annotated[str, Field(description="Element label, e.g. 'Table 5'.")],
    page_number: Annotated[
        int | None, Field(description="Page, when the label occurs on several pages.")
    ] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> str:
    """An element's type, label, caption and surrounding text; a table's cells as
    Markdown; an equation's LaTeX when it can be recovered."""
    return _seed004(
        lambda: visual.element_details(_app(ctx).index, document_slug, element_label, page_number)
    )


@_logged
def get_document_info(
    document_slug: Annotated[str | None, Field(description="Document slug (seed 004).")] = None,
    document_id: Annotated[
        str | None,
        Field(description="Document id from process_document (seed 002); the same as the slug."),
    ] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.DocumentInfoResult:
    """Metadata of one document: title, file, pages, status, processing stages,
    language, timestamps, element counts."""
    slug = document_slug or document_id
    if not slug:
        return passages.error("ValidationError", "Error: give document_slug or document_id.")
    try:
        return catalog.document_info(_app(ctx).index, slug)
    except PdfIndexError as exc:
        return passages.error(type(exc).__name__, f"Error: {exc}")


@_logged
def find_document(
    query: Annotated[str, Field(description="Part of a name, title or slug; typos are fine.")],
    limit: Annotated[int, Field(description="Matches to return.", ge=1, le=50)] = 5,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.FindDocumentResult:
    """Find documents by partial or misspelled slug, title or file name."""
    return catalog.find_document(_app(ctx).index, query, limit)


@_logged
def list_documents(ctx: Context = None) -> str:  # type: ignore[assignment]
    """All documents with slug, title and page count."""
    return _seed004(lambda: catalog.list_documents(_app(ctx).index))


@_logged
def list_documents_paginated(
    page: Annotated[int, Field(description="Page of the list, 1-based.", ge=1)] = 1,
    page_size: Annotated[int, Field(description="Documents per page.", ge=1, le=100)] = 20,
    sort_by: Annotated[
        Literal["title", "date_added", "page_count"], Field(description="Order of the list.")
    ] = "title",
    ctx: Context = None,  # type: ignore[assignment]
) -> results.ListDocumentsPaginatedResult:
    """Documents a page at a time, with pagination info (total, pages, has_next)."""
    return catalog.list_documents_paginated(_app(ctx).index, page, page_size, sort_by)


@_logged
def get_library_status(ctx: Context = None) -> str:  # type: ignore[assignment]
    """Index health: documents by status, pages, pending changes, watcher, last commit."""
    app = _app(ctx)
    live = app.live
    return catalog.library_status(app.index, live.watching, live.pending, live.last_error)


@_logged
def process_document(
    file_path: Annotated[
        str, Field(description="File inside the files folder (absolute or relative to it).")
    ],
    file_name: Annotated[
        str | None, Field(description="Display name for the document.", max_length=255)
    ] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.ProcessDocumentResult:
    """Index one file now; document_id in the answer is its slug."""
    app = _app(ctx)
    return passages.process_document(app.index, app.live.index_now, file_path, file_name)


@_logged
def query_documents(
    query: Annotated[str, Field(description="A question in natural language (1-2,000 chars).")],
    session_id: Annotated[
        str | None,
        Field(description="UUID from an earlier answer, to follow up on it; omit to start."),
    ] = None,
    top_k: Annotated[int, Field(description="Passages to retrieve (1-20).")] = 5,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.QueryDocumentsResult:
    """Best passages for a question, with citations and an extractive answer (quoted
    sentences, no language model); sessions remember earlier queries."""
    app = _app(ctx)
    return passages.query_documents(app.index, app.sessions, query, session_id, top_k)


@_logged
def list_sessions(ctx: Context = None) -> results.ListSessionsResult:  # type: ignore[assignment]
    """query_documents sessions still alive (idle ones expire after a week)."""
    return passages.list_sessions(_app(ctx).sessions)


READ_ONLY = ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False)
# process_document indexes a file now: it writes the index (the same result when repeated).
WRITES_INDEX = ToolAnnotations(
    readOnlyHint=False, destructiveHint=False, idempotentHint=True, openWorldHint=False
)
TOOLS: list[tuple[Callable[..., Any], ToolAnnotations, bool | None]] = [
    # seed 000
    (search_pdf, READ_ONLY, None),
    # seed 001
    (fuzzy_search, READ_ONLY, None),
    (search_in_file, READ_ONLY, None),
    (extract_pdf_page, READ_ONLY, None),
    (list_searchable_files, READ_ONLY, None),
    # seed 003
    (read_pdf, READ_ONLY, None),
    # seed 004 (errors as text starting "Error:")
    (search_documents, READ_ONLY, None),
    (get_page_image, READ_ONLY, False),
    (search_visual_elements, READ_ONLY, False),
    (get_element_image, READ_ONLY, False),
    (get_element_details, READ_ONLY, False),
    (get_document_info, READ_ONLY, None),
    (find_document, READ_ONLY, None),
    (list_documents, READ_ONLY, None),
    (list_documents_paginated, READ_ONLY, None),
    (get_library_status, READ_ONLY, None),
    # seed 002 (errors in its {status, error, message} shape)
    (process_document, WRITES_INDEX, None),
    (query_documents, READ_ONLY, None),
    (list_sessions, READ_ONLY, None),
]


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

    server = MCPServer("pdfindex", instructions=INSTRUCTIONS, lifespan=lifespan)
    for tool, hints, structured in TOOLS:
        server.add_tool(tool, annotations=hints, structured_output=structured)

    @server.resource("tour://library", mime_type="text/markdown")
    def tour() -> str:
        """How to use this library: which tool for which need, with example calls."""
        return catalog.TOUR

    @server.resource("adapters://list", mime_type="application/json")
    def adapters_list() -> str:
        """Which extractor reads which file type, with versions."""
        return json.dumps({"adapters": describe_adapters(settings.extractor)}, indent=2)

    @server.resource("config://settings", mime_type="application/json")
    def config_settings() -> str:
        """The effective configuration and where each value came from."""
        return json.dumps(settings.as_dict(), indent=2)

    return server


def serve(settings: Settings, watch: bool = True) -> None:
    """Run the MCP server over stdio until stdin closes or SIGTERM; then stop the
    watcher, commit what the writer has, and join every thread."""
    opened: list[AppContext] = []

    def shut_down() -> None:
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
    try:
        build_server(settings, app=app).run("stdio")
    except KeyboardInterrupt:
        log.info("stopping on Ctrl-C")
    finally:
        shut_down()
