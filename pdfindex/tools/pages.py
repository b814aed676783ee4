"""Whole pages: extract_pdf_page (seed 001: layout converted to Markdown, HTML, plain text,
LaTeX, DOCX) and get_page_image (seed 004: a PNG rendered with pypdfium2 at a DPI that
keeps it under a byte budget, cached in the index folder under `page_cache_mb`)."""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pdfindex import deadline
from pdfindex.api import PdfIndex, parse_pages
from pdfindex.errors import (
    ArchiveRefused,
    DocumentNotFound,
    InvalidQuery,
    PageOutOfRange,
    WorkerDied,
)
from pdfindex.extract.archives import SCRATCH, Limits, Member, in_archive, member_file
from pdfindex.paths import open_regular
from pdfindex.tools.budget import cut_text, items_budget
from pdfindex.tools.catalog import record_by_slug
from pdfindex.tools.names import find_document, readable
from pdfindex.tools.render import MAX_DPI, MIN_DPI
from pdfindex.tools.results import ExtractPdfPageResult

DEFAULT_DPI = 150
NO_LIMIT = 3600.0  # seconds a worker call may take when request_timeout is 0
CACHE_FOLDER = "pages"  # the page-image cache, in the index folder
STALE_TMP_SECONDS = 3600.0  # a temporary file this old in the cache was left by a crash
_CACHE_LOCK = threading.Lock()  # one writer and evicter at a time in this process
_CACHE_SIZE: dict[str, tuple[int, int]] = {}  # cache folder -> (bytes, images written since)
WALK_EVERY = 100  # images written between two walks of the cache folder at most
LOW_WATER = 0.9  # an eviction frees a tenth of the cap, so that walks stay rare

log = logging.getLogger(__name__)


def page_png(
    index: PdfIndex, fd: int, slug: str, sha256: str, page: int, dpi: int | None = None
) -> tuple[bytes, float, bool]:
    """(PNG bytes, DPI used, whether it came from the cache) for one page of the open
    file `fd` of document `slug`, rendered in a killable worker (`PdfIndex.isolated`)
    within the request's time limit; the DPI is below the one asked for when the PNG
    budget or, for a huge page, the pixel budget needs it.

    The cache (`index_dir/pages/DOCUMENT/VERSION/`) holds at most `page_cache_mb`: a hit
    marks its image used (mtime), and the least recently used go first. VERSION is the
    indexed hash with the file's size and mtime now, so a PDF changed since (indexed or
    not) never gets an old image, and its old version's images are removed."""
    wanted = checked_dpi(dpi)
    cap = int(index.settings.page_cache_mb * 1_000_000)
    root = index.settings.index_dir / CACHE_FOLDER
    document = root / hashlib.sha256(slug.encode("utf-8")).hexdigest()[:32]
    stat = os.fstat(fd)
    folder = document / f"{sha256[:16]}-{stat.st_size}-{stat.st_mtime_ns}"
    if cap > 0:
        hit = _cached(folder, page, wanted)
        if hit is not None:
            return hit
    elif root.exists():  # the cache was turned off: what it held goes
        shutil.rmtree(root, ignore_errors=True)
    png, used = index.isolated.call(
        "pdfindex.tools.render:page_within_budget",
        fd,
        page,
        wanted,
        index.settings.page_image_bytes,
        timeout=deadline.remaining(NO_LIMIT),
        what=f"rendering page {page}",
    )
    if 0 < len(png) <= cap:
        _store(root, folder, f"p{page}-{wanted}-{used:g}.png", png, cap)
    return png, used, False


def _cached(folder: Path, page: int, wanted: int) -> tuple[bytes, float, bool] | None:
    """The cached image of a page at a DPI, marked as just used; None on a miss."""
    prefix = f"p{page}-{wanted}-"
    try:
        names = sorted(n for n in os.listdir(folder) if n.startswith(prefix) and n.endswith(".png"))
    except OSError:  # no image of this version yet
        return None
    for name in names:
        path = folder / name
        try:
            png = path.read_bytes()
            os.utime(path)  # least recently used goes first: this one was just used
        except OSError:  # evicted meanwhile
            continue
        return png, float(name[: -len(".png")].rsplit("-", 1)[1]), True
    return None


