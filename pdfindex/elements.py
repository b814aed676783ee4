"""Figures, tables and equations on PDF pages, found in the layout records of
`pdfindex.layout` (pdfminer's text lines and graphics), so they can be indexed and
searched as "elements".

Heuristics, cheap on purpose (pdfminer's layout analysis is what costs):

- A caption is a line that starts with a label ("Figure 3", "Fig. 2-1:", "Table 5.",
  "TABLE IV", "Abb. 4", "Tableau 2"...). Running text that merely begins a line with a
  reference ("Table 3 shows...", "...given in / Figure 2. They...") is not one.
- A figure caption gets the cluster of graphics (images, figure containers, lines and
  curves) next to it in its column, preferably above; a table caption the ruled grid or
  the aligned text rows next to it, preferably below. A caption with nothing found keeps
  an estimated region (the free space next to it in its column) or just its own lines.
- Without a caption: a large image is a figure, a fully ruled grid with text is a table.
  Their made-up labels are "Figure p<page>-<n>" / "Table p<page>-<n>", n counting that
  kind's uncaptioned elements on the page from the top.
- An equation is a line (with its row) that ends with a number "(4)" and holds math;
  its label is "Equation (4)".
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pdfindex.layout import (
    BBox,
    Graphic,
    PageLayout,
    TextLine,
    aligned_table,
    body_font_size,
    group_rows,
    join_lines,
)

ELEMENT_TYPES = ("figure", "table", "equation", "diagram", "chart")
DETECTOR_VERSION = "1"  # bump when detection changes (it is part of the extraction cache key)

CONTEXT_CHARS = 300  # page text kept before and after an element
MAX_CAPTION_LINES = 8
MAX_GAP = 90.0  # points between a caption and the graphics or table it labels
CLUSTER_GAP = 6.0  # graphics closer than this are one drawing
MAX_GRAPHICS = 2000  # the largest graphics of a page considered (a plot may draw 50,000 dots)
BACKGROUND_SHARE = 0.85  # a graphic covering this much of the page is a background or scan
LARGE_IMAGE_SHARE = 0.15  # an uncaptioned image this large (of the page area) is a figure
MAX_TABLE_ROWS = 80
RULE_THICKNESS = 2.5  # a rectangle thinner than this is a rule


@dataclass
class Element:
    """A figure, table or equation on a page.

    `label` is as printed ("Table 5", "Fig. 2-1", "Equation (4)", whitespace collapsed,
    trailing ":" or "." dropped); an uncaptioned figure or table is labelled
    "Figure p<page>-<n>" / "Table p<page>-<n>" (n: its rank among that page's uncaptioned
    elements of the kind, from the top), stable for the same file. `bbox` is the element's
    region with its caption, in points from the page's top-left corner. `latex` is an
    approximate recovery from the text layer (None when nothing could be recovered).
    """

    label: str
    kind: str  # one of ELEMENT_TYPES
    page: int  # 1-based
    bbox: tuple[float, float, float, float]  # (x0, top, x1, bottom)
    caption: str  # as printed, "" if none
    context: str  # page text around it
    cells: list[list[str]] | None = None  # table rows, the first one the header
    latex: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["bbox"] = list(self.bbox)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Element:
        """Back from to_dict (extra keys, such as a store's slug and path, are ignored)."""
        cells = data.get("cells")
        return cls(
            label=data["label"],
            kind=data["kind"],
            page=int(data["page"]),
            bbox=tuple(float(v) for v in data["bbox"]),  # type: ignore[arg-type]
            caption=data.get("caption", ""),
            context=data.get("context", ""),
            cells=[list(row) for row in cells] if cells is not None else None,
            latex=data.get("latex"),
        )

    def markdown_table(self) -> str | None:
        """The cells as a Markdown table (first row as header), None without cells."""
        if not self.cells:
            return None
        width = max(len(row) for row in self.cells)
        rows = [[_md_cell(c) for c in row] + [""] * (width - len(row)) for row in self.cells]
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * width]
        lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
        return "\n".join(lines)


def _md_cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


# -- captions ---------------------------------------------------------------------------

