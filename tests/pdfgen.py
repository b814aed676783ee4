"""Deterministic generators of real PDF files for the pdfindex test suite.

Tests need genuine PDFs (text, hyphenated, encrypted, corrupt, image-only,
large) rather than mocks, so that extraction goes through the same libraries
as in production.  Every generator is deterministic: same arguments, same
bytes (except encrypted files, whose AES salts/IVs come from pypdf's RNG).

Command line (run from the repository root)::

    python -m tests.pdfgen samples DIR
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from fpdf import FPDF
from pypdf import PdfReader, PdfWriter

from benchmarks.pdfwriter import lorem_pages, render_scan

PathArg = str | os.PathLike[str]

# Fixed so that output bytes never depend on the wall clock.
FIXED_DATE: datetime = datetime(2024, 1, 1, 12, 0, 0, tzinfo=UTC)
PAGE_FORMAT: str = "A4"
PAGE_WIDTH_PT: float = 595.28
PAGE_HEIGHT_PT: float = 841.89
MARGIN_PT: float = 56.0
LINE_SPACING: float = 1.4
FONT_FAMILY: str = "UnicodeSans"
CREATOR: str = "pdfindex tests/pdfgen.py"

DEJAVU_DIR: Path = Path("/usr/share/fonts/truetype/dejavu")


def find_unicode_font() -> Path:
    """Return a TTF covering Latin-1, dashes and fi/fl ligatures.

    DejaVuSans is preferred; reportlab's bundled Vera.ttf is the fallback so the
    tests still run on machines without system fonts (Vera lacks some glyphs).
    """
    dejavu = DEJAVU_DIR / "DejaVuSans.ttf"
    if dejavu.is_file():
        return dejavu
    import reportlab

    vera = Path(reportlab.__file__).parent / "fonts" / "Vera.ttf"
    if vera.is_file():
        return vera
    raise FileNotFoundError("no Unicode TTF font found (DejaVuSans or Vera)")


# --------------------------------------------------------------------------
# Text PDFs
# --------------------------------------------------------------------------


def _new_pdf(title: str | None = None, author: str | None = None) -> FPDF:
    """Create an FPDF with fixed date/metadata so output is reproducible."""
    pdf = FPDF(unit="pt", format=PAGE_FORMAT)
    pdf.set_creation_date(FIXED_DATE)
    pdf.set_creator(CREATOR)
    pdf.set_auto_page_break(False)
    pdf.set_margins(MARGIN_PT, MARGIN_PT, MARGIN_PT)
    if title is not None:
        pdf.set_title(title)
    if author is not None:
        pdf.set_author(author)
    return pdf


def _wrap_line(line: str, max_width: float, widths: dict[str, float], pdf: FPDF) -> list[str]:
    """Greedy word wrap; a line that already fits is kept verbatim.

    Word widths are cached because fpdf2 measures per character, which would
    dominate the run time of the large-document generator.
    """
    line = line.rstrip()

    def width(s: str) -> float:
        w = widths.get(s)
        if w is None:
            w = widths[s] = pdf.get_string_width(s)
        return w

    if width(line) <= max_width:
        return [line]
    space = width(" ")
    out: list[str] = []
    current: list[str] = []
    current_w = 0.0
    for word in line.split():
        w = width(word)
        if w > max_width:
            raise ValueError(f"word too wide for the page: {word[:40]!r}")
        if current and current_w + space + w > max_width:
            out.append(" ".join(current))
            current, current_w = [word], w
        else:
            current_w = current_w + space + w if current else w
            current.append(word)
    if current:
        out.append(" ".join(current))
    return out


def _render_text_pdf(
    pages: Sequence[str], *, title: str | None, author: str | None, font_size: float
) -> bytes:
    """Lay out pages top-to-bottom, one text line per PDF text object."""
    if not pages:
        raise ValueError("pages must not be empty")
    pdf = _new_pdf(title, author)
    pdf.add_font(FONT_FAMILY, fname=str(find_unicode_font()))
    pdf.set_font(FONT_FAMILY, size=font_size)
    line_height = font_size * LINE_SPACING
    max_width = PAGE_WIDTH_PT - 2 * MARGIN_PT
    max_lines = int((PAGE_HEIGHT_PT - 2 * MARGIN_PT) // line_height)
    widths: dict[str, float] = {}
    for number, text in enumerate(pages, start=1):
        lines: list[str] = []
        for raw in text.split("\n"):
            lines.extend(_wrap_line(raw, max_width, widths, pdf))
        if len(lines) > max_lines:
            raise ValueError(f"page {number} needs {len(lines)} lines, only {max_lines} fit")
        pdf.add_page()
        y = MARGIN_PT + font_size
        for line in lines:
            if line:
                pdf.text(MARGIN_PT, y, line)
            y += line_height
    return bytes(pdf.output())


def _write_bytes(path: PathArg, data: bytes) -> Path:
    """Write data, creating parent folders (samples live in sub-folders)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return target


