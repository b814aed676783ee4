"""Real PDFs with figures, tables and equations at known places, for tests/test_elements.py.

Drawn with fpdf2 in points from the top-left corner (the coordinates of pdfindex.layout),
so every generator can say where it put each thing. Deterministic: same bytes each run.

Command line (run from the repository root)::

    python -m tests.elementgen DIR
"""

from __future__ import annotations

import io
import sys
from dataclasses import dataclass, field
from pathlib import Path

from fpdf import FPDF
from PIL import Image, ImageDraw

from tests.pdfgen import FIXED_DATE, find_unicode_font

BBox = tuple[float, float, float, float]
PAGE_W, PAGE_H = 595.28, 841.89
LEFT, RIGHT = 56.0, 539.0
FONT = "UnicodeSans"
BODY = 11.0
PITCH = 14.0  # baseline to baseline of body text

TABLE_CELLS = [
    ["Engine", "Reads", "Writes"],
    ["alpha", "120", "45"],
    ["beta", "98", "60"],
    ["gamma", "143", "52"],
]
ALIGNED_CELLS = [
    ["Model", "Accuracy", "Latency"],
    ["small", "0.81", "12 ms"],
    ["medium", "0.88", "31 ms"],
    ["large", "0.93", "95 ms"],
]
UNCAPTIONED_CELLS = [["Key", "Value"], ["host", "alpha"], ["port", "8080"]]

INTRO = [
    "This report describes the storage engine and how it behaves under load. It is",
    "written for operators who need to size a cluster and for developers who change",
    "the engine. The sections that follow give measurements, tables and formulas.",
]
RUNNING = [
    "The measurements were repeated three times and the averaged values are given in",
    "Figure 7. They confirm the trend reported earlier for the cache, and see Table 9",
    "below for the raw numbers of every run that was part of this long evaluation.",
]
LISTING = "Table 9 lists the machines used for the experiment and their configuration."


@dataclass
class Expected:
    """Where the generator put things: label -> (page, bbox of the drawn object)."""

    regions: dict[str, tuple[int, BBox]] = field(default_factory=dict)


class _Doc:
    def __init__(self) -> None:
        pdf = FPDF(unit="pt", format="A4")
        pdf.set_creation_date(FIXED_DATE)
        pdf.set_creator("pdfindex tests/elementgen.py")
        pdf.set_auto_page_break(False)
        pdf.add_font(FONT, fname=str(find_unicode_font()))
        self.pdf = pdf
        self.expected = Expected()

    def page(self) -> None:
        self.pdf.add_page()
        self.size(BODY)

    def size(self, size: float) -> None:
        self.pdf.set_font(FONT, size=size)

    def lines(self, texts: list[str], top: float, x: float = LEFT, size: float = BODY) -> float:
        """Body lines from `top` (their top edge); returns the bottom of the last one."""
        self.size(size)
        y = top
        for text in texts:
            self.pdf.text(x, y + size, text)
            y += PITCH * size / BODY
        self.size(BODY)
        return y

    def record(self, label: str, box: BBox) -> None:
        self.expected.regions[label] = (self.pdf.page_no(), box)

    def bar_chart(self, x: float, top: float, width: float, height: float) -> BBox:
        """Axes and five filled bars, all vector strokes."""
        pdf = self.pdf
        pdf.set_line_width(1)
        pdf.line(x, top, x, top + height)
        pdf.line(x, top + height, x + width, top + height)
        pdf.set_fill_color(60, 110, 200)
        step = width / 6
        for i, share in enumerate((0.4, 0.7, 0.55, 0.9, 0.3)):
            bar = height * share
            pdf.rect(x + step * (i + 0.6), top + height - bar, step * 0.7, bar, style="F")
        return (x, top, x + width, top + height)

    def boxes_and_arrows(self, x: float, top: float) -> BBox:
        """Three framed boxes joined by lines: a small architecture drawing."""
        pdf = self.pdf
        pdf.set_line_width(1)
        for i in range(3):
            pdf.rect(x + i * 150, top, 100, 50)
            if i:
                pdf.line(x + i * 150 - 50, top + 25, x + i * 150, top + 25)
        return (x, top, x + 400, top + 50)

    def picture(self, x: float, top: float, width: float, height: float, seed: int) -> BBox:
        """An embedded PNG (bars drawn with PIL)."""
        image = Image.new("RGB", (200, 150), (255, 255, 255))
        draw = ImageDraw.Draw(image)
        for i in range(6):
            value = 20 + (seed * 37 + i * 53) % 110
            draw.rectangle((15 + i * 30, 140 - value, 35 + i * 30, 140), fill=(200, 80, 40))
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        self.pdf.image(buffer, x=x, y=top, w=width, h=height)
        return (x, top, x + width, top + height)

    def ruled_table(self, cells: list[list[str]], x: float, top: float) -> BBox:
        """Every cell framed (fpdf2 draws each cell's border)."""
        pdf = self.pdf
        pdf.set_line_width(0.8)
        width, height = 110.0, 20.0
        for r, row in enumerate(cells):
            for c, text in enumerate(row):
                pdf.set_xy(x + c * width, top + r * height)
                pdf.cell(width, height, text, border=1)
        return (x, top, x + width * len(cells[0]), top + height * len(cells))

    def aligned_table(self, cells: list[list[str]], x: float, top: float) -> BBox:
        """Booktabs style: text in columns, three horizontal rules, no vertical ones."""
        pdf = self.pdf
        pdf.set_line_width(0.6)
        width = 120.0
        right = x + width * len(cells[0])
        pdf.line(x, top, right, top)
        y = top + 4
        for r, row in enumerate(cells):
            for c, text in enumerate(row):
                pdf.text(x + c * width + 2, y + BODY, text)
            y += PITCH + 2
            if r == 0:
                pdf.line(x, y, right, y)
                y += 2
        pdf.line(x, y + 2, right, y + 2)
        return (x, top, right, y + 2)

    def output(self, path: Path) -> Path:
        path.write_bytes(bytes(self.pdf.output()))
        return path


