"""Document titles: the PDF's metadata title only when it looks like one, else the first
heading, else the file name (issue 28: "0", "1", "*-1cmThe xkeyval package" were shown,
and sorted first, for 14 of 300 TeX Live documents)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pdfindex.indexer.titles import first_heading, looks_like_title, own_title
from tests import pdfgen
from tests.conftest import make_settings
from tests.mcpclient import InMemory, open_app, text_of

# file -> (metadata title, first page's text, the title expected)
DOCUMENTS = {
    "zero.pdf": ("0", "An Account of Zeros\nby someone", "An Account of Zeros"),
    "one.pdf": ("1", "1\n2\nThe Ones Manual\nIntroduction", "The Ones Manual"),
    "xkeyval.pdf": (
        "*-1cmThe xkeyval package",
        "The xkeyval package *\nxkeyval\nHendri Adriaens",
        "The xkeyval package",
    ),
    "dvi.pdf": ("youngtab.dvi", "The youngtab package\nVolker", "The youngtab package"),
    "good.pdf": ("A Good Title", "Some other first line\nbody", "A Good Title"),
    "figure_only.pdf": ("0", "0\n1\nx\n2", "figure_only"),
    "none.pdf": (None, "Plain Heading Here\nbody text", "Plain Heading Here"),
}


@pytest.mark.parametrize(
    "text",
    [
        "0",
        "1",
        "*-1cmThe xkeyval package",
        "youngtab.dvi",
        "(Unknown)",
        "a0;0",
        "x" * 3 + "!" * 300,
    ],
)
def test_not_a_title(text: str) -> None:
    assert not looks_like_title(text)


@pytest.mark.parametrize(
    "text",
    ["The Listings Package", "xcolor v2.14 (2022/06/12)", "tkz-fct", "pxcjkcatパッケージ"],
)
def test_a_title(text: str) -> None:
    assert looks_like_title(text)


def test_a_heading_may_name_a_file() -> None:
    """`edfnotes.sty` heading a page names its package; as metadata it names TeX's file."""
    assert first_heading(["edfnotes.sty\n—\nCritical Annotations"]) == "edfnotes.sty"
    assert own_title("edfnotes.dvi", ["Critical Annotations\nbody"], "a.pdf") == (
        "Critical Annotations"
    )


def test_no_text_falls_back_to_the_file_name() -> None:
    assert own_title("", ["", "  \n"], "sub/the_file.pdf") == "the_file"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Iterator[InMemory]:
    root: Path = tmp_path_factory.mktemp("titles")
    settings = make_settings(root, elements=False, ocr=False)
    for name, (title, text, _expected) in DOCUMENTS.items():
        pdfgen.write_pdf(settings.files_dir / name, [text], title=title)
    with open_app(settings) as app:
        yield InMemory(app)


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_indexed_title(library: InMemory, name: str) -> None:
    expected = DOCUMENTS[name][2]
    info = library.call("get_document_info", document_slug=name.removesuffix(".pdf"))
    assert info.structured_content["title"] == expected


def test_list_documents_shows_no_junk_titles_first(library: InMemory) -> None:
    listed = text_of(library.call("list_documents")).splitlines()[1:]
    titles = [line.split(": ", 1)[1].rsplit(" (", 1)[0] for line in listed]
    expected = sorted((want for _meta, _text, want in DOCUMENTS.values()), key=str.lower)
    assert titles == expected
