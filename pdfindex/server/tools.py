"""The 19 tools as the MCP server declares them, in the seeds' order.

Each declaration only gives the seed's argument names, their types and limits, and its
docstring (the tool's description); it fetches the open index from the lifespan context
and calls one plain function of `pdfindex.tools`. What the tools do lives there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, Image
from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from pdfindex.elements.detect import ELEMENT_TYPES
from pdfindex.server import roots, sampling
from pdfindex.server.context import app_of
from pdfindex.server.lanes import answered_within_limits
from pdfindex.tools import catalog, exact, files, fuzzy, grep, passages, results, visual
from pdfindex.tools import pages as pages_tool
from pdfindex.tools.catalog import DOCUMENT
from pdfindex.tools.pages import DEFAULT_DPI, MAX_DPI, MIN_DPI

# Argument descriptions said once each: every token of tools/list stays in an agent's
# context (schemas.py drops what pydantic generates; the words below are the meaning).
DocumentField = Field(description=DOCUMENT, min_length=1, max_length=1000)
OnlyDocumentField = Field(description="Only this document.", min_length=1, max_length=1000)
LabelField = Field(description="Label as printed, e.g. 'Table 5'.", min_length=1, max_length=200)
ScopeField = Field(
    description="A folder under the files folder ('.' = all) or one document.",
    min_length=1,
    max_length=1000,
)
PageChoiceField = Field(description="Page, when the label occurs on several.", ge=1)
FileTypesField = Field(description="Only these extensions, e.g. ['pdf', 'md'].", max_length=20)
FileTypes = list[Annotated[str, Field(min_length=1, max_length=16)]]
DpiField = Field(
    description=f"Default {DEFAULT_DPI}, lowered to fit the size budget.", ge=MIN_DPI, le=MAX_DPI
)
ListPageField = Field(description="1-based.", ge=1)
OFFSET = "Skip this many (paging)."
LIMIT = "Results to return."


class PdfSource(BaseModel):
    """One file to read."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"anyOf": [{"required": ["path"]}, {"required": ["url"]}]},
    )

    path: str | None = Field(None, description=DOCUMENT, max_length=1000)
    url: str | None = Field(None, description="Not supported.", max_length=2000)
    pages: (
        Annotated[str, Field(max_length=1000)]
        | Annotated[list[int], Field(max_length=10_000)]
        | None
    ) = Field(None, description="Pages, like '1-3,5' or [1, 2]; omit for none.")


# -- the tools, in the seeds' order ----------------------------------------