def report_pdf(path: Path) -> Expected:
    """Seven pages:

    1. title and prose, no element (not a candidate page);
    2. a vector bar drawing captioned below "Figure 1: Throughput of ...";
    3. a ruled table captioned above "Table 2. Results ...", with running-text references
       ("see Table 9 below", a wrapped "Figure 7.", "Table 9 lists ...") that are not
       elements;
    4. the numbered equation "x = α + β (3)" and an aligned (booktabs) table "Table 3:";
    5. a large image, no caption (not a candidate page);
    6. an embedded PNG "Fig. 2-1: Bar chart ...", boxes and arrows "Figure 4: System
       architecture ...", and a German "Abbildung 5: ..." picture;
    7. a list of figures with dot leaders (a candidate page without elements).
    """
    doc = _Doc()
    doc.page()
    doc.size(20)
    doc.pdf.text(LEFT, 90, "Storage engine report")
    doc.lines(INTRO, 120)

    doc.page()
    doc.lines(INTRO, 70)
    doc.record("Figure 1", doc.bar_chart(150, 140, 300, 200))
    doc.lines(["Figure 1: Throughput of the storage engine under a growing number of"], 352, 110, 9)
    doc.lines(["concurrent clients, measured over ten minutes."], 364, 110, 9)
    doc.lines(RUNNING, 420)

    doc.page()
    doc.lines(INTRO, 70)
    doc.lines(["Table 2. Results of the read and write benchmark"], 130, LEFT, 10)
    doc.record("Table 2", doc.ruled_table(TABLE_CELLS, LEFT, 150))
    doc.lines(RUNNING, 260)
    doc.lines([LISTING], 320)

    doc.page()
    doc.lines(INTRO, 70)
    doc.size(BODY)
    doc.pdf.text(260, 150 + BODY, "x = α + β")
    doc.pdf.text(515, 150 + BODY, "(3)")
    number_end = 515 + doc.pdf.get_string_width("(3)")
    doc.record("Equation (3)", (260, 150 + 2, number_end, 150 + BODY + 2))
    doc.lines(["where α is the base cost and β the cost of one more client."], 180)
    doc.lines(["Table 3: Accuracy and latency of the three models"], 230, LEFT, 10)
    doc.record("Table 3", doc.aligned_table(ALIGNED_CELLS, LEFT, 250))
    doc.lines(INTRO, 360)

    doc.page()
    doc.lines(INTRO[:2], 60)
    doc.record("Figure p5-1", doc.picture(120, 150, 340, 300, seed=5))
    doc.lines(INTRO[2:], 480)

    doc.page()
    doc.record("Fig. 2-1", doc.picture(150, 60, 260, 160, seed=2))
    doc.lines(["Fig. 2-1: Bar chart of the monthly sales per region."], 232, 150, 9)
    doc.lines(["Figure 4: System architecture of the ingest pipeline"], 290, 150, 9)
    doc.record("Figure 4", doc.boxes_and_arrows(100, 320))
    doc.record("Abbildung 5", doc.picture(150, 430, 200, 140, seed=7))
    doc.lines(["Abbildung 5: Karte der Messstationen"], 582, 150, 9)
    doc.lines(INTRO, 640)

    doc.page()
    doc.size(16)
    doc.pdf.text(LEFT, 80, "List of Figures")
    entries = [
        "Figure 1: Throughput of the storage engine . . . . . . . . . . 2",
        "Fig. 2-1: Bar chart of the monthly sales . . . . . . . . . . . 6",
        "Figure 4: System architecture . . . . . . . . . . . . . . . . . 6",
    ]
    doc.lines(entries, 110)
    doc.output(path)
    return doc.expected


