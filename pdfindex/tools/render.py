"""Rendering within the budgets: a page or a region as a PNG under the byte budget, at
the DPI asked for or lower. Light on imports, since it runs in the killable workers of
`pdfindex.tools.isolated`, which receive the file as an open descriptor's path."""

from __future__ import annotations

import math
from collections.abc import Callable

from pdfindex.extract.adapters.pdfium import render_page_png, render_region_png

MIN_DPI, MAX_DPI = 36, 300


def within_budget(render: Callable[[int], bytes], dpi: int, budget: int) -> tuple[bytes, int]:
    """(PNG, DPI used): rendered at `dpi`, then lower until the PNG fits `budget` bytes."""
    used = dpi
    png = render(used)
    while len(png) > budget and used > MIN_DPI:
        # PNG size grows with the pixel count, i.e. with the square of the DPI.
        used = max(MIN_DPI, int(used * math.sqrt(budget / len(png)) * 0.95))
        png = render(used)
    return png, used


def page_within_budget(path: str, page: int, dpi: int, budget: int) -> tuple[bytes, float]:
    """(PNG, DPI used) of one page: below `dpi` when the byte budget or, for a huge page,
    the pixel budget needs it."""
    fitted: list[float] = []  # the DPI a page too large for MAX_PIXELS was rendered at

    def render(dpi: int) -> bytes:
        png, _count, used = render_page_png(path, page, dpi)  # type: ignore[arg-type]
        fitted.append(used)
        return png

    png, budgeted = within_budget(render, dpi, budget)
    return png, float(f"{min(budgeted, fitted[-1]):.3g}")


def region_within_budget(
    path: str, page: int, region: tuple[float, float, float, float], dpi: int, budget: int
) -> tuple[bytes, int]:
    """(PNG, DPI used) of a region of a page, (x0, top, x1, bottom) in points."""
    return within_budget(
        lambda d: render_region_png(path, page, region, d),  # type: ignore[arg-type]
        dpi,
        budget,
    )
