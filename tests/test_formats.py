"""Every format beside PDFs, read from real documents (tests/formatgen.py) by the real
indexer on each engine, and searched through the tools, the MCP client and the CLI."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mcp.types import CallToolResult

from pdfindex.api import PdfIndex
from pdfindex.cli import main
from pdfindex.extract import ocr
from pdfindex.extract.adapters import supported_extensions
from pdfindex.extract.adapters.base import PART_CHARS, split_parts
from pdfindex.extract.worker import ExtractOptions, extract_file
from pdfindex.models import FileStatus
from pdfindex.search.exact import exact_search
from pdfindex.tools.exact import search_pdf
from tests import formatgen, pdfgen
from tests.brute import brute_force
from tests.conftest import make_settings
from tests.mcpclient import InMemory, open_app
from tests.waiting import eventually

UNITS = {
    "docx": "part",
    "odt": "part",
    "rtf": "part",
    "epub": "part",
    "html": "part",
    "pptx": "slide",
    "xlsx": "sheet",
    "ods": "sheet",
    "png": "frame",
    "jpg": "frame",
    "tiff": "frame",
}
IMAGES = ("png", "jpg", "tiff")
TEXT_FORMATS = [f for f in formatgen.FORMATS if f not in IMAGES]
OCR_HERE = ocr.unavailable_reason("eng") is None


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Path:
    root = tmp_path_factory.mktemp("formats")
    files = root / "files"
    files.mkdir()
    for fmt in formatgen.FORMATS:
        formatgen.write_sample(files, fmt)
    (files / "broken").mkdir()
    for fmt in formatgen.FORMATS:
        formatgen.write_corrupt(files / "broken", fmt)
    pdfgen.write_pdf(files / "paper.pdf", ["A PDF beside them mentions marmalade once."])
    return root


@pytest.fixture(scope="module")
def app(project: Path, index_engine: str) -> Iterator[InMemory]:
    with open_app(make_settings(project, max_response_chars=50_000)) as opened:
        yield InMemory(opened)


@pytest.fixture(scope="module")
def index(app: InMemory) -> PdfIndex:
    return app.app.index


def data(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    assert result.structured_content is not None
    return result.structured_content


def slug(index: PdfIndex, path: str) -> str:
    record = index.engine.record(path)
    assert record is not None, path
    return record.slug


def texts(index: PdfIndex, path: str) -> list[str]:
    return index.engine.page_texts(slug(index, path))


def all_text(index: PdfIndex, path: str) -> str:
    return "\n".join(texts(index, path))


@pytest.mark.parametrize("fmt", formatgen.FORMATS)
def test_each_format_is_read_with_what_a_page_is(index: PdfIndex, fmt: str) -> None:
    record = index.engine.record(f"sample.{fmt}")
    assert record is not None
    if fmt in IMAGES and not OCR_HERE:
        assert record.status == FileStatus.EMPTY
        return
    assert record.status == FileStatus.OK, record.error
    assert record.page_unit == UNITS[fmt]
    text = all_text(index, f"sample.{fmt}")
    assert formatgen.WORDS[fmt].lower() in text.lower()
    if fmt not in IMAGES:
        assert formatgen.UNICODE in text
    if fmt not in IMAGES + ("rtf",):  # pandoc writes RTF without an info group
        assert record.title == f"Sample {fmt} document"
    if UNITS[fmt] == "part":
        assert all(len(t) <= PART_CHARS + 200 for t in texts(index, record.path))


def test_pages_are_slides_sheets_and_frames(index: PdfIndex) -> None:
    slides = texts(index, "sample.pptx")
    assert "Speaker notes say telescope too." in slides[0]
    assert slides[1].startswith("Unicode")
    sheets = texts(index, "sample.xlsx")
    assert sheets[0].splitlines()[:2] == ["Data", "name\tvalue\tnote"]
    assert sheets[1] == "Second\nonly\there\tpineapple again"
    assert texts(index, "sample.ods")[1] == "Second\nonly\there\tharpsichord again"
    if OCR_HERE:
        frames = texts(index, "sample.tiff")
        assert len(frames) == 2
        assert "second frame" in frames[1].lower()


@pytest.mark.parametrize(
    "query", [*(w for f, w in formatgen.WORDS.items() if f not in IMAGES), "naïve café", "Köln"]
)
def test_exact_search_equals_a_brute_force_scan_of_the_stored_text(
    index: PdfIndex, query: str
) -> None:
    expected = [
        (record.path, page, start)
        for record in sorted(index.documents(), key=lambda r: r.path)
        if record.status == FileStatus.OK
        for page, text in enumerate(index.engine.page_texts(record.slug), 1)
        for start, _ in brute_force(text, query)
    ]
    matches, _ = exact_search(index.engine, query, limit=1000, context_length=0)
    assert sorted((m.path, m.page, m.start) for m in matches) == sorted(expected)
    assert expected


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_search_pdf_finds_what_each_source_holds(index: PdfIndex, fmt: str) -> None:
    for query in (formatgen.WORDS[fmt], "Grüße aus Köln", "東京大学"):
        found = search_pdf(index, f"sample.{fmt}", query)
        assert found["query_exists"], (fmt, query, found)


def test_the_tools_find_words_of_docx_pptx_epub_and_html(app: InMemory, index: PdfIndex) -> None:
    calls = [("search_documents", {"query": formatgen.WORDS[f]}) for f in ("docx", "pptx", "epub")]
    calls += [
        ("search_documents", {"query": "chrysanthemum"}),
        ("fuzzy_search", {"query": "marmalade", "file_types": ["docx"]}),
        ("fuzzy_search", {"query": "marmalade", "match": "words"}),  # fzf: a subsequence
        ("search_in_file", {"file": "sample.pptx", "pattern": "telescope"}),
        ("search_in_file", {"file": "sample.epub", "pattern": "laby\\w+"}),
        ("search_in_file", {"file": "sample.html", "pattern": "scriptonlyword|hidden-style"}),
    ]
    docx, pptx, epub, html, typed, untyped, slides, book, hidden = app.calls(*calls)
    for result, name in ((docx, "docx"), (pptx, "pptx"), (epub, "epub"), (html, "html")):
        assert f"Document: {slug(index, 'sample.' + name)}\n" in result.content[0].text
    assert {m["file"] for m in data(typed)["matches"]} == {"sample.docx"}
    assert {m["file"] for m in data(untyped)["matches"]} == {"sample.docx", "paper.pdf"}
    assert {m["adapter"] for m in data(typed)["matches"]} == {"docx"}
    pages = {m["page"] for m in data(slides)["matches"]}
    assert pages == {1}  # the title and the speaker notes of slide 1
    assert data(book)["matches"]
    assert data(hidden)["matches"] == []  # script and style are not text


def test_read_pdf_reads_the_parts_of_a_docx(app: InMemory) -> None:
    (read,) = data(app.call("read_pdf", sources=[{"path": "sample.docx", "pages": "1-2"}]))[
        "results"
    ]
    assert read["success"]
    assert read["data"]["num_pages"] == 2
    texts = [page["text"] for page in read["data"]["page_texts"]]
    assert "marmalade paragraph" in texts[0]
    assert "cell\tmarmalade" in texts[1]  # the table, a row a line, tab-separated
    assert read["data"]["info"]["page_unit"] == "part"


def test_document_info_list_and_adapters_say_what_a_page_is(app: InMemory, index: PdfIndex) -> None:
    info = data(app.call("get_document_info", document_id=slug(index, "sample.pptx")))
    assert info["page_unit"] == "slide"
    assert info["metadata"]["page_unit"] == "slide"
    assert data(app.call("get_document_info", document_id="paper"))["page_unit"] == "page"
    listed = {f["path"]: f for f in data(app.call("list_searchable_files"))["files"]}
    for fmt in formatgen.FORMATS:
        assert listed[f"sample.{fmt}"]["adapter"] in (fmt, "image")
    adapters = {a["name"]: a for a in json.loads(app.resource("adapters://list"))["adapters"]}
    assert {"docx", "odt", "rtf", "pptx", "xlsx", "ods", "epub", "html", "image"} <= set(adapters)
    assert adapters["image"]["extensions"] == ["png", "jpg", "jpeg", "tif", "tiff"]
    assert {"." + e for a in adapters.values() for e in a["extensions"]} == set(
        supported_extensions()
    )


def test_page_images_need_a_pdf(app: InMemory, index: PdfIndex) -> None:
    image, convert = app.calls(
        ("get_page_image", {"document_slug": slug(index, "sample.docx"), "page_number": 1}),
        ("extract_pdf_page", {"file": "sample.docx", "pages": [1]}),
    )
    assert image.is_error
    assert "is not a PDF" in image.content[0].text
    assert convert.is_error
    assert "is not a PDF" in convert.content[0].text


@pytest.mark.parametrize("fmt", formatgen.FORMATS)
def test_a_corrupt_file_fails_clearly(index: PdfIndex, fmt: str) -> None:
    record = index.engine.record(f"broken/corrupt.{fmt}")
    assert record is not None
    assert record.status == FileStatus.FAILED
    adapter = "image" if fmt in IMAGES else fmt
    assert record.error.startswith(f"{adapter}: ")
    answer = search_pdf(index, f"broken/corrupt.{fmt}", "anything")
    assert answer["error"].startswith("Failed to parse PDF")


def test_the_cli_lists_and_searches_other_formats(tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    for fmt in ("docx", "pptx", "epub", "html"):
        formatgen.write_sample(files, fmt)
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(main, ["--root", str(tmp_path), "--workers", "2", *args])
        assert result.exit_code == 0, result.output
        return result.stdout

    run("reindex")
    rows = {r["path"]: r for r in json.loads(run("list", "--json"))}
    assert {p: r["page_unit"] for p, r in rows.items()} == {
        "sample.docx": "part",
        "sample.pptx": "slide",
        "sample.epub": "part",
        "sample.html": "part",
    }
    assert "sample.pptx:1:" in run("search", "--exact", "telescope")
    exact = run("search", "--exact", "naïve café")
    assert {line.split(":")[0] for line in exact.splitlines() if ":" in line} == set(rows)
    assert "sample.html" in run("search", "chrysanthemum")


def test_the_watcher_follows_an_edited_and_a_deleted_document(tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    formatgen.write_docx(files / "memo.docx", ["first draft wording"], "Memo")
    formatgen.write_html(files / "page.html", ["a page about otters"], "Otters")
    index = PdfIndex(make_settings(tmp_path))
    live = index.live(quiet=0.3).start()
    try:
        assert live.caught_up.wait(60)
        assert search_pdf(index, "memo.docx", "first draft")["query_exists"]
        formatgen.write_docx(files / "memo.docx", ["second draft wording"], "Memo")
        eventually(
            lambda: search_pdf(index, "memo.docx", "second draft")["query_exists"],
            "the edited DOCX indexed",
        )
        (files / "page.html").unlink()
        eventually(
            lambda: index.engine.record("page.html"),
            "the deleted HTML gone",
            holds=lambda r: r is None,
        )
    finally:
        live.close()
        index.close()


# ------------------------------------------------------------------------------------
# Hostile inputs, through the worker's extraction (what the pool runs)
# ------------------------------------------------------------------------------------


def extract(path: Path) -> Any:
    return extract_file(path, "pdfium", ExtractOptions(ocr=False))


def test_a_zip_bomb_docx_is_refused_before_it_is_unpacked(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.docx"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", b" " * 300_000_000)
    result = extract(bomb)
    assert result.status == FileStatus.FAILED
    assert "zip bomb" in result.error


@pytest.mark.parametrize("fmt", ["odt", "epub"])
def test_xml_entities_are_never_expanded_nor_fetched(tmp_path: Path, fmt: str) -> None:
    """Billion laughs and an outside file named by an entity, in the XML we parse."""
    laughs = "".join(
        f'<!ENTITY l{n} "{("&l" + str(n - 1) + ";") * 10 if n else "lol"}">' for n in range(9)
    )
    doctype = f'<!DOCTYPE d [{laughs}<!ENTITY x SYSTEM "file:///etc/passwd">]>'
    body = "<p>visible words &l8; &x;</p>"
    path = tmp_path / f"hostile.{fmt}"
    with zipfile.ZipFile(path, "w") as archive:
        if fmt == "odt":
            archive.writestr(
                "content.xml",
                f'<?xml version="1.0"?>{doctype}<office:document-content '
                'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
                'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body>'
                f"<office:text><text:p>visible words &l8; &x;</text:p></office:text>"
                "</office:body></office:document-content>",
            )
        else:
            archive.writestr(
                "content.opf",
                '<package xmlns="http://www.idpf.org/2007/opf"><manifest><item id="c" '
                'href="c.xhtml" media-type="application/xhtml+xml"/></manifest>'
                '<spine><itemref idref="c"/></spine></package>',
            )
            archive.writestr(
                "c.xhtml", f'<?xml version="1.0"?>{doctype}<html><body>{body}</body></html>'
            )
    result = extract(path)
    text = "\n".join(result.pages)
    assert "lollol" not in text
    assert "root:" not in text
    assert result.status in (FileStatus.OK, FileStatus.FAILED)


def test_a_row_of_a_million_repeated_cells_stays_small(tmp_path: Path) -> None:
    path = tmp_path / "wide.ods"
    formatgen.write_ods(path, {"S": [["a", "b"]]}, "Wide")
    with zipfile.ZipFile(path) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    members["content.xml"] = members["content.xml"].replace(
        b'<table:table-cell office:value-type="string"',
        b'<table:table-cell table:number-columns-repeated="1000000" '
        b'table:number-rows-repeated="1000000" office:value-type="string"',
        1,
    )
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    result = extract(path)
    assert result.status == FileStatus.OK
    assert sum(len(p) for p in result.pages) < 2_000_000


def test_parts_are_cut_between_paragraphs() -> None:
    paragraphs = [f"paragraph {n} " + "word " * (n % 300) for n in range(400)]
    parts = split_parts(paragraphs)
    assert all(len(p) <= PART_CHARS for p in parts)
    rejoined = [p for part in parts for p in part.split("\n\n")]
    assert rejoined == [p.strip("\n") for p in paragraphs]
    assert split_parts([]) == [""]
    long = split_parts(["word " * 2000])
    assert all(len(p) <= PART_CHARS for p in long)
    assert " ".join(p.strip() for p in long).split() == ["word"] * 2000
