"""What the layout says a page's text is (headings, paragraphs, lists, tables), for the
Markdown, HTML and plain conversions; and a page as monospace text (preserve_layout).

Heuristics, all relative to the body font size (the size most characters are set in):
larger lines are headings, lines at consistent x positions on shared rows are tables,
marker-led lines are lists, the rest are paragraphs in the layout engine's block order.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from pdfindex.layout.records import (
    PageLayout,
    Table,
    TextLine,
    aligned_table,
    body_font_size,
    group_rows,
    half_point,
    join_lines,
)

HEADING_RATIO = 1.15  # a line this much larger than the body text is a heading
MAX_HEADING_CHARS = 200  # longer "headings" are large-print paragraphs
MAX_BOLD_HEADING_CHARS = 80

_SYMBOL_BULLETS = "•◦▪▫‣●○■□∙·⁃"
_BULLET = re.compile(rf"^([{_SYMBOL_BULLETS}])\s*(\S.*)$|^([-*–])\s+(\S.*)$")
_NUMBERED = re.compile(r"^(\d{1,3})([.)])\s+(\S.*)$")
_LETTERED = re.compile(r"^([a-zA-Z])\)\s+(\S.*)$")
_BARE_MARKER = re.compile(rf"^(?:[{_SYMBOL_BULLETS}*–-]|\d{{1,3}}[.)]|[a-zA-Z]\))$")


@dataclass(frozen=True)
class Heading:
    level: int  # 1-3
    text: str


@dataclass(frozen=True)
class Paragraph:
    lines: tuple[str, ...]  # as printed

    @property
    def text(self) -> str:
        return join_lines(self.lines)


@dataclass(frozen=True)
class ListItem:
    marker: str  # as printed: "•", "-", "3.", "a)"
    text: str


@dataclass(frozen=True)
class ListBlock:
    ordered: bool  # numbered items; lettered and bulleted ones are unordered
    items: tuple[ListItem, ...]


Block = Heading | Paragraph | ListBlock | Table


def analyse(pages: list[PageLayout]) -> list[list[Block]]:
    """Each page's elements; heading levels are shared by all pages given."""
    lines = [line for page in pages for line in page.lines]
    body = body_font_size(lines)
    scale = _HeadingScale(body, [line.font_size for line in lines])
    body_bold = sum(len(x.text) for x in lines if x.bold) * 2 > sum(len(x.text) for x in lines)
    return [_page_elements(page, scale, body_bold) for page in pages]


def grid_text(page: PageLayout) -> str:
    """The page as monospace text: rows top to bottom, each line at its x position.

    Columns are x / the median character width; a vertical gap taller than a line
    becomes one blank line.
    """
    lines = [line for line in page.lines if line.text]
    if not lines:
        return ""
    char_width = statistics.median((x.x1 - x.x0) / len(x.text) for x in lines) or 1.0
    left = min(x.x0 for x in lines)
    line_height = statistics.median(x.height for x in lines)
    out: list[str] = []
    previous_bottom: float | None = None
    for row in group_rows(lines):
        top = min(x.top for x in row)
        if previous_bottom is not None and top - previous_bottom > 0.8 * line_height:
            out.append("")
        text = ""
        for line in row:
            column = round((line.x0 - left) / char_width)
            column = max(column, len(text) + 1 if text else 0)
            text = text.ljust(column) + line.text
        out.append(text.rstrip())
        previous_bottom = max(x.bottom for x in row)
    return "\n".join(out)


# -- internals --------------------------------------------------------------------------


class _HeadingScale:
    """Font sizes clearly above the body size -> heading levels, largest first (max 3)."""

    def __init__(self, body: float, sizes: Iterable[float]) -> None:
        self.threshold = body * HEADING_RATIO if body else float("inf")
        large = sorted({half_point(s) for s in sizes if s >= self.threshold}, reverse=True)
        self.levels = {size: min(rank, 3) for rank, size in enumerate(large, start=1)}

    def level(self, size: float) -> int:
        return self.levels.get(half_point(size), 0) if size >= self.threshold else 0


