"""The Tantivy engine: compiled and embedded (the `tantivy` package, official bindings);
the only package that imports tantivy."""

from __future__ import annotations

from pdfindex.config import Settings
from pdfindex.engine.tantivy.engine import TantivyEngine


def open_index(settings: Settings) -> TantivyEngine:
    """The Tantivy index in `settings.index_dir` (created, or started empty
    if of another format)."""
    return TantivyEngine(settings.index_dir, settings.writer_memory_mb)


__all__ = ["TantivyEngine", "open_index"]
