"""The Whoosh engine: pure Python, the original engine; the only package that imports
whoosh."""

from __future__ import annotations

from pathlib import Path

from pdfindex.engine.whoosh.engine import WhooshEngine


def open_index(folder: Path, writer_memory_mb: int = 0) -> WhooshEngine:
    """The Whoosh index in `folder` (created, or started empty if of an older format)."""
    return WhooshEngine(folder, writer_memory_mb)


__all__ = ["WhooshEngine", "open_index"]