def _store(root: Path, folder: Path, name: str, png: bytes, cap: int) -> None:
    """Cache `png` as `folder/name`, remove the document's other versions, then keep the
    cache under `cap` bytes. A cache that cannot be written fails no request."""
    with _CACHE_LOCK:
        try:
            for other in folder.parent.iterdir() if folder.parent.is_dir() else []:
                if other != folder:  # an older version of the PDF: never shown again
                    shutil.rmtree(other, ignore_errors=True)
            folder.mkdir(parents=True, exist_ok=True)
            handle, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(png)
                os.replace(tmp, folder / name)
            except OSError:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            log.warning("page-image cache not written (%s): %s", folder, exc)
            return
        # The cache's size as of its last walk plus what was written since (an
        # overestimate: replaced versions are not subtracted); walked when it passes the
        # cap, and every WALK_EVERY images (other processes write here too).
        known, stores = _CACHE_SIZE.get(str(root), (None, 0))
        if known is None or stores + 1 >= WALK_EVERY or known + len(png) > cap:
            _CACHE_SIZE[str(root)] = (_evict(root, cap, int(cap * LOW_WATER)), 0)
        else:
            _CACHE_SIZE[str(root)] = (known + len(png), stores + 1)


def _evict(root: Path, cap: int, target: int) -> int:
    """Over `cap` bytes: remove the least recently used images until the cache holds
    `target` bytes at most (images left by older layouts and temporary files a crash left
    included), then the folders left empty; the bytes the cache holds."""
    now = time.time()
    images, total = [], 0
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            try:
                stat = os.stat(path)
                if name.endswith(".tmp"):
                    if now - stat.st_mtime > STALE_TMP_SECONDS:
                        os.unlink(path)
                    continue
            except OSError:
                continue
            images.append((stat.st_mtime_ns, path, stat.st_size))
            total += stat.st_size
    if total <= cap:
        return total
    for _, path, size in sorted(images):
        if total <= target:
            break
        try:
            os.unlink(path)
        except OSError:
            continue
        total -= size
    for folder, _, _ in os.walk(root, topdown=False):
        if folder != str(root):
            try:
                os.rmdir(folder)  # only when empty
            except OSError:
                continue
    return total


def too_large(slug: str, page_number: int) -> str:
    """Why a page image could not be made: the page is too large to render in memory."""
    return (
        f"page_number: page {page_number} of '{slug}' is too large to render (out of memory); "
        "extract_pdf_page or read_pdf give its text"
    )


def checked_dpi(dpi: int | None) -> int:
    """The DPI asked for (the default when None), refused outside MIN_DPI-MAX_DPI."""
    wanted = DEFAULT_DPI if dpi is None else dpi
    if not MIN_DPI <= wanted <= MAX_DPI:
        raise InvalidQuery(f"dpi must be from {MIN_DPI} to {MAX_DPI}, got {dpi}")
    return wanted


