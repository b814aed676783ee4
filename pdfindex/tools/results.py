"""The answer shapes of the JSON tools, one TypedDict per seed shape.

The MCP server turns each into the tool's advertised output schema and validates every
answer against it, so a shape that drifts from its seed fails a test instead of a client.
Any answer may carry `truncated` and `note`: the server's last guard (tools/budget.py `cap`)
adds them when an answer still exceeds max_response_chars. Rules the SDK imposes (mcp 2.3,
see tests/test_schemas.py):

- Every class is `extra="allow"`: keys not declared here are kept (pydantic drops them
  otherwise) and the schema says `additionalProperties: true` ("extra fields are fine").
- A key declared required but missing, or a value of the wrong type, turns the whole call
  into "Error executing tool": declare as required only what the code always sets, and
  type stored values loosely (`str`, not a Literal of today's statuses).
- A union at the root is wrapped as `{"result": ...}`: seed 002's tools keep one class
  holding both their success and their `{status, error, message}` error keys.
- Keys are declared in the order the tools write them: structured content follows it.

`typing_extensions.TypedDict`, not `typing`'s: pydantic reads nested TypedDicts on
Python 3.11 only from it. No `from __future__ import annotations`: with string annotations
`__required_keys__` would count the NotRequired keys as required.
"""

from typing import Any, Literal, NotRequired

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

_open = with_config(ConfigDict(extra="allow"))

OutputFormat = Literal["markdown", "html", "plain", "latex", "docx"]
Seed002Status = Literal["success", "error"]


# -- seed 000 -----------------------------------------------------------------


@_open
class SearchPdfResult(TypedDict):
    """search_pdf; `pages[i]` is the page of `matches[i]` (beside the seed's keys);
    `error` when the file could not be searched, `truncated` and `note` when the matches
    were cut to the response budget."""

    file_exists: bool
    query_exists: bool
    matches: list[str]
    pages: list[int]
    error: NotRequired[str]
    truncated: NotRequired[bool]
    note: NotRequired[str]


# -- seed 001 -----------------------------------------------------------------


@_open
class FuzzyMatch(TypedDict):
    """One matching line (with the lines around it when preview is on)."""

    file: str
    page: int
    line_number: int
    content: str
    adapter: str | None
    line_in_page: NotRequired[int]
    score: NotRequired[int]


@_open
class FuzzySearchResult(TypedDict):
    """fuzzy_search: always a batch over MCP; `matching` names the rule that ran;
    `next_offset` pages on."""

    mode: Literal["batch"]
    matching: Literal["fzf", "regex", "words"]
    note: NotRequired[str]
    spellings: NotRequired[dict[str, list[str]]]
    matches: list[FuzzyMatch]
    total_matches: int
    next_offset: NotRequired[int]
    truncated: NotRequired[bool]
    partial: NotRequired[bool]  # the time limit ran short: `note` says how far it searched


@_open
class LineMatch(TypedDict):
    """One line matching a regex: `line_number` counts lines in the whole file (seed
    001), `line_in_page` within its `page`."""

    page: int
    line_number: int
    line_in_page: int
    content: str
    context_before: list[str]
    context_after: list[str]


@_open
class SearchInFileResult(TypedDict):
    """search_in_file; `truncated` and `next_offset` when cut to the response budget."""

    file: str
    matches: list[LineMatch]
    total_matches: int
    truncated: NotRequired[bool]
    next_offset: NotRequired[int]
    note: NotRequired[str]


@_open
class ExtractPdfPageResult(TypedDict):
    """extract_pdf_page; docx content is base64 (`encoding`, `media_type`); `ocr_pages`
    were converted from OCR text; `truncated` and `note` when cut."""

    content: str
    pages_extracted: list[int]
    format: OutputFormat
    ocr_pages: NotRequired[list[int]]
    encoding: NotRequired[Literal["base64"]]
    media_type: NotRequired[str]
    truncated: NotRequired[bool]
    note: NotRequired[str]


@_open
class SearchableFile(TypedDict):
    """One file: its index status (ok, empty, encrypted, failed, pending, or skipped: a
    FIFO, device or a name not UTF-8, never read) and pages (None while pending); `error`
    for a status other than ok, `slug` once indexed."""

    path: str
    type: str
    size: int | None
    adapter: str | None
    status: str
    pages: int | None
    error: NotRequired[str | None]
    slug: NotRequired[str]


@_open
class ListSearchableFilesResult(TypedDict):
    """list_searchable_files; `truncated` and `next_offset` when cut."""

    path: str
    files: list[SearchableFile]
    total: int
    truncated: NotRequired[bool]
    next_offset: NotRequired[int]
    note: NotRequired[str]
    folders: NotRequired[dict[str, str]]  # the `folders` setting's: NAME -> folder


