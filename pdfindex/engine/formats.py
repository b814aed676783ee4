"""The format file beside an engine's index: which layout of pdfindex wrote it, so an
index of another layout is started empty (and refilled from the extraction cache)
instead of being misread."""

from __future__ import annotations

import json
from pathlib import Path


def stored_format(format_file: Path) -> int | None:
    """The format recorded in `format_file`; None when there is none or it is unreadable."""
    try:
        value = json.loads(format_file.read_text()).get("format")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, int) else None


def record_format(format_file: Path, version: int) -> None:
    format_file.write_text(json.dumps({"format": version}))