def extract_pdf_page(
    index: PdfIndex,
    file: str,
    pages: list[int],
    output_format: str = "markdown",
    preserve_layout: bool = False,
) -> ExtractPdfPageResult:
    """Convert pages of a PDF (layout parsed on demand): {content, pages_extracted, format}."""
    record = readable(find_document(index, file))  # a type not read says so first
    real, rel = index.resolve(record.path)
    if not rel.lower().endswith(".pdf"):
        raise InvalidQuery(f"{file!r} is not a PDF; use read_pdf or search_in_file for it")
    parse_pages(pages, record.pages)  # clear range errors before any parsing

    ocr_texts = None
    if record.ocr_pages:  # scanned pages have no layout: convert their OCR text
        texts = index.engine.page_texts(record.slug)
        ocr_texts = {n: texts[n - 1] for n in pages if 1 <= n <= len(texts)}
    # pdfminer's layout of one hostile page can take minutes: a worker, killed at the
    # limit (request_timeout per page asked for, the whole call at most `timeout`).
    limit = deadline.seconds()
    allowed = min(limit * len(set(pages)), index.settings.timeout) if limit else NO_LIMIT
    with opened(real, index, record.sha256) as fd:
        result = index.isolated.call(
            "pdfindex.convert.pages:convert_pages",
            fd,
            pages,
            output_format,
            preserve_layout,
            allowed,
            ocr_texts,
            timeout=allowed,
            what=f"converting {len(set(pages))} page(s)",
        )
    budget = items_budget(index.settings.max_response_chars)
    content = cut_text(result["content"], budget)
    if content != result["content"]:
        if result.get("encoding") == "base64":  # a cut file would be useless
            raise InvalidQuery(
                f"the {output_format} file is {len(result['content'])} characters in base64, "
                f"over the {budget} limit: ask for fewer pages at a time"
            )
        result["content"] = content
        result["truncated"] = True
        result["note"] = f"cut at {budget} characters: ask for fewer pages at a time"
    return result


def get_page_image(
    index: PdfIndex, document_slug: str, page_number: int, dpi: int | None = None
) -> tuple[str, bytes]:
    """A full page as (caption text, PNG bytes)."""
    record = record_by_slug(index, document_slug)
    if not record.path.lower().endswith(".pdf"):
        raise InvalidQuery(f"{record.path} is not a PDF; read it with read_pdf")
    readable(record)
    if not 1 <= page_number <= record.pages:
        raise PageOutOfRange(
            f"page_number: page {page_number} is out of range: '{record.slug}' has "
            f"{record.pages} page{'s' if record.pages != 1 else ''} (valid: pages 1-{record.pages})"
        )
    real, _ = index.resolve(record.path)
    try:
        with opened(real, index, record.sha256) as fd:
            png, used, cached = page_png(index, fd, record.slug, record.sha256, page_number, dpi)
    except (MemoryError, WorkerDied):
        raise InvalidQuery(too_large(record.slug, page_number)) from None
    caption = (
        f"Page {page_number} of {record.pages}\nDocument: {record.slug} ({record.title})\n"
        f"Rendered at {used:g} dpi, {len(png)} bytes{' (cached)' if cached else ''}"
    )
    return caption, png


@contextmanager
def opened(real: Path, index: PdfIndex, sha256: str = "") -> Iterator[int]:
    """`real` opened once, safely (a regular file inside the files folder, or the folder
    of another source it is in, not a link or a FIFO put there since it was indexed), as
    a descriptor a worker process receives. An archive member (`a.zip/b.pdf`) is read
    from its archive, within the archive budget, into an anonymous file in the index
    folder's scratch folder (gone when closed); given `sha256`, only the bytes indexed."""
    folder = index.folder_of(real)
    inside = in_archive(folder.resolve(), real)
    target = inside[0] if inside else real
    try:
        fd = open_regular(target, inside=folder)
    except OSError as exc:  # gone, or swapped for a link or a FIFO since it was indexed
        shown = target.relative_to(folder.resolve()).as_posix()
        cause = exc.strerror or str(exc)
        raise DocumentNotFound(f"{shown} cannot be read now ({cause})") from None
    try:
        if inside is None:
            yield fd
            return
        settings = index.settings
        member = Member(inside[1], 0, sha256)
        try:
            with member_file(
                fd, member, Limits.of(settings), settings.index_dir / SCRATCH
            ) as handle:
                yield handle.fileno()
        except ArchiveRefused as exc:
            raise DocumentNotFound(f"{real.name} cannot be read now: {exc}") from None
    finally:
        os.close(fd)