def write_pdf(
    path: PathArg,
    pages: list[str],
    *,
    title: str | None = None,
    author: str | None = None,
    font_size: float = 11,
) -> Path:
    """Write a text PDF, one page per entry; the baseline fixture for tests.

    "\\n" starts a new line; lines wider than the page wrap at spaces.
    Raises ValueError if a page does not fit vertically.
    """
    data = _render_text_pdf(pages, title=title, author=author, font_size=font_size)
    return _write_bytes(path, data)


def write_cjk_pdf(path: PathArg, pages: list[str]) -> Path:
    """Write Japanese or Chinese text, one page per entry ("\\n" starts a line), in
    reportlab's CID font HeiseiMin-W3: a standard Adobe font that PDF readers map to
    Unicode by its CMap, so no font file is needed (DejaVu Sans has no CJK glyphs)."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfgen import canvas

    pdfmetrics.registerFont(UnicodeCIDFont("HeiseiMin-W3"))
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer)
    for page in pages:
        pdf.setFont("HeiseiMin-W3", 11)
        for n, line in enumerate(page.split("\n")):
            pdf.drawString(56, 780 - 16 * n, line)
        pdf.showPage()
    pdf.save()
    return _write_bytes(path, buffer.getvalue())


def write_hyphenated_pdf(
    path: PathArg, words_before: str, hyphenated_word: str, split_at: int, words_after: str
) -> Path:
    """Write one page whose line ends in "word-" and continues on the next.

    Lets tests check that a search for the whole word finds it across the
    line break.
    """
    if not 0 < split_at < len(hyphenated_word):
        raise ValueError("split_at must fall strictly inside hyphenated_word")
    head = f"{words_before} {hyphenated_word[:split_at]}-".strip()
    tail = f"{hyphenated_word[split_at:]} {words_after}".rstrip()
    return write_pdf(path, [f"{head}\n{tail}"])


def write_encrypted_pdf(
    path: PathArg, pages: list[str], *, user_password: str, owner_password: str = "owner"
) -> Path:
    """Write an AES-128 encrypted text PDF to test password handling.

    With user_password="" the file opens without a password (only owner
    restrictions); otherwise readers must be given the password.
    """
    data = _render_text_pdf(pages, title=None, author=None, font_size=11)
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=user_password, owner_password=owner_password, algorithm="AES-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    return _write_bytes(path, buffer.getvalue())


def write_corrupt_pdf(path: PathArg) -> Path:
    """Write a valid 3-page PDF cut to its first 40% so readers must fail."""
    data = _render_text_pdf(lorem_pages(3, seed=11), title=None, author=None, font_size=11)
    return _write_bytes(path, data[: len(data) * 2 // 5])


# --------------------------------------------------------------------------
# Ligatures a font names in its own way (TeX's Type 1 fonts)
# --------------------------------------------------------------------------

# (resource name, base font, the encoding's Differences, ToUnicode's bfchar lines or "")
# of the fonts in a glyph-names PDF. Like LinLibertine's and LMRoman's TeX encodings:
# /f_i and kin at codes 27-30 (pdfium's glyph list does not know the names and hands back
# the bare code) and no ToUnicode. F1 and F2 share a base font but not an encoding, as TeX
# does when one font needs more than 256 glyphs; F3 puts /f_f where F1 has /f_i (T1's
# order: ff at 27); F4's ToUnicode maps the ligatures to nothing, as pdfTeX's
# glyphtounicode writes them for LinLibertine (`<1B> <>`).
LIGATURE_FONTS: tuple[tuple[str, str, str, str], ...] = (
    ("F1", "Times-Roman", "27 /f_i /f_f_i /f_f /f_l", ""),
    ("F2", "Times-Roman", "27 /f_f_l 136 /bullet", ""),
    ("F3", "Helvetica", "27 /f_f /f_i /f_l /f_f_i /f_f_l", ""),
    ("F4", "Courier", "27 /f_i /f_f_i /f_f", "<1B> <>\n<1C> <>\n<1D> <>\n<20> <0020>"),
)

_TO_UNICODE = (
    "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
    "/CMapName /TeX-glyphs def\n/CMapType 2 def\n1 begincodespacerange\n<00> <FF>\n"
    "endcodespacerange\n{count} beginbfchar\n{lines}\nendbfchar\nendcmap\n"
    "CMapName currentdict /CMap defineresource pop\nend\nend\n"
)


def _stream(data: bytes) -> bytes:
    return b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def write_glyph_names_pdf(path: PathArg, lines: Sequence[tuple[str, bytes]]) -> Path:
    """Write one page of lines, each (font resource name, the string's raw codes) of
    LIGATURE_FONTS: simple non-embedded fonts whose Differences name the ligatures, with
    no ToUnicode or an empty entry for them: what TeX's Type 1 fonts look like to a
    reader."""
    content = b"BT\n14 TL\n56 780 Td\n"
    for font, codes in lines:
        escaped = codes.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
        content += f"/{font} 11 Tf\n".encode() + b"(" + escaped + b") Tj T*\n"
    content += b"ET"
    first_font = 5
    fonts = " ".join(f"/{font[0]} {first_font + n} 0 R" for n, font in enumerate(LIGATURE_FONTS))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
        f"/Resources << /Font << {fonts} >> >> >>".encode(),
        _stream(content),
    ]
    maps: list[bytes] = []
    for _name, base, differences, to_unicode in LIGATURE_FONTS:
        entry = ""
        if to_unicode:
            maps.append(
                _stream(
                    _TO_UNICODE.format(count=to_unicode.count("\n") + 1, lines=to_unicode).encode()
                )
            )
            entry = f" /ToUnicode {first_font + len(LIGATURE_FONTS) + len(maps) - 1} 0 R"
        objects.append(
            f"<< /Type /Font /Subtype /Type1 /BaseFont /{base} /Encoding "
            f"<< /Type /Encoding /Differences [{differences}] >>{entry} >>".encode()
        )
    objects += maps
    return _write_bytes(path, _pdf_bytes(objects))


def write_differences_pdf(path: PathArg, differences: str, lines: Sequence[bytes]) -> Path:
    """Write one page of lines in Helvetica whose Differences rename codes
    (`65 /u1D538`), without ToUnicode: the glyph name alone says the character."""
    content = b"BT\n14 TL\n56 780 Td\n/F1 11 Tf\n"
    content += b"".join(b"(" + line + b") Tj T*\n" for line in lines) + b"ET"
    return _write_bytes(
        path,
        _pdf_bytes(
            [
                b"<< /Type /Catalog /Pages 2 0 R >>",
                b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
                b"/Resources << /Font << /F1 5 0 R >> >> >>",
                _stream(content),
                b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type "
                b"/Encoding /BaseEncoding /WinAnsiEncoding /Differences [%s] >> >>"
                % differences.encode(),
            ]
        ),
    )


def _pdf_bytes(objects: Sequence[bytes]) -> bytes:
    """A PDF of `objects` (numbered from 1; the first the catalog) with a correct xref."""
    data = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(data))
        data += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(data)
    data += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    data += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    data += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return data


# --------------------------------------------------------------------------
# Image-only ("scanned") PDFs
# --------------------------------------------------------------------------


def write_image_only_pdf(path: PathArg, text: str = "SCANNED INVOICE 4711", pages: int = 1) -> Path:
    """Write pages that hold only a raster image of text and no text layer.

    Every page shows the same text; text extraction must yield nothing. A small square
    in the bottom margin, at a place of its own on each page, makes no two pages render
    alike: OCR reads an image it has read before only once (ocr.recognise), and tests
    of slow scans need each page read.
    """
    if pages < 1:
        raise ValueError("pages must be at least 1")
    image = render_scan(text)
    pdf = _new_pdf()
    for number in range(pages):
        pdf.add_page()
        pdf.image(image, x=0, y=0, w=PAGE_WIDTH_PT, h=PAGE_HEIGHT_PT)
        pdf.set_fill_color(0)
        column, row = number % 40, number // 40
        pdf.rect(20 + column * 12, PAGE_HEIGHT_PT - 30 + (row % 20), 4, 4, style="F")
    return _write_bytes(path, bytes(pdf.output()))


# --------------------------------------------------------------------------
# Large pseudo-random documents
# --------------------------------------------------------------------------

# The filler text is the benchmarks' (benchmarks/pdfwriter.py): "page", "marker",
# "transformer" and "architecture" are not in its vocabulary, so tests can search for them
# without hits from the filler.


def write_large_pdf(path: PathArg, n_pages: int = 320, *, seed: int = 7) -> Path:
    """Write a many-page document for indexing-throughput and paging tests."""
    return write_pdf(
        path,
        lorem_pages(n_pages, seed=seed),
        title=f"Large test document ({n_pages} pages)",
        author="pdfindex test suite",
    )


# --------------------------------------------------------------------------
# Shipped sample documents (all text original, written for pdfindex)
# --------------------------------------------------------------------------

GETTING_STARTED: list[str] = [
    """Getting started with pdfindex

A PDF index is a small database that remembers which words appear in which \
PDF files, and on which page. Instead of opening every document and scrolling, \
you type a few words and get a ranked list of matching pages within moments.

pdfindex reads the text layer of each PDF, splits it into words, and stores \
them together with the file path and the page number. When a file changes, \
only that file is read again, so keeping the index fresh is cheap.

Try it now: search for the phrase "transformer architecture" and you will find \
the notes in the research folder as well as this page.""",
    """How searching works

Every query is matched against the words stored in the index. Results are \
ordered so that pages containing all of your words, close together, come first. \
Quoted phrases must appear exactly in that order.

Line breaks inside a document do not matter. A word that was split at the end \
of a line, such as the example about the transformer architec-
ture of modern language models, is still found when you search for the whole \
word. Accents are kept, so Zürich and café are matched as written.""",
    """Tips and next steps

Add folders rather than single files, so new documents are picked up \
automatically. Scanned documents without a text layer are listed as having \
no text; they can be handled later by optical character recognition.

Encrypted PDFs are skipped unless you provide the password. Damaged files are \
reported with a short reason instead of stopping the whole run.

That is all you need to know to begin. Happy searching!""",
]

ATTENTION_NOTES: list[str] = [
    """Notes on the transformer architecture

The transformer architecture processes a whole sequence at once instead of one \
token after another. Each layer has two parts: a self-attention block and a \
small feed-forward network, both wrapped with residual connections and \
layer normalisation.

Because nothing in the model is recurrent, the order of tokens must be added \
explicitly through positional encodings, either fixed sine waves or learned \
vectors.""",
    """Attention

Attention lets every token look at every other token and decide how much each \
one matters. Each token is projected into a query, a key and a value. The \
score between two tokens is the dot product of a query and a key, scaled by the \
square root of the key dimension and passed through a softmax.

Multi-head attention runs several of these in parallel with different \
projections, so one head can follow syntax while another tracks long-range \
references. The cost grows with the square of the sequence length.""",
    """Embeddings

Tokens enter the model as embeddings: dense vectors learned during training, \
where similar words end up close together. The same idea powers semantic \
search, where documents and queries are compared by the cosine similarity of \
their embedding vectors rather than by exact keywords.

Unicode test line: Zürich café naïve — ﬁnancial ﬂow
Keyword search and embedding search complement each other: one is precise, \
the other forgiving.""",
]

RECIPES: list[str] = [
    """Weekend pancakes

Whisk two eggs with a cup of milk and a spoon of melted butter. Stir in a cup \
of flour, a pinch of salt and a teaspoon of baking powder until just smooth; a \
few lumps are fine. Let the batter rest for ten minutes.

Heat a pan over medium heat, wipe it with a little butter and pour in a small \
ladle of batter. Flip when bubbles appear on the surface, then cook one more \
minute. Serve with lemon and sugar, or with fresh berries.""",
    """Simple tomato soup

Soften a chopped onion and two cloves of garlic in olive oil. Add a tin of \
tomatoes, a cup of vegetable stock and a sprig of thyme, then simmer for twenty \
minutes. Blend until smooth and season with salt, pepper and a little sugar if \
the tomatoes are sharp.

A spoon of cream on top and a slice of toasted bread make it a quick supper. \
The soup keeps for three days in the fridge and freezes well.""",
]

SAMPLES: tuple[tuple[str, list[str], str], ...] = (
    ("getting-started.pdf", GETTING_STARTED, "Getting started with pdfindex"),
    ("research/attention-notes.pdf", ATTENTION_NOTES, "Notes on the transformer architecture"),
    ("recipes.pdf", RECIPES, "Two everyday recipes"),
)
SAMPLE_AUTHOR: str = "pdfindex sample documents"


def write_sample_files(folder: PathArg) -> list[Path]:
    """Write the small shipped sample PDFs so a first search shows results."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    return [
        write_pdf(root / name, pages, title=title, author=SAMPLE_AUTHOR)
        for name, pages, title in SAMPLES
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``python -m tests.pdfgen samples DIR``."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.pdfgen", description="Write pdfindex test PDFs."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    samples = commands.add_parser("samples", help="write the sample PDFs")
    samples.add_argument("folder", type=Path)
    args = parser.parse_args(argv)
    if args.command == "samples":
        from tests.elementgen import report_pdf  # it imports this module

        written = write_sample_files(args.folder)
        report_pdf(args.folder / "storage-report.pdf")  # figures, tables, an equation
        written.append(args.folder / "storage-report.pdf")
        memo = "MEMO: the scanned page of this sample is read by OCR at index time."
        written.append(write_image_only_pdf(args.folder / "scanned-memo.pdf", memo))
        for path in written:
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
