"""OCR throughput and word accuracy on generated scans of known text.

python -m benchmarks.ocr_rate [--pages 40] [--files 4]

Writes image-only PDFs (200 dpi renderings of pseudo-random prose, no text layer),
indexes them with the real pool and Tesseract, and reports pages/s and how many of the
printed words OCR gave back.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from pathlib import Path

from benchmarks.pdfwriter import lorem_pages, write_scan_pdf
from pdfindex.api import PdfIndex
from pdfindex.config import load_settings
from pdfindex.extract import ocr

PAGE_CHARS = 250  # large print (36 pt): about what fits on one scanned page


def write_scans(folder: Path, pages: int, files: int) -> dict[str, list[str]]:
    """`files` PDFs sharing `pages` scanned pages; returns the printed text per file."""
    folder.mkdir(parents=True, exist_ok=True)
    texts = lorem_pages(pages, seed=11, chars_per_page=PAGE_CHARS)
    printed: dict[str, list[str]] = {}
    per_file = -(-pages // files)
    for n in range(files):
        chunk = texts[n * per_file : (n + 1) * per_file]
        name = f"scan-{n:02d}.pdf"
        write_scan_pdf(folder / name, chunk)
        printed[name] = chunk
    return printed


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ocr_rate")
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--files", type=int, default=4)
    args = parser.parse_args(argv)
    if not ocr.engine().available:
        print(f"OCR unavailable: {ocr.engine().reason}")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        printed = write_scans(root / "files", args.pages, args.files)
        index = PdfIndex(load_settings({"elements": False}, root=root))
        try:
            started = time.monotonic()
            summary = index.reindex()
            seconds = time.monotonic() - started
            found = total = 0
            for name, pages in printed.items():
                _, stored = index.page_texts(name)
                for want, (_, got) in zip(pages, stored, strict=True):
                    expected, seen = words(want), set(words(got))
                    total += len(expected)
                    found += sum(1 for w in expected if w in seen)
            confidence = [index.find_record(n).ocr_confidence for n in printed]
        finally:
            index.close()
    result = {
        "pages": summary.pages,
        "files": len(printed),
        "seconds": round(seconds, 2),
        "pages_per_s": round(summary.pages / seconds, 2),
        "word_recall": round(found / total, 4),
        "mean_confidence": confidence,
        "tesseract": ocr.engine().version,
        "workers": load_settings(root=Path(tmp)).worker_count,
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
