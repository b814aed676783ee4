"""The Tantivy engine: compiled and embedded (the `tantivy` package, official bindings);
the only package that imports tantivy."""

from __future__ import annotations

from pathlib import Path

from pdfindex.engine.tantivy.engine import TantivyEngine


def open_index(folder: Path) -> TantivyEngine:
    """The Tantivy index in `folder` (created, or started empty if of another format)."""
    return TantivyEngine(folder)


__all__ = ["TantivyEngine", "open_index"]