# Label word (any case, printed with a capital) -> element kind; English, then German,
# French, Spanish, Italian, Portuguese, Dutch, Polish, Czech, Russian.
_LABEL_WORDS = {
    word: kind
    for kind, words in (
        ("figure", "figure fig abbildung abb figura figuur rysunek rys obrázek рисунок рис"),
        ("table", "table tab tabelle tableau tabla tabella tabela tabel tabulka таблица"),
        ("chart", "chart graph"),
        ("diagram", "diagram"),
        ("equation", "equation eq eqn gleichung équation ecuación"),
    )
    for word in words.split()
}
_WORDS = {
    "figure": "figure",
    "fig": "figure",
    "table": "table",
    "tab": "table",
    "chart": "chart",
    "graph": "chart",
    "diagram": "diagram",
    "equation": "equation",
    "eq": "equation",
    "eqn": "equation",
    # German, French, Spanish, Italian, Portuguese, Dutch, Polish, Czech, Russian
    "abbildung": "figure",
    "abb": "figure",
    "tabelle": "table",
    "gleichung": "equation",
    "tableau": "table",
    "équation": "equation",
    "figura": "figure",
    "tabla": "table",
    "ecuación": "equation",
    "tabella": "table",
    "tabela": "table",
    "figuur": "figure",
    "tabel": "table",
    "rysunek": "figure",
    "rys": "figure",
    "obrázek": "figure",
    "tabulka": "table",
    "рисунок": "figure",
    "рис": "figure",
    "таблица": "table",
}
_WORDS = "|".join(sorted((re.escape(w) for w in _LABEL_WORDS), key=len, reverse=True))
_NUMBER_CORE = r"(?:[A-Z]?\d{1,3}(?:[.\-–‐]\d{1,3})*[a-z]?|[A-Z](?:[.\-]\d{1,3})+|[IVXLC]{1,7})"
_NUMBER = rf"(?:\({_NUMBER_CORE}\)|{_NUMBER_CORE})(?!\w)"
_CAPTION = re.compile(rf"^(?P<word>(?i:{_WORDS}))(?P<dot>\.?)\s*(?P<num>{_NUMBER})(?P<rest>.*)$")
# The same, for candidate_pages over whole page texts: a label at a line start that is not
# followed by a lower-case word (running text: "Table 3 shows ...").
_CANDIDATE_CAPTION = re.compile(
    rf"^[ \t]*(?i:{_WORDS})\.?[ \t]*{_NUMBER}(?![ \t]+[a-z])", re.MULTILINE
)
_STRONG_SEPARATORS = ":.—–-|"
_LEADERS = re.compile(r"(?:\.\s?){4,}|…|(?:\s\.){3,}")
_ENDS_IN_PAGE_NUMBER = re.compile(r"\s\d{1,4}$")
_SENTENCE_END = (".", ":", ";", "!", "?")

_DIAGRAM_WORDS = re.compile(
    r"\b(?:diagram|flow ?chart|schematic|architecture|block diagram|workflow)s?\b", re.I
)
_CHART_WORDS = re.compile(
    r"\b(?:chart|plot|histogram|scatter ?plot|bar graph|line graph|pie)s?\b", re.I
)


@dataclass
class _Caption:
    label: str
    kind: str
    lines: list[TextLine]  # the label line, then its continuation
    strong: bool  # label then ":" "." "—" or nothing: a caption whatever surrounds it
    emphasised: bool  # bold, or set in another size than the body text

    @property
    def bbox(self) -> BBox:
        return _union([x.bbox for x in self.lines])

    @property
    def text(self) -> str:
        return join_lines(x.text for x in self.lines)


def _parse_label(text: str) -> tuple[str, str, str] | None:
    """(label as printed, kind, separator class) for a caption-like line, else None.

    The class is "strong" (label then punctuation, or the label alone), "weak" (label then
    a capitalised word: a caption only if it looks like one) or None for running text.
    """
    match = _CAPTION.match(text)
    if match is None or not match["word"][0].isupper():
        return None
    rest = match["rest"].lstrip()
    if not rest or rest[0] in _STRONG_SEPARATORS:
        strength = "strong"
    elif rest[0].islower():
        return None
    else:
        strength = "weak"
    label = " ".join(text[: match.end("num")].split())
    return label, _LABEL_WORDS[match["word"].casefold()], strength


def _refine_kind(kind: str, caption: str) -> str:
    """A figure whose caption says "diagram" or "chart" (or "plot", "histogram") is one."""
    if kind != "figure":
        return kind
    if _DIAGRAM_WORDS.search(caption):
        return "diagram"
    if _CHART_WORDS.search(caption):
        return "chart"
    return kind


# -- the public face --------------------------------------------------------------------

_EQ_NUMBER_CORE = r"\((?:\d{1,3}(?:\.\d{1,3}){0,2}[a-z]?|[A-Z]\.\d{1,3})\)"
_EQ_NUMBER = re.compile(rf"(?:^|\s){_EQ_NUMBER_CORE}$")
_MATH_CHARS = "=<>≤≥≠≈≡∼≃≅∝±∓×÷·∙∑∏∐∫∬∮√∂∇∞∈∉∋⊂⊃⊆⊇∪∩∧∨¬→←↔⇒⇐⇔↦∀∃′″⊗⊕∘‖ℓħ⟨⟩"
_GREEK = "α-ωΑ-Ωϑϕϵϱϖ"
_CANDIDATE_NUMBER = re.compile(rf"{_EQ_NUMBER_CORE}[ \t\r]*$", re.MULTILINE)
_CANDIDATE_MATH = re.compile(rf"[{_MATH_CHARS}{_GREEK}+−^]")


