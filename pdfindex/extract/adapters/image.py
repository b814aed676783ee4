"""Images (PNG, JPEG, TIFF) with Pillow: a frame is a page (a PNG or JPEG has one, a TIFF
one per frame), read by the OCR that reads scanned PDF pages (the worker's `ocr_pages`,
with its language, engine and time limit). `extract` only counts the frames: every page
starts empty, and without OCR the file is `empty`, its frames listed as not read.
"""

from __future__ import annotations

from importlib import metadata as distributions
from pathlib import Path

import PIL
from PIL import Image, ImageSequence

from pdfindex.extract.adapters.base import Extraction, finish
from pdfindex.extract.adapters.containers import check_size

MAX_BYTES = 200 * 1024 * 1024
MAX_FRAMES = 2_000  # a TIFF with more frames is read up to here, and says so
MAX_PIXELS = 40_000_000  # a larger frame is scaled down to this for OCR (A4 at 300 dpi: 8.7 MP)
# Pillow refuses images over 2 x MAX_IMAGE_PIXELS (89 MP) as decompression bombs.


class ImageAdapter:
    name = "image"
    description = "Images (.png, .jpg, .jpeg, .tif, .tiff), read by OCR; a page is a frame"
    extensions: tuple[str, ...] = (".png", ".jpg", ".jpeg", ".tif", ".tiff")

    @property
    def version(self) -> str:
        return f"pillow-{PIL.__version__}"

    @property
    def binary(self) -> str:
        return f"Pillow {distributions.version('pillow')}, then OCR (Tesseract or RapidOCR)"

    def extract(self, path: Path) -> Extraction:
        check_size(path, MAX_BYTES)
        with Image.open(path) as image:
            image.load()  # a truncated or corrupt file fails here, not later in OCR
            count = getattr(image, "n_frames", 1)
        frames = min(count, MAX_FRAMES)
        extraction = finish([""] * frames, {}, self.version, unit="frame")
        if count > MAX_FRAMES:
            extraction.notes.append(f"image: only the first {MAX_FRAMES:,} frames are read")
        return extraction


def render_frame(path: Path, number: int) -> Image.Image:
    """Frame `number` (1-based) for OCR: RGB or grey, at most MAX_PIXELS."""
    with Image.open(path) as image:
        frame = next(f for i, f in enumerate(ImageSequence.Iterator(image), 1) if i == number)
        frame = frame.convert("L" if frame.mode in ("1", "L", "I;16", "I", "F") else "RGB")
        pixels = frame.width * frame.height
        if pixels > MAX_PIXELS:
            scale = (MAX_PIXELS / pixels) ** 0.5
            frame = frame.resize((int(frame.width * scale), int(frame.height * scale)))
        return frame
