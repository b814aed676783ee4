"""Small deterministic PDF writer for the benchmarks (fpdf2 and DejaVu Sans).

The benchmarks write their own PDFs instead of borrowing the test suite's private
generators, so tests and benchmarks can change independently. Same arguments, same bytes.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from itertools import accumulate
from pathlib import Path

from fpdf import FPDF
from PIL import Image, ImageDraw, ImageFont

FIXED_DATE = datetime(2024, 1, 1, 12, 0, 0, tzinfo=UTC)  # bytes never depend on the clock
PAGE_W, PAGE_H, MARGIN = 595.28, 841.89, 56.0  # A4 in points, one-inch-ish margin
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
CREATOR = "pdfindex benchmarks"
SCAN_DPI = 200

# About 300 common English words, most frequent first: the head of every Zipf vocabulary
# here. Changing it changes the synthetic corpus (and its figures).
VOCABULARY: tuple[str, ...] = tuple(
    """
the of and to a in is that it for was on are as with his they be at one have
this from or had by not word but what some we can out other were all there when
up use your how said an each she which do their time if will way about many then
them write would like so these her long make thing see him two has look more day
could go come did number sound no most people my over know water than call first
who may down side been now find any new work part take get place made live where
after back little only round man year came show every good me give our under
name very through just form sentence great think say help low line differ turn
cause much mean before move right boy old too same tell does set three want air
well also play small end put home read hand port large spell add even land here
must big high such follow act why ask men change went light kind off need house
picture try us again animal point mother world near build self earth father head
stand own should country found answer school grow study still learn plant cover
food sun four between state keep eye never last let thought city tree cross farm
hard start might story saw far sea draw left late run while press close night
real life few north open seem together next white children begin got walk
example ease paper group always music those both mark often letter until mile
river car feet care second book carry took science eat room friend began idea
fish mountain stop once base hear horse cut sure watch color face wood main
enough plain girl usual young ready above ever red list though feel talk bird
""".split()
)
_CUM_WEIGHTS = list(accumulate(1.0 / rank for rank in range(1, len(VOCABULARY) + 1)))


def unicode_font() -> Path:
    """DejaVu Sans: covers accents, Greek and dashes (the synthetic text uses all three)."""
    if not FONT.is_file():
        raise FileNotFoundError(f"{FONT} not found (apt-get install fonts-dejavu-core)")
    return FONT


def new_pdf(title: str | None = None, creator: str = CREATOR) -> FPDF:
    """An A4 document in points with fixed metadata, so its bytes are reproducible."""
    pdf = FPDF(unit="pt", format="A4")
    pdf.set_creation_date(FIXED_DATE)
    pdf.set_creator(creator)
    pdf.set_auto_page_break(False)
    pdf.set_margins(MARGIN, MARGIN, MARGIN)
    if title is not None:
        pdf.set_title(title)
    return pdf


def write_pdf(path: Path, pages: list[str], font_size: float = 11) -> Path:
    """A text PDF, one page per entry and one line per "\\n"; lines must fit the page
    (benchmarks write short marker texts, so there is no wrapping)."""
    pdf = new_pdf()
    pdf.add_font("Sans", fname=str(unicode_font()))
    pdf.set_font("Sans", size=font_size)
    for text in pages:
        pdf.add_page()
        y = MARGIN + font_size
        for line in text.split("\n"):
            if pdf.get_string_width(line) > PAGE_W - 2 * MARGIN:
                raise ValueError(f"line too wide for the page: {line[:40]!r}")
            if line:
                pdf.text(MARGIN, y, line)
            y += font_size * 1.4
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(pdf.output()))
    return path


def _sentence(rng: random.Random) -> str:
    count = rng.randint(5, 16)
    words = rng.choices(VOCABULARY, cum_weights=_CUM_WEIGHTS, k=count)
    if count > 8 and rng.random() < 0.4:
        words[rng.randint(2, count - 3)] += ","
    words[0] = words[0].capitalize()
    return " ".join(words) + ("?" if rng.random() < 0.08 else ".")


def lorem_pages(n_pages: int, seed: int = 7, chars_per_page: int = 1800) -> list[str]:
    """English-like page texts (Zipf over VOCABULARY), each starting "Page marker P0001";
    text without a PDF, for measures that need known words (writer rate, OCR recall)."""
    rng = random.Random(seed)
    pages: list[str] = []
    for number in range(1, n_pages + 1):
        parts = [f"Page marker P{number:04d}"]
        length = len(parts[0])
        paragraph: list[str] = []
        while length < chars_per_page:
            sentence = _sentence(rng)
            paragraph.append(sentence)
            length += len(sentence) + 1
            if len(paragraph) >= rng.randint(4, 7):
                parts.append(" ".join(paragraph))
                paragraph = []
        if paragraph:
            parts.append(" ".join(paragraph))
        pages.append("\n".join(parts))
    return pages


def render_scan(text: str, dpi: int = SCAN_DPI) -> Image.Image:
    """One page of large black-on-white text as an image, like a clean scan (for OCR)."""
    width, height = round(PAGE_W / 72 * dpi), round(PAGE_H / 72 * dpi)
    margin = dpi  # one inch
    font = ImageFont.truetype(str(unicode_font()), size=dpi // 2)
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    lines: list[str] = []
    for raw in text.split("\n"):
        current = ""
        for word in raw.split():
            candidate = f"{current} {word}".strip()
            if current and draw.textlength(candidate, font=font) > width - 2 * margin:
                lines.append(current)
                current = word
            else:
                current = candidate
        lines.append(current)
    y = margin
    for line in lines:
        draw.text((margin, y), line, fill=0, font=font)
        y += round(font.size * 1.5)
    return image.point(lambda v: 0 if v < 128 else 255)  # pure black and white: crisp edges


def write_scan_pdf(path: Path, pages: list[str]) -> Path:
    """An image-only PDF (no text layer): one rendered scan per page text."""
    pdf = new_pdf()
    for text in pages:
        pdf.add_page()
        pdf.image(render_scan(text), x=0, y=0, w=pdf.w)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(pdf.output()))
    return path