# -- seed 003 -----------------------------------------------------------------


@_open
class PageText(TypedDict):
    page: int
    text: str


@_open
class PdfFileFacts(TypedDict):
    """What the index knows of the file (read_pdf's `metadata`)."""

    path: str
    slug: str
    size: int
    sha256: str
    extractor: str
    indexed_at: float


@_open
class ReadPdfData(TypedDict):
    """One source's data: each key only when asked for (or when it applies);
    `next_pages` says what to ask for next after a cut."""

    num_pages: NotRequired[int]
    info: NotRequired[dict[str, str]]
    metadata: NotRequired[PdfFileFacts]
    warnings: NotRequired[list[str]]
    page_texts: NotRequired[list[PageText]]
    full_text: NotRequired[str]
    truncated: NotRequired[bool]
    next_pages: NotRequired[str]


@_open
class ReadPdfSource(TypedDict):
    """One source's outcome: `data` on success, `error` otherwise."""

    source: str
    success: bool
    data: NotRequired[ReadPdfData]
    error: NotRequired[str]


@_open
class ReadPdfResult(TypedDict):
    """read_pdf: one entry per source, in the order asked."""

    results: list[ReadPdfSource]
    truncated: NotRequired[bool]
    note: NotRequired[str]


# -- seed 004 (and seed 002's get_document_info) ------------------------------


@_open
class OcrStage(TypedDict):
    """Seed 002's `processing_stages.ocr`: completed when OCR read pages, else skipped."""

    status: str
    confidence: float | None
    duration: float | None
    pages: int


@_open
class EmbeddingStage(TypedDict):
    """Seed 002's `processing_stages.embedding`: skipped, the index is full-text (BM25)."""

    status: str
    model: str
    dimensions: int
    duration: float | None


@_open
class ProcessingStages(TypedDict):
    ocr: OcrStage
    embedding: EmbeddingStage


@_open
class DocumentInfoMetadata(TypedDict):
    """Seed 002's `document_info.metadata`; a chunk is one indexed page."""

    page_count: int
    processing_time: float | None
    language: str
    content_type: str
    chunk_count: int


@_open
class Seed002DocumentInfo(TypedDict):
    """Seed 002's `document_info`: sizes as text, times as ISO 8601 strings;
    processing_status is completed, processing (file changed, re-indexing) or failed."""

    id: str
    file_name: str
    file_path: str
    file_size: str
    processing_status: str
    created_at: str | None
    processed_at: str | None
    metadata: DocumentInfoMetadata
    processing_stages: ProcessingStages


@_open
class IndexedElements(TypedDict):
    """Searchable pages and elements found, per element type."""

    pages: int
    figure: int
    table: int
    equation: int
    diagram: int
    chart: int


@_open
class OcrInfo(TypedDict):
    language: str | None
    pages: int
    mean_confidence: float | None
    pages_not_read: int


@_open
class DocumentInfoResult(TypedDict):
    """get_document_info: seed 004's flat keys and seed 002's `document_info`, or seed
    002's error shape; on success `error` is the file's extraction error, if any."""

    status: Seed002Status
    document_info: NotRequired[Seed002DocumentInfo]
    document_id: NotRequired[str]
    slug: NotRequired[str]
    title: NotRequired[str]
    file_name: NotRequired[str]
    path: NotRequired[str]
    file_size: NotRequired[int]
    total_pages: NotRequired[int]
    page_unit: NotRequired[str]  # page, slide, sheet, part or frame (what a page is)
    index_status: NotRequired[str]
    error: NotRequired[str | None]
    processing_stages: NotRequired[list[str]]
    language: NotRequired[str]
    extractor: NotRequired[str]
    metadata: NotRequired[dict[str, str]]
    modified_at: NotRequired[str | None]
    indexed_at: NotRequired[str | None]
    indexed_elements: NotRequired[IndexedElements]
    ocr: NotRequired[OcrInfo]
    notes: NotRequired[list[str]]
    message: NotRequired[str]
    details: NotRequired[dict[str, Any]]
    timestamp: NotRequired[str]
    request_id: NotRequired[str]
    truncated: NotRequired[bool]
    note: NotRequired[str]


@_open
class DocumentMatch(TypedDict):
    """A name that matches; `status` and `error` when its text cannot be had (a type no
    adapter reads, failed, encrypted)."""

    slug: str
    title: str
    path: str
    pages: int
    score: float
    status: NotRequired[str]
    error: NotRequired[str]


@_open
class FindDocumentResult(TypedDict):
    """find_document: best matches first."""

    query: str
    matches: list[DocumentMatch]
    total: int
    truncated: NotRequired[bool]
    note: NotRequired[str]


@_open
class DocumentRow(TypedDict):
    slug: str
    title: str
    path: str
    pages: int
    status: str
    date_added: str | None


