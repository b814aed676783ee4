"""The search page served for tests and screenshots: a small library of real PDFs, the
page's routes in the web app `pdfindex web` serves (`build_app`: no token on loopback)
served by uvicorn in a thread on a free port, and Debian's chromium driven by
Playwright (never a downloaded browser)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from fpdf import FPDF

from pdfindex.server import AppContext
from pdfindex.web.app import build_app
from pdfindex.web.pages import routes
from tests import elementgen, pdfgen

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
XSS_TITLE = "<script>window.pwned=1</script><img src=x onerror=window.pwned=2>"
NOTES = [
    "Field notes from the airfield.\nThe zeppelin landed near the hangar at dawn.\n"
    "Ground crews secured the mooring lines.",
    "Second day. Weather report: calm winds, light fog over the transformer station.",
    "Third day. The crew departed north; the hangar stood empty.",
]
CHAPTERS = [
    "Chapter One\nBeginnings of the harbour.",
    "Chapter Two\nThe lighthouse keeper.",
    "Chapter Three\nStorms and the lighthouse.",
]


def outlined_pdf(path: Path) -> Path:
    """A PDF whose outline (bookmarks) names a chapter on each page."""
    pdf = FPDF(unit="pt", format="A4")
    pdf.set_creation_date(pdfgen.FIXED_DATE)
    pdf.set_title("Harbour chronicle")
    pdf.add_font("UnicodeSans", "", str(pdfgen.find_unicode_font()))
    pdf.set_font("UnicodeSans", size=12)
    for text in CHAPTERS:
        pdf.add_page()
        pdf.start_section(text.split("\n")[0])
        pdf.set_xy(56, 60)
        pdf.multi_cell(480, 16, text)
    pdf.output(str(path))
    return path


def demo_library(files: Path) -> dict[str, Path]:
    """Real PDFs of every kind the page shows: a three-page document, one in a folder,
    figures and tables, an outline, a title that is HTML."""
    (files / "sub").mkdir(parents=True, exist_ok=True)
    made = {
        "notes": pdfgen.write_pdf(files / "notes.pdf", NOTES, title="Field notes"),
        "nested": pdfgen.write_pdf(
            files / "sub" / "transformers.pdf",
            ["The transformer architecture relies on attention.\nEncoders and decoders."],
            title="Transformers explained",
        ),
        "xss": pdfgen.write_pdf(
            files / "odd.pdf", ["An oddly titled lighthouse log."], title=XSS_TITLE
        ),
        "book": outlined_pdf(files / "book.pdf"),
    }
    made["report"] = files / "report.pdf"
    elementgen.report_pdf(made["report"])
    return made


@contextmanager
def serving(ctx: AppContext) -> Iterator[str]:
    """The page's routes over `ctx`, served on 127.0.0.1 at a free port: its base URL."""
    app = build_app(ctx, ctx.index.settings, routes())  # the served app, its guard included
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="test-uvicorn", daemon=True
    )
    thread.start()
    try:
        for _ in range(600):
            if server.started or not thread.is_alive():
                break
            threading.Event().wait(0.05)
        assert server.started, "uvicorn did not start"
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's chromium under Playwright (no browser download)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
