"""Extraction rate and peak memory of each format's adapter on a generated mixed folder,
against markitdown (one library for every format) where it is installed, and the PDF
adapter (pypdfium2) on PDFs of the same text as the baseline.

python -m benchmarks.formats [--files 24] [--pages 6] [--images 4] [--out FILE.md]

Writes `--files` documents of each format (tests/formatgen.py: python-docx, python-pptx,
openpyxl, odfpy, pandoc, Pillow) holding `--pages` pages of filler prose each, then for
each format and reader runs one fresh process that extracts every file of that format
and reports pages (the adapter's own unit: part, slide, sheet, frame), seconds and the
process's peak RSS (ru_maxrss: it includes the interpreter and the libraries). Images
go through the worker with OCR (Tesseract when installed), as the indexer reads them.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.pdfwriter import lorem_pages
from tests import formatgen, pdfgen

# markitdown reads these of ours (0.1.x: no ODT, ODS or RTF; images only by an LLM).
MARKITDOWN = ("docx", "pptx", "xlsx", "epub", "html")


def generate(folder: Path, files: int, pages: int, images: int) -> None:
    """`files` documents of each text format and of PDF, `images` of each image format."""
    for fmt in formatgen.FORMATS:
        sub = folder / fmt
        sub.mkdir(parents=True)
        count = images if fmt in ("png", "jpg", "tiff") else files
        for n in range(count):
            formatgen.write_sample(sub, fmt, name=f"doc{n:03d}", filler_pages=pages, seed=n)
    sub = folder / "pdf"
    sub.mkdir()
    for n in range(files):
        pdfgen.write_pdf(
            sub / f"doc{n:03d}.pdf", lorem_pages(pages + 1, seed=n, chars_per_page=1500)
        )


def run_one(reader: str, folder: Path) -> dict[str, object]:
    """In this (fresh) process: extract every file of `folder` with `reader`."""
    paths = sorted(p for p in folder.iterdir() if p.is_file())
    started = time.perf_counter()  # libraries loaded before the clock starts: setup apart
    if reader == "markitdown":
        from markitdown import MarkItDown

        converter = MarkItDown()
    else:
        from pdfindex.extract.adapters import _BY_NAME, get_adapter
        from pdfindex.extract.worker import ExtractOptions, extract_file

        for name in _BY_NAME:
            get_adapter(name)
    setup = time.perf_counter() - started
    began = time.perf_counter()
    pages = chars = failed = 0
    if reader == "markitdown":
        for path in paths:
            text = converter.convert(str(path)).text_content
            chars += len(text)
    else:
        options = ExtractOptions(ocr=True, timeout=600)
        for path in paths:
            found = extract_file(path, "pdfium", options)
            failed += found.status not in ("ok", "empty")
            pages += len(found.pages)
            chars += sum(len(t) for t in found.pages)
    seconds = time.perf_counter() - began
    peak_mb = peak_rss_mb()
    return {
        "files": len(paths),
        "pages": pages,
        "chars": chars,
        "failed": failed,
        "seconds": round(seconds, 3),
        "setup_s": round(setup, 2),
        "peak_mb": round(peak_mb, 1),
    }


def peak_rss_mb() -> float:
    """This process's peak RSS (VmHWM: unlike ru_maxrss, not inherited across exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(reader: str, folder: Path) -> dict[str, object] | None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.formats", "--one", reader, str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        print(
            f"{reader} on {folder.name}: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr
        )
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def table(rows: list[dict[str, object]]) -> str:
    lines = [
        "| format | reader | files | pages | pages/s | files/s | MB text/s | setup s "
        "| peak RSS MB |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        seconds = max(float(r["seconds"]), 1e-9)  # type: ignore[arg-type]
        pages = f"{r['pages']} ({r['unit']})" if r["pages"] else "–"
        rate = f"{int(r['pages']) / seconds:,.0f}" if r["pages"] else "–"  # type: ignore[call-overload]
        lines.append(
            f"| {r['format']} | {r['reader']} | {r['files']} | {pages} | {rate} | "
            f"{int(r['files']) / seconds:,.1f} | "  # type: ignore[call-overload]
            f"{int(r['chars']) / seconds / 1e6:,.2f} | {r['setup_s']} | {r['peak_mb']} |"  # type: ignore[call-overload]
        )
    return "\n".join(lines)


UNITS = {"pdf": "page", "pptx": "slide", "xlsx": "sheet", "ods": "sheet"}
UNITS |= {f: "frame" for f in ("png", "jpg", "tiff")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=24, help="documents of each format")
    parser.add_argument("--pages", type=int, default=6, help="pages of prose in each")
    parser.add_argument("--images", type=int, default=4, help="images of each image format")
    parser.add_argument("--out", type=Path, help="write the Markdown table here too")
    parser.add_argument("--one", nargs=2, metavar=("READER", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(args.one[0], Path(args.one[1]))))
        return 0
    try:
        import markitdown  # noqa: F401

        readers = ["pdfindex", "markitdown"]
    except ImportError:
        readers = ["pdfindex"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        began = time.perf_counter()
        generate(folder, args.files, args.pages, args.images)
        print(f"generated in {time.perf_counter() - began:.0f} s", file=sys.stderr)
        for fmt in ("pdf", *formatgen.FORMATS):
            for reader in readers:
                if reader == "markitdown" and fmt not in MARKITDOWN:
                    continue
                result = measure(reader, folder / fmt)
                if result is not None:
                    unit = UNITS.get(fmt, "part")
                    rows.append({"format": fmt, "reader": reader, "unit": unit, **result})
                    print(table(rows[-1:]).splitlines()[-1], file=sys.stderr)
    report = (
        f"Generated folder: {args.files} documents of each format with {args.pages} pages of "
        f"prose each ({args.images} of each image format, OCR'd); one fresh process per "
        "format and reader, its libraries loaded first (setup s), then timed over every file "
        "(pages/s in each format's own unit; markitdown has none: compare files/s and MB of "
        "text a second); peak RSS is the whole process's (VmHWM). "
        f"Python {platform.python_version()}, {platform.machine()}.\n\n" + table(rows) + "\n"
    )
    print(report)
    if args.out:
        args.out.write_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
