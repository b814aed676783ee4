"""A page's graphics grouped into drawings: the clusters a figure or a ruled table is
made of. Kept apart because a plot may draw tens of thousands of marks, so grouping
them is the one costly step of element detection and has its own speed-ups."""

from __future__ import annotations

from dataclasses import dataclass, field

from pdfindex.layout.geometry import BACKGROUND_SHARE, area, grow, inside, overlap_box, union
from pdfindex.layout.records import BBox, Graphic, PageLayout

CLUSTER_GAP = 6.0  # graphics closer than this are one drawing
MAX_GRAPHICS = 2000  # the largest graphics of a page considered (a plot may draw 50,000 dots)
RULE_THICKNESS = 2.5  # a rectangle thinner than this is a rule


@dataclass
class Cluster:
    """Graphics that touch or nearly do: one drawing, or one ruled grid."""

    bbox: BBox
    members: list[Graphic] = field(default_factory=list)
    grown: BBox = (0.0, 0.0, 0.0, 0.0)  # bbox grown by the clustering gap
    alive: bool = True  # False once merged into another

    def count(self, *kinds: str) -> int:
        return sum(g.kind in kinds for g in self.members)

    def substantial(self) -> bool:
        """Enough drawing to be a figure: an image, or several strokes or containers
        (a plot's marks) over some area; not a lone rule or frame, nor one container (it
        may hold only text)."""
        x0, top, x1, bottom = self.bbox
        if x1 - x0 < 20 or bottom - top < 15:
            return False
        return self.count("image") > 0 or self.count("rect", "line", "curve", "figure") >= 3

    def lone_rule(self) -> bool:
        """A single straight line (a separator, an underline), nothing drawn."""
        x0, top, x1, bottom = self.bbox
        thin = min(x1 - x0, bottom - top) <= RULE_THICKNESS
        return len(self.members) == 1 and thin and self.members[0].kind in ("line", "rect")

    def rules(self) -> tuple[list[float], list[float]]:
        """Distinct y positions of horizontal edges and x positions of vertical ones."""
        ys: list[float] = []
        xs: list[float] = []
        for g in self.members:
            if g.kind not in ("rect", "line"):
                continue
            x0, top, x1, bottom = g.bbox
            if bottom - top <= RULE_THICKNESS and x1 - x0 >= 5:
                ys.append((top + bottom) / 2)
            elif x1 - x0 <= RULE_THICKNESS and bottom - top >= 5:
                xs.append((x0 + x1) / 2)
            elif g.kind == "rect":
                ys += [top, bottom]
                xs += [x0, x1]
        return _distinct(ys), _distinct(xs)


def drawn(page: PageLayout) -> list[Graphic]:
    """The page's graphics worth clustering: no backgrounds, no specks, the largest (by
    width + height, so long rules count) first."""
    page_area = page.width * page.height
    kept: list[Graphic] = []
    for g in page.graphics:
        x0, top, x1, bottom = g.bbox
        if x1 < 0 or bottom < 0 or x0 > page.width or top > page.height:
            continue
        if area(g.bbox) >= BACKGROUND_SHARE * page_area or max(x1 - x0, bottom - top) < 1:
            continue
        kept.append(g)
    kept.sort(key=lambda g: g.bbox[2] - g.bbox[0] + g.bbox[3] - g.bbox[1], reverse=True)
    return kept[:MAX_GRAPHICS]


def clusters(graphics: list[Graphic], gap: float) -> list[Cluster]:
    """Graphics (largest first) merged while they touch within `gap`, top to bottom.

    A graphic inside an existing cluster joins it at once (a plot's thousand marks inside
    its frame cost one test each); clusters are found through a grid of page cells, so
    thousands of separate marks do not cost a test against every cluster.
    """
    grid = _Grid(gap)
    made: list[Cluster] = []
    for graphic in graphics:
        nearby = grid.near(graphic.bbox)
        home = next((c for c in nearby if inside(graphic.bbox, c.bbox, 1.0)), None)
        if home is not None:
            home.members.append(graphic)
            continue
        merged = Cluster(graphic.bbox, [graphic])
        while True:
            near = [c for c in grid.near(merged.bbox) if overlap_box(c.grown, merged.bbox)]
            if not near:
                break
            for cluster in near:
                cluster.alive = False
                merged.members += cluster.members
            merged.bbox = union([merged.bbox, *(c.bbox for c in near)])
        merged.grown = grow(merged.bbox, gap)
        grid.add(merged)
        made.append(merged)
    return sorted((c for c in made if c.alive), key=lambda c: (c.bbox[1], c.bbox[0]))


class _Grid:
    """Clusters by the page cells their box (grown by the gap) covers."""

    CELL = 48.0

    def __init__(self, gap: float) -> None:
        self.gap = gap
        self.cells: dict[tuple[int, int], list[Cluster]] = {}

    def _keys(self, box: BBox) -> list[tuple[int, int]]:
        size = self.CELL
        xs = range(int(box[0] // size), int(box[2] // size) + 1)
        ys = range(int(box[1] // size), int(box[3] // size) + 1)
        return [(x, y) for x in xs for y in ys]

    def add(self, cluster: Cluster) -> None:
        for key in self._keys(cluster.grown):
            self.cells.setdefault(key, []).append(cluster)

    def near(self, box: BBox) -> list[Cluster]:
        """Live clusters registered in the cells `box` touches, each once."""
        seen: set[int] = set()
        out: list[Cluster] = []
        for key in self._keys(box):
            for cluster in self.cells.get(key, ()):
                if cluster.alive and id(cluster) not in seen:
                    seen.add(id(cluster))
                    out.append(cluster)
        return out


def _distinct(values: list[float], tolerance: float = 2.0) -> list[float]:
    out: list[float] = []
    for value in sorted(values):
        if not out or value - out[-1] > tolerance:
            out.append(value)
    return out