def _page_elements(page: PageLayout, scale: _HeadingScale, body_bold: bool) -> list[Block]:
    """Blocks in reading order; a table replaces its lines where its first line was."""
    blocks = _merge_bare_markers([list(block.lines) for block in page.blocks])
    tables, table_of = _find_tables(blocks)
    builder = _Builder(scale, body_bold)
    emitted: set[int] = set()
    for b, lines in enumerate(blocks):
        run: list[TextLine] = []
        for i, line in enumerate(lines):
            t = table_of.get((b, i))
            if t is None:
                run.append(line)
                continue
            builder.add_run(run)
            run = []
            if t not in emitted:
                builder.add_table(tables[t])
                emitted.add(t)
        builder.add_run(run)
    return builder.elements()


def _merge_bare_markers(blocks: list[list[TextLine]]) -> list[list[TextLine]]:
    """A bullet or number printed apart from its text joins the text to its right."""
    where = {id(line): (b, i) for b, lines in enumerate(blocks) for i, line in enumerate(lines)}
    drop: set[int] = set()
    for row in group_rows(line for lines in blocks for line in lines):
        for left, right in itertools.pairwise(row):
            if id(left) in drop or not _BARE_MARKER.match(left.text):
                continue
            if right.x0 - left.x1 > 4 * max(left.font_size, 1.0):
                continue
            b, i = where[id(left)]
            blocks[b][i] = TextLine(
                text=f"{left.text} {right.text}",
                bbox=(left.x0, min(left.top, right.top), right.x1, max(left.bottom, right.bottom)),
                font_size=right.font_size,
                bold=right.bold,
                font_name=right.font_name,
            )
            drop.add(id(right))
    return [[line for line in lines if id(line) not in drop] for lines in blocks]


def _find_tables(
    blocks: list[list[TextLine]],
) -> tuple[list[Table], dict[tuple[int, int], int]]:
    """Runs of >= 2 adjacent rows of >= 2 cells whose cells fall into shared columns.

    Returns the tables and, for every (block, line) position used, its table's index.
    """
    where = {id(line): (b, i) for b, lines in enumerate(blocks) for i, line in enumerate(lines)}
    rows = group_rows(line for lines in blocks for line in lines)
    tables: list[Table] = []
    table_of: dict[tuple[int, int], int] = {}
    start = 0
    while start < len(rows):
        end = start
        while end < len(rows) and len(rows[end]) >= 2 and _adjacent(rows, start, end):
            end += 1
        table = aligned_table(rows[start:end])
        if table is None:
            start = max(end, start + 1)
            continue
        for row in rows[start:end]:
            for line in row:
                table_of[where[id(line)]] = len(tables)
        tables.append(table)
        start = end
    return tables, table_of


def _adjacent(rows: list[list[TextLine]], start: int, index: int) -> bool:
    """Row `index` follows row `index - 1` closely enough to belong to the same table."""
    if index == start:
        return True
    above, below = rows[index - 1], rows[index]
    height = max(x.height for x in above + below)
    return min(x.top for x in below) - max(x.bottom for x in above) <= 1.5 * height


