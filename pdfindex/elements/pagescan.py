"""One page being searched for elements: its text lines, columns and drawings, which
drawings an element already claimed, and the element records being built. The finders
(tables, figures, equations) share this state, so it lives apart from each of them."""

from __future__ import annotations

from dataclasses import dataclass, field

from pdfindex.elements.captions import Caption
from pdfindex.elements.drawings import CLUSTER_GAP, RULE_THICKNESS, clusters, drawn
from pdfindex.layout.geometry import centre_in, inside, overlap, union
from pdfindex.layout.records import BBox, PageLayout, TextLine, body_font_size, join_lines

CONTEXT_CHARS = 300  # page text kept before and after an element


@dataclass
class Found:
    """An element being built: its region, and what makes it credible."""

    label: str
    kind: str
    bbox: BBox
    caption: Caption | None = None
    cells: list[list[str]] | None = None
    latex: str | None = None
    body: str = ""  # an equation's own text, kept in its context
    located: bool = False  # the region comes from graphics or a grid, not an estimate
    own: set[int] = field(default_factory=set)  # ids of the lines that are the element's


class PageScan:
    """A page's lines and drawings, and the drawings (clusters) claimed so far."""

    def __init__(self, page: PageLayout) -> None:
        self.page = page
        self.lines = [x for x in page.lines if x.text]
        self.body = body_font_size(self.lines)
        self.two_columns = _two_columns(self.lines, page.width)
        self.clusters = clusters(drawn(page), CLUSTER_GAP)
        self.claimed: set[int] = set()  # indices of clusters used by an element
        self.hrules = [
            g.bbox
            for g in page.graphics
            if g.kind in ("line", "rect")
            and g.bbox[3] - g.bbox[1] <= RULE_THICKNESS
            and g.bbox[2] - g.bbox[0] >= 20
        ]
        self.vrules = [
            g.bbox
            for g in page.graphics
            if g.kind in ("line", "rect")
            and g.bbox[2] - g.bbox[0] <= RULE_THICKNESS
            and g.bbox[3] - g.bbox[1] >= 6
        ]

    def band(self, box: BBox) -> tuple[float, float]:
        """The x range of the column holding `box`: a half page on two-column pages when
        the box stays on one side, else the page."""
        width = self.page.width
        middle = width / 2
        if self.two_columns:
            if box[2] <= middle + 0.02 * width:
                return 0.0, middle
            if box[0] >= middle - 0.02 * width:
                return middle, width
        return 0.0, width

    def same_column(self, a: BBox, b: BBox) -> bool:
        if overlap(a[0], a[2], b[0], b[2]) <= 0:
            return False
        band = self.band(a)
        return b[0] >= band[0] - 20 and b[2] <= band[1] + 20

    def estimated(self, caption: Caption, prefer_below: bool) -> Found:
        """No drawing or grid found next to the caption: whatever graphics lie in the free
        space beside it in its column (a sparse drawing), else that free space (where a
        drawing pdfminer does not report would be), else the caption alone."""
        cap = caption.bbox
        band = self.band(cap)
        column = [x for x in self.lines if x.x0 >= band[0] - 2 and x.x1 <= band[1] + 2]
        left = min((x.x0 for x in column), default=cap[0])
        right = max((x.x1 for x in column), default=cap[2])
        height = max(caption.lines[0].height, 1.0)
        own = {id(x) for x in caption.lines}
        reach = 0.6 * self.page.height
        found = Found(caption.label, caption.kind, cap, caption=caption)
        found.own = own
        spaces: list[tuple[BBox, bool]] = []  # (space, ends at text)
        for below in (prefer_below, not prefer_below):
            if below:
                tops = [x.top for x in column if x.top >= cap[3] - 1 and id(x) not in own]
                end = min([*tops, cap[3] + reach, self.page.height])
                spaces.append(((band[0], cap[3], band[1], end), bool(tops)))
            else:
                bottoms = [x.bottom for x in column if x.bottom <= cap[1] + 1 and id(x) not in own]
                start = max([*bottoms, cap[1] - reach, 0.0])
                spaces.append(((band[0], start, band[1], cap[1]), bool(bottoms)))
        for space, _ in spaces:
            within = [
                i
                for i, c in enumerate(self.clusters)
                if i not in self.claimed and inside(c.bbox, space, 2.0) and not c.lone_rule()
            ]
            if within:
                self.claimed.update(within)
                found.bbox = union([cap, *(self.clusters[i].bbox for i in within)])
                found.located = True
                return found
        for space, bounded in spaces:
            if bounded and space[3] - space[1] >= 2 * height:
                found.bbox = union([cap, (left, space[1], right, space[3])])
                break
        return found

    def context(self, found: Found) -> str:
        """Page text before and after the element in reading order, without its own."""
        own = found.own | {id(x) for x in self.lines if centre_in(x.bbox, found.bbox)}
        positions = [i for i, x in enumerate(self.lines) if id(x) in own]
        if positions:
            first, last = positions[0], positions[-1] + 1
        else:
            first = next(
                (i for i, x in enumerate(self.lines) if x.top >= found.bbox[3]), len(self.lines)
            )
            last = first
        before = [x.text for x in self.lines[:first] if id(x) not in own]
        after = [x.text for x in self.lines[last:] if id(x) not in own]
        parts = [_tail(before, CONTEXT_CHARS), found.body, _head(after, CONTEXT_CHARS)]
        return " ".join(p for p in parts if p)


def deduplicated(found: list[Found]) -> list[Found]:
    """One element per label on the page: located before estimated, then a strong caption
    before a weak one, then the first; returned top to bottom."""

    def rank(f: Found) -> tuple[bool, bool]:
        return f.located, f.caption is None or f.caption.strong

    best: dict[str, Found] = {}
    for f in found:
        kept = best.get(f.label)
        if kept is None or rank(f) > rank(kept):
            best[f.label] = f
    return sorted(best.values(), key=lambda f: (f.bbox[1], f.bbox[0]))


def _two_columns(lines: list[TextLine], width: float) -> bool:
    """Long lines on both sides of the page's middle, and few crossing it."""
    long = [x for x in lines if len(x.text) >= 30]
    middle = width / 2
    crossing = sum(x.x0 < middle - 20 and x.x1 > middle + 20 for x in long)
    left = sum(x.x1 <= middle + 10 for x in long)
    right = sum(x.x0 >= middle - 10 for x in long)
    return left >= 3 and right >= 3 and crossing * 4 < len(long)


def _tail(texts: list[str], most: int) -> str:
    """The last `most` characters of these lines, from a word start."""
    text = join_lines(texts[-40:])
    if len(text) <= most:
        return text
    cut = text[-most:]
    return cut[cut.find(" ") + 1 :] if " " in cut else cut


def _head(texts: list[str], most: int) -> str:
    """The first `most` characters of these lines, to a word end."""
    text = join_lines(texts[:40])
    if len(text) <= most:
        return text
    cut = text[:most]
    return cut[: cut.rfind(" ")] if " " in cut else cut
