"""The MCP server (stdio): registers the plain functions of `pdfindex.tools`.

The only module that imports the MCP SDK. Each tool here only declares its typed
arguments and what it does to the world, fetches the open index from the lifespan
context and calls one function of `pdfindex.tools`; errors are mapped once, per seed.
"""

from __future__ import annotations

import errno
import functools
import inspect
import json
import logging
import os
import re
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import anyio
import anyio.to_thread
from anyio.lowlevel import RunVar
from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    CallToolResult,
    ErrorData,
    JSONRPCError,
    JSONRPCResponse,
    TextContent,
    ToolAnnotations,
)
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pdfindex import __version__, deadline
from pdfindex.api import PdfIndex
from pdfindex.config import Settings
from pdfindex.elements.detect import ELEMENT_TYPES
from pdfindex.errors import (
    DocumentNotFound,
    InvalidQuery,
    PageOutOfRange,
    PathOutsideFiles,
    PdfIndexError,
    ReadOnlyIndex,
    RequestTimeout,
    SessionNotFound,
)
from pdfindex.extract.adapters import describe as describe_adapters
from pdfindex.indexer.live import LiveIndex
from pdfindex.tools import catalog, exact, files, fuzzy, grep, passages, results, visual
from pdfindex.tools import pages as pages_tool
from pdfindex.tools.budget import cap, cap_text, serialise
from pdfindex.tools.pages import DEFAULT_DPI, MAX_DPI, MIN_DPI
from pdfindex.tools.sessions import SessionStore

log = logging.getLogger("pdfindex.server")
F = TypeVar("F", bound=Callable[..., Any])
PENDING_WAIT = 3.0  # seconds search_pdf waits for one file the writer has not reached

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


# -- one error rule: every error is flagged isError; inside, each seed keeps its shape --

SEED_004_TEXT = "seed 004: text starting 'Error:'"
SEED_002_JSON = "seed 002: {status: 'error', error, message, details, timestamp, request_id}"
BOTH_SEEDS = "seeds 002 and 004: seed 002's JSON as structured content, 'Error: ...' as text"
TOOL_ERROR = "text 'Error executing tool <name>: <cause>'"
SEED_000_JSON = "seed 000's {file_exists, query_exists, matches} with `error`"
SEED_003_JSON = "seed 003's per-source {success: false, error}; flagged when no source is read"
# The error form of each tool (the others: TOOL_ERROR); tests/docgen.py shows it.
ERROR_FORMS: dict[str, str] = {
    "search_pdf": SEED_000_JSON,
    "read_pdf": SEED_003_JSON,
    "get_document_info": BOTH_SEEDS,
    **dict.fromkeys(("process_document", "query_documents", "list_sessions"), SEED_002_JSON),
    **dict.fromkeys(
        (
            "search_documents",
            "search_visual_elements",
            "get_element_image",
            "get_element_details",
            "get_page_image",
            "find_document",
            "list_documents",
            "list_documents_paginated",
            "get_library_status",
        ),
        SEED_004_TEXT,
    ),
}
# Seed 002's error types for ours (its table: ValidationError, NotFoundError, ProcessingError).
SEED_002_KINDS: dict[type[Exception], str] = {
    InvalidQuery: "ValidationError",
    PathOutsideFiles: "ValidationError",
    PageOutOfRange: "ValidationError",
    DocumentNotFound: "NotFoundError",
    SessionNotFound: "SessionNotFoundError",
    RequestTimeout: "TimeoutError",
    ReadOnlyIndex: "ReadOnlyError",  # the database refuses writes: retrying will not help
}
# Tools not under request_timeout: indexing a file now has the extraction limits instead.
UNLIMITED = ("process_document",)
ERROR_CHARS = 2_000  # an error names its cause; an echoed input is cut to this
ECHO_CHARS = 200  # characters of a rejected value an error repeats
_UNWRAP = re.compile(r"(?<!\n)\n(?!\n)")  # a docstring's line breaks inside a paragraph
_ABSOLUTE_PATH = re.compile(r"(?<![\w.:/~-])(?:/[^\s'\"/:,;()\[\]]+){2,}")


