"""Plain records of a page's text layout, so conversion code never sees pdfminer types,
and the reading rules that conversion (`convert/blocks.py`) and element detection share:
lines joined across hyphens, the body font size, rows, and tables of aligned cells.

Coordinates are PDF points measured from the page's top-left corner (y grows downwards,
the reading direction), as (x0, top, x1, bottom).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

BBox = tuple[float, float, float, float]


@dataclass(frozen=True)
class TextLine:
    """One printed line (or a cell-sized piece of one): its text and how it looks."""

    text: str
    bbox: BBox
    font_size: float  # median character size in points
    bold: bool
    font_name: str = ""

    @property
    def x0(self) -> float:
        return self.bbox[0]

    @property
    def top(self) -> float:
        return self.bbox[1]

    @property
    def x1(self) -> float:
        return self.bbox[2]

    @property
    def bottom(self) -> float:
        return self.bbox[3]

    @property
    def height(self) -> float:
        return self.bbox[3] - self.bbox[1]


@dataclass(frozen=True)
class TextBlock:
    """Lines the layout analysis grouped together (a paragraph, a column of cells...)."""

    text: str
    bbox: BBox
    lines: list[TextLine] = field(default_factory=list)


@dataclass(frozen=True)
class Graphic:
    """Something drawn rather than written (a raster image, a form XObject container, a
    rectangle, a straight line, a curve): where figures and ruled tables are found."""

    kind: str  # image, figure (pdfminer's LTFigure container), rect, line or curve
    bbox: BBox


@dataclass(frozen=True)
class PageLayout:
    """One page's text blocks in the layout engine's reading order, and its graphics."""

    number: int  # 1-based
    width: float
    height: float
    blocks: list[TextBlock] = field(default_factory=list)
    graphics: list[Graphic] = field(default_factory=list)  # in drawing order

    @property
    def lines(self) -> list[TextLine]:
        return [line for block in self.blocks for line in block.lines]


# -- reading rules shared by conversion and element detection -------------------------

MAX_MEAN_CELL_CHARS = 30  # two-column prose has long "cells"; tables have short ones
MAX_MEAN_CELL_WORDS = 4


@dataclass(frozen=True)
class Table:
    """Cells that line up in columns (what `aligned_table` finds)."""

    rows: tuple[tuple[str, ...], ...]  # the first row is the header


def join_lines(lines: Iterable[str]) -> str:
    """Lines of one paragraph -> one string, re-joining words hyphenated at line ends.

    The hyphen goes only when the next line starts in lower case (`archi-` + `tecture`);
    `Jean-` + `Paul` and `well-` + `Known` keep it, and a soft hyphen always goes.
    """
    out = ""
    for raw in lines:
        text = raw.strip()
        if not text:
            continue
        if not out:
            out = text
        elif out.endswith("\xad"):
            out = out[:-1] + text
        elif out.endswith("-") and len(out) > 1 and out[-2].isalpha() and text[0].islower():
            out = out[:-1] + text
        else:
            out = f"{out} {text}"
    return out


def body_font_size(lines: Iterable[TextLine]) -> float:
    """The size most characters are set in (0.0 without text), to half a point."""
    weights: Counter[float] = Counter()
    for line in lines:
        weights[half_point(line.font_size)] += len(line.text)
    return weights.most_common(1)[0][0] if weights else 0.0


def group_rows(lines: Iterable[TextLine]) -> list[list[TextLine]]:
    """Lines sharing a baseline (vertical overlap of at least half the smaller one), top
    to bottom, each row left to right."""
    rows: list[list[TextLine]] = []
    for line in sorted(lines, key=lambda x: ((x.top + x.bottom) / 2, x.x0)):
        if rows:
            anchor = rows[-1][0]
            overlap = min(anchor.bottom, line.bottom) - max(anchor.top, line.top)
            if overlap >= 0.5 * min(anchor.height, line.height):
                rows[-1].append(line)
                continue
        rows.append([line])
    return [sorted(row, key=lambda x: x.x0) for row in rows]


def aligned_table(rows: list[list[TextLine]]) -> Table | None:
    """These rows (from group_rows) as a table when their cells line up in columns and
    read like cells rather than prose; the table heuristic of Markdown conversion, shared
    with element detection."""
    return _as_table(rows) if len(rows) >= 2 else None


def column_spans(spans: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """These (x0, x1) spans, overlapping ones merged, left to right: the columns of a
    table, with the gutters between them."""
    merged: list[list[float]] = []
    for x0, x1 in sorted(spans):
        if merged and x0 <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], x1)
        else:
            merged.append([x0, x1])
    return [(a, b) for a, b in merged]


def column_table(rows: list[list[TextLine]]) -> Table | None:
    """These rows as a table whose columns are the gutters no line crosses: a table of
    which most rows fill one cell only (code beside its output, a cell's wrapped lines),
    which `aligned_table` refuses. None for one column, fewer than two rows with two
    cells, or cells as long as prose."""
    spans = column_spans((x.x0, x.x1) for row in rows for x in row)
    if len(spans) < 2:
        return None
    table_rows: list[tuple[str, ...]] = []
    for row in rows:
        cells: list[list[str]] = [[] for _ in spans]
        for line in row:
            index = next(k for k, (a, b) in enumerate(spans) if a <= line.x0 <= b)
            cells[index].append(line.text)
        table_rows.append(tuple(" ".join(texts) for texts in cells))
    texts = [x.text for row in rows for x in row]
    words = sum(len(text.split()) for text in texts)
    if (
        sum(sum(1 for cell in row if cell) >= 2 for row in table_rows) < 2
        or sum(map(len, texts)) > MAX_MEAN_CELL_CHARS * len(texts)
        or words > MAX_MEAN_CELL_WORDS * len(texts)
    ):
        return None
    return Table(rows=tuple(table_rows))


def half_point(size: float) -> float:
    """A font size to half a point: sizes that differ by less are one size."""
    return round(size * 2) / 2


def _as_table(rows: list[list[TextLine]]) -> Table | None:
    """The rows as a table if their cells line up in columns, else None."""
    tolerance = max(max(x.font_size for row in rows for x in row), 1.0)
    columns: list[list[float]] = []  # [x0, x1] spans, grown as cells join them
    for cell in sorted((x for row in rows for x in row), key=lambda x: x.x0):
        for span in columns:
            if _aligned(cell, span, tolerance):
                span[0], span[1] = min(span[0], cell.x0), max(span[1], cell.x1)
                break
        else:
            columns.append([cell.x0, cell.x1])
    if len(columns) < 2 or any(a[1] > b[0] for a, b in itertools.pairwise(columns)):
        return None
    table_rows: list[tuple[str, ...]] = []
    full_rows = 0
    for row in rows:
        cells = [""] * len(columns)
        for cell in row:
            index = next(k for k, span in enumerate(columns) if _aligned(cell, span, tolerance))
            if cells[index]:
                return None
            cells[index] = cell.text
        full_rows += all(cells)
        table_rows.append(tuple(cells))
    if full_rows * 2 < len(rows) or _prose([x.text for row in rows for x in row], rows):
        return None
    return Table(rows=tuple(table_rows))


def _prose(texts: list[str], rows: list[list[TextLine]]) -> bool:
    """Columns of running text rather than cells: long or wordy cells, or cells of a few
    words that mostly continue a sentence (start in lower case)."""
    words = sum(len(text.split()) for text in texts)
    continued = sum(x.text[:1].islower() for row in rows[1:] for x in row)
    below = sum(len(row) for row in rows[1:])
    return (
        sum(map(len, texts)) > MAX_MEAN_CELL_CHARS * len(texts)
        or words > MAX_MEAN_CELL_WORDS * len(texts)
        or (continued * 2 > below and words >= 3 * len(texts))
    )


def _aligned(cell: TextLine, span: list[float], tolerance: float) -> bool:
    """Overlapping the column, or starting or ending where it does."""
    return (
        min(cell.x1, span[1]) > max(cell.x0, span[0])
        or abs(cell.x0 - span[0]) <= tolerance
        or abs(cell.x1 - span[1]) <= tolerance
    )
