"""OCR of page images with the Tesseract command-line program.

The program, not a Python binding: nothing to compile, and a page that makes Tesseract
hang or crash only costs a child process. One run per page gives text and word
confidences at once (TSV output).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass

MIN_TEXT_CHARS = 20  # a page with fewer non-space characters has no real text layer
OCR_DPI = 300


@dataclass(frozen=True)
class OcrEngine:
    """What OCR can do here: `available` is False with `reason` when it cannot run."""

    available: bool
    version: str = ""
    languages: tuple[str, ...] = ()
    reason: str = ""


@dataclass(frozen=True)
class OcrText:
    text: str
    confidence: float  # mean word confidence, 0-100


@functools.cache
def engine() -> OcrEngine:
    """Tesseract's version and installed languages (looked up once per process)."""
    program = shutil.which("tesseract")
    if program is None:
        return OcrEngine(False, reason="tesseract not found (install the tesseract-ocr package)")
    try:
        version = _run([program, "--version"], timeout=30).splitlines()[0].strip()
        listing = _run([program, "--list-langs"], timeout=30).splitlines()
    except (OSError, subprocess.SubprocessError) as exc:
        return OcrEngine(False, reason=f"tesseract does not run: {exc}")
    languages = tuple(line.strip() for line in listing[1:] if line.strip())
    return OcrEngine(True, version=version, languages=languages)


def unavailable_reason(lang: str) -> str | None:
    """Why OCR in `lang` cannot run here (None: it can)."""
    found = engine()
    if not found.available:
        return found.reason
    missing = [code for code in lang.split("+") if code not in found.languages]
    if missing:
        return (
            f"Tesseract language data {', '.join(missing)} not installed "
            f"(Debian: tesseract-ocr-{missing[0]}); installed: {', '.join(found.languages)}"
        )
    return None


def needs_ocr(text: str) -> bool:
    """A page whose text layer is empty or only a few characters."""
    return sum(1 for c in text if not c.isspace()) < MIN_TEXT_CHARS


def recognise_png(png: bytes, lang: str, timeout: float) -> OcrText:
    """Text of one page image, lines and paragraphs as Tesseract found them."""
    env = dict(os.environ, OMP_THREAD_LIMIT="1")  # the pool already uses every core
    tsv = _run(
        ["tesseract", "stdin", "stdout", "-l", lang, "--psm", "3", "tsv"],
        timeout=timeout,
        data=png,
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