def error_result(
    tool: str, kind: str, message: str, details: dict[str, Any] | None = None
) -> CallToolResult:
    """The error answer of `tool`, flagged isError, in its seed's shape (ERROR_FORMS);
    however large the input it repeats, it stays within ERROR_CHARS (plus its keys)."""
    form = ERROR_FORMS.get(tool, TOOL_ERROR)
    message = cap_text(message, ERROR_CHARS, "the input was too long to repeat")
    if details and "received" in details:
        details = details | {"received": echo(details["received"])}
    if form in (SEED_002_JSON, BOTH_SEEDS):
        text = (
            message
            if message.startswith("Error:") or form == SEED_002_JSON
            else f"Error: {message}"
        )
        payload = dict(passages.error(kind, text, details))
        shown = serialise(payload) if form == SEED_002_JSON else text
        return _flagged(shown, payload)
    if form == SEED_004_TEXT:
        return _flagged(message if message.startswith("Error:") else f"Error: {message}")
    return _flagged(f"Error executing tool {tool}: {message}")


def echo(value: Any) -> Any:
    """A value an error repeats: long strings and lists cut to ECHO_CHARS characters."""
    if isinstance(value, str) and len(value) > ECHO_CHARS:
        return value[:ECHO_CHARS] + f"… ({len(value)} characters)"
    if not isinstance(value, (str, int, float, bool, type(None))):
        shown = serialise(value)
        return shown if len(shown) <= ECHO_CHARS else shown[:ECHO_CHARS] + "…"
    return value


def argument_named(arguments: dict[str, Any], quoted: str, whole: bool = True) -> str | None:
    """The argument whose value an error quotes ('~' is outside ...; or, not `whole`,
    whose value a path in the error contains), so the answer can name it."""
    for name, value in arguments.items():
        items = value if isinstance(value, list) else [value]
        for n, item in enumerate(items):
            text = item.path if isinstance(item, PdfSource) else item
            if not isinstance(text, str) or not text.strip():
                continue
            shown = repr(text.strip())[:40] if whole else text.strip().strip("/")[:40]
            if shown in quoted:
                return f"{name}[{n}]" if isinstance(value, list) else name
    return None


def os_message(exc: OSError) -> str:
    """A path the file system refuses as too long, in words."""
    return (
        f"the path is too long for the file system ({exc.strerror}: at most 255 bytes per "
        "folder or file name, 4,096 in all)"
    )


def _flagged(text: str, structured: dict[str, Any] | None = None) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=structured, is_error=True
    )


def _seed002_kind(exc: Exception) -> str:
    for cls in type(exc).__mro__:
        if cls in SEED_002_KINDS:
            return SEED_002_KINDS[cls]
    return "ProcessingError"


def crash_message(exc: BaseException, files_dir: Path | None) -> str:
    """An unexpected exception as one line naming its cause (type and message), with
    paths inside the files folder made relative and any other absolute path cut to its
    last part: no traceback, nothing about the machine."""
    text = " ".join(str(exc).split())
    if files_dir is not None:
        for base in dict.fromkeys((str(files_dir.resolve()), str(files_dir))):
            text = text.replace(base + "/", "")
    text = _ABSOLUTE_PATH.sub(lambda m: ".../" + m.group().rsplit("/", 1)[-1], text)
    return (
        f"internal error: {type(exc).__name__}: {text}"
        if text
        else f"internal error: {type(exc).__name__}"
    )


def _settings_of(ctx: Context | None) -> Settings | None:
    """The open index's settings, without waiting for anything (None outside a call)."""
    try:
        return ctx.request_context.lifespan_context.index.settings  # type: ignore[union-attr]
    except (AttributeError, LookupError, ValueError):
        return None


def _answer(tool: str, result: Any, settings: Settings | None) -> Any:
    """A tool's return value as the client receives it: JSON answers as compact text
    plus structured content, capped at max_response_chars (serialised), and flagged
    isError when the seed's own shape says the call failed."""
    limit = settings.max_response_chars if settings is not None else None
    if isinstance(result, str):
        return cap_text(result, limit, "ask for fewer results") if limit else result
    if not isinstance(result, dict):
        return result  # images: [caption, Image]
    form = ERROR_FORMS.get(tool)
    if form in (SEED_002_JSON, BOTH_SEEDS) and result.get("status") == "error":
        result = cap(result, limit)[0] if limit else result
        if form == BOTH_SEEDS:
            return _flagged(result["message"], result)
        return _flagged(serialise(result), result)
    answer = cap(result, limit)[0] if limit else result
    failed = (form == SEED_000_JSON and ("error" in answer or not answer["file_exists"])) or (
        form == SEED_003_JSON and not any(r["success"] for r in answer["results"])
    )
    return CallToolResult(
        content=[TextContent(type="text", text=serialise(answer))],
        structured_content=answer,
        is_error=failed,
    )