def uncaptioned_table_pdf(path: Path) -> Expected:
    """One page: prose, then a fully ruled 3x2 grid without a caption."""
    doc = _Doc()
    doc.page()
    doc.lines(INTRO, 70)
    doc.record("Table p1-1", doc.ruled_table(UNCAPTIONED_CELLS, LEFT, 140))
    doc.lines(INTRO, 240)
    doc.output(path)
    return doc.expected


LONG_ROWS = 90  # more than a table had before issue 28 (80 rows kept)
CODE_BLOCKS = 9  # of full_page_tables_pdf's second table: 4 lines of code, 1 of output


def full_page_tables(path: Path) -> tuple[Expected, dict[str, list[list[str]]]]:
    """Two tables that fill their page below a caption: 'Table 1', 90 aligned rows in a
    small font; 'Table 2', amsldoc's kind (its Table 3.1): code in the left column, most
    lines alone on their row, the output beside one line of each block between two short
    vertical rules. Returns where each was drawn and the rows of text each holds."""
    doc = _Doc()
    doc.page()
    doc.lines(["Table 1: Every run of the long evaluation, one row per run."], 40)
    size, pitch = 7.0, 8.5
    rows = [["Run", "Reads", "Writes"]] + [
        [f"run{n:02d}", str(100 + n), str(300 - n)] for n in range(1, LONG_ROWS)
    ]
    top = 60.0
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            doc.lines([text], top + r * pitch, x=LEFT + c * 90, size=size)
    doc.record("Table 1", (LEFT, top, LEFT + 180 + 30, top + len(rows) * pitch))
    doc.page()
    doc.lines(["Table 2: Environments for displayed equations and what they print."], 40)
    code_rows: list[list[str]] = []
    y, pdf = 70.0, doc.pdf
    pdf.set_line_width(0.4)
    for block in range(1, CODE_BLOCKS + 1):
        name = f"envir{'abcdefghi'[block - 1]}"
        code = [f"\\begin{{{name}}}", f"x_{block}=y_{block}+z", "+w-v\\\\", f"\\end{{{name}}}"]
        for n, text in enumerate(code):
            doc.lines([text], y, size=10)
            if n == 1:
                doc.lines([f"({block}) x{block} = y{block} + z"], y, x=LEFT + 260, size=10)
                pdf.line(LEFT + 250, y, LEFT + 250, y + 12)
                pdf.line(LEFT + 420, y, LEFT + 420, y + 12)
                code_rows.append([text, f"({block}) x{block} = y{block} + z"])
            else:
                code_rows.append([text, ""])
            y += 14
        y += 6
    doc.record("Table 2", (LEFT, 70.0, LEFT + 420, y - 6))
    doc.output(path)
    return doc.expected, {"Table 1": rows, "Table 2": code_rows}


def two_column_pdf(path: Path) -> Expected:
    """Two columns of prose, each with a picture captioned below it at the same height."""
    doc = _Doc()
    doc.page()
    column = [
        "Prose in a narrow column fills",
        "the page from the left margin",
        "to the middle, as it does in a",
        "conference paper of two columns.",
    ]
    for x in (LEFT, 310.0):
        doc.lines(column * 2, 60, x)
        doc.lines(column, 400, x)
    doc.record("Figure 1", doc.picture(LEFT, 190, 220, 150, seed=1))
    doc.lines(["Figure 1: Left column picture."], 350, LEFT, 9)
    doc.record("Figure 2", doc.picture(310, 190, 220, 150, seed=3))
    doc.lines(["Figure 2: Right column picture."], 350, 310, 9)
    doc.output(path)
    return doc.expected


