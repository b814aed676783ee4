"""The Tantivy engine: compiled and embedded (the `tantivy` package, official bindings);
the only package that imports tantivy."""

from __future__ import annotations

from pathlib import Path

from pdfindex.engine.tantivy.engine import TantivyEngine


def open_index(folder: Path, writer_memory_mb: int = 0) -> TantivyEngine:
    """The Tantivy index in `folder` (created, or started empty if of another format)."""
    return TantivyEngine(folder, writer_memory_mb)


__all__ = ["TantivyEngine", "open_index"]