def _logged(fn: F) -> F:
    """Log each call and its result (shortened) to the session log; turn every error,
    expected or not, into its tool's error answer (error_result)."""
    tool = fn.__name__

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        shown = {k: v for k, v in kwargs.items() if k != "ctx"}
        log.info("request %s %s", tool, json.dumps(shown, default=str)[:2000])
        settings = _settings_of(kwargs.get("ctx"))
        limit = settings.request_timeout if settings is not None else None
        try:
            # From the request's receipt (in_lane), so time spent queued counts.
            with deadline.limit(None if tool in UNLIMITED else limit, start=_received.get()):
                answer = _answer(tool, fn(*args, **kwargs), settings)
        except PdfIndexError as exc:
            message = str(exc)
            # "Document 'x' not found" names its argument already; other causes get its name.
            name = None if isinstance(exc, DocumentNotFound) else argument_named(shown, message)
            if name is not None and not any(message.startswith(f"{k}:") for k in shown):
                message = f"{name}: {message}"
            answer = error_result(tool, _seed002_kind(exc), message)
        except MemoryError:
            log.exception("tool %s ran out of memory", tool)
            answer = error_result(
                tool,
                "ProcessingError",
                "out of memory: the request needs more memory than this server has "
                "(a page too large to render, or too much asked at once)",
            )
        except Exception as exc:
            if isinstance(exc, OSError) and exc.errno == errno.ENAMETOOLONG:
                arguments = [k for k, v in shown.items() if isinstance(v, (str, list))]
                name = argument_named(shown, str(exc.filename), whole=False)
                message = f"{name or ' or '.join(arguments)}: {os_message(exc)}"
                answer = error_result(tool, "ValidationError", message)
            else:
                log.exception("tool %s crashed", tool)
                files_dir = settings.files_dir if settings is not None else None
                answer = error_result(tool, "ProcessingError", crash_message(exc, files_dir))
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


# -- lanes: a cheap call never queues behind heavy ones ------------------------------

# Each tool call runs in a thread of its lane, and each lane has threads of its own: 200
# page images waiting for the page workers leave every thread of the quick lane free
# (the SDK's one pool of 40 threads made a search wait 19 s behind them). A call's time
# limit runs from its receipt, waiting for a thread included.
LANES: dict[str, str] = {
    **dict.fromkeys(("get_page_image", "get_element_image"), "page image"),
    "extract_pdf_page": "conversion",
    "process_document": "indexing",
}
QUICK = "quick"
LANE_THREADS = {"page image": 8, "conversion": 4, "indexing": 2, QUICK: 24}
_received: ContextVar[float | None] = ContextVar("pdfindex_received", default=None)
_limiters: RunVar[dict[str, anyio.CapacityLimiter]] = RunVar("pdfindex_lanes")


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
    """`fn` (a tool wrapped by _logged) as a coroutine function that runs it in a thread
    of its lane (LANES); a call that gets no thread before its time limit, counted from
    its receipt, is answered at once with a named error instead."""
    tool = fn.__name__
    lane = LANES.get(tool, QUICK)

    async def run(**kwargs: Any) -> Any:
        received = _received.get()
        if received is None:
            received = time.monotonic()
        settings = _settings_of(kwargs.get("ctx"))
        limit = settings.request_timeout if settings is not None else 0.0
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
            token = _received.set(received)
            try:
                return fn(**kwargs)
            finally:
                _received.reset(token)

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
            running = _app(ctx).index.isolated.running(waiting=False)
        except (AttributeError, LookupError, ValueError):
            running = f"{stats.borrowed_tokens} {lane} requests are running"
        busy = f"no worker was free within {limit:g} s: {running}, {queued}"
    message = f"{busy}; retry in a moment"
    log.info("error %s %s", tool, message)
    return error_result(tool, _seed002_kind(RequestTimeout()), message)


@dataclass
class AppContext:
    """What every tool reads: the open index, its live updater, query_documents sessions."""

    index: PdfIndex
    live: LiveIndex
    sessions: SessionStore

    @classmethod
    def open(cls, settings: Settings, watch: bool = True) -> AppContext:
        """Open the index and start its writer thread (catch-up scan, then the watcher)."""
        index = PdfIndex(settings, rebuild=False)  # a damaged index refills in the background
        semantic = index.semantic  # semantic = true without its extra: one line, at once
        # Pages are embedded in the background after the start-up scan and each commit.
        embed = (lambda _summary: semantic.start()) if semantic is not None else None
        live = index.live(watch=watch, on_summary=embed)
        return cls(index, live, SessionStore.for_settings(settings))

    def start(self) -> AppContext:
        self.live.start()
        return self

    def close(self) -> None:
        self.live.close()
        self.index.close()


def _app(ctx: Context) -> AppContext:
    """The lifespan context, at once: tools answer from what is indexed now, even while
    the start-up scan runs (get_library_status says how far it is)."""
    app: AppContext = ctx.request_context.lifespan_context
    return app


