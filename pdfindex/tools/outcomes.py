"""How each seed says a call failed: seed 002's error record, and the answers of seeds
000 and 003 that keep their success shape yet report a failure.

The server flags those answers isError; the tests here need no MCP."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from pdfindex.tools.results import ReadPdfResult, SearchPdfResult, Seed002Error


def error(kind: str, message: str, details: dict[str, Any] | None = None) -> Seed002Error:
    """Seed 002's error shape: `details` says which argument was wrong ({parameter,
    expected, received}) when one was; the request id is also in the session log."""
    return {
        "status": "error",
        "error": kind,
        "message": message,
        "details": details or {},
        "timestamp": iso_now(),
        "request_id": str(uuid.uuid4()),
    }


def iso_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def seed002_failed(answer: dict[str, Any]) -> bool:
    """Seed 002 (and get_document_info): an answer in its error shape."""
    return answer.get("status") == "error"


def search_pdf_failed(answer: SearchPdfResult) -> bool:
    """Seed 000: the file does not exist, or could not be searched (`error`)."""
    return "error" in answer or not answer["file_exists"]


def read_pdf_failed(answer: ReadPdfResult) -> bool:
    """Seed 003: no source could be read (one source read is a partial success)."""
    return not any(source["success"] for source in answer["results"])
