"""OCR with RapidOCR (PaddleOCR's models run by onnxruntime), for machines without Tesseract.

`pip install` brings it with its models (the `rapidocr-onnxruntime` wheel ships them; the
3.x `rapidocr` downloads them at run time). The bundled models read Chinese and English.
onnxruntime and OpenCV are loaded only in the extraction worker that reads a page: they
cost ~0.6 s and ~100 MB, which the server and the CLI should not pay for a status line.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from importlib import metadata
from typing import Any

DISTRIBUTION = "rapidocr-onnxruntime"
LANGUAGES = ("eng", "chi_sim")  # Tesseract's codes for what the bundled models read
LINE_GAP = 0.8  # a gap above a line taller than this share of a line's height: new paragraph
# The longest side a page image is shrunk to before it is read (RapidOCR's own: 2,000). On
# the corpus's 63 scanned pages, a worker peaked at 639 MB instead of 1,215, read them in
# 137 s instead of 168, and agreed with Tesseract as well (word F1 0.75 against 0.70);
# at 1,100 and 960 px it held ~530 MB: detection's least, and 960 read worse (0.68).
MAX_SIDE = 1280


def version() -> str:
    """`rapidocr-onnxruntime 1.4.4`; raises LookupError with the reason when it cannot load."""
    try:
        found = metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise LookupError(f"{DISTRIBUTION} is not installed (pip install {DISTRIBUTION})") from None
    # Loaded in a child process: the import alone tells whether onnxruntime and OpenCV's
    # shared libraries load here (opencv-python needs libGL.so.1).
    done = subprocess.run(
        [sys.executable, "-c", "import rapidocr_onnxruntime"],
        capture_output=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise LookupError(f"{DISTRIBUTION} {found} does not load: {lines[-1] if lines else ''}")
    return f"{DISTRIBUTION} {found}"


@functools.cache
def _reader() -> Any:
    """The models, loaded once per worker, each on one thread (the pool uses every core).
    Lines one at a time (`rec_batch_num=1`: a batch pads every line to its longest, which
    doubled the CPU time of a page); no upside-down line check (`use_cls`: it turned some
    upright lines over, and pages are rendered upright). A page is read at MAX_SIDE."""
    import cv2
    from rapidocr_onnxruntime import RapidOCR

    cv2.setNumThreads(1)
    return RapidOCR(
        intra_op_num_threads=1,
        inter_op_num_threads=1,
        use_cls=False,
        rec_batch_num=1,
        max_side_len=MAX_SIDE,
    )


def recognise(png: bytes) -> tuple[str, float]:
    """Text of one page image and the mean line score (0-100)."""
    found, _elapsed = _reader()(png)
    boxes = [(item[0], str(item[1]), float(item[2])) for item in found or []]
    if not boxes:
        return "", 0.0
    mean = sum(score for _, _, score in boxes) / len(boxes)
    return join_lines(boxes), round(mean * 100, 1)


Box = tuple[list[list[float]], str, float]  # four corners (clockwise from top left), text, score


def join_lines(boxes: list[Box]) -> str:
    """Text boxes back into printed lines (left to right, one space apart) and paragraphs
    (a blank line where the gap above a line is large)."""
    spans = sorted(
        (min(p[1] for p in corners), max(p[1] for p in corners), min(p[0] for p in corners), text)
        for corners, text, _ in boxes
    )
    lines: list[list[tuple[float, float, float, str]]] = []
    for span in spans:
        top, bottom = span[0], span[1]
        if lines:
            line_top = min(s[0] for s in lines[-1])
            line_bottom = max(s[1] for s in lines[-1])
            if line_top <= (top + bottom) / 2 <= line_bottom:  # its middle is on that line
                lines[-1].append(span)
                continue
        lines.append([span])
    parts: list[str] = []
    previous_bottom: float | None = None
    for line in lines:
        top, bottom = min(s[0] for s in line), max(s[1] for s in line)
        if previous_bottom is not None and top - previous_bottom > LINE_GAP * (bottom - top):
            parts.append("")
        parts.append(" ".join(s[3] for s in sorted(line, key=lambda s: s[2])))
        previous_bottom = bottom
    return "\n".join(parts)
