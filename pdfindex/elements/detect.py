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

The work is split by what is found: `pdfindex.captions` (labels and captions),
`pdfindex.tables`, `pdfindex.figures` (with the uncaptioned elements),
`pdfindex.equations`, over the shared page state of `pdfindex.pagescan`, the drawings of
`pdfindex.drawings` and the box arithmetic of `pdfindex.geometry`. This module is the
front: the Element record and the functions other modules call.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from pdfindex.elements.captions import credible, find_captions, has_caption_line
from pdfindex.elements.equations import find_equations, has_numbered_math, to_latex
from pdfindex.elements.figures import find_figures, find_uncaptioned
from pdfindex.elements.pagescan import Found, PageScan, deduplicated
from pdfindex.elements.tables import find_table
from pdfindex.extract.adapters.base import Extraction
from pdfindex.extract.worker import ExtractOptions, Heartbeat, describe
from pdfindex.layout.records import PageLayout
from pdfindex.models import ElementRecord, FileStatus

__all__ = [
    "DETECTOR_VERSION",
    "ELEMENT_TYPES",
    "Element",
    "candidate_pages",
    "detect_elements",
    "detect_file_elements",
    "to_latex",
]

ELEMENT_TYPES = ("figure", "table", "equation", "diagram", "chart")
DETECTOR_VERSION = "2"  # bump when detection changes (it is part of the extraction cache key)


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

    def to_dict(self) -> ElementRecord:
        """What engines store (JSON: the box as a list)."""
        return ElementRecord(
            label=self.label,
            kind=self.kind,
            page=self.page,
            bbox=list(self.bbox),
            caption=self.caption,
            context=self.context,
            cells=[list(row) for row in self.cells] if self.cells is not None else None,
            latex=self.latex,
        )

    @classmethod
    def from_dict(cls, data: ElementRecord) -> Element:
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


def candidate_pages(page_texts: list[str]) -> list[int]:
    """1-based numbers of the pages worth a layout pass: those with a line that starts with
    a caption label or ends with an equation number after math. Regular expressions over
    text already extracted, so pages without any are never analysed."""
    return [
        number
        for number, text in enumerate(page_texts, start=1)
        if has_caption_line(text) or has_numbered_math(text)
    ]


def detect_file_elements(
    path: Path, pages: list[int] | None = None, deadline: float | None = None
) -> list[Element]:
    """The elements on these 1-based pages (all if None) of a PDF: pdfminer's layout
    analysis of just those pages, then detect_elements. `deadline` (time.monotonic())
    is checked between pages; past it, TimeoutError."""
    from pdfindex.extract.adapters.pdfminer import iter_layouts, page_count

    wanted = list(range(1, page_count(path) + 1)) if pages is None else pages
    if not wanted:
        return []
    found: list[Element] = []
    for page in iter_layouts(path, wanted, deadline=deadline):  # one page's layout at a time
        found += _page_elements(page)
    return found


def detect_elements(pages: list[PageLayout]) -> list[Element]:
    """The elements on these analysed pages, page by page, each page top to bottom."""
    found: list[Element] = []
    for page in pages:
        found += _page_elements(page)
    return found


def _page_elements(page: PageLayout) -> list[Element]:
    """One page's elements: captions first (tables, then figures, each claiming the
    graphics it uses), then uncaptioned figures and tables, then numbered equations."""
    scan = PageScan(page)
    captions = find_captions(page, scan.body)
    found: list[Found] = []
    for caption in captions:
        if caption.kind == "table":
            found.append(find_table(scan, caption))
    found += find_figures(scan, [c for c in captions if c.kind in ("figure", "chart", "diagram")])
    for caption in captions:
        if caption.kind == "equation":
            found.append(scan.estimated(caption, prefer_below=False))
    found = [f for f in found if f.located or credible(f.caption)]
    found += find_uncaptioned(scan, found)
    found += find_equations(scan, found)
    return [_element(scan, f) for f in deduplicated(found)]


def _element(scan: PageScan, found: Found) -> Element:
    caption = found.caption.text if found.caption else ""
    return Element(
        label=found.label,
        kind=found.kind,
        page=scan.page.number,
        bbox=tuple(round(v, 1) for v in found.bbox),  # type: ignore[arg-type]
        caption=caption,
        context=scan.context(found),
        cells=found.cells,
        latex=found.latex,
    )


ELEMENTS_SHARE = 0.8  # of the time limit, what the layout pass for elements may take


def elements_of(
    path: Path, pages: list[int], options: ExtractOptions, beat: Heartbeat
) -> Extraction:
    """The elements pass over one PDF, run after its text is indexed: figures, tables and
    equations on `pages` (those whose text suggests them). `failed` when the layout
    analysis breaks or runs out of time (not cached; the text stays indexed)."""
    beat()
    deadline = time.monotonic() + options.timeout * ELEMENTS_SHARE
    try:
        found = detect_file_elements(path, pages, deadline=deadline)
    except Exception as exc:
        return Extraction(status=FileStatus.FAILED, error=f"elements: {describe(exc)}")
    return Extraction(status=FileStatus.OK, elements=[element.to_dict() for element in found])


def elements_now(path: Path, pages: list[int], seconds: float) -> dict[str, object]:
    """`elements_of` for one document a call asks about before its pass reached it, run
    in an isolated worker (pdfindex.workers): the Extraction as a dict, within `seconds`."""
    options = ExtractOptions(timeout=seconds / ELEMENTS_SHARE)
    return elements_of(path, pages, options, lambda: None).to_dict()
