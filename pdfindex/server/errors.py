"""One error rule: every error is flagged isError; inside, each seed keeps its shape.

What a tool's return value or exception becomes for the client (`client_answer`,
`error_answer`), and arguments that fail the input schema as plain sentences
(`invalid_arguments`). Which answers count as failures is the tools' own rule
(pdfindex.tools.outcomes).
"""

from __future__ import annotations

import errno
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp.types import CallToolResult, TextContent
from pydantic import ValidationError

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
from pdfindex.tools import outcomes
from pdfindex.tools.budget import cap, cap_text, serialise

log = logging.getLogger("pdfindex.server")  # one name for the session log's call lines

SEED_004_TEXT = "seed 004: text starting 'Error:'"
SEED_002_JSON = "seed 002: {status: 'error', error, message, details, timestamp, request_id}"
BOTH_SEEDS = (
    "seeds 002 and 004: seed 002's JSON as structured content; as text, that JSON when "
    "called with document_id (seed 002's name), 'Error: ...' otherwise"
)
TOOL_ERROR = "text 'Error executing tool <name>: <cause>'"
SEED_000_JSON = (
    "seed 000's {file_exists, query_exists, matches} (and `pages`) with `error` (an error "
    "before the file is looked up: file_exists false)"
)
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
# Answers in a seed's success shape that report a failure, by error form.
FAILED: dict[str, Callable[[Any], bool]] = {
    SEED_000_JSON: outcomes.search_pdf_failed,
    SEED_003_JSON: outcomes.read_pdf_failed,
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
ERROR_CHARS = 2_000  # an error names its cause; an echoed input is cut to this
ECHO_CHARS = 200  # characters of a rejected value an error repeats
# The page arguments a PageOutOfRange is about, by tool (the document is never at fault).
PAGE_ARGUMENTS = ("page_number", "pages", "page")
_ABSOLUTE_PATH = re.compile(r"(?<![\w.:/~-])(?:/[^\s'\"/:,;()\[\]]+){2,}")


def error_result(
    tool: str,
    kind: str,
    message: str,
    details: dict[str, Any] | None = None,
    arguments: dict[str, Any] | None = None,
) -> CallToolResult:
    """The error answer of `tool`, flagged isError, in its seed's shape (ERROR_FORMS;
    get_document_info's text by the seed its `arguments` name); however large the input
    it repeats, it stays within ERROR_CHARS (plus its keys)."""
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
        return seed002_flagged(tool, dict(outcomes.error(kind, text, details)), arguments)
    if form == SEED_000_JSON:
        answer = {
            "file_exists": False,
            "query_exists": False,
            "matches": [],
            "pages": [],
            "error": message,
        }
        return flagged(serialise(answer), answer)
    if form == SEED_004_TEXT:
        return flagged(message if message.startswith("Error:") else f"Error: {message}")
    return flagged(f"Error executing tool {tool}: {message}")


def client_answer(
    tool: str, result: Any, limit: int | None, arguments: dict[str, Any] | None = None
) -> Any:
    """A tool's return value as the client receives it: JSON answers as compact text
    plus structured content, capped at `limit` characters (serialised), and flagged
    isError when the seed's own shape says the call failed (`arguments`: the call's,
    which tell get_document_info's seed)."""
    if isinstance(result, str):
        return cap_text(result, limit, "ask for fewer results") if limit else result
    if not isinstance(result, dict):
        return result  # images: [caption, Image]
    form = ERROR_FORMS.get(tool)
    if form in (SEED_002_JSON, BOTH_SEEDS) and outcomes.seed002_failed(result):
        return seed002_flagged(tool, cap(result, limit)[0] if limit else result, arguments)
    answer = cap(result, limit)[0] if limit else result
    failed = form in FAILED and FAILED[form](answer)
    return CallToolResult(
        content=[TextContent(type="text", text=serialise(answer))],
        structured_content=answer,
        is_error=failed,
    )


def error_answer(
    tool: str, exc: Exception, arguments: dict[str, Any], files_dir: Path | None
) -> CallToolResult:
    """What an exception a tool raised becomes: our errors name the argument at fault,
    running out of memory and a path too long say so, anything else is a crash named by
    its cause (crash_message) and logged with its traceback."""
    if isinstance(exc, PdfIndexError):
        message = str(exc)
        # "Document 'x' not found" names its argument already; other causes get its name.
        name = None if isinstance(exc, DocumentNotFound) else argument_named(arguments, message)
        if isinstance(exc, PageOutOfRange):  # the page asked for, not the document quoted
            name = next((k for k in PAGE_ARGUMENTS if arguments.get(k) is not None), name)
        if name is not None and not any(message.startswith(f"{k}:") for k in arguments):
            message = f"{name}: {message}"
        return error_result(tool, seed002_kind(exc), message, None, arguments)
    if isinstance(exc, MemoryError):
        log.error("tool %s ran out of memory", tool, exc_info=exc)
        return error_result(
            tool,
            "ProcessingError",
            "out of memory: the request needs more memory than this server has "
            "(a page too large to render, or too much asked at once)",
        )
    if isinstance(exc, OSError) and exc.errno == errno.ENAMETOOLONG:
        named = [k for k, v in arguments.items() if isinstance(v, (str, list))]
        name = argument_named(arguments, str(exc.filename), whole=False)
        return error_result(
            tool, "ValidationError", f"{name or ' or '.join(named)}: {os_message(exc)}"
        )
    log.error("tool %s crashed", tool, exc_info=exc)
    return error_result(tool, "ProcessingError", crash_message(exc, files_dir), None, arguments)


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
            text = getattr(item, "path", item)  # a read_pdf source: its path
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


def seed002_flagged(
    tool: str, payload: dict[str, Any], arguments: dict[str, Any] | None
) -> CallToolResult:
    """Seed 002's error record as structured content and, for a client that reads only
    text, as JSON text too; get_document_info called by seed 004's document_slug keeps
    that seed's 'Error: ...' text (its clients look for that prefix)."""
    seed004 = ERROR_FORMS.get(tool) == BOTH_SEEDS and (arguments or {}).get("document_id") is None
    return flagged(payload["message"] if seed004 else serialise(payload), payload)


def flagged(text: str, structured: dict[str, Any] | None = None) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=structured, is_error=True
    )


def seed002_kind(exc: Exception) -> str:
    """Seed 002's error type for `exc` (SEED_002_KINDS, by its nearest class)."""
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
            takes = ", ".join(known) or "no arguments"
            expected = "one of its arguments: " + takes if known else "no arguments"
            sentence = f"unknown argument {name!r}; this tool takes {takes}"
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
