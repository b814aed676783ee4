"""Hostile PDFs, written directly as PDF bytes (fast, deterministic, no extra library):
a decompression bomb, huge pages, a page of 200,000 text objects and a 10,000-page file.

Each is a valid PDF that a reader opens; what makes it hostile is what reading it costs.
Command line (from the repository root)::

    python -m tests.hostile DIR
"""

from __future__ import annotations

import sys
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path

FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
RESOURCES = b"<< /Font << /F1 3 0 R >> >>"
CHUNK = 1 << 20  # bytes deflated at a time, so a bomb never sits whole in memory here


def pdf_bytes(objects: Sequence[bytes]) -> bytes:
    """A PDF of `objects` (object 1 is the catalog), with a correct cross-reference table."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    start = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        start,
    )
    return bytes(out)


def stream(data: bytes, deflated: bool = False, length: int | None = None) -> bytes:
    """A stream object's body; `data` is already deflated when `deflated` is set."""
    extra = b" /Filter /FlateDecode" if deflated else b""
    size = len(data) if length is None else length
    return b"<< /Length %d%s >>\nstream\n" % (size, extra) + data + b"\nendstream"


def pages_pdf(contents: bytes, count: int = 1, side: float = 792.0) -> bytes:
    """`count` pages of `side` points square that all share one content stream (object 4):
    a 10,000-page file costs one stream, and each page object is a few dozen bytes."""
    first_page = 5
    kids = b" ".join(b"%d 0 R" % (first_page + i) for i in range(count))
    box = f"{side:.2f}".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Count %d /Kids [%s] /MediaBox [0 0 %s %s] /Resources %s >>"
        % (count, kids, box, box, RESOURCES),
        FONT,
        contents,
    ]
    objects += [b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>"] * count
    return pdf_bytes(objects)


def text_ops(lines: Sequence[str], size: float = 11, top: float = 760) -> bytes:
    """Content-stream operators that show each line, one text object per line."""
    ops = []
    for n, line in enumerate(lines):
        escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        ops.append(f"BT /F1 {size:g} Tf 40 {top - n * size * 1.4:.1f} Td ({escaped}) Tj ET")
    return "\n".join(ops).encode("latin-1")


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def bomb(path: Path, inflated_mb: int = 512) -> Path:
    """One page whose content stream is a few hundred kB deflated and `inflated_mb` MB
    inflated (a line of text, then spaces, which a content stream may hold any number of)."""
    packer = zlib.compressobj(9)
    parts = [packer.compress(text_ops(["decompression bomb"]) + b"\n")]
    blank = b" " * CHUNK
    parts += [packer.compress(blank) for _ in range(inflated_mb)]
    parts.append(packer.flush())
    return write(path, pages_pdf(stream(b"".join(parts), deflated=True)))


def huge_page(path: Path, side: float = 14_400.0) -> Path:
    """One page `side` points square (14,400 is the PDF limit; readers take more)."""
    contents = stream(text_ops([f"huge page of {side:g} points"]))
    return write(path, pages_pdf(contents, side=side))


def many_objects(path: Path, count: int = 200_000) -> Path:
    """One page holding `count` text objects of one short word each (150 a row, 1 pt
    type: words apart, so the text is words and spaces), deflated."""
    ops = [
        b"BT /F1 1 Tf %d %.1f Td (w%d) Tj ET" % (20 + (n % 150) * 5, 740 - (n // 150) * 0.5, n % 10)
        for n in range(count)
    ]
    data = zlib.compress(text_ops(["many text objects"]) + b"\n" + b"\n".join(ops), 9)
    return write(path, pages_pdf(stream(data, deflated=True)))


def many_pages(path: Path, count: int = 10_000) -> Path:
    """`count` pages sharing one content stream of one line of text."""
    contents = stream(text_ops([f"one of {count} identical pages"]))
    return write(path, pages_pdf(contents, count=count))


# name -> writer: the set the reliability suite drops into a running server
HOSTILE: dict[str, Callable[[Path], Path]] = {
    "bomb.pdf": bomb,
    "huge-14400.pdf": huge_page,
    "huge-1e6.pdf": lambda p: huge_page(p, side=1_000_000.0),
    "many-objects.pdf": many_objects,
    "many-pages.pdf": many_pages,
}


def write_all(folder: Path) -> list[Path]:
    return [writer(folder / name) for name, writer in HOSTILE.items()]


if __name__ == "__main__":
    for written in write_all(Path(sys.argv[1])):
        print(written, written.stat().st_size)
