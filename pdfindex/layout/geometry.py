"""Arithmetic on page boxes (x0, top, x1, bottom in points from the top-left corner),
shared by the element finders so each states its rule, not the box sums."""

from __future__ import annotations

from pdfindex.layout.records import BBox

BACKGROUND_SHARE = 0.85  # a graphic covering this much of the page is a background or scan
LARGE_IMAGE_SHARE = 0.15  # an uncaptioned image this large (of the page area) is a figure


def union(boxes: list[BBox]) -> BBox:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def area(box: BBox) -> float:
    return max(box[2] - box[0], 0.0) * max(box[3] - box[1], 0.0)


def grow(box: BBox, by: float) -> BBox:
    return (box[0] - by, box[1] - by, box[2] + by, box[3] + by)


def overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    return min(a1, b1) - max(a0, b0)


def overlap_box(a: BBox, b: BBox) -> bool:
    return overlap(a[0], a[2], b[0], b[2]) >= 0 and overlap(a[1], a[3], b[1], b[3]) >= 0


def inside(inner: BBox, outer: BBox, slack: float) -> bool:
    return (
        inner[0] >= outer[0] - slack
        and inner[1] >= outer[1] - slack
        and inner[2] <= outer[2] + slack
        and inner[3] <= outer[3] + slack
    )


def centre_in(box: BBox, region: BBox) -> bool:
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return region[0] <= x <= region[2] and region[1] <= y <= region[3]


def mostly_inside(box: BBox, region: BBox) -> bool:
    x = overlap(box[0], box[2], region[0], region[2])
    y = overlap(box[1], box[3], region[1], region[3])
    return x > 0 and y > 0 and x * y >= 0.5 * max(area(box), 1e-6)
