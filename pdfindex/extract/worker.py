"""Extraction of one file with the chosen engine, falling back to the other one, then
OCR of pages without a text layer.

Runs inside pool workers; never raises: every outcome is an Extraction with a status.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pdfindex.config import SETTINGS
from pdfindex.config.adapters import CustomAdapter
from pdfindex.errors import ArchiveRefused, EncryptedDocument
from pdfindex.extract import ocr
from pdfindex.extract.adapters import (
    PDF_ENGINES,
    adapter_name_for,
    custom_for,
    fallback_for,
    get_adapter,
)
from pdfindex.extract.adapters.base import (
    MAX_TEXT_CHARS,
    Extraction,
    normalize_text,
    status_of,
)
from pdfindex.extract.archives import Limits, Member, is_archive, member_file
from pdfindex.extract.ocr import PageImage
from pdfindex.models import FileStatus
from pdfindex.paths import Identity, fd_path, open_regular

Heartbeat = Callable[[], None]
BUDGET_SHARE = 0.9  # of a file's time limit, what its reading and OCR may take (the pool
# kills the worker at the whole limit: the rest is margin to send the result)
MAX_PAGE_CHARS = 200_000  # a page's text past this is cut (a real page holds ~3,000-10,000)
MAX_FILE_CHARS = MAX_TEXT_CHARS  # a file's text past this is cut (adapters stop reading there)


@dataclass(frozen=True)
class ExtractOptions:
    """What a worker does beyond the text layer (from Settings)."""

    ocr: bool = SETTINGS["ocr"].default
    ocr_lang: str = SETTINGS["ocr_lang"].default
    ocr_engine: str = SETTINGS["ocr_engine"].default
    timeout: float = SETTINGS["timeout"].default
    scratch: str | None = None  # the index folder's scratch folder (archive members)
    archive_limits: Limits = field(default_factory=Limits)
    custom_adapters: tuple[CustomAdapter, ...] = SETTINGS["custom_adapters"].default
    memory_mb: int = SETTINGS["memory_mb"].default  # a custom adapter's program's cap
    ocr_later: bool = False  # OCR off for this run only: a later run reads the pages


def describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def extract_file(
    path: Path,
    engine: str,
    options: ExtractOptions | None = None,
    heartbeat: Heartbeat | None = None,
    identity: Identity | None = None,
    member: Member | None = None,
) -> Extraction:
    """Extract `path` and OCR the image pages of a readable PDF, all within
    BUDGET_SHARE of `options.timeout` (the pool's limit for the whole file); `heartbeat`
    is called after each page OCR'd.

    The file is opened once (see `open_regular`: a regular file, no final link, and given
    the scan's `identity`, that very file) and every step reads that open file, so a name
    swapped for a link to an outside file meanwhile is never read: the result is `failed`.
    With `member`, `path` is an archive and the member's bytes are read (within the
    archive budget) into a scratch file, which is read as the file; an archive itself
    gets its listing (`adapters/archive.py`).
    """
    options = options or ExtractOptions(ocr=False)
    budget_end = time.monotonic() + options.timeout * BUDGET_SHARE
    try:
        fd = open_regular(path, identity)
    except OSError as exc:  # UnsafeFile says why; others are the open's own error
        return Extraction(status=FileStatus.FAILED, error=f"refused: {exc}")
    try:
        if member is not None:
            extraction = _extract_member(fd, member, engine, options, heartbeat, budget_end)
        elif is_archive(path):
            scratch = Path(options.scratch) if options.scratch else None
            adapter = get_adapter("archive")
            extraction = adapter.extract(fd_path(fd), scratch, options.archive_limits)  # type: ignore[call-arg]
        else:
            extraction = _extract_open(fd_path(fd), path, engine, options, heartbeat, budget_end)
    finally:
        os.close(fd)
    cut_text(extraction)
    return extraction


def _extract_open(
    source: Path,
    kind: Path,
    engine: str,
    options: ExtractOptions,
    heartbeat: Heartbeat | None,
    budget_end: float,
) -> Extraction:
    """The text of the open file `source` (named `kind`), OCR included for a PDF's scanned
    pages and an image's frames."""
    custom = custom_for(kind, options.custom_adapters)
    if custom is not None:  # a program of the user's (adapters/command.py): no OCR
        from pdfindex.extract.adapters.command import CommandAdapter

        left = max(budget_end - time.monotonic(), 0.1)
        return CommandAdapter(custom, left, options.memory_mb).extract(source)
    extraction = extract_text(source, engine, kind=kind)
    reader = adapter_name_for(kind, engine)
    if reader in (*PDF_ENGINES, "image") and extraction.status in (
        FileStatus.OK,
        FileStatus.EMPTY,
    ):
        beat = heartbeat or (lambda: None)
        ocr_pages(source, extraction, options, beat, budget_end, image=reader == "image")
    return extraction


def _extract_member(
    fd: int,
    member: Member,
    engine: str,
    options: ExtractOptions,
    heartbeat: Heartbeat | None,
    budget_end: float,
) -> Extraction:
    """A member of the archive open on `fd`, read into a scratch file first."""
    if not options.scratch:
        return Extraction(status=FileStatus.FAILED, error="archive member: no scratch folder")
    try:
        with member_file(fd, member, options.archive_limits, Path(options.scratch)) as handle:
            source = fd_path(handle.fileno())
            kind = Path(member.chain[-1])
            return _extract_open(source, kind, engine, options, heartbeat, budget_end)
    except ArchiveRefused as exc:
        return Extraction(status=FileStatus.FAILED, error=f"archive member: {exc}")
    except OSError as exc:  # the scratch folder is full or unwritable
        return Extraction(status=FileStatus.FAILED, error=f"archive member: {describe(exc)}")


def cut_text(extraction: Extraction) -> None:
    """Keep a file's text within MAX_PAGE_CHARS a page and MAX_FILE_CHARS in all, and say
    so in its notes: a small PDF can unpack to hundreds of MB of text, which would take
    the indexer's memory and the index's disk."""
    cut_pages = [n for n, text in enumerate(extraction.pages, 1) if len(text) > MAX_PAGE_CHARS]
    for number in cut_pages:
        extraction.pages[number - 1] = extraction.pages[number - 1][:MAX_PAGE_CHARS]
    if cut_pages:
        extraction.notes.append(
            f"text: {len(cut_pages)} page(s) cut to {MAX_PAGE_CHARS:,} characters "
            f"(first: page {cut_pages[0]})"
        )
    total = 0
    for number, text in enumerate(extraction.pages, 1):
        if total + len(text) > MAX_FILE_CHARS:
            extraction.pages[number - 1] = text[: MAX_FILE_CHARS - total]
            for later in range(number, len(extraction.pages)):
                extraction.pages[later] = ""
            extraction.notes.append(
                f"text: the file's text is cut at {MAX_FILE_CHARS:,} characters, in page "
                f"{number} of {len(extraction.pages)}; later pages are left empty"
            )
            return
        total += len(text)


def ocr_pages(
    path: Path,
    extraction: Extraction,
    options: ExtractOptions,
    beat: Heartbeat,
    budget_end: float,
    image: bool = False,
) -> None:
    """Replace the text of image pages that have (almost) no text layer with OCR text,
    within the file's budget (`budget_end`, a time.monotonic() value): pages left when it
    runs out keep no text, and the file's notes say how many and why. With `image`, the
    file is an image whose frames are its pages (adapters/image.py), all of them read."""
    wanted = [n for n, text in enumerate(extraction.pages, start=1) if ocr.needs_ocr(text)]
    if not wanted:
        return
    render = _frame_renderer(path) if image else _page_renderer(path)
    if not image:
        from pdfindex.extract.adapters.pdfium import pages_with_images

        try:
            wanted = pages_with_images(path, wanted)  # blank pages have nothing to read
        except Exception as exc:
            extraction.notes.append(f"ocr: cannot inspect pages: {describe(exc)}")
            return
    reason = None if options.ocr else "OCR is switched off"
    if options.ocr_later:
        reason = "OCR is left for a later run (reindex --ocr-later)"
    reason = reason or ocr.unavailable_reason(options.ocr_lang, options.ocr_engine)
    if reason:
        extraction.ocr_missing = wanted
        extraction.notes.append(f"ocr: {len(wanted)} page(s) without text not read: {reason}")
        return
    slowest = 0.0  # seconds the slowest page took: a page is begun only if one fits
    for index, number in enumerate(wanted):
        left = budget_end - time.monotonic()
        if left <= max(slowest * 1.5, 0.5):
            extraction.ocr_lang = options.ocr_lang  # OCR ran (or was due): not stale
            extraction.ocr_missing.extend(wanted[index:])
            extraction.notes.append(
                f"ocr: the file's time limit of {options.timeout:g} s ran out: "
                f"{len(wanted) - index} of {len(wanted)} scanned page(s) not read, "
                f"from page {number} (raise `timeout` to read them)"
            )
            break
        began = time.monotonic()
        try:
            image = render(number)
            found = ocr.recognise(image, options.ocr_lang, left, options.ocr_engine)
        except Exception as exc:  # a page Tesseract cannot read stays as it was
            extraction.ocr_missing.append(number)
            extraction.notes.append(f"ocr: page {number}: {describe(exc)}")
            continue
        finally:
            slowest = max(slowest, time.monotonic() - began)
            beat()
        extraction.ocr_lang = options.ocr_lang
        extraction.ocr_pages[number] = found.confidence
        if found.text.strip():
            extraction.pages[number - 1] = normalize_text(found.text)
    extraction.status = status_of(extraction.pages)
    if extraction.status == FileStatus.OK:
        extraction.error = None


def _page_renderer(path: Path) -> Callable[[int], PageImage]:
    from pdfindex.extract.adapters.pdfium import render_page

    def render(number: int) -> PageImage:
        image, _count, _dpi = render_page(
            path, number, ocr.OCR_DPI, ocr.OCR_MAX_PIXELS, grayscale=True
        )
        return image

    return render


def _frame_renderer(path: Path) -> Callable[[int], PageImage]:
    from pdfindex.extract.adapters.image import render_frame

    return lambda number: render_frame(path, number)


def extract_text(path: Path, engine: str, kind: Path | None = None) -> Extraction:
    """Extract `path` with its adapter (`engine` for PDFs; chosen by the name `kind` when
    `path` is an fd's name); a PDF one engine cannot read is retried with the other."""
    first = adapter_name_for(kind or path, engine) or engine
    second = fallback_for(first)
    errors: list[str] = []
    for name in (first, second) if second else (first,):
        adapter = get_adapter(name)
        try:
            return adapter.extract(path)
        except EncryptedDocument as exc:
            return Extraction(status=FileStatus.ENCRYPTED, error=str(exc), engine=adapter.version)
        except MemoryError:
            return Extraction(
                status=FileStatus.FAILED,
                error="memory: extraction exceeded the memory cap",
                engine=adapter.version,
            )
        except Exception as exc:  # corrupt PDFs raise anything (TypeError, AssertionError, ...)
            errors.append(f"{name}: {describe(exc)}")
    return Extraction(
        status=FileStatus.FAILED, error="; ".join(errors), engine=get_adapter(first).version
    )