def candidate_pages(page_texts: list[str]) -> list[int]:
    """1-based numbers of the pages worth a layout pass: those with a line that starts with
    a caption label or ends with an equation number after math. Regular expressions over
    text already extracted, so pages without any are never analysed."""
    return [
        number
        for number, text in enumerate(page_texts, start=1)
        if _CANDIDATE_CAPTION.search(text) or _numbered_math(text)
    ]


def _numbered_math(text: str) -> bool:
    """A line ending with an equation number "(4)" with a math sign before it, on that
    line or the three before (text extraction may break a display formula into lines)."""
    for match in _CANDIDATE_NUMBER.finditer(text):
        start = match.start()
        for _ in range(4):
            start = text.rfind("\n", 0, start - 1) + 1 if start > 0 else 0
        if _CANDIDATE_MATH.search(text, start, match.start()):
            return True
    return False


def detect_file_elements(
    path: Path, pages: list[int] | None = None, deadline: float | None = None
) -> list[Element]:
    """The elements on these 1-based pages (all if None) of a PDF: pdfminer's layout
    analysis of just those pages, then detect_elements. `deadline` (time.monotonic())
    is checked between pages; past it, TimeoutError."""
    from pdfindex.adapters.pdfminer import layout_pages, page_count

    wanted = list(range(1, page_count(path) + 1)) if pages is None else pages
    if not wanted:
        return []
    return detect_elements(layout_pages(path, wanted, deadline=deadline))


def detect_elements(pages: list[PageLayout]) -> list[Element]:
    """The elements on these analysed pages, page by page, each page top to bottom."""
    found: list[Element] = []
    for page in pages:
        found += _PageDetector(page).elements()
    return found


# -- one page ---------------------------------------------------------------------------


@dataclass
class _Cluster:
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


@dataclass
class _Found:
    """An element being built: its region, and what makes it credible."""

    label: str
    kind: str
    bbox: BBox
    caption: _Caption | None = None
    cells: list[list[str]] | None = None
    latex: str | None = None
    body: str = ""  # an equation's own text, kept in its context
    located: bool = False  # the region comes from graphics or a grid, not an estimate
    own: set[int] = field(default_factory=set)  # ids of the lines that are the element's


