"""Page images for get_page_image: rendered with pypdfium2 at a DPI that keeps the PNG
under a byte budget, and cached on disk inside the index folder."""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from pdfindex.adapters.pdfium import render_page_png
from pdfindex.errors import InvalidQuery

DEFAULT_DPI = 150
MIN_DPI, MAX_DPI = 36, 300
DEFAULT_BUDGET = 1_500_000


def page_png(
    path: Path,
    sha256: str,
    page: int,
    cache_dir: Path,
    dpi: int | None = None,
    budget: int = DEFAULT_BUDGET,
) -> tuple[bytes, int, bool]:
    """(PNG bytes, DPI used, whether it came from the cache) for one page."""
    wanted = checked_dpi(dpi)
    folder = cache_dir / sha256[:2] / sha256
    cached = sorted(folder.glob(f"p{page}-{wanted}-*.png")) if folder.exists() else []
    if cached:
        used = int(cached[0].stem.rsplit("-", 1)[1])
        return cached[0].read_bytes(), used, True
    png, used = within_budget(lambda d: render_page_png(path, page, d)[0], wanted, budget)
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    with os.fdopen(fd, "wb") as handle:
        handle.write(png)
    os.replace(tmp, folder / f"p{page}-{wanted}-{used}.png")
    return png, used, False


def checked_dpi(dpi: int | None) -> int:
    """The DPI asked for (the default when None), refused outside MIN_DPI-MAX_DPI."""
    wanted = DEFAULT_DPI if dpi is None else dpi
    if not MIN_DPI <= wanted <= MAX_DPI:
        raise InvalidQuery(f"dpi must be from {MIN_DPI} to {MAX_DPI}, got {dpi}")
    return wanted


def within_budget(render: Callable[[int], bytes], dpi: int, budget: int) -> tuple[bytes, int]:
    """(PNG, DPI used): rendered at `dpi`, then lower until the PNG fits `budget` bytes."""
    used = dpi
    png = render(used)
    while len(png) > budget and used > MIN_DPI:
        # PNG size grows with the pixel count, i.e. with the square of the DPI.
        used = max(MIN_DPI, int(used * math.sqrt(budget / len(png)) * 0.95))
        png = render(used)
    return png, used