DOCUMENT = "its slug ('a_b'), its path under the files folder ('a/b.pdf') or that path "
DOCUMENT += "without extension ('a/b')."
DocumentField = Field(description="The document: " + DOCUMENT, min_length=1, max_length=1000)
LabelField = Field(
    description="Element label as printed, e.g. 'Table 5', 'Figure 3-1'.",
    min_length=1,
    max_length=200,
)
ScopeField = Field(
    description="A folder under the files folder ('.' = everything) or one document: " + DOCUMENT,
    min_length=1,
    max_length=1000,
)
PageChoiceField = Field(description="Page, when the label occurs on several pages.", ge=1)
FileTypes = list[Annotated[str, Field(min_length=1, max_length=16)]]


class PdfSource(BaseModel):
    """One source of read_pdf: a path (url is not supported)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"anyOf": [{"required": ["path"]}, {"required": ["url"]}]},
    )

    path: str | None = Field(None, description="The document: " + DOCUMENT, max_length=1000)
    url: str | None = Field(
        None, description="Not supported: files are read from the index.", max_length=2000
    )
    pages: (
        Annotated[str, Field(max_length=1000)]
        | Annotated[list[int], Field(max_length=10_000)]
        | None
    ) = Field(None, description="Pages to return, like '1-3,5' or [1, 2]; omit for none.")


# -- the tools, in the seeds' order ----------------------------------------


@_logged
def search_pdf(
    pdf_name: Annotated[
        str,
        Field(
            description="The PDF: its path under the files folder without .pdf (a trailing "
            ".pdf is tolerated; sub-folders are fine, e.g. 'reports/q3') or its slug "
            "('reports_q3').",
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
        # Just landed, or the start-up scan has not reached it: wait briefly for this file.
        app.live.wait_for(lambda: app.index.is_indexed(pdf_name), PENDING_WAIT)
        result = exact.search_pdf(app.index, pdf_name, query, context_length, topk)
        if result.get("error") == exact.NOT_INDEXED:
            result["error"] += app.index.indexing_note()
    return exact.with_suggestions(app.index, result, pdf_name)


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
        ScopeField,
    ] = ".",
    file_types: Annotated[
        FileTypes | None,
        Field(
            description="Only these extensions, e.g. ['pdf', 'md']; default all supported.",
            max_length=20,
        ),
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
    `next_offset` when more matches are left; `spellings`: the index words searched for
    each query word (at most 64, the closest first; `note` says when a word had more).
    """
    return fuzzy.fuzzy_search(
        _app(ctx).index, query, path, file_types, interactive, preview, max_results, offset
    )


