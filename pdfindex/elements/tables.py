"""Tables next to their captions, as a ruled grid or as rows of aligned text, and the
cells read from them. Separate from figures: a table is found from its text rows, a
figure from its drawing."""

from __future__ import annotations

from pdfindex.elements.captions import Caption, parse_label
from pdfindex.elements.drawings import Cluster
from pdfindex.elements.pagescan import Found, PageScan
from pdfindex.layout.geometry import centre_in, overlap, union
from pdfindex.layout.records import (
    TextLine,
    aligned_table,
    column_spans,
    column_table,
    group_rows,
    join_lines,
)

MAX_TABLE_ROWS = 200  # a page of 6 pt rows; a full-page table was cut at 80


def find_table(scan: PageScan, caption: Caption) -> Found:
    """The table a caption labels: a ruled grid or aligned rows below it, else above it,
    else an estimated region."""
    found = Found(caption.label, "table", caption.bbox, caption=caption)
    found.own = {id(x) for x in caption.lines}
    for below in (True, False):
        if _ruled_table(scan, found, below) or _text_table(scan, found, below):
            return found
    return scan.estimated(caption, prefer_below=True)


def ruled_cells(rows: list[list[TextLine]], cluster: Cluster) -> list[list[str]] | None:
    """Cells of a ruled grid: columns between its vertical rules (or aligned text when it
    has none inside), rows between horizontal rules when every row is ruled."""
    if len(rows) < 2:
        return None
    ys, xs = cluster.rules()
    x0, top, x1, bottom = cluster.bbox
    inner = [x for x in xs if x0 + 3 < x < x1 - 3]
    if not inner:
        table = aligned_table(rows)
        return [list(row) for row in table.rows] if table else None
    edges = [x0, *inner, x1]
    inner_ys = [y for y in ys if top + 3 < y < bottom - 3]
    if len(inner_ys) + 1 >= len(rows) / 2 and inner_ys:  # fully ruled: merge wrapped lines
        bands = [top, *inner_ys, bottom]
        merged: dict[int, list[TextLine]] = {}
        for row in rows:
            middle = (min(x.top for x in row) + max(x.bottom for x in row)) / 2
            band = next((i for i in range(len(bands) - 1) if middle < bands[i + 1]), 0)
            merged.setdefault(band, []).extend(row)
        rows = [merged[k] for k in sorted(merged)]
    cells: list[list[str]] = []
    for row in rows:
        texts: list[list[str]] = [[] for _ in range(len(edges) - 1)]
        for line in sorted(row, key=lambda x: (x.top, x.x0)):
            middle = (line.x0 + line.x1) / 2
            column = next((i for i in range(len(edges) - 1) if middle < edges[i + 1]), -1)
            texts[column].append(line.text)
        cells.append([join_lines(t) for t in texts])
    keep = [i for i in range(len(edges) - 1) if any(row[i] for row in cells)]
    cells = [[row[i] for i in keep] for row in cells if any(row)]
    return cells if len(cells) >= 2 and len(keep) >= 2 else None


def _ruled_table(scan: PageScan, found: Found, below: bool) -> bool:
    """A ruled grid (a cluster of rules with text inside) just below/above the caption."""
    assert found.caption is not None
    cap = found.caption.bbox
    reach = max(3 * found.caption.lines[0].height, 12.0)
    best: tuple[float, int] | None = None
    for index, cluster in enumerate(scan.clusters):
        if (
            index in scan.claimed
            or cluster.count("image")
            or not scan.same_column(cap, cluster.bbox)
        ):
            continue
        ys, xs = cluster.rules()
        if len(ys) < 3 and not (len(ys) >= 2 and len(xs) >= 2):
            continue
        gap = cluster.bbox[1] - cap[3] if below else cap[1] - cluster.bbox[3]
        if -2 <= gap <= reach and (best is None or gap < best[0]):
            best = (gap, index)
    if best is None:
        return False
    cluster = scan.clusters[best[1]]
    inside = [x for x in scan.lines if centre_in(x.bbox, cluster.bbox) and id(x) not in found.own]
    rows = group_rows(inside)
    if len(rows) < 2:
        return False
    scan.claimed.add(best[1])
    found.bbox = union([cluster.bbox, found.bbox])
    found.cells = ruled_cells(rows, cluster)
    found.own |= {id(x) for x in inside}
    found.located = True
    return True


