"""OCR of page images: Tesseract when it is installed, else RapidOCR (installed by pip).

Tesseract runs as its command-line program, not a Python binding: nothing to compile, and
a page that makes it hang or crash only costs a child process. One run per page gives text
and word confidences at once (TSV output). RapidOCR (pdfindex.extract.rapidocr) needs no
system package, reads only Chinese and English, and is slower.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import shutil
import subprocess
import tempfile
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from pdfindex.extract import rapidocr

MIN_TEXT_CHARS = 20  # a page with fewer non-space characters has no real text layer
OCR_DPI = 300
# The most pixels a page is read at: an A3 page at 300 dpi (17 MP); a poster is read at
# less than 300 dpi. With the page-image budget (40 MP) a 48k build had Tesseract at
# 475 MB and an extraction worker at 357 MB (which pages did it is not known); both grow
# with the pixels of the page read.
OCR_MAX_PIXELS = 18_000_000
# A page image only goes to the OCR program, so it is rendered grey (Tesseract binarises
# it anyway) and handed over without compression, as a TIFF file: PNG's default level took
# more time than Tesseract itself (the 81 image pages of the 48k corpus: 38 s of PNG,
# 35 s of Tesseract; grey PNG at level 1 on stdin: 5 s and 23 s). Tesseract reads its
# standard input a byte at a time and Leptonica a PGM a pixel at a time: 41 of those
# pages as grey PNG on stdin cost 2.4 + 10.3 s of CPU, as a TIFF file 0.2 + 9.4 s, the
# same TSV.
RAPIDOCR_PNG_LEVEL = 1


class PageImage(Protocol):
    """A rendered page or image frame: a Pillow image, named by what OCR uses of it (only
    the image adapter imports Pillow)."""

    mode: str
    size: tuple[int, int]

    def tobytes(self) -> bytes: ...

    def convert(self, mode: str) -> PageImage: ...

    def save(self, fp: Any, format: str | None = None, **params: Any) -> None: ...


@dataclass(frozen=True)
class OcrEngine:
    """What an OCR engine can do here: `available` is False with `reason` when it cannot
    run; `version` names it (`tesseract 5.3.0`, `rapidocr-onnxruntime 1.4.4`)."""

    available: bool
    version: str = ""
    languages: tuple[str, ...] = ()
    reason: str = ""
    name: str = ""  # "tesseract" or "rapidocr"


@dataclass(frozen=True)
class OcrText:
    text: str
    confidence: float  # mean word (Tesseract) or line (RapidOCR) confidence, 0-100


@functools.cache
def tesseract() -> OcrEngine:
    """Tesseract's version and installed languages (looked up once per process)."""
    program = shutil.which("tesseract")
    if program is None:
        reason = "tesseract not found (install the tesseract-ocr package)"
        return OcrEngine(False, reason=reason, name="tesseract")
    try:
        version = _run([program, "--version"], timeout=30).splitlines()[0].strip()
        listing = _run([program, "--list-langs"], timeout=30).splitlines()
    except (OSError, subprocess.SubprocessError) as exc:
        return OcrEngine(False, reason=f"tesseract does not run: {exc}", name="tesseract")
    languages = tuple(line.strip() for line in listing[1:] if line.strip())
    return OcrEngine(True, version=version, languages=languages, name="tesseract")


@functools.cache
def rapid() -> OcrEngine:
    """RapidOCR, when its package loads here (looked up once per process)."""
    try:
        version = rapidocr.version()
    except (LookupError, OSError, subprocess.SubprocessError) as exc:
        return OcrEngine(False, reason=str(exc), name="rapidocr")
    return OcrEngine(True, version=version, languages=rapidocr.LANGUAGES, name="rapidocr")


ENGINES: dict[str, Callable[[], OcrEngine]] = {"tesseract": tesseract, "rapidocr": rapid}


def _cannot_read(found: OcrEngine, lang: str) -> str | None:
    """Why `found` cannot read `lang` (None: it can)."""
    if not found.available:
        return found.reason
    missing = [code for code in lang.split("+") if code not in found.languages]
    if not missing:
        return None
    if found.name == "rapidocr":
        return (
            f"RapidOCR reads only {' and '.join(found.languages)}, not {', '.join(missing)} "
            "(install Tesseract for other languages)"
        )
    return (
        f"Tesseract language data {', '.join(missing)} not installed "
        f"(Debian: tesseract-ocr-{missing[0]}); installed: {', '.join(found.languages)}"
    )