@_logged
def search_in_file(
    file: Annotated[str, DocumentField],
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
    """Regex search in one file's indexed text, line by line: line_number counts lines in
    the whole file (its pages one after another), line_in_page within `page`."""
    return grep.search_in_file(
        _app(ctx).index, file, pattern, context_lines, case_sensitive, offset
    )


@_logged
def extract_pdf_page(
    file: Annotated[str, DocumentField],
    pages: Annotated[
        list[Annotated[int, Field(ge=1)]],
        Field(
            description="Page numbers, 1-based, e.g. [5] or [1, 2, 3].",
            min_length=1,
            max_length=50,
        ),
    ],
    output_format: Annotated[
        Literal["markdown", "html", "plain", "latex", "docx"],
        Field(
            description="markdown, html or plain; latex and docx through pandoc (installed with "
            "pdfindex; docx comes "
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
    path: Annotated[
        str,
        ScopeField,
    ] = ".",
    file_types: Annotated[
        FileTypes | None,
        Field(description="Only these extensions, e.g. ['pdf'].", max_length=20),
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
    query: Annotated[
        str, Field(description="What to look for, in words.", min_length=1, max_length=2000)
    ],
    limit: Annotated[int, Field(description="Results to return.", ge=1, le=50)] = 10,
    document_slug: Annotated[
        str | None,
        Field(description="Only this document: " + DOCUMENT, min_length=1, max_length=1000),
    ] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> str:
    """Ranked search (BM25; for questions hybrid with page embeddings when the semantic
    extra is on) over all pages: numbered results with document slug, page and snippet,
    to follow up with get_page_image or search_pdf; the last line names the ranking."""
    return catalog.search_documents(_app(ctx).index, query, limit, document_slug)


@_logged
def get_page_image(
    document_slug: Annotated[str, DocumentField],
    page_number: Annotated[int, Field(description="Page number, 1-based.", ge=1)],
    dpi: Annotated[
        int | None,
        Field(
            description=f"Resolution (default {DEFAULT_DPI}; lowered to keep the PNG under "
            "the size budget).",
            ge=MIN_DPI,
            le=MAX_DPI,
        ),
    ] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> Any:
    """A full page as a PNG image: [page info text, image]."""
    caption, png = pages_tool.get_page_image(_app(ctx).index, document_slug, page_number, dpi)
    return [caption, Image(data=png, format="png")]


@_logged
def search_visual_elements(
    query: Annotated[
        str,
        Field(
            description="What the figure, table or equation shows, in words.",
            min_length=1,
            max_length=2000,
        ),
    ],
    element_type: Annotated[
        Literal[ELEMENT_TYPES] | None,  # type: ignore[valid-type]
        Field(description="Only this type of element."),
    ] = None,
    limit: Annotated[int, Field(description="Maximum results.", ge=1, le=50)] = 10,
    document_slug: Annotated[
        str | None,
        Field(description="Only this document: " + DOCUMENT, min_length=1, max_length=1000),
    ] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> str:
    """Search figures, tables, equations, diagrams and charts by their captions and the
    text around them. Each result shows the element's type and label, document slug and
    page: pass slug and label to get_element_image or get_element_details."""
    return visual.search_visual_elements(_app(ctx).index, query, element_type, limit, document_slug)


@_logged
def get_element_image(
    document_slug: Annotated[str, DocumentField],
    element_label: Annotated[str, LabelField],
    page_number: Annotated[int | None, PageChoiceField] = None,
    dpi: Annotated[
        int | None,
        Field(description=f"Resolution (default {DEFAULT_DPI}).", ge=MIN_DPI, le=MAX_DPI),
    ] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> Any:
    """An element's region of its page as a PNG image: [element info text, image]."""
    text, png = visual.element_image(
        _app(ctx).index, document_slug, element_label, page_number, dpi
    )
    return [text, Image(data=png, format="png")]


@_logged
def get_element_details(
    document_slug: Annotated[str, DocumentField],
    element_label: Annotated[str, LabelField],
    page_number: Annotated[int | None, PageChoiceField] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> str:
    """An element's type, label, caption and surrounding text; a table's cells as
    Markdown; an equation's LaTeX when it can be recovered."""
    return visual.element_details(_app(ctx).index, document_slug, element_label, page_number)


@_logged
def get_document_info(
    document_slug: Annotated[
        str | None,
        Field(description="The document (seed 004): " + DOCUMENT, min_length=1, max_length=1000),
    ] = None,
    document_id: Annotated[
        str | None,
        Field(
            description="The document (seed 002): its id from process_document (the slug), "
            "or its path.",
            min_length=1,
            max_length=1000,
        ),
    ] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.DocumentInfoResult:
    """Metadata of one document, for seeds 004 and 002 at once: slug, title, pages,
    status, language, timestamps, element counts, and seed 002's `document_info`.

    Give document_slug or document_id."""
    slug = document_slug or document_id
    if not slug:
        return passages.error(
            "ValidationError",
            "Error: give document_slug or document_id.",
            {"parameter": "document_id", "expected": DOCUMENT, "received": None},
        )
    return catalog.document_info(_app(ctx).index, slug)


@_logged
def find_document(
    query: Annotated[
        str,
        Field(
            description="Part of a name, title or slug; typos are fine.",
            min_length=1,
            max_length=1000,
        ),
    ],
    limit: Annotated[int, Field(description="Matches to return.", ge=1, le=50)] = 5,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.FindDocumentResult:
    """Find documents by partial or misspelled slug, title or file name."""
    return catalog.find_document(_app(ctx).index, query, limit)


@_logged
def list_documents(ctx: Context = None) -> str:  # type: ignore[assignment]
    """All documents with slug, title and page count."""
    app = _app(ctx)
    return catalog.list_documents(app.index, app.index.settings.max_response_chars)


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
    return catalog.library_status(app.index, live.watcher_state(), live.pending, live.last_error)


@_logged
def process_document(
    file_path: Annotated[
        str,
        Field(
            description="File inside the files folder: absolute, relative to it, without "
            "its extension, or the slug of a known document.",
            min_length=1,
            max_length=4096,
        ),
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
    query: Annotated[
        str,
        Field(description="A question in natural language.", min_length=1, max_length=2000),
    ],
    session_id: Annotated[
        str | None,
        Field(
            description="UUID from an earlier answer, to follow up on it; omit to start.",
            max_length=64,
            json_schema_extra={"format": "uuid"},
        ),
    ] = None,
    top_k: Annotated[int, Field(description="Passages to retrieve.", ge=1, le=20)] = 5,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.QueryDocumentsResult:
    """Best passages for a question, with citations and an extractive answer (quoted
    sentences, no language model); sessions remember earlier queries."""
    app = _app(ctx)
    return passages.query_documents(app.index, app.sessions, query, session_id, top_k)


@_logged
def list_sessions(
    page: Annotated[int, Field(description="Page of the list, 1-based.", ge=1)] = 1,
    page_size: Annotated[
        int, Field(description="Sessions per page, most recent first.", ge=1, le=100)
    ] = 50,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.ListSessionsResult:
    """query_documents sessions still alive, a page at a time (idle ones expire after
    session_expiry_days, a week by default; at most max_sessions are kept)."""
    app = _app(ctx)
    budget = app.index.settings.max_response_chars
    return passages.list_sessions(app.sessions, budget, page, page_size)


def _hints(title: str, writes: bool = False) -> ToolAnnotations:
    """What a tool does to the world: 18 tools only read; process_document writes the
    index (the same result when repeated, nothing destroyed)."""
    return ToolAnnotations(
        title=title,
        readOnlyHint=not writes,
        destructiveHint=False if writes else None,
        idempotentHint=True,
        openWorldHint=False,
    )


# (tool, annotations with its title, structured output: None from the return type, False text)
TOOLS: list[tuple[Callable[..., Any], ToolAnnotations, bool | None]] = [
    # seed 000
    (search_pdf, _hints("Find text in one PDF"), None),
    # seed 001
    (fuzzy_search, _hints("Fuzzy search"), None),
    (search_in_file, _hints("Regex search in a file"), None),
    (extract_pdf_page, _hints("Convert PDF pages"), None),
    (list_searchable_files, _hints("List searchable files"), None),
    # seed 003
    (read_pdf, _hints("Read PDF text"), None),
    # seed 004 (errors as text starting "Error:")
    (search_documents, _hints("Ranked search"), False),
    (get_page_image, _hints("Page image"), False),
    (search_visual_elements, _hints("Search figures and tables"), False),
    (get_element_image, _hints("Element image"), False),
    (get_element_details, _hints("Element details"), False),
    (get_document_info, _hints("Document info"), None),
    (find_document, _hints("Find a document"), None),
    (list_documents, _hints("List documents"), False),
    (list_documents_paginated, _hints("List documents by page"), None),
    (get_library_status, _hints("Library status"), False),
    # seed 002 (errors in its {status, error, message, details, timestamp, request_id} shape)
    (process_document, _hints("Index a document now", writes=True), None),
    (query_documents, _hints("Cited passages for a question"), None),
    (list_sessions, _hints("List query sessions"), None),
]
# Required-one-of that a function signature cannot say, added to the input schema.
ONE_OF: dict[str, list[str]] = {"get_document_info": ["document_slug", "document_id"]}


def strict_tool(fn: Callable[..., Any], hints: ToolAnnotations, structured: bool | None) -> Tool:
    """A tool whose arguments refuse unknown names (the SDK's own model ignores them),
    with a description free of docstring indentation."""
    tool = Tool.from_function(
        fn,
        title=hints.title,
        description=_UNWRAP.sub(" ", inspect.cleandoc(fn.__doc__ or "")),
        annotations=hints,
        structured_output=structured,
    )
    tool.fn, tool.is_async = in_lane(fn), True  # its own thread lane (LANES)
    loose = tool.fn_metadata.arg_model
    closed = type(loose.__name__, (loose,), {"model_config": ConfigDict(extra="forbid")})
    tool.fn_metadata.arg_model = closed
    tool.parameters = closed.model_json_schema(by_alias=True)
    if fn.__name__ in ONE_OF:
        tool.parameters["anyOf"] = [{"required": [name]} for name in ONE_OF[fn.__name__]]
    return tool


def invalid_arguments(error: ValidationError, schema: dict[str, Any]) -> tuple[str, dict]:
    """A pydantic error on a tool's arguments as one plain sentence per problem (the
    bounds and choices read from the input schema), and seed 002's `details` for the
    first one."""
    known = schema.get("properties", {})
    sentences, details = [], {}
    for problem in error.errors():
        name = echo(".".join(str(part) for part in problem["loc"]) or "arguments")
        bounds = problem.get("ctx") or {}
        prop = known.get(str(problem["loc"][0]), {}) if problem["loc"] else {}
        prop = next((s for s in prop.get("anyOf", []) if s.get("type") != "null"), prop)
        received = echo(problem.get("input"))
        kind = problem["type"]
        if kind == "extra_forbidden":
            expected = "one of its arguments: " + ", ".join(known)
            sentence = f"unknown argument {name!r}; this tool takes {', '.join(known)}"
        elif kind == "missing":
            expected, sentence = "a value", f"{name} is required"
        elif "enum" in prop:
            expected = "one of " + ", ".join(str(v) for v in prop["enum"])
            sentence = f"{name} must be {expected}, got {received!r}"
        elif "minimum" in prop or "maximum" in prop:
            low, high = prop.get("minimum"), prop.get("maximum")
            expected = f"from {low} to {high}" if high is not None else f"{low} or more"
            if low is None:
                expected = f"{high} or less"
            sentence = f"{name} must be {expected}, got {received!r}"
        elif kind in ("string_too_short", "string_too_long", "too_long", "too_short"):
            unit = "characters" if kind.startswith("string") else "items"
            if len(problem["loc"]) == 1:  # a top-level argument: both bounds from its schema
                low = prop.get("minLength", prop.get("minItems", 0))
                high = prop.get("maxLength", prop.get("maxItems"))
                expected = f"{low} to {high} {unit}" if high else f"at least {low} {unit}"
            elif "max_length" in bounds:
                expected = f"at most {bounds['max_length']} {unit}"
            else:
                expected = f"at least {bounds.get('min_length', 1)} {unit}"
            given = problem.get("input")
            size = len(given) if isinstance(given, (str, list)) else given
            sentence = f"{name} must have {expected}, got {size}"
        else:
            expected = problem["msg"]
            sentence = f"{name}: {problem['msg']} (got {repr(received)[:100]})"
        sentences.append(sentence)
        details = details or {"parameter": name, "expected": expected, "received": received}
    return "; ".join(sentences), details


class PdfIndexServer(MCPServer):
    """MCPServer with pdfindex's one error rule also for what happens before or after a
    tool's own code: arguments that fail the schema, and answers that fail conversion."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> Any:
        _received.set(time.monotonic())  # the call's time limit starts now (in_lane)
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:
            log.error("tool %s failed after its code ran", name, exc_info=exc.__cause__)
            cause = exc.__cause__ or exc
            return error_result(name, "ProcessingError", crash_message(cause, None))
        except ToolError as exc:
            tool = self._tool_manager.get_tool(name)
            if tool is None or not isinstance(exc.__cause__, ValidationError):
                raise
            message, details = invalid_arguments(exc.__cause__, tool.parameters)
            log.info("invalid arguments %s: %s", name, message)
            return error_result(name, "ValidationError", message, details)

    async def run_stdio_async(self) -> None:
        """The SDK's stdio loop, with a reply to every line it cannot read (AnsweringReader)."""
        async with stdio_server() as (read_stream, write_stream):
            await self._lowlevel_server.run(
                AnsweringReader(read_stream, write_stream),
                write_stream,
                self._lowlevel_server.create_initialization_options(),
            )


# -- every line gets an answer ---------------------------------------------------------

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class AnsweringReader:
    """The stdio transport's read stream, less the lines it could not read: the SDK only
    logs those, so a client without a timeout of its own waited forever. Invalid JSON
    gets JSON-RPC's parse error (-32700, id null); a request holding a lone surrogate
    ("\\ud800" is legal JSON but no text) an error naming its argument; another line
    that is not a JSON-RPC message, -32600 with its id. Malformed notifications and
    responses are logged, as JSON-RPC answers neither."""

    def __init__(self, inner: Any, write_stream: Any) -> None:
        self._inner, self._write = inner, write_stream

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            answer = unreadable_answer(item)
            if answer is None:
                continue
            try:
                await self._write.send(SessionMessage(answer))
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                log.info("no answer sent to an unreadable line: the connection is closed")

    def __aiter__(self) -> AnsweringReader:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    def close(self) -> None:
        self._inner.close()

    async def __aenter__(self) -> AnsweringReader:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()


def unreadable_answer(exc: Exception) -> JSONRPCError | JSONRPCResponse | None:
    """The reply to a line the transport could not read as a message (`exc`, its
    pydantic error, holds the line or what it parsed to); None when JSON-RPC wants none."""
    problems = exc.errors() if isinstance(exc, ValidationError) else []
    line = next((p["input"] for p in problems if p["type"] == "json_invalid"), None)
    if not isinstance(line, str):
        parsed = next((p["input"] for p in problems if isinstance(p.get("input"), dict)), None)
        return _not_a_message(parsed, problems, exc)
    try:
        message = json.loads(line)
    except (ValueError, RecursionError) as bad:
        log.info("unreadable line answered with a parse error: %s", bad)
        return _rpc_error(None, PARSE_ERROR, f"Parse error: the line is not valid JSON ({bad})")
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return _not_a_message(message, problems, exc)
    if "id" not in message:
        log.info("a notification holding invalid text was dropped: %s", message["method"])
        return None
    request_id = _usable_id(message["id"])
    found = _lone_surrogate(message.get("params"), ["params"])
    if found is None:  # something else jiter refuses and Python's json takes: NaN, Infinity
        cause = problems[0]["msg"] if problems else str(exc)
        return _rpc_error(request_id, PARSE_ERROR, f"Parse error: {cause}")
    path, text = found
    problem = _surrogate_problem(text)
    params = message.get("params")
    tool = params.get("name") if isinstance(params, dict) else None
    if message["method"] == "tools/call" and path[1:2] == ["arguments"] and len(path) > 2:
        if isinstance(tool, str) and not _LONE_SURROGATE.search(tool):
            result = error_result(tool, "ValidationError", f"{_path_text(path[2:])}: {problem}")
            log.info("error %s %s", tool, text_of_result(result))
            shown = result.model_dump(by_alias=True, mode="json", exclude_none=True)
            shown.pop("resultType", None)  # as the SDK sends results in the handshake era
            return JSONRPCResponse(jsonrpc="2.0", id=request_id, result=shown)
    return _rpc_error(request_id, INVALID_PARAMS, f"{_path_text(path)}: {problem}")


def text_of_result(result: CallToolResult) -> str:
    return " ".join(c.text for c in result.content if isinstance(c, TextContent))


def _not_a_message(
    parsed: Any, problems: list[Any], exc: Exception
) -> JSONRPCError | JSONRPCResponse | None:
    """-32600 for valid JSON that is no JSON-RPC message; None for a malformed response
    or notification (neither is answered)."""
    if isinstance(parsed, dict):
        response = "method" not in parsed and ("result" in parsed or "error" in parsed)
        if response or ("method" in parsed and "id" not in parsed):  # notification
            log.info("a malformed response or notification was dropped: %s", exc)
            return None
    request_id = _usable_id(parsed.get("id")) if isinstance(parsed, dict) else None
    request = [p for p in problems if p["loc"][:1] == ("JSONRPCRequest",)] or problems
    cause = ", ".join(
        f"{'.'.join(str(part) for part in p['loc'][1:]) or 'message'}: {p['msg']}"
        for p in request[:3]
    )
    log.info("an invalid request was answered: %s", cause)
    return _rpc_error(
        request_id,
        INVALID_REQUEST,
        f"Invalid Request: not a JSON-RPC 2.0 request object ({cause or exc})",
    )


def _rpc_error(request_id: int | str | None, code: int, message: str) -> JSONRPCError:
    return JSONRPCError(
        jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message[:ERROR_CHARS])
    )


def _usable_id(value: Any) -> int | str | None:
    """A request id the answer can repeat (JSON-RPC: null when it cannot be told)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None
    if isinstance(value, str) and _LONE_SURROGATE.search(value):
        return None
    return value


def _lone_surrogate(value: Any, path: list[Any]) -> tuple[list[Any], str] | None:
    """(where, the text) of the first string or key in `value` holding a lone surrogate;
    a key's place ends with '(name)'."""
    if isinstance(value, str):
        return (path, value) if _LONE_SURROGATE.search(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            if _LONE_SURROGATE.search(key):
                return [*path, "(name)"], key
            found = _lone_surrogate(item, [*path, key])
            if found is not None:
                return found
    if isinstance(value, list):
        for n, item in enumerate(value):
            found = _lone_surrogate(item, [*path, n])
            if found is not None:
                return found
    return None


def _path_text(path: list[Any]) -> str:
    """['sources', 0, 'path'] -> 'sources[0].path'; a key's place: 'an argument name'."""
    shown = ""
    for part in path:
        if part == "(name)":
            return f"{shown} (an argument name)" if shown else "an argument name"
        if isinstance(part, int):
            shown += f"[{part}]"
        else:
            shown += f".{echo(str(part))}" if shown else echo(str(part))
    return shown


def _surrogate_problem(text: str) -> str:
    """Why a string holding a lone surrogate is refused, with where it is, escaped."""
    at = _LONE_SURROGATE.search(text)
    assert at is not None
    code = f"\\u{ord(at.group()):04x}"
    return (
        f"the text holds a lone surrogate {code} at character {at.start() + 1}, which JSON "
        "can write but is no Unicode character (half of a pair for a character beyond "
        "U+FFFF); send the character itself, or both halves of its pair"
    )


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
        tools=[strict_tool(*entry) for entry in TOOLS],
    )

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