@_open
class Pagination(TypedDict):
    page: int
    page_size: int
    total: int
    pages: int
    has_next: bool
    sort_by: Literal["title", "date_added", "page_count"]


@_open
class ListDocumentsPaginatedResult(TypedDict):
    """list_documents_paginated: one page of documents and where it stands."""

    documents: list[DocumentRow]
    pagination: Pagination
    truncated: NotRequired[bool]
    note: NotRequired[str]


# -- seed 002 -----------------------------------------------------------------


@_open
class Seed002Error(TypedDict):
    """Seed 002's error answer: `details` {parameter, expected, received} when one
    argument is at fault, `timestamp` ISO 8601, `request_id` also in the session log."""

    status: Literal["error"]
    error: str
    message: str
    details: dict[str, Any]
    timestamp: str
    request_id: str


@_open
class ProcessingMetadata(TypedDict):
    page_count: int
    processing_time: float
    file_size: str
    language: str


@_open
class ProcessDocumentResult(TypedDict):
    """process_document: the indexed document, or seed 002's error shape; both say
    what happened in `message`."""

    status: Seed002Status
    error: NotRequired[str]
    document_id: NotRequired[str]
    file_name: NotRequired[str]
    processing_stages: NotRequired[list[str]]
    metadata: NotRequired[ProcessingMetadata]
    message: str
    details: NotRequired[dict[str, Any]]
    timestamp: NotRequired[str]
    request_id: NotRequired[str]
    truncated: NotRequired[bool]
    note: NotRequired[str]


@_open
class SourceMetadata(TypedDict):
    document_id: str
    title: str
    page: int
    relevance_score: float
    chunk_index: int


@_open
class Source(TypedDict):
    """One cited passage."""

    content: str
    metadata: SourceMetadata


class SessionTopic(TypedDict):
    """How a question stands to its session's topic (`pdfindex.tools.topic`)."""

    state: str  # new, continued or switched
    documents: list[str]  # the topic's document, searched on its own


@_open
class QueryMetadata(TypedDict):
    processing_time: float
    llm_model: str
    total_tokens: int
    retrieval: str
    earlier_queries_used: int
    topic: SessionTopic
    confidence: float  # the first page's share of the question's weight (pdfindex.ranking)
    clear_answer: bool  # whether the first passage's page clearly answers
    searched: NotRequired[str]  # the corrected question searched instead
    corrected: NotRequired[dict[str, str]]  # word -> the word searched instead
    answer_written_by: NotRequired[str]  # the client's model (sampling), llm_url, extractive
    note: NotRequired[str]  # why the answer is extractive, or which citations were dropped


@_open
class QueryDocumentsResult(TypedDict):
    """query_documents: cited passages and an answer (generated or extractive), or seed
    002's error."""

    status: Seed002Status
    error: NotRequired[str]
    message: NotRequired[str]
    session_id: NotRequired[str]
    query: NotRequired[str]
    answer: NotRequired[str]
    sources: NotRequired[list[Source]]
    query_metadata: NotRequired[QueryMetadata]
    details: NotRequired[dict[str, Any]]
    timestamp: NotRequired[str]
    request_id: NotRequired[str]
    truncated: NotRequired[bool]
    note: NotRequired[str]


@_open
class SessionMetadata(TypedDict):
    user_context: str
    total_queries: int
    avg_response_time: float | None


@_open
class SessionRow(TypedDict):
    """One live session; times are ISO 8601 strings; a message is one query, and the
    document scope the documents its answers cited."""

    session_id: str
    created_at: str
    last_active_at: str
    message_count: int
    document_scope: list[str]
    metadata: SessionMetadata
    query_count: int
    recent_queries: list[str]


@_open
class SessionStatistics(TypedDict):
    oldest_session: str | None
    most_active_session: str | None
    total_queries: int


@_open
class SessionPagination(TypedDict):
    page: int
    page_size: int
    total: int
    pages: int
    has_next: bool


@_open
class ListSessionsResult(TypedDict):
    """list_sessions, most recent first, a page at a time (or seed 002's error shape);
    active sessions were used in the last hour, every listed one is alive (expiry:
    `session_expiry_days` idle; at most `max_sessions` are kept)."""

    status: Seed002Status
    error: NotRequired[str]
    message: NotRequired[str]
    sessions: NotRequired[list[SessionRow]]
    total_count: NotRequired[int]
    active_sessions: NotRequired[int]
    statistics: NotRequired[SessionStatistics]
    total_sessions: NotRequired[int]
    pagination: NotRequired[SessionPagination]
    truncated: NotRequired[bool]
    note: NotRequired[str]
    details: NotRequired[dict[str, Any]]
    timestamp: NotRequired[str]
    request_id: NotRequired[str]