class _Builder:
    """Runs of lines (a block, or its part outside a table) -> headings, lists and
    paragraphs. A run ends what was open, except that a list item may go on in the next
    run: the layout engine puts a wrapped item's indented lines in a block of their own."""

    def __init__(self, scale: _HeadingScale, body_bold: bool) -> None:
        self.scale = scale
        self.body_bold = body_bold
        self.out: list[Block] = []
        self.heading: tuple[int, list[str]] | None = None
        self.paragraph: list[TextLine] = []
        self.items: list[tuple[str, list[TextLine]]] = []  # (marker, lines) of the open list

    def elements(self) -> list[Block]:
        self.flush()
        return _merge_lists(self.out)

    def add_table(self, table: Table) -> None:
        self.flush()
        self.out.append(table)

    def add_run(self, lines: list[TextLine]) -> None:
        if not lines:
            return
        continues = self._continues_item(lines[0])
        if not continues:
            self.flush()
        left = min(x.x0 for x in lines)
        right = max(x.x1 for x in lines)
        for index, line in enumerate(lines):
            following = lines[index + 1] if index + 1 < len(lines) else None
            opening = index == 0 and not continues
            self._add_line(line, opening, following, left, right)

    def flush(self) -> None:
        if self.heading:
            level, texts = self.heading
            text = join_lines(texts)
            too_long = len(text) > MAX_HEADING_CHARS
            self.out.append(Paragraph(tuple(texts)) if too_long else Heading(level, text))
        if self.paragraph:
            self.out.append(Paragraph(tuple(x.text for x in self.paragraph)))
        if self.items:
            ordered = self.items[0][0][0].isdigit()
            items = [
                ListItem(marker, join_lines(x.text for x in lines)) for marker, lines in self.items
            ]
            self.out.append(ListBlock(ordered, tuple(items)))
        self.heading, self.paragraph, self.items = None, [], []

    def _add_line(
        self, line: TextLine, opening: bool, following: TextLine | None, left: float, right: float
    ) -> None:
        level = self.scale.level(line.font_size)
        if level:
            if self.heading and self.heading[0] == level:
                self.heading[1].append(line.text)
            else:
                self.flush()
                self.heading = (level, [line.text])
            return
        if self.heading:
            self.flush()
        if opening and _bold_heading(line, following, self.body_bold):
            self.out.append(Heading(3, line.text))
            return
        marker = _list_marker(line.text)
        if marker and self.paragraph and _mid_sentence(self.paragraph[-1].text, marker[0]):
            marker = None
        if marker:
            kind_changes = self.items and self.items[0][0][0].isdigit() != marker[0][0].isdigit()
            if kind_changes or self.paragraph:
                self.flush()
            self.items.append((marker[0], [_with_text(line, marker[1])]))
            return
        if self.items and self._indented_under_item(line):
            self.items[-1][1].append(line)
            return
        if self.items:
            self.flush()
        if self.paragraph and _new_paragraph(self.paragraph[-1], line, left, right):
            self.flush()
        self.paragraph.append(line)

    def _indented_under_item(self, line: TextLine) -> bool:
        first = self.items[-1][1][0]
        return first.x0 + 0.3 * line.font_size < line.x0 < first.x1

    def _continues_item(self, line: TextLine) -> bool:
        """The first line of a run goes on with the open list item: indented under it,
        right below its last line, not a heading or a new item."""
        if not self.items or self.scale.level(line.font_size) or _list_marker(line.text):
            return False
        last = self.items[-1][1][-1]
        gap = line.top - last.bottom
        return self._indented_under_item(line) and -0.5 * last.height < gap < last.height


def _bold_heading(line: TextLine, following: TextLine | None, body_bold: bool) -> bool:
    """A short bold line opening a block, not followed by more bold text: a heading."""
    return (
        line.bold
        and not body_bold
        and len(line.text) <= MAX_BOLD_HEADING_CHARS
        and not line.text.endswith((".", ",", ";"))
        and (following is None or not following.bold)
        and _BULLET.match(line.text) is None
    )


def _list_marker(text: str) -> tuple[str, str] | None:
    """(marker, item text) when the line starts a list item."""
    if match := _BULLET.match(text):
        return (match.group(1) or match.group(3), match.group(2) or match.group(4))
    if match := _NUMBERED.match(text):
        return match.group(1) + match.group(2), match.group(3)
    if match := _LETTERED.match(text):
        return match.group(1) + ")", match.group(2)
    return None


def _mid_sentence(previous: str, marker: str) -> bool:
    """A dash or number after a line that does not end a clause continues the sentence
    ("... the result" / "- and this"); a bullet symbol always starts an item."""
    return marker not in _SYMBOL_BULLETS and not previous.endswith((".", ":", ";", "!", "?"))


def _with_text(line: TextLine, text: str) -> TextLine:
    return TextLine(text, line.bbox, line.font_size, line.bold, line.font_name)


def _new_paragraph(previous: TextLine, line: TextLine, left: float, right: float) -> bool:
    """A sentence ending on a short line, then an indented line or any line, starts anew;
    so does a change of font size."""
    if abs(line.font_size - previous.font_size) > 0.1 * previous.font_size:
        return True
    if not previous.text.endswith((".", "!", "?", ":")):
        return False
    short = previous.x1 < right - 0.15 * (right - left)
    indented = line.x0 > left + 1.5 * line.font_size
    return short or indented


def _merge_lists(elements: list[Block]) -> list[Block]:
    """Neighbouring lists of the same kind (split by the layout into blocks) are one."""
    out: list[Block] = []
    for element in elements:
        previous = out[-1] if out else None
        if (
            isinstance(element, ListBlock)
            and isinstance(previous, ListBlock)
            and previous.ordered == element.ordered
        ):
            out[-1] = ListBlock(element.ordered, previous.items + element.items)
        else:
            out.append(element)
    return out