class _PageDetector:
    """One page's elements: captions first (tables, then figures, each claiming the
    graphics it uses), then uncaptioned figures and tables, then numbered equations."""

    def __init__(self, page: PageLayout) -> None:
        self.page = page
        self.lines = [x for x in page.lines if x.text]
        self.body = body_font_size(self.lines)
        self.two_columns = _two_columns(self.lines, page.width)
        self.clusters = _clusters(_drawn(page), CLUSTER_GAP)
        self.claimed: set[int] = set()  # indices of clusters used by an element
        self.hrules = [
            g.bbox
            for g in page.graphics
            if g.kind in ("line", "rect")
            and g.bbox[3] - g.bbox[1] <= RULE_THICKNESS
            and g.bbox[2] - g.bbox[0] >= 20
        ]

    def elements(self) -> list[Element]:
        captions = self._captions()
        found: list[_Found] = []
        for caption in captions:
            if caption.kind == "table":
                found.append(self._table(caption))
        found += self._figures([c for c in captions if c.kind in ("figure", "chart", "diagram")])
        for caption in captions:
            if caption.kind == "equation":
                found.append(self._estimated(caption, prefer_below=False))
        found = [f for f in found if f.located or self._credible(f.caption)]
        found += self._uncaptioned(found)
        found += self._equations(found)
        return [self._element(f) for f in _deduplicated(found)]

    # -- captions --

    def _captions(self) -> list[_Caption]:
        captions: list[_Caption] = []
        for block in self.page.blocks:
            lines = [x for x in block.lines if x.text]
            width = block.bbox[2] - block.bbox[0]
            index = 0
            while index < len(lines):
                caption = self._caption_at(lines, index, width)
                if caption is None:
                    index += 1
                    continue
                captions.append(caption)
                index += len(caption.lines)
        numbered = [c for c in captions if _ENDS_IN_PAGE_NUMBER.search(c.lines[0].text)]
        if len(numbered) >= 3:  # a list of figures or tables, not captions
            captions = [c for c in captions if c not in numbered]
        return captions

    def _caption_at(self, lines: list[TextLine], index: int, width: float) -> _Caption | None:
        line = lines[index]
        parsed = _parse_label(line.text)
        if parsed is None or _LEADERS.search(line.text):
            return None
        label, kind, strength = parsed
        emphasised = line.bold or abs(line.font_size - self.body) > 0.08 * max(self.body, 1)
        if index > 0:  # a full line of the same look before: a line break in running text
            previous = lines[index - 1]
            same_look = (
                abs(previous.font_size - line.font_size) < 0.5 and previous.bold == line.bold
            )
            if same_look and previous.x1 - previous.x0 >= 0.7 * width:
                if not previous.text.endswith(_SENTENCE_END) or strength == "weak":
                    return None
        taken = [line]
        for following in lines[index + 1 : index + MAX_CAPTION_LINES]:
            gap = following.top - taken[-1].bottom
            if (
                _parse_label(following.text)
                or gap > max(taken[-1].height, 1.0)
                or abs(following.font_size - line.font_size) > 0.15 * max(line.font_size, 1)
            ):
                break
            taken.append(following)
        if len(taken) == 1 and line.text.rstrip(".:") == label:
            taken += self._title_of(line)
        return _Caption(label, kind, taken, strength == "strong", emphasised)

    def _title_of(self, line: TextLine) -> list[TextLine]:
        """The caption text of a label printed alone ("TABLE IV", a bold "Figure 3:"), when
        the layout put it in a block of its own: on the same row just right of the label,
        else just below it."""
        size = max(line.font_size, 1.0)
        for block in self.page.blocks:
            first = block.lines[0] if block.lines else None
            if first is None or first is line or _parse_label(first.text):
                continue
            same_row = _overlap(first.top, first.bottom, line.top, line.bottom) >= 0.5 * min(
                first.height, line.height
            )
            if same_row and 0 <= first.x0 - line.x1 <= 4 * size:
                return [x for x in block.lines[:MAX_CAPTION_LINES] if x.text]
        for block in self.page.blocks:
            first = block.lines[0] if block.lines else None
            if (
                first is not None
                and first is not line
                and 0 <= first.top - line.bottom <= max(line.height, 1.0)
                and _overlap(first.x0, first.x1, line.x0, line.x1) > 0
                and len(block.lines) <= 3
                and not _parse_label(first.text)
            ):
                return [x for x in block.lines if x.text]
        return []

    def _credible(self, caption: _Caption | None) -> bool:
        """Kept without a region found: a strong caption, or a weak one set apart."""
        return caption is not None and (caption.strong or caption.emphasised)

    # -- tables --

    def _table(self, caption: _Caption) -> _Found:
        found = _Found(caption.label, "table", caption.bbox, caption=caption)
        found.own = {id(x) for x in caption.lines}
        for below in (True, False):
            if self._ruled_table(found, below) or self._text_table(found, below):
                return found
        return self._estimated(caption, prefer_below=True)

    def _ruled_table(self, found: _Found, below: bool) -> bool:
        """A ruled grid (a cluster of rules with text inside) just below/above the caption."""
        assert found.caption is not None
        cap = found.caption.bbox
        reach = max(3 * found.caption.lines[0].height, 12.0)
        best: tuple[float, int] | None = None
        for index, cluster in enumerate(self.clusters):
            if (
                index in self.claimed
                or cluster.count("image")
                or not self._same_column(cap, cluster.bbox)
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
        cluster = self.clusters[best[1]]
        inside = [
            x for x in self.lines if _centre_in(x.bbox, cluster.bbox) and id(x) not in found.own
        ]
        rows = group_rows(inside)
        if len(rows) < 2:
            return False
        self.claimed.add(best[1])
        found.bbox = _union([cluster.bbox, found.bbox])
        found.cells = _ruled_cells(rows, cluster)
        found.own |= {id(x) for x in inside}
        found.located = True
        return True

    def _text_table(self, found: _Found, below: bool) -> bool:
        """Rows of aligned cells just below/above the caption, with the rules around them."""
        assert found.caption is not None
        cap = found.caption.bbox
        band = self._band(cap)
        candidates = [
            x
            for x in self.lines
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
        for row in rows:
            height = max(x.height for x in row)
            top, bottom = min(x.top for x in row), max(x.bottom for x in row)
            gap = top - edge if below else edge - bottom
            if gap > (3.0 if not picked else 2.5) * height:
                break
            if any(_parse_label(x.text) for x in row):
                break
            if len(row) == 1:
                singles += 1
                wide = row[0].x1 - row[0].x0 > 0.6 * (band[1] - band[0])
                if singles > 2 or (wide and len(row[0].text) > 60):
                    break
            else:
                singles = 0
            picked.append(row)
            edge = bottom if below else top
            if len(picked) >= MAX_TABLE_ROWS:
                break
        table = _best_table(picked, below)
        if table is None:
            return False
        used, cells = table
        lines = [x for row in used for x in row]
        region = _union([x.bbox for x in lines])
        height = max(x.height for x in lines)
        rules = [
            r
            for r in self.hrules
            if region[1] - 2 * height <= r[1] <= region[3] + 2 * height
            and _overlap(r[0], r[2], region[0], region[2])
            >= 0.5 * min(r[2] - r[0], region[2] - region[0])
        ]
        found.bbox = _union([found.bbox, region, *rules])
        found.cells = cells
        found.own |= {id(x) for x in lines}
        found.located = True
        return True

    # -- figures --

    def _figures(self, captions: list[_Caption]) -> list[_Found]:
        """Each figure caption gets the nearest substantial cluster beside it (above
        preferred), then the clusters on the same band next to that one (subfigures)."""
        usable = [
            i for i, c in enumerate(self.clusters) if i not in self.claimed and c.substantial()
        ]
        pairs: list[tuple[float, int, int]] = []
        for ci, caption in enumerate(captions):
            for ki in usable:
                cost = self._figure_cost(caption.bbox, self.clusters[ki].bbox)
                if cost is not None:
                    pairs.append((cost, ci, ki))
        chosen: dict[int, list[int]] = {}
        for _, ci, ki in sorted(pairs):
            if ci not in chosen and ki not in self.claimed:
                chosen[ci] = [ki]
                self.claimed.add(ki)
        for ci, kis in chosen.items():
            main = self.clusters[kis[0]].bbox
            band = self._band(captions[ci].bbox)
            for ki in usable:
                box = self.clusters[ki].bbox
                if ki in self.claimed or box[0] < band[0] - 2 or box[2] > band[1] + 2:
                    continue
                shared = _overlap(box[1], box[3], main[1], main[3])
                if shared >= 0.5 * min(box[3] - box[1], main[3] - main[1]):
                    kis.append(ki)
                    self.claimed.add(ki)
        out: list[_Found] = []
        for ci, caption in enumerate(captions):
            kind = _refine_kind(caption.kind, caption.text)
            if ci not in chosen:
                estimate = self._estimated(caption, prefer_below=False)
                estimate.kind = kind
                out.append(estimate)
                continue
            drawing = _union([self.clusters[k].bbox for k in chosen[ci]])
            labels = [
                x.bbox
                for x in self.lines
                if len(x.text) <= 40 and _overlap_box(_grow(drawing, 10), x.bbox)
            ]
            found = _Found(caption.label, kind, _union([drawing, caption.bbox, *labels]), caption)
            found.own = {id(x) for x in caption.lines}
            found.located = True
            out.append(found)
        return out

    def _figure_cost(self, caption: BBox, drawing: BBox) -> float | None:
        """How far the drawing is from the caption (lower is better; below the caption
        costs more), None if they are not neighbours in one column."""
        if not self._same_column(caption, drawing):
            return None
        if _centre_in(caption, drawing):
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
        for line in self.lines:  # a paragraph or another caption in between: not neighbours
            if (
                (len(line.text) > 50 or _parse_label(line.text))
                and line.top >= between[0] - 1
                and line.bottom <= between[1] + 1
                and _overlap(line.x0, line.x1, x0, x1) > 0
            ):
                return None
        return cost

    def _estimated(self, caption: _Caption, prefer_below: bool) -> _Found:
        """No drawing or grid found next to the caption: whatever graphics lie in the free
        space beside it in its column (a sparse drawing), else that free space (where a
        drawing pdfminer does not report would be), else the caption alone."""
        cap = caption.bbox
        band = self._band(cap)
        column = [x for x in self.lines if x.x0 >= band[0] - 2 and x.x1 <= band[1] + 2]
        left = min((x.x0 for x in column), default=cap[0])
        right = max((x.x1 for x in column), default=cap[2])
        height = max(caption.lines[0].height, 1.0)
        own = {id(x) for x in caption.lines}
        reach = 0.6 * self.page.height
        found = _Found(caption.label, caption.kind, cap, caption=caption)
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
            inside = [
                i
                for i, c in enumerate(self.clusters)
                if i not in self.claimed and _inside(c.bbox, space, 2.0) and not c.lone_rule()
            ]
            if inside:
                self.claimed.update(inside)
                found.bbox = _union([cap, *(self.clusters[i].bbox for i in inside)])
                found.located = True
                return found
        for space, bounded in spaces:
            if bounded and space[3] - space[1] >= 2 * height:
                found.bbox = _union([cap, (left, space[1], right, space[3])])
                break
        return found

    # -- uncaptioned figures and tables --

    def _uncaptioned(self, found: list[_Found]) -> list[_Found]:
        """Clusters no caption claimed: a large image is a figure, a fully ruled grid
        (3+ horizontal and 3+ vertical rules) with 2x2 cells of text a table."""
        page_area = self.page.width * self.page.height
        out: list[_Found] = []
        for index, cluster in enumerate(self.clusters):
            if index in self.claimed or any(_mostly_inside(cluster.bbox, f.bbox) for f in found):
                continue
            images = [
                g
                for g in cluster.members
                if g.kind == "image" and _area(g.bbox) >= LARGE_IMAGE_SHARE * page_area
            ]
            if images:
                out.append(_Found("", "figure", cluster.bbox, located=True))
                continue
            ys, xs = cluster.rules()
            if len(ys) < 3 or len(xs) < 3 or cluster.count("image", "curve"):
                continue
            inside = [x for x in self.lines if _centre_in(x.bbox, cluster.bbox)]
            cells = _ruled_cells(group_rows(inside), cluster)
            if cells and len(cells) >= 2 and len(cells[0]) >= 2:
                table = _Found("", "table", cluster.bbox, cells=cells, located=True)
                table.own = {id(x) for x in inside}
                out.append(table)
        out.sort(key=lambda f: (f.bbox[1], f.bbox[0]))
        counts = {"figure": 0, "table": 0}
        for f in out:
            counts[f.kind] += 1
            f.label = f"{f.kind.capitalize()} p{self.page.number}-{counts[f.kind]}"
        return out

    # -- equations --

    def _equations(self, found: list[_Found]) -> list[_Found]:
        """Lines ending with "(4)" (the number may be a line of its own at the row's end),
        with the row's math to their left, outside the figures and tables found. Numbers
        printed left of the formula (leqno) are not looked for."""
        out: list[_Found] = []
        rows = group_rows(self.lines)
        row_of = {id(x): row for row in rows for x in row}
        taken = set().union(*(f.own for f in found)) if found else set()
        for line in self.lines:
            match = _EQ_NUMBER.search(line.text)
            if match is None or id(line) in taken:
                continue
            if any(_centre_in(line.bbox, f.bbox) for f in found if f.kind != "equation"):
                continue
            pieces = [line.text[: match.start()].strip()] if match.start() else []
            parts = [line]
            side = line.x0 <= self.page.width / 2
            for other in sorted(row_of[id(line)], key=lambda x: -x.x1):
                if other is line or other.x1 > line.x0 + 1 or id(other) in taken:
                    continue
                if _prose(other.text) or (
                    self.two_columns  # the other column's text, unless a piece of math
                    and (other.x1 <= self.page.width / 2) != side
                    and (
                        other.x1 - other.x0 > 0.3 * self.page.width
                        or not _mathy(other.text, [other.font_name])
                    )
                ):
                    break
                pieces.insert(0, other.text)
                parts.insert(0, other)
            body = " ".join(p for p in pieces if p)
            fonts = [x.font_name for x in parts]
            if not body or _prose(body) or not _mathy(body, fonts):
                continue
            number = match.group(0).strip()
            region = _union([x.bbox for x in parts])
            height = max(x.height for x in parts)
            size = max(x.font_size for x in parts)
            scripts = [  # sub/superscripts the layout set apart: smaller, just above or below
                x
                for x in self.lines
                if id(x) not in taken
                and x not in parts
                and x.font_size < 0.85 * size
                and region[0] - 1 <= x.x0
                and x.x1 <= line.x0 + 1
                and region[1] - 0.8 * height <= (x.top + x.bottom) / 2 <= region[3] + 0.8 * height
            ]
            equation = _Found(
                f"Equation {number}",
                "equation",
                _union([region, *(x.bbox for x in scripts)]),
                latex=to_latex(body),
                body=body,
                located=True,
            )
            equation.own = {id(x) for x in parts + scripts}
            taken |= equation.own
            out.append(equation)
        return out

    # -- assembly --

    def _element(self, found: _Found) -> Element:
        caption = found.caption.text if found.caption else ""
        return Element(
            label=found.label,
            kind=found.kind,
            page=self.page.number,
            bbox=tuple(round(v, 1) for v in found.bbox),  # type: ignore[arg-type]
            caption=caption,
            context=self._context(found),
            cells=found.cells,
            latex=found.latex,
        )

    def _context(self, found: _Found) -> str:
        """Page text before and after the element in reading order, without its own."""
        own = found.own | {id(x) for x in self.lines if _centre_in(x.bbox, found.bbox)}
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

    # -- geometry of the page --

    def _band(self, box: BBox) -> tuple[float, float]:
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

    def _same_column(self, a: BBox, b: BBox) -> bool:
        if _overlap(a[0], a[2], b[0], b[2]) <= 0:
            return False
        band = self._band(a)
        return b[0] >= band[0] - 20 and b[2] <= band[1] + 20


# -- tables' cells ----------------------------------------------------------------------


def _best_table(
    picked: list[list[TextLine]], below: bool
) -> tuple[list[list[TextLine]], list[list[str]]] | None:
    """The longest run of the rows nearest the caption that reads as a table (up to two
    spanning rows next to the caption may be left out of the cells but not the region).
    Returns (rows in the region, cells)."""
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


def _ruled_cells(rows: list[list[TextLine]], cluster: _Cluster) -> list[list[str]] | None:
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


# -- equations --------------------------------------------------------------------------

_MATH_FONT = re.compile(r"CMMI|CMSY|CMEX|MSBM|MSAM|Math|Symbol|STIX|LMRoman.*Math|rsfs|eufm", re.I)
_STRONG_MATH = re.compile(rf"[{_MATH_CHARS}{_GREEK}]")
_WEAK_MATH = re.compile(r"[\w)]\s*[+−/^*]\s*[\w(]")
_LONG_WORD = re.compile(r"[^\W\d_]{4,}")


def _mathy(text: str, fonts: list[str]) -> bool:
    """Math: a relation, operator or Greek letter, a math font, or an operation (a + b,
    x/y) in a short line of few words ("input/output option" is not)."""
    if _STRONG_MATH.search(text) or any(_MATH_FONT.search(f) for f in fonts):
        return True
    words = len(_LONG_WORD.findall(text))
    return bool(_WEAK_MATH.search(text)) and len(text) <= 60 and words <= 2


def _prose(text: str) -> bool:
    """Words rather than math: five or more words of four letters or more, most of it."""
    words = _LONG_WORD.findall(text)
    return len(words) >= 5 and sum(map(len, words)) * 2 >= len(text.replace(" ", ""))


_GREEK_NAMES = (
    "alpha beta gamma delta varepsilon zeta eta theta iota kappa lambda mu nu xi o pi rho "
    "varsigma sigma tau upsilon varphi chi psi omega"
)
_GREEK_CAPITALS = (
    "A B Gamma Delta E Z H Theta I K Lambda M N Xi O Pi P - Sigma T Upsilon Phi X Psi Omega"
)
_SYMBOLS = "≤≥≠≈≡∼≃≅∝±∓×÷·∙∑∏∐∫∬∮√∂∇∞∈∉∋⊂⊃⊆⊇∪∩∧∨¬→←↔⇒⇐⇔↦∀∃⊗⊕∘ℓħ⟨⟩‖∅…⋯ϑϕϵϱϖ"
_COMMANDS = (
    r"\leq \geq \neq \approx \equiv \sim \simeq \cong \propto \pm \mp \times \div \cdot "
    r"\cdot \sum \prod \coprod \int \iint \oint \sqrt \partial \nabla \infty \in \notin "
    r"\ni \subset \supset \subseteq \supseteq \cup \cap \wedge \vee \neg \to \leftarrow "
    r"\leftrightarrow \Rightarrow \Leftarrow \Leftrightarrow \mapsto \forall \exists "
    r"\otimes \oplus \circ \ell \hbar \langle \rangle \| \emptyset \dots \cdots "
    r"\vartheta \phi \epsilon \varrho \varpi"
)
_LATEX = {
    **{chr(0x3B1 + i): f"\\{name}" for i, name in enumerate(_GREEK_NAMES.split())},
    **{
        chr(0x391 + i): f"\\{name}" if len(name) > 1 else name
        for i, name in enumerate(_GREEK_CAPITALS.split())
        if name != "-"  # U+03A2 is unassigned
    },
    **dict(zip(_SYMBOLS, _COMMANDS.split(), strict=True)),
    **dict(zip("ℝℕℤℚℂ", (f"\\mathbb{{{x}}}" for x in "RNZQC"), strict=True)),
    "ο": "o",
    "−": "-",
    "∗": "*",
    "′": "'",
    "″": "''",
}
_SUPERSCRIPTS = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ", "0123456789+-=()ni", strict=True))
_SUBSCRIPTS = dict(zip("₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₙᵢⱼₖ", "0123456789+-=()aeoxnijk", strict=True))


def to_latex(text: str) -> str | None:
    """An approximate LaTeX reading of an equation's text layer: Greek letters, operators
    and relations become commands, Unicode super/subscripts become ^{}/_{}, math italic
    letters plain ones. Layout is lost (fractions, roots' extent, scripts the PDF sets by
    position only), so it is a searchable hint, not a faithful source. None when the text
    holds nothing mathematical (or undecodable glyphs)."""
    body = _EQ_NUMBER.sub("", text).strip()
    if not body or "(cid:" in body or "\ufffd" in body:
        return None
    if not (_mathy(body, []) or re.search("[ℝℕℤℚℂ]", body)):
        return None
    out: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        for table, mark in ((_SUPERSCRIPTS, "^"), (_SUBSCRIPTS, "_")):
            if char in table:
                end = index
                while end < len(body) and body[end] in table:
                    end += 1
                out.append(mark + "{" + "".join(table[c] for c in body[index:end]) + "}")
                index = end
                break
        else:
            if char in _LATEX:
                command = _LATEX[char]
                following = body[index + 1 : index + 2]
                spacer = (
                    " "
                    if command[-1].isalpha() and following.isascii() and following.isalnum()
                    else ""
                )
                out.append(command + spacer)
            elif 0x1D400 <= ord(char) <= 0x1D7FF:  # mathematical alphanumerics: 𝑥 -> x
                out.append(unicodedata.normalize("NFKC", char))
            else:
                out.append(char)
            index += 1
    return " ".join("".join(out).split())


# -- geometry ---------------------------------------------------------------------------


def _drawn(page: PageLayout) -> list[Graphic]:
    """The page's graphics worth clustering: no backgrounds, no specks, the largest (by
    width + height, so long rules count) first."""
    page_area = page.width * page.height
    kept = []
    for g in page.graphics:
        x0, top, x1, bottom = g.bbox
        if x1 < 0 or bottom < 0 or x0 > page.width or top > page.height:
            continue
        if _area(g.bbox) >= BACKGROUND_SHARE * page_area or max(x1 - x0, bottom - top) < 1:
            continue
        kept.append(g)
    kept.sort(key=lambda g: g.bbox[2] - g.bbox[0] + g.bbox[3] - g.bbox[1], reverse=True)
    return kept[:MAX_GRAPHICS]


def _clusters(graphics: list[Graphic], gap: float) -> list[_Cluster]:
    """Graphics (largest first) merged while they touch within `gap`, top to bottom.

    A graphic inside an existing cluster joins it at once (a plot's thousand marks inside
    its frame cost one test each); clusters are found through a grid of page cells, so
    thousands of separate marks do not cost a test against every cluster.
    """
    grid = _Grid(gap)
    made: list[_Cluster] = []
    for graphic in graphics:
        nearby = grid.near(graphic.bbox)
        home = next((c for c in nearby if _inside(graphic.bbox, c.bbox, 1.0)), None)
        if home is not None:
            home.members.append(graphic)
            continue
        merged = _Cluster(graphic.bbox, [graphic])
        while True:
            near = [c for c in grid.near(merged.bbox) if _overlap_box(c.grown, merged.bbox)]
            if not near:
                break
            for cluster in near:
                cluster.alive = False
                merged.members += cluster.members
            merged.bbox = _union([merged.bbox, *(c.bbox for c in near)])
        merged.grown = _grow(merged.bbox, gap)
        grid.add(merged)
        made.append(merged)
    return sorted((c for c in made if c.alive), key=lambda c: (c.bbox[1], c.bbox[0]))


class _Grid:
    """Clusters by the page cells their box (grown by the gap) covers."""

    CELL = 48.0

    def __init__(self, gap: float) -> None:
        self.gap = gap
        self.cells: dict[tuple[int, int], list[_Cluster]] = {}

    def _keys(self, box: BBox) -> list[tuple[int, int]]:
        size = self.CELL
        xs = range(int(box[0] // size), int(box[2] // size) + 1)
        ys = range(int(box[1] // size), int(box[3] // size) + 1)
        return [(x, y) for x in xs for y in ys]

    def add(self, cluster: _Cluster) -> None:
        for key in self._keys(cluster.grown):
            self.cells.setdefault(key, []).append(cluster)

    def near(self, box: BBox) -> list[_Cluster]:
        """Live clusters registered in the cells `box` touches, each once."""
        seen: set[int] = set()
        out: list[_Cluster] = []
        for key in self._keys(box):
            for cluster in self.cells.get(key, ()):
                if cluster.alive and id(cluster) not in seen:
                    seen.add(id(cluster))
                    out.append(cluster)
        return out


def _two_columns(lines: list[TextLine], width: float) -> bool:
    """Long lines on both sides of the page's middle, and few crossing it."""
    long = [x for x in lines if len(x.text) >= 30]
    middle = width / 2
    crossing = sum(x.x0 < middle - 20 and x.x1 > middle + 20 for x in long)
    left = sum(x.x1 <= middle + 10 for x in long)
    right = sum(x.x0 >= middle - 10 for x in long)
    return left >= 3 and right >= 3 and crossing * 4 < len(long)


def _distinct(values: list[float], tolerance: float = 2.0) -> list[float]:
    out: list[float] = []
    for value in sorted(values):
        if not out or value - out[-1] > tolerance:
            out.append(value)
    return out


def _union(boxes: list[BBox]) -> BBox:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _area(box: BBox) -> float:
    return max(box[2] - box[0], 0.0) * max(box[3] - box[1], 0.0)


def _grow(box: BBox, by: float) -> BBox:
    return (box[0] - by, box[1] - by, box[2] + by, box[3] + by)


def _overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    return min(a1, b1) - max(a0, b0)


def _overlap_box(a: BBox, b: BBox) -> bool:
    return _overlap(a[0], a[2], b[0], b[2]) >= 0 and _overlap(a[1], a[3], b[1], b[3]) >= 0


def _inside(inner: BBox, outer: BBox, slack: float) -> bool:
    return (
        inner[0] >= outer[0] - slack
        and inner[1] >= outer[1] - slack
        and inner[2] <= outer[2] + slack
        and inner[3] <= outer[3] + slack
    )


def _centre_in(box: BBox, region: BBox) -> bool:
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return region[0] <= x <= region[2] and region[1] <= y <= region[3]


def _mostly_inside(box: BBox, region: BBox) -> bool:
    x = _overlap(box[0], box[2], region[0], region[2])
    y = _overlap(box[1], box[3], region[1], region[3])
    return x > 0 and y > 0 and x * y >= 0.5 * max(_area(box), 1e-6)


# -- text around ------------------------------------------------------------------------


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


def _deduplicated(found: list[_Found]) -> list[_Found]:
    """One element per label on the page: located before estimated, then a strong caption
    before a weak one, then the first; returned top to bottom."""

    def rank(f: _Found) -> tuple[bool, bool]:
        return f.located, f.caption is None or f.caption.strong

    best: dict[str, _Found] = {}
    for f in found:
        kept = best.get(f.label)
        if kept is None or rank(f) > rank(kept):
            best[f.label] = f
    return sorted(best.values(), key=lambda f: (f.bbox[1], f.bbox[0]))