IEEE_CELLS = [
    ["Method", "Top-1", "Params"],
    ["ResNet", "76.1", "25M"],
    ["ViT", "81.8", "86M"],
    ["Ours", "83.0", "40M"],
]
BELOW_CELLS = [["Site", "Depth", "Temp"], ["North", "12 m", "4.1"], ["South", "30 m", "3.2"]]


def styles_pdf(path: Path) -> Expected:
    """Caption styles of other publishers, two pages:

    1. IEEE: "TABLE I" alone, its title on the next line, a grid of thin filled rectangles
       (rules and column separators); then a booktabs table captioned below it
       ("Table 4: ...");
    2. Springer: a bold "Fig. 3" and the caption text in the regular face, below six
       separate circles (no cluster of strokes); then two stacked unruled tables.
    """
    doc = _Doc()
    pdf = doc.pdf
    pdf.add_font(FONT, "B", fname=str(find_unicode_font().with_name("DejaVuSans-Bold.ttf")))
    doc.page()
    doc.lines(INTRO, 60)
    doc.size(8)
    pdf.text(270, 140, "TABLE I")
    pdf.text(230, 152, "COMPARISON OF METHODS")
    x0, top, width, height = 150.0, 162.0, 100.0, 16.0
    pdf.set_fill_color(0, 0, 0)
    for r in range(len(IEEE_CELLS) + 1):
        pdf.rect(x0, top + r * height, 3 * width, 0.5, style="F")
    for c in range(4):
        pdf.rect(x0 + c * width, top, 0.5, len(IEEE_CELLS) * height, style="F")
    for r, row in enumerate(IEEE_CELLS):
        for c, text in enumerate(row):
            pdf.text(x0 + c * width + 5, top + r * height + 11, text)
    doc.record("TABLE I", (x0, top, x0 + 3 * width + 0.5, top + len(IEEE_CELLS) * height + 0.5))
    doc.lines(INTRO, 260)
    top = 330.0
    doc.size(10)
    pdf.rect(LEFT, top, 360, 0.6, style="F")
    for r, row in enumerate(BELOW_CELLS):
        for c, text in enumerate(row):
            pdf.text(LEFT + c * 120 + 2, top + 14 + r * 16, text)
    pdf.rect(LEFT, top + 54, 360, 0.6, style="F")
    doc.record("Table 4", (LEFT, top, LEFT + 360, top + 54.6))
    doc.lines(["Table 4: Water temperature at the two sites."], top + 62, LEFT, 9)
    doc.lines(INTRO, top + 90)

    doc.page()
    doc.lines(INTRO, 60)
    pdf.set_line_width(1)
    for i in range(6):
        pdf.circle(x=150 + i * 50, y=200, radius=18)
    doc.record("Fig. 3", (132, 182, 418, 218))
    pdf.set_font(FONT, "B", 9)
    pdf.text(120, 260, "Fig. 3")
    indent = pdf.get_string_width("Fig. 3 ")
    pdf.set_font(FONT, "", 9)
    pdf.text(120 + indent, 260, "The six stages of the pipeline, each drawn as a circle")
    doc.lines(INTRO, 300)
    for k, top in enumerate((400.0, 560.0)):
        doc.lines([f"Table {5 + k}: Stacked table number {k + 1}"], top, LEFT, 9)
        doc.size(10)
        for r in range(4):
            for c in range(3):
                pdf.text(LEFT + c * 100, top + 30 + r * 15, f"r{r}c{c}" if r else f"Head{c}")
        doc.record(f"Table {5 + k}", (LEFT, top + 22, LEFT + 230, top + 30 + 3 * 15 + 3))
    doc.lines(INTRO, 700)
    doc.output(path)
    return doc.expected


def main(argv: list[str]) -> int:
    folder = Path(argv[0] if argv else ".")
    folder.mkdir(parents=True, exist_ok=True)
    report_pdf(folder / "elements-report.pdf")
    uncaptioned_table_pdf(folder / "elements-grid.pdf")
    two_column_pdf(folder / "elements-columns.pdf")
    styles_pdf(folder / "elements-styles.pdf")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