def _text_table(scan: PageScan, found: Found, below: bool) -> bool:
    """Rows of aligned cells just below/above the caption, with the rules around them."""
    assert found.caption is not None
    cap = found.caption.bbox
    band = scan.band(cap)
    candidates = [
        x
        for x in scan.lines
        if id(x) not in found.own
        and x.x0 >= band[0] - 2
        and x.x1 <= band[1] + 2
        and (x.top >= cap[3] - 1 if below else x.bottom <= cap[1] + 1)
    ]
    rows = group_rows(candidates)
    if not below:
        rows.reverse()
    picked: list[list[TextLine]] = []
    edge = cap[3] if below else cap[1]
    singles = 0
    columns: list[tuple[float, float]] = []  # the spans of the rows with several cells
    for row in rows:
        height = max(x.height for x in row)
        top, bottom = min(x.top for x in row), max(x.bottom for x in row)
        gap = top - edge if below else edge - bottom
        if gap > (3.0 if not picked else 2.5) * height:
            break
        if any(parse_label(x.text) for x in row):
            break
        if len(row) == 1 and not _in_a_column(row[0], columns):
            singles += 1
            wide = row[0].x1 - row[0].x0 > 0.6 * (band[1] - band[0])
            if singles > 2 or (wide and len(row[0].text) > 60):
                break
        elif len(row) > 1:
            singles = 0
            columns = column_spans([*((x.x0, x.x1) for x in row), *columns])
        picked.append(row)
        edge = bottom if below else top
        if len(picked) >= MAX_TABLE_ROWS:
            break
    table = _best_table(picked, below)
    if table is None:
        return False
    used, cells = table
    lines = [x for row in used for x in row]
    region = union([x.bbox for x in lines])
    height = max(x.height for x in lines)
    rules = [
        r
        for r in scan.hrules
        if region[1] - 2 * height <= r[1] <= region[3] + 2 * height
        and overlap(r[0], r[2], region[0], region[2])
        >= 0.5 * min(r[2] - r[0], region[2] - region[0])
    ]
    rules += [  # vertical rules beside the rows (amsldoc's marks of the text width)
        r
        for r in scan.vrules
        if band[0] - 2 <= r[0] <= band[1] + 2
        and region[1] - height <= r[1]
        and r[3] <= region[3] + height
    ]
    found.bbox = union([found.bbox, region, *rules])
    found.cells = cells
    found.own |= {id(x) for x in lines}
    found.located = True
    return True


def _in_a_column(line: TextLine, columns: list[tuple[float, float]]) -> bool:
    """A lone line that stays on its side of every gutter between the table's columns
    so far: a cell's line of a table whose rows mostly fill one cell (amsldoc's Table 3.1,
    code lines beside their output), not the text after the table."""
    gutters = [(a[1], b[0]) for a, b in zip(columns, columns[1:], strict=False)]
    return bool(gutters) and not any(line.x0 < g0 and line.x1 > g1 for g0, g1 in gutters)


def _best_table(
    picked: list[list[TextLine]], below: bool
) -> tuple[list[list[TextLine]], list[list[str]]] | None:
    """The longest run of the rows nearest the caption that reads as a table (up to two
    spanning rows next to the caption may be left out of the cells but not the region).
    Rows that line up as cells are read as such (`aligned_table`); a run where most rows
    fill one cell only, by the gutters between its columns (`column_table`).
    Returns (rows in the region, cells)."""
    for read in (aligned_table, column_table):  # the whole run first
        for skip in range(min(3, len(picked) - 1)):
            table = read(picked[skip:] if below else picked[skip:][::-1])
            if table is not None:
                return (picked if below else picked[::-1]), [list(row) for row in table.rows]
    ends = [len(picked)] + [i for i in range(len(picked) - 1, 1, -1) if len(picked[i]) == 1]
    for skip in range(min(3, len(picked))):
        for end in ends[:6]:
            if end - skip < 2:
                continue
            rows = picked[skip:end] if below else picked[skip:end][::-1]
            table = aligned_table(rows)
            if table is not None:
                used = picked[:end] if below else picked[:end][::-1]
                return used, [list(row) for row in table.rows]
    return None
