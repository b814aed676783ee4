"""Output that fits the terminal: its width, names shortened in the middle (the start of
a path and its file name both stay), tables with a header and aligned columns, text
wrapped under its label, and a progress line redrawn in place.

The width is COLUMNS when set, else the terminal's; output that goes to a pipe or a
file (no COLUMNS) keeps its whole lines, for scripts and grep.
"""

from __future__ import annotations

import os
import shutil
import unicodedata
from collections.abc import Sequence
from typing import TextIO

ELLIPSIS = "…"
GAP = "  "  # between table columns
MIN_COLUMN = 8  # a shortened table column keeps at least this many cells
BAR_CELLS = (10, 30)  # the progress bar's fewest and most cells
MIN_NAME = 16  # cells a progress line keeps for the file name before its bar shrinks


def columns(stream: TextIO) -> int | None:
    """The width output to `stream` should fit: COLUMNS, else the terminal's; None for
    a pipe or a file."""
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        if not stream.isatty():
            return None
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):  # a wrapped stream without a descriptor
        return shutil.get_terminal_size().columns


def cells(text: str) -> int:
    """Terminal cells `text` takes: two for a wide (CJK) character, none for a
    combining mark."""
    return sum(_cell(char) for char in text)


def _cell(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in "WF" else 1


def _head(text: str, room: int) -> str:
    """The longest start of `text` within `room` cells."""
    used = 0
    for i, char in enumerate(text):
        used += _cell(char)
        if used > room:
            return text[:i]
    return text


def shorten(text: str, width: int) -> str:
    """`text` within `width` cells, its middle replaced by … when it is longer
    ("latex_very_long_name.pdf" -> "latex_ve…name.pdf"): a path keeps its folder and
    its file name's end, the extension included."""
    if cells(text) <= width:
        return text
    if width <= 1:
        return _head(text, width)
    tail_room = (width - 1) // 2 + (width - 1) % 2  # the end gets the odd cell
    tail = _head(text[::-1], tail_room)[::-1]
    return _head(text, width - 1 - cells(tail)) + ELLIPSIS + tail


def cut(text: str, width: int | None) -> str:
    """One line within `width` cells, cut at its end (None: as it is)."""
    if width is None or cells(text) <= width:
        return text
    return _head(text, width - 1) + ELLIPSIS


def wrap(text: str, width: int | None, indent: str = "", first: str = "") -> list[str]:
    """`text` as lines of `width` cells (a wide character counts two), broken at spaces,
    a word longer than a line broken where it must; the first line starts with `first`,
    the others with `indent` (None: one line)."""
    if width is None:
        return [first + text]
    room = max(width, cells(indent) + 10, cells(first) + 10)
    lines: list[tuple[str, str]] = [(first, "")]  # (lead, words)
    for word in text.split():
        while word:
            lead, words = lines[-1]
            joined = f"{words} {word}" if words else word
            if cells(lead + joined) <= room:
                lines[-1] = (lead, joined)
                break
            if words:  # the word starts the next line
                lines.append((indent, ""))
                continue
            piece = _head(word, room - cells(lead)) or word[0]  # longer than a line
            lines[-1] = (lead, piece)
            lines.append((indent, ""))
            word = word[len(piece) :]
    return [(lead + words).rstrip() for lead, words in lines if words] or [first.rstrip()]


def parts(pieces: Sequence[str], width: int | None, sep: str = "; ") -> list[str]:
    """The pieces joined by `sep` on as few lines of `width` as they fit (each line but
    the last ends with `sep` stripped of its space); None: one line."""
    if width is None:
        return [sep.join(pieces)]
    lines: list[str] = []
    for piece in pieces:
        joined = f"{lines[-1]}{sep}{piece}" if lines else piece
        if lines and cells(joined) <= width:
            lines[-1] = joined
        elif lines:
            lines[-1] += sep.rstrip()
            lines.append(piece)
        else:
            lines.append(piece)
    return [line for chunk in lines for line in wrap(chunk, width)]


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    width: int | None,
    right: Sequence[int] = (),
    flexible: Sequence[Sequence[int]] = (),
) -> list[str]:
    """A header row and aligned rows; columns `right` aligned right. When the rows are
    wider than `width`, the `flexible` columns shrink, group after group (in a group the
    widest first), down to MIN_COLUMN, and their cells are shortened in the middle. A
    flexible column with no text is left out; no line ends with spaces."""
    shrinking = [i for group in flexible for i in group]
    keep = [i for i in range(len(headers)) if i not in shrinking or any(r[i] for r in rows)]
    headers = [headers[i] for i in keep]
    rows = [[row[i] for i in keep] for row in rows]
    right = [keep.index(i) for i in right if i in keep]
    groups = [[keep.index(i) for i in group if i in keep] for group in flexible]
    grid = zip(headers, *rows, strict=True)
    sizes = [max(cells(str(cell)) for cell in column) for column in grid]
    over = 0 if width is None else sum(sizes) + len(GAP) * (len(sizes) - 1) - width
    for group in groups:
        while over > 0 and group:
            widest = max(group, key=lambda i: sizes[i])
            if sizes[widest] <= MIN_COLUMN:
                break
            sizes[widest] -= 1
            over -= 1
    lines = []
    for row in [headers, *rows]:
        parts = []
        for i, cell in enumerate(row):
            text = shorten(str(cell), sizes[i])
            pad = " " * (sizes[i] - cells(text))
            parts.append(pad + text if i in right else text + pad)
        lines.append(cut(GAP.join(parts).rstrip(), width))
    return lines


def progress_line(label: str, done: int, total: int, name: str, width: int) -> str:
    """`label [####----] done/total name` within `width` cells: the name shortened in
    the middle, the bar shrinking (then gone) before the name gets under MIN_NAME."""
    count = f"{done:>{len(str(total))}}/{total}"
    bar = max(BAR_CELLS[0], min(BAR_CELLS[1], width // 4))
    while True:
        filled = bar * done // total if total else bar
        drawn = f" [{'#' * filled}{'-' * (bar - filled)}]" if bar else ""
        fixed = f"{label}{drawn} {count}"
        room = width - cells(fixed) - 2
        if room >= MIN_NAME or bar == 0:
            break
        bar = bar - 1 if bar > BAR_CELLS[0] else 0
    line = f"{fixed}  {shorten(name, room)}" if name and room > 0 else fixed
    return cut(line, width)


class ProgressLine:
    """A progress line on a terminal, redrawn in place with a carriage return; it stays
    one cell short of the width, so the terminal never wraps it onto a new line."""

    def __init__(self, stream: TextIO, label: str, total: int) -> None:
        self.stream, self.label, self.total = stream, label, total
        self.shown = 0  # cells of the line on screen, to clear what a shorter one leaves

    def update(self, done: int, name: str = "") -> None:
        width = (columns(self.stream) or 80) - 1
        line = progress_line(self.label, done, self.total, name, width)
        blank = " " * max(0, self.shown - cells(line))
        self.stream.write(f"\r{line}{blank}")
        self.stream.flush()
        self.shown = cells(line)

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()