def select(lang: str = "eng", choice: str = "auto") -> tuple[OcrEngine | None, str | None]:
    """The engine that reads `lang` here, or None and why none can: `auto` takes Tesseract
    when it reads the language, else RapidOCR."""
    names = ENGINES if choice == "auto" else [choice]
    reasons = []
    for name in names:
        found = ENGINES[name]()
        reason = _cannot_read(found, lang)
        if reason is None:
            return found, None
        reasons.append(reason)
    return None, "; ".join(reasons)


def engine(lang: str = "eng", choice: str = "auto") -> OcrEngine:
    """The engine OCR uses here for `lang`, or an unavailable one with the reason."""
    found, reason = select(lang, choice)
    return found or OcrEngine(False, reason=reason or "")


def unavailable_reason(lang: str, choice: str = "auto") -> str | None:
    """Why OCR in `lang` cannot run here (None: it can)."""
    return select(lang, choice)[1]


def needs_ocr(text: str) -> bool:
    """A page whose text layer is empty or only a few characters."""
    return len("".join(text.split())) < MIN_TEXT_CHARS  # C loops: a generator took 2 s at 48k


# Page images this process has read, by their digest: the same image is read once. Books
# and slides repeat a page (a photograph spread over a double page, a cover, a blank
# scan): 28 of the 81 image pages of the 48k corpus render to one of 6 images (13 pages
# of one file are the same photograph), 0.4 s of Tesseract each.
_READ: OrderedDict[tuple[bytes, str, str], OcrText] = OrderedDict()
READ_MEMORY = 64


def recognise(image: PageImage, lang: str, timeout: float, choice: str = "auto") -> OcrText:
    """Text of one page image, lines and paragraphs as the engine found them (an image
    this process read before: what it read then). RapidOCR runs in this process: the
    pool's time limit, not `timeout`, stops a page it hangs on."""
    digest = hashlib.blake2b(f"{image.mode} {image.size}".encode(), digest_size=16)
    digest.update(image.tobytes())
    key = (digest.digest(), lang, choice)
    if key in _READ:
        _READ.move_to_end(key)
        return _READ[key]
    found = _recognise(image, lang, timeout, choice)
    _READ[key] = found
    if len(_READ) > READ_MEMORY:
        _READ.popitem(last=False)
    return found


def _recognise(image: PageImage, lang: str, timeout: float, choice: str) -> OcrText:
    found, reason = select(lang, choice)
    if found is None:
        raise RuntimeError(reason)
    if found.name == "rapidocr":
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", compress_level=RAPIDOCR_PNG_LEVEL)
        text, confidence = rapidocr.recognise(buffer.getvalue())
        return OcrText(text=text, confidence=confidence)
    env = dict(os.environ, OMP_THREAD_LIMIT="1")  # the pool already uses every core
    if image.mode != "L":  # an image file's colour frame: a third of the bytes in grey
        image = image.convert("L")
    with tempfile.NamedTemporaryFile(prefix="pdfindex-ocr-", suffix=".tif") as handle:
        image.save(handle, format="TIFF")  # uncompressed (see above)
        handle.flush()
        tsv = _run(
            ["tesseract", handle.name, "stdout", "-l", lang, "--psm", "3", "tsv"],
            timeout=timeout,
            env=env,
        )
    return parse_tsv(tsv)


def parse_tsv(tsv: str) -> OcrText:
    """Words of Tesseract's TSV back into lines (one per printed line), paragraphs
    separated by a blank line; the confidence is the mean over recognised words."""
    paragraphs: dict[tuple[str, str, str], dict[str, list[str]]] = {}
    confidences: list[float] = []
    for row in tsv.splitlines()[1:]:
        cols = row.split("\t")
        if len(cols) < 12 or cols[0] != "5" or not cols[11].strip():
            continue  # level 5 rows are words
        page, block, par, line = cols[1], cols[2], cols[3], cols[4]
        paragraphs.setdefault((page, block, par), {}).setdefault(line, []).append(cols[11])
        try:
            if float(cols[10]) >= 0:
                confidences.append(float(cols[10]))
        except ValueError:
            pass
    text = "\n\n".join(
        "\n".join(" ".join(words) for words in lines.values()) for lines in paragraphs.values()
    )
    mean = sum(confidences) / len(confidences) if confidences else 0.0
    return OcrText(text=text, confidence=round(mean, 1))


def _run(
    command: list[str], timeout: float, data: bytes | None = None, env: dict | None = None
) -> str:
    done = subprocess.run(
        command, input=data, capture_output=True, timeout=timeout, env=env, check=False
    )
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise subprocess.SubprocessError(
            f"{command[0]} exit code {done.returncode}: {message[-1] if message else ''}"
        )
    return done.stdout.decode("utf-8", "replace")
