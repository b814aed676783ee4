"""Figures: the drawing next to each figure caption, and the elements no caption
claimed (a large image is a figure, a fully ruled grid of text a table). Both are found
from the page's drawings, so they live together."""

from __future__ import annotations

from pdfindex.elements.captions import Caption, parse_label, refine_kind
from pdfindex.elements.pagescan import Found, PageScan
from pdfindex.elements.tables import ruled_cells
from pdfindex.layout.geometry import (
    LARGE_IMAGE_SHARE,
    area,
    centre_in,
    grow,
    mostly_inside,
    overlap,
    overlap_box,
    union,
)
from pdfindex.layout.records import BBox, group_rows

MAX_GAP = 90.0  # points between a caption and the graphics or table it labels


def find_figures(scan: PageScan, captions: list[Caption]) -> list[Found]:
    """Each figure caption gets the nearest substantial cluster beside it (above
    preferred), then the clusters on the same band next to that one (subfigures)."""
    usable = [i for i, c in enumerate(scan.clusters) if i not in scan.claimed and c.substantial()]
    pairs: list[tuple[float, int, int]] = []
    for ci, caption in enumerate(captions):
        for ki in usable:
            cost = _figure_cost(scan, caption.bbox, scan.clusters[ki].bbox)
            if cost is not None:
                pairs.append((cost, ci, ki))
    chosen: dict[int, list[int]] = {}
    for _, ci, ki in sorted(pairs):
        if ci not in chosen and ki not in scan.claimed:
            chosen[ci] = [ki]
            scan.claimed.add(ki)
    for ci, kis in chosen.items():
        main = scan.clusters[kis[0]].bbox
        band = scan.band(captions[ci].bbox)
        for ki in usable:
            box = scan.clusters[ki].bbox
            if ki in scan.claimed or box[0] < band[0] - 2 or box[2] > band[1] + 2:
                continue
            shared = overlap(box[1], box[3], main[1], main[3])
            if shared >= 0.5 * min(box[3] - box[1], main[3] - main[1]):
                kis.append(ki)
                scan.claimed.add(ki)
    out: list[Found] = []
    for ci, caption in enumerate(captions):
        kind = refine_kind(caption.kind, caption.text)
        if ci not in chosen:
            estimate = scan.estimated(caption, prefer_below=False)
            estimate.kind = kind
            out.append(estimate)
            continue
        drawing = union([scan.clusters[k].bbox for k in chosen[ci]])
        labels = [
            x.bbox
            for x in scan.lines
            if len(x.text) <= 40 and overlap_box(grow(drawing, 10), x.bbox)
        ]
        found = Found(caption.label, kind, union([drawing, caption.bbox, *labels]), caption)
        found.own = {id(x) for x in caption.lines}
        found.located = True
        out.append(found)
    return out


def find_uncaptioned(scan: PageScan, found: list[Found]) -> list[Found]:
    """Clusters no caption claimed: a large image is a figure, a fully ruled grid
    (3+ horizontal and 3+ vertical rules) with 2x2 cells of text a table."""
    page_area = scan.page.width * scan.page.height
    out: list[Found] = []
    for index, cluster in enumerate(scan.clusters):
        if index in scan.claimed or any(mostly_inside(cluster.bbox, f.bbox) for f in found):
            continue
        images = [
            g
            for g in cluster.members
            if g.kind == "image" and area(g.bbox) >= LARGE_IMAGE_SHARE * page_area
        ]
        if images:
            out.append(Found("", "figure", cluster.bbox, located=True))
            continue
        ys, xs = cluster.rules()
        if len(ys) < 3 or len(xs) < 3 or cluster.count("image", "curve"):
            continue
        inside = [x for x in scan.lines if centre_in(x.bbox, cluster.bbox)]
        cells = ruled_cells(group_rows(inside), cluster)
        if cells and len(cells) >= 2 and len(cells[0]) >= 2:
            table = Found("", "table", cluster.bbox, cells=cells, located=True)
            table.own = {id(x) for x in inside}
            out.append(table)
    out.sort(key=lambda f: (f.bbox[1], f.bbox[0]))
    counts = {"figure": 0, "table": 0}
    for f in out:
        counts[f.kind] += 1
        f.label = f"{f.kind.capitalize()} p{scan.page.number}-{counts[f.kind]}"
    return out


def _figure_cost(scan: PageScan, caption: BBox, drawing: BBox) -> float | None:
    """How far the drawing is from the caption (lower is better; below the caption
    costs more), None if they are not neighbours in one column."""
    if not scan.same_column(caption, drawing):
        return None
    if centre_in(caption, drawing):
        return 0.0
    above = caption[1] - drawing[3]
    below = drawing[1] - caption[3]
    if -4 <= above <= MAX_GAP:
        between = (drawing[3], caption[1])
        cost = max(above, 0.0)
    elif -4 <= below <= MAX_GAP:
        between = (caption[3], drawing[1])
        cost = max(below, 0.0) + 30.0
    else:
        return None
    x0, x1 = min(caption[0], drawing[0]), max(caption[2], drawing[2])
    for line in scan.lines:  # a paragraph or another caption in between: not neighbours
        if (
            (len(line.text) > 50 or parse_label(line.text))
            and line.top >= between[0] - 1
            and line.bottom <= between[1] + 1
            and overlap(line.x0, line.x1, x0, x1) > 0
        ):
            return None
    return cost