@answered_within_limits
def search_pdf(
    pdf_name: Annotated[
        str,
        Field(
            description="The PDF's path under the files folder, .pdf optional ('reports/q3'), "
            "or its slug.",
            min_length=1,
            max_length=1000,
        ),
    ],
    query: Annotated[
        str,
        Field(
            description="Text to find, case-insensitive; whitespace matches any whitespace, "
            "a word hyphenated at a line end matches unbroken.",
            min_length=1,
            max_length=2000,
        ),
    ],
    context_length: Annotated[
        int,
        Field(
            description="Characters of context around each match.",
            ge=0,
            le=20_000,
        ),
    ] = 2000,
    topk: Annotated[int, Field(description="Matches to return.", ge=1, le=100)] = 10,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.SearchPdfResult:
    """Every occurrence of a text in one PDF, in document order, with context; pages[i]
    is the page of matches[i]; `error` says why a file could not be searched."""
    app = app_of(ctx)
    return exact.search_pdf_live(app.index, app.live, pdf_name, query, context_length, topk)


@answered_within_limits
def fuzzy_search(
    query: Annotated[
        str | None,
        Field(
            description="fzf's extended search per line: letters in order (`hyphpat`), "
            "`'exact`, `^prefix`, `suffix$`, `!not`, `a | b`; a regex (`hyphen.*pattern`) "
            "runs as rga's (smart case). Omit to list each document's first lines.",
            max_length=2000,
        ),
    ] = None,
    path: Annotated[
        str,
        ScopeField,
    ] = ".",
    file_types: Annotated[FileTypes | None, FileTypesField] = None,
    interactive: Annotated[
        bool,
        Field(description="false: the query is a regex (rga's batch mode)."),
    ] = True,
    preview: Annotated[
        bool, Field(description="Add the lines before and after each match.")
    ] = True,
    max_results: Annotated[int, Field(description=LIMIT, ge=1, le=500)] = 50,
    offset: Annotated[int, Field(description=OFFSET, ge=0)] = 0,
    match: Annotated[
        Literal["auto", "fzf", "regex", "words"],
        Field(
            description="auto: fzf, or regex for a regex or interactive false; words: "
            "typo-tolerant words."
        ),
    ] = "auto",
    ctx: Context = None,  # type: ignore[assignment]
) -> results.FuzzySearchResult:
    """Fuzzy search (fzf's matching) over every line of the indexed files under `path`;
    line_number counts through the whole file; `matching` says what ran; `spellings`:
    the index words tried per query word (words matching)."""
    return fuzzy.fuzzy_search(
        app_of(ctx).index,
        query,
        path,
        file_types,
        interactive,
        preview,
        max_results,
        offset,
        match,
    )


@answered_within_limits
def search_in_file(
    file: Annotated[str, DocumentField],
    pattern: Annotated[
        str,
        Field(
            description="Regular expression (Python `regex`).",
            min_length=1,
            max_length=1000,
        ),
    ],
    context_lines: Annotated[int, Field(description="Lines around each match.", ge=0, le=20)] = 2,
    case_sensitive: Annotated[bool, Field(description="Match case exactly.")] = False,
    offset: Annotated[int, Field(description=OFFSET, ge=0)] = 0,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.SearchInFileResult:
    """Regex search in one file's text, line by line; line_number counts through the
    whole file, line_in_page within `page`."""
    return grep.search_in_file(
        app_of(ctx).index, file, pattern, context_lines, case_sensitive, offset
    )


@answered_within_limits
def extract_pdf_page(
    file: Annotated[str, DocumentField],
    pages: Annotated[
        list[Annotated[int, Field(ge=1)]],
        Field(
            description="1-based page numbers, e.g. [5].",
            min_length=1,
            max_length=50,
        ),
    ],
    output_format: Annotated[
        Literal["markdown", "html", "plain", "latex", "docx"],
        Field(description="latex and docx through pandoc; docx comes base64-encoded."),
    ] = "markdown",
    preserve_layout: Annotated[
        bool,
        Field(description="Keep the spatial layout (columns) instead of reflowing."),
    ] = False,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.ExtractPdfPageResult:
    """Pages of a PDF as Markdown, HTML, plain text, LaTeX or DOCX."""
    return pages_tool.extract_pdf_page(
        app_of(ctx).index, file, pages, output_format, preserve_layout
    )


@answered_within_limits
def list_searchable_files(
    path: Annotated[
        str,
        ScopeField,
    ] = ".",
    file_types: Annotated[FileTypes | None, FileTypesField] = None,
    offset: Annotated[int, Field(description=OFFSET, ge=0)] = 0,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.ListSearchableFilesResult:
    """The files under `path`; status: ok, empty, encrypted, failed, pending (not indexed
    yet) or unsupported, with `error` saying why."""
    return files.list_searchable_files(app_of(ctx).index, path, file_types, offset)


@answered_within_limits
def read_pdf(
    sources: Annotated[
        list[PdfSource],
        Field(description="Files to read, each {path, pages?}.", min_length=1, max_length=20),
    ],
    include_full_text: Annotated[
        bool, Field(description="Whole text of sources without pages.")
    ] = False,
    include_metadata: Annotated[bool, Field(description="Title, author, dates.")] = True,
    include_page_count: Annotated[bool, Field(description="Number of pages.")] = True,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.ReadPdfResult:
    """Text and metadata of PDFs, per source: `data` on success, else `error`."""
    return files.read_pdf(
        app_of(ctx).index,
        [src.model_dump() for src in sources],
        include_full_text,
        include_metadata,
        include_page_count,
    )


@answered_within_limits
def search_documents(
    query: Annotated[
        str, Field(description="What to look for, in words.", min_length=1, max_length=2000)
    ],
    limit: Annotated[int, Field(description=LIMIT, ge=1, le=50)] = 10,
    document_slug: Annotated[str | None, OnlyDocumentField] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> str:
    """Ranked search (BM25, hybrid with embeddings when on) over all pages: numbered
    results with slug, page and snippet, then matching figures and tables; the last
    line names the ranking."""
    return catalog.search_documents(app_of(ctx).index, query, limit, document_slug)


@answered_within_limits
def get_page_image(
    document_slug: Annotated[str, DocumentField],
    page_number: Annotated[int, Field(description="1-based.", ge=1)],
    dpi: Annotated[int | None, DpiField] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> Any:
    """A page as a PNG image, after a line about it."""
    caption, png = pages_tool.get_page_image(app_of(ctx).index, document_slug, page_number, dpi)
    return [caption, Image(data=png, format="png")]


@answered_within_limits
def search_visual_elements(
    query: Annotated[
        str,
        Field(
            description="What the element shows, in words.",
            min_length=1,
            max_length=2000,
        ),
    ],
    element_type: Annotated[
        Literal[ELEMENT_TYPES] | None,  # type: ignore[valid-type]
        Field(description="Only this type."),
    ] = None,
    limit: Annotated[int, Field(description=LIMIT, ge=1, le=50)] = 10,
    document_slug: Annotated[str | None, OnlyDocumentField] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> str:
    """Figures, tables, equations, diagrams and charts by caption and nearby text; pass
    a result's slug and label to get_element_image or get_element_details."""
    return visual.search_visual_elements(
        app_of(ctx).index, query, element_type, limit, document_slug
    )


@answered_within_limits
def get_element_image(
    document_slug: Annotated[str, DocumentField],
    element_label: Annotated[str, LabelField],
    page_number: Annotated[int | None, PageChoiceField] = None,
    dpi: Annotated[int | None, DpiField] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> Any:
    """An element's region of its page as a PNG image, after a line about it."""
    text, png = visual.element_image(
        app_of(ctx).index, document_slug, element_label, page_number, dpi
    )
    return [text, Image(data=png, format="png")]


@answered_within_limits
def get_element_details(
    document_slug: Annotated[str, DocumentField],
    element_label: Annotated[str, LabelField],
    page_number: Annotated[int | None, PageChoiceField] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> str:
    """An element's type, label, caption and nearby text; a table's cells as Markdown;
    an equation's LaTeX when recovered."""
    return visual.element_details(app_of(ctx).index, document_slug, element_label, page_number)


@answered_within_limits
def get_document_info(
    document_slug: Annotated[
        str | None,
        Field(description="Seed 004's: " + DOCUMENT, min_length=1, max_length=1000),
    ] = None,
    document_id: Annotated[
        str | None,
        Field(
            description="Seed 002's: the id from process_document (the slug), or a path.",
            min_length=1,
            max_length=1000,
        ),
    ] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.DocumentInfoResult:
    """One document's metadata, for seeds 004 and 002 at once (`document_info`); give
    document_slug or document_id (both: the same document)."""
    return catalog.get_document_info(app_of(ctx).index, document_slug, document_id)


@answered_within_limits
def find_document(
    query: Annotated[
        str,
        Field(
            description="Part of a name, title or slug; typos are fine.",
            min_length=1,
            max_length=1000,
        ),
    ],
    limit: Annotated[int, Field(description=LIMIT, ge=1, le=50)] = 5,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.FindDocumentResult:
    """Find documents by partial or misspelled slug, title or file name."""
    return catalog.find_document(app_of(ctx).index, query, limit)


@answered_within_limits
def list_documents(ctx: Context = None) -> str:  # type: ignore[assignment]
    """All documents with slug, title and page count."""
    app = app_of(ctx)
    return catalog.list_documents(app.index, app.index.settings.max_response_chars)


@answered_within_limits
def list_documents_paginated(
    page: Annotated[int, ListPageField] = 1,
    page_size: Annotated[int, Field(ge=1, le=100)] = 20,
    sort_by: Literal["title", "date_added", "page_count"] = "title",
    ctx: Context = None,  # type: ignore[assignment]
) -> results.ListDocumentsPaginatedResult:
    """Documents a page at a time, with pagination."""
    return catalog.list_documents_paginated(app_of(ctx).index, page, page_size, sort_by)


@answered_within_limits
def get_library_status(ctx: Context = None) -> str:  # type: ignore[assignment]
    """Index health: documents by status, pages, pending changes, watcher, last commit."""
    app = app_of(ctx)
    live = app.live
    state = catalog.library_status(app.index, live.watcher_state(), live.pending, live.last_error)
    return "\n".join([state, *roots.status_lines(app)])


@answered_within_limits
def process_document(
    file_path: Annotated[
        str,
        Field(
            description="A file in the files folder: absolute or relative path, extension "
            "optional, or slug.",
            min_length=1,
            max_length=4096,
        ),
    ],
    file_name: Annotated[str | None, Field(description="Display name.", max_length=255)] = None,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.ProcessDocumentResult:
    """Index one file now; document_id in the answer is its slug."""
    app = app_of(ctx)
    return passages.process_document(app.index, app.live.index_now, file_path, file_name)


@answered_within_limits
def query_documents(
    query: Annotated[
        str,
        Field(description="A question.", min_length=1, max_length=2000),
    ],
    session_id: Annotated[
        str | None,
        Field(
            description="From an earlier answer, to follow up; omit to start.",
            max_length=64,
            json_schema_extra={"format": "uuid"},
        ),
    ] = None,
    top_k: Annotated[int, Field(description="Passages to retrieve.", ge=1, le=20)] = 5,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.QueryDocumentsResult:
    """Best passages for a question and an answer citing them as [1], [2], written by the
    client's model (sampling) or llm_url when available, else quoted; a session
    remembers earlier queries."""
    app = app_of(ctx)
    writer = sampling.writer(ctx)
    return passages.query_documents(app.index, app.sessions, query, session_id, top_k, writer)


@answered_within_limits
def list_sessions(
    page: Annotated[int, ListPageField] = 1,
    page_size: Annotated[int, Field(ge=1, le=100)] = 50,
    ctx: Context = None,  # type: ignore[assignment]
) -> results.ListSessionsResult:
    """Live query_documents sessions, most recent first, a page at a time (idle ones
    expire after session_expiry_days)."""
    app = app_of(ctx)
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
