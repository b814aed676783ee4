"""The Whoosh engine: pure Python, the original engine; the only package that imports
whoosh."""

from __future__ import annotations

from pdfindex.config import Settings
from pdfindex.engine.whoosh.engine import WhooshEngine


def open_index(settings: Settings) -> WhooshEngine:
    """The Whoosh index in `settings.index_dir` (created, or started empty
    if of an older format)."""
    return WhooshEngine(settings.index_dir, settings.writer_memory_mb)


__all__ = ["WhooshEngine", "open_index"]
