"""Screenshots of the search page's main views for the README (docs/*.png), taken in
Debian's chromium over the demo library of tests/webpage.py.

Command line (run from the repository root)::

    python -m tests.webshots docs
"""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path
from typing import Any

from PIL import Image

from tests.conftest import make_settings
from tests.mcpclient import open_app
from tests.webpage import chromium, demo_library, serving

VIEWS = [
    # (file, path, viewport width, height)
    ("web-results.png", "/?q=lighthouse+keeper", 1000, 640),
    ("web-page.png", "/doc/book/2?q=lighthouse+keeper", 1000, 560),
    ("web-gallery.png", "/?kind=figure", 1000, 640),
    ("web-phone.png", "/?q=transformer", 390, 760),
]
COLOURS = 64  # a palette PNG: a fifth of the bytes, the text still sharp


def shoot(browser: Any, url: str, width: int, height: int) -> bytes:
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_load_state("networkidle")
        for frame in page.locator(".frame[data-boxes]").all():
            if frame.get_attribute("data-boxes"):  # its highlight boxes are drawn
                page.wait_for_function(
                    "f => f.dataset.drawn !== undefined", arg=frame.element_handle()
                )
        return page.screenshot()
    finally:
        context.close()


def small(png: bytes) -> bytes:
    image = Image.open(io.BytesIO(png)).convert("RGB").quantize(COLOURS)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def main(argv: list[str]) -> int:
    folder = Path(argv[0] if argv else "docs")
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        demo_library(root / "files")
        with open_app(make_settings(root), watch=False) as ctx, serving(ctx) as url:
            with chromium() as browser:
                for name, path, width, height in VIEWS:
                    data = small(shoot(browser, url + path, width, height))
                    (folder / name).write_bytes(data)
                    print(f"{folder / name}: {len(data)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
