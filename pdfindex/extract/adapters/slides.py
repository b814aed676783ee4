"""PPTX with python-pptx: a slide is a page; its shapes' text in reading order, then its
speaker notes.

Title, author, subject and keywords come from the core properties. Tables are one line a
row, cells tab-separated; grouped shapes are read inside their group.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import metadata as distributions
from pathlib import Path

from pdfindex.extract.adapters.base import Extraction, finish, office_metadata
from pdfindex.extract.adapters.containers import check_zip

NOTES_HEADING = "Speaker notes:"


class SlidesAdapter:
    name = "pptx"
    description = "PowerPoint decks (.pptx) with python-pptx; a page is a slide, notes included"
    extensions: tuple[str, ...] = (".pptx",)

    @property
    def version(self) -> str:
        return f"python-pptx-{distributions.version('python-pptx')}"

    @property
    def binary(self) -> str:
        return f"python-pptx {distributions.version('python-pptx')}"

    def extract(self, path: Path) -> Extraction:
        import pptx  # here, not at import: the indexing process only asks the version

        check_zip(path)
        deck = pptx.Presentation(str(path))
        pages = []
        for slide in deck.slides:
            parts = [text for shape in _reading_order(slide.shapes) for text in _texts(shape)]
            if slide.has_notes_slide:
                notes = slide.notes_slide.notes_text_frame
                if notes is not None and notes.text.strip():
                    parts.append(f"{NOTES_HEADING}\n{notes.text}")
            pages.append("\n\n".join(p for p in parts if p.strip()))
        meta = office_metadata(deck.core_properties)
        return finish(pages, meta, self.version, unit="slide")


def _reading_order(shapes: object) -> list:
    """Top to bottom, then left to right (shapes without a position last)."""
    return sorted(shapes, key=lambda s: (s.top is None, s.top or 0, s.left or 0))  # type: ignore[attr-defined]


def _texts(shape: object) -> Iterator[str]:
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    if getattr(shape, "shape_type", None) == MSO_SHAPE_TYPE.GROUP:
        for inner in _reading_order(shape.shapes):  # type: ignore[attr-defined]
            yield from _texts(inner)
    elif getattr(shape, "has_table", False):
        rows = shape.table.rows  # type: ignore[attr-defined]
        yield "\n".join("\t".join(" ".join(c.text.split()) for c in row.cells) for row in rows)
    elif getattr(shape, "has_text_frame", False):
        yield shape.text_frame.text  # type: ignore[attr-defined]
