"""The search page in a real browser: Debian's chromium driven by Playwright, over a real
library served by uvicorn with the live index and watcher of `pdfindex serve`.

Skipped, saying why, only where /usr/bin/chromium is missing (.ci/run installs it)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from pdfminer.high_level import extract_pages
from pdfminer.layout import LTChar, LTTextLine

from pdfindex.server import AppContext
from tests import pdfgen
from tests.conftest import THREAD_GRACE, make_settings
from tests.mcpclient import open_app
from tests.waiting import eventually
from tests.webpage import CHROMIUM, XSS_TITLE, chromium, demo_library, serving

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="/usr/bin/chromium is missing (apt-get install chromium)"
)
Box = tuple[float, float, float, float]


@dataclass
class Site:
    url: str
    files: Path
    made: dict[str, Path]
    ctx: AppContext


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    root = tmp_path_factory.mktemp("web")
    made = demo_library(root / "files")
    with open_app(make_settings(root), watch=True) as ctx, serving(ctx) as url:
        yield Site(url, root / "files", made, ctx)


@pytest.fixture(scope="module")
def browser(site: Site) -> Iterator[Any]:
    with chromium() as found:
        yield found


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture(autouse=True)
def _no_leaked_threads() -> Iterator[None]:
    """conftest's check, but for the server's request threads (AnyIO's worker threads
    on uvicorn's loop, owned by the module's server and stopped with it)."""
    before = set(threading.enumerate())
    yield
    ends = time.monotonic() + THREAD_GRACE
    for thread in [t for t in threading.enumerate() if t not in before]:
        if not thread.name.startswith("AnyIO worker thread"):
            thread.join(max(0.0, ends - time.monotonic()))
    leaked = [
        t
        for t in threading.enumerate()
        if t not in before and not t.name.startswith("AnyIO worker thread")
    ]
    assert not leaked, f"threads left running: {leaked}"


def search(page: Any, site: Site, query: str) -> None:
    """Type a query in the box and submit it, as a person does."""
    page.goto(site.url + "/")
    page.fill("#q", query)
    page.press("#q", "Enter")
    page.wait_for_url("**/?q=*")


def result_paths(page: Any) -> list[str]:
    return page.locator("#results .result .path").all_inner_texts()


def word_box(pdf: Path, page_number: int, word: str) -> Box:
    """Where pdfminer (not the code under test, which reads pypdfium2) puts `word` on a
    page: (x0, top, x1, bottom) as fractions of the page from its top-left corner."""
    (layout,) = extract_pages(str(pdf), page_numbers=[page_number - 1])
    for block in layout:
        for line in block if hasattr(block, "__iter__") else []:
            if not isinstance(line, LTTextLine):
                continue
            chars = [c for c in line if isinstance(c, LTChar)]
            text = "".join(c.get_text() for c in chars)
            at = text.find(word)
            if at >= 0:
                mine = chars[at : at + len(word)]
                x0, x1 = min(c.x0 for c in mine), max(c.x1 for c in mine)
                top = layout.height - max(c.y1 for c in mine)
                bottom = layout.height - min(c.y0 for c in mine)
                w, h = layout.width, layout.height
                return x0 / w, top / h, x1 / w, bottom / h
    raise AssertionError(f"{word!r} is not on page {page_number} of {pdf}")


def drawn_boxes(page: Any, frame: Any) -> list[Box]:
    """The highlight boxes drawn over a page image, as fractions of the image."""
    frame.locator(".hit").first.wait_for()
    image = frame.locator("img").bounding_box()
    found = []
    for hit in frame.locator(".hit").all():
        b = hit.bounding_box()
        found.append(
            (
                (b["x"] - image["x"]) / image["width"],
                (b["y"] - image["y"]) / image["height"],
                (b["x"] + b["width"] - image["x"]) / image["width"],
                (b["y"] + b["height"] - image["y"]) / image["height"],
            )
        )
    return found


def covers(drawn: Box, word: Box, slack: float) -> bool:
    """Whether the drawn box spans the word across (each side within `slack` of the
    page's width) and stands on its line (its middle inside the word's height)."""
    middle = (drawn[1] + drawn[3]) / 2
    return (
        abs(drawn[0] - word[0]) <= slack
        and abs(drawn[2] - word[2]) <= slack
        and word[1] <= middle <= word[3]
    )


def test_searching_shows_the_page_with_its_thumbnail(page: Any, site: Site) -> None:
    search(page, site, "zeppelin")
    first = page.locator("#results .result").first
    assert first.locator(".where").inner_text().startswith("notes.pdf")
    assert "page 1 of 3" in first.locator(".where").inner_text()
    assert first.locator("mark").first.inner_text().lower() == "zeppelin"
    thumbnail = first.locator(".thumb img")
    thumbnail.wait_for()
    eventually(
        lambda: thumbnail.evaluate("img => img.complete && img.naturalWidth"),
        "the thumbnail loaded",
    )
    src = thumbnail.get_attribute("src")
    assert src.startswith("/page/notes/1.png")


def test_the_highlight_box_covers_the_hits_words(page: Any, site: Site) -> None:
    expected = word_box(site.made["notes"], 1, "zeppelin")
    search(page, site, "zeppelin")
    thumb = drawn_boxes(page, page.locator("#results .result .frame").first)
    assert any(covers(b, expected, 0.02) for b in thumb), (thumb, expected)
    page.locator("#results .result a.title").first.click()
    page.wait_for_url("**/doc/notes/1?*")
    full = drawn_boxes(page, page.locator(".pageview .frame"))
    assert any(covers(b, expected, 0.005) for b in full), (full, expected)


def test_opening_a_result_and_paging(page: Any, site: Site) -> None:
    search(page, site, "weather fog")
    page.locator("#results .result a.title").first.click()
    page.wait_for_url("**/doc/notes/2?*")
    assert page.inner_text("#pageno") == "page 2 of 3"
    page.click("#next")
    page.wait_for_url("**/doc/notes/3?*")
    assert page.inner_text("#pageno") == "page 3 of 3"
    page.keyboard.press("ArrowLeft")
    page.wait_for_url("**/doc/notes/2?*")
    assert page.inner_text("#pageno") == "page 2 of 3"
    image = page.locator("#page")
    eventually(lambda: image.evaluate("img => img.naturalWidth"), "the page image loaded")


def test_the_outline_opens_its_pages(page: Any, site: Site) -> None:
    page.goto(site.url + "/doc/book/1")
    entries = page.locator(".outline a").all_inner_texts()
    assert entries == ["Chapter One", "Chapter Two", "Chapter Three"]
    page.click(".outline >> text=Chapter Three")
    page.wait_for_url("**/doc/book/3")
    assert page.inner_text("#pageno") == "page 3 of 3"


def test_the_keyboard_moves_through_results_and_opens_one(page: Any, site: Site) -> None:
    page.goto(site.url + "/")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.type("lighthouse")
    page.keyboard.press("Enter")
    page.wait_for_url("**/?q=lighthouse*")
    assert page.locator("#results .result").count() >= 2
    page.keyboard.press("/")
    page.keyboard.press("ArrowDown")  # from the box to the first result
    page.keyboard.press("ArrowDown")
    second = page.locator("#results .result").nth(1)
    assert "selected" in second.get_attribute("class")
    wanted = second.locator("a.title").get_attribute("href")
    page.keyboard.press("Enter")
    page.wait_for_url(site.url + wanted.replace("&amp;", "&"))
    assert urlparse(page.url).path == urlparse(wanted).path


def test_a_filter_narrows_the_results(page: Any, site: Site) -> None:
    search(page, site, "transformer")
    everywhere = result_paths(page)
    assert set(everywhere) == {"notes.pdf", "sub/transformers.pdf"}
    page.select_option("#folder", "sub")  # a filter searches again at once
    page.wait_for_url("**folder=sub*")
    assert result_paths(page) == ["sub/transformers.pdf"]


def test_a_deep_link_reproduces_a_search(page: Any, site: Site) -> None:
    search(page, site, "lighthouse")
    page.select_option("#doc", "book")
    page.wait_for_url("**doc=book*")
    shown = result_paths(page)
    link = page.url
    query = parse_qs(urlparse(link).query)
    assert query["q"] == ["lighthouse"]
    fresh = page.context.new_page()
    fresh.goto(link)
    assert fresh.input_value("#q") == "lighthouse"
    assert fresh.input_value("#doc") == "book"
    assert result_paths(fresh) == shown


def test_elements_show_as_a_gallery_of_their_crops(page: Any, site: Site) -> None:
    page.goto(site.url + "/?kind=figure")
    labels = page.locator("#results .element strong").all_inner_texts()
    assert "Figure 1" in labels
    crop = page.locator("#results .element img").first
    eventually(lambda: crop.evaluate("img => img.complete && img.naturalWidth"), "crop loaded")
    page.fill("#q", "throughput")
    page.press("#q", "Enter")
    page.wait_for_url("**q=throughput*")
    assert page.locator("#results .element strong").all_inner_texts() == ["Figure 1"]


def test_a_title_that_is_html_shows_as_text(page: Any, site: Site) -> None:
    search(page, site, "oddly titled")
    title = page.locator("#results .result a.title").first.inner_text()
    assert title == XSS_TITLE
    assert page.evaluate("typeof window.pwned") == "undefined"


def test_a_did_you_mean_note_is_shown(page: Any, site: Site) -> None:
    search(page, site, "lighthuose")
    notes = " ".join(page.locator(".note").all_inner_texts())
    assert "showing results for 'lighthouse'" in notes


def test_an_unknown_document_is_a_404_page(page: Any, site: Site) -> None:
    answer = page.goto(site.url + "/doc/no_such_document/1")
    assert answer.status == 404


def test_it_fits_a_phone_screen(browser: Any, site: Site) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        phone = context.new_page()
        phone.goto(site.url + "/?q=transformer")
        phone.locator("#results .result").first.wait_for()
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        context.close()


def test_the_json_api_answers_each_mode(page: Any, site: Site) -> None:
    def first_path(**query: str) -> str:
        answer = page.request.get(site.url + "/api/search", params=query)
        assert answer.status == 200
        return answer.json()["results"][0]["path"]

    assert first_path(q="zepelin", mode="fuzzy") == "notes.pdf"
    assert first_path(q="lighthouse keeper", mode="phrase") == "book.pdf"
    assert first_path(q="mooring lines", mode="exact") == "notes.pdf"


def test_no_url_reads_outside_the_library(page: Any, site: Site) -> None:
    for path in ("/page/..%2F..%2Fetc%2Fpasswd/1.png", "/api/boxes/%2Fetc%2Fpasswd/1?q=root"):
        answer = page.request.get(site.url + path)
        assert answer.status == 404, path


def test_the_status_follows_a_file_being_indexed(page: Any, site: Site) -> None:
    """Runs last: it adds a file to the module's library."""
    page.goto(site.url + "/")
    status = page.locator("#status")
    before = eventually(status.inner_text, "the status is shown")
    files = int(before.split(" of ")[1].split()[0])
    page.evaluate(
        """() => { window.seen = [];
        new MutationObserver(() => window.seen.push(document.getElementById('status')
          .textContent)).observe(document.getElementById('status'),
          {childList: true, characterData: true, subtree: true}); }"""
    )
    pdfgen.write_pdf(site.files / "late.pdf", ["A late arrival about gliders."])
    after = f"{files + 1} of {files + 1} files searchable"
    eventually(lambda: status.inner_text(), "the new file counted", holds=lambda t: after in t)
    seen = page.evaluate("window.seen")
    assert any("update:" in text for text in seen), seen
