"""Objects in object streams (PDF 1.5), as pdfindex reads glyph names from them: one at a
time from the stream's table (pdfindex.extract.adapters.pdfminer._LazyDocument), where
pdfminer.six parses every object of a stream to reach one. pdfminer is the oracle: every
object of a file resolves alike, and the readings of a page's glyphs are the same. qpdf
(Debian's package) writes the object streams."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pdfminer.pdfdocument import PDFDocument
from pdfminer.pdftypes import PDFObjRef, PDFStream

from pdfindex.extract.adapters import pdfminer as adapter
from pdfindex.extract.adapters.pdfium import PdfiumAdapter
from tests import pdfgen
from tests.test_glyphs import LINES

QPDF = shutil.which("qpdf")
pytestmark = pytest.mark.skipif(QPDF is None, reason="qpdf is not installed (apt-get install qpdf)")


def _with_object_streams(source: Path, target: Path, *extra: str) -> Path:
    subprocess.run(
        [QPDF, "--object-streams=generate", *extra, str(source), str(target)],  # type: ignore[list-item]
        check=True,
        capture_output=True,
    )
    return target


def _plain(value: Any) -> Any:
    """An object as comparable data: references by number, streams by their attributes
    and decoded data."""
    if isinstance(value, PDFObjRef):
        return ("ref", value.objid)
    if isinstance(value, PDFStream):
        return ("stream", _plain(value.attrs), value.get_data())
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _every_object(document: PDFDocument) -> dict[int, Any]:
    numbers = {n for xref in document.xrefs for n in xref.get_objids()}
    return {n: _plain(document.getobj(n)) for n in sorted(numbers)}


def _objects(path: Path, lazy: bool) -> tuple[dict[int, Any], int]:
    """Every object of the file, and how many lived in object streams."""
    with open(path, "rb") as handle:
        document = adapter._open_document(handle, lazy=lazy)
        streamed = sum(
            1
            for xref in document.xrefs
            for n in xref.get_objids()
            if xref.get_pos(n)[0] is not None
        )
        return _every_object(document), streamed


@pytest.fixture(scope="module")
def streamed_pdfs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("objstm")
    sources = [
        pdfgen.write_glyph_names_pdf(folder / "glyphs.pdf", LINES),
        pdfgen.write_pdf(folder / "text.pdf", [f"page {n} of many words" for n in range(1, 40)]),
        pdfgen.write_cjk_pdf(folder / "cjk.pdf", ["安定版の説明", "クラスファイル"]),
    ]
    return [_with_object_streams(p, folder / f"streamed-{p.name}") for p in sources]


def test_every_object_resolves_as_pdfminer_resolves_it(streamed_pdfs: list[Path]) -> None:
    for path in streamed_pdfs:
        lazy, streamed = _objects(path, lazy=True)
        whole, _ = _objects(path, lazy=False)
        assert streamed >= 3, path  # the pages, fonts and catalog are in object streams
        assert lazy == whole, path


def test_glyph_names_in_object_streams_read_as_before(streamed_pdfs: list[Path]) -> None:
    """The ligature page of tests/test_glyphs.py, its fonts in object streams: the same
    readings as pdfminer's own parse gives, and the same text as the file without them."""
    streamed = streamed_pdfs[0]
    fonts = ("Times-Roman", "Helvetica", "Courier")  # F1 and F2 are both Times-Roman
    wanted = {0: {(font, code) for font in fonts for code in range(27, 32)}}
    lazy = adapter.glyph_readings(streamed, wanted)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(adapter, "_LazyDocument", PDFDocument)
        whole = adapter.glyph_readings(streamed, wanted)
    assert lazy == whole
    assert any(text for _name, _code, text in lazy[0])  # something was read
    source = streamed.with_name("glyphs.pdf")
    assert PdfiumAdapter().extract(streamed).pages == PdfiumAdapter().extract(source).pages


def test_a_stream_whose_table_misnames_an_object_is_parsed_whole(tmp_path: Path) -> None:
    """A table naming the wrong objects (two numbers swapped in an uncompressed object
    stream): each of those is taken as pdfminer takes it, by its place in the stream."""
    source = pdfgen.write_pdf(tmp_path / "text.pdf", ["one page", "two pages", "three"])
    path = _with_object_streams(source, tmp_path / "streamed.pdf", "--compress-streams=n", "--qdf")
    data = path.read_bytes()
    marker = data.index(b"/Type /ObjStm")
    first = int(re.search(rb"/First (\d+)", data[marker:]).group(1))  # type: ignore[union-attr]
    begin = data.index(b"stream\n", marker) + len(b"stream\n")
    numbers = list(re.finditer(rb"\d+", data[begin : begin + first]))
    one, two = numbers[0], numbers[2]  # the first two objects' numbers
    assert len(one.group()) == len(two.group())
    assert one.group() != two.group()
    edited = bytearray(data)
    edited[begin + one.start() : begin + one.end()] = two.group()
    edited[begin + two.start() : begin + two.end()] = one.group()
    path.write_bytes(bytes(edited))
    calls: list[int] = []
    whole_parse = PDFDocument._getobj_objstm

    def counted(self: PDFDocument, stream: PDFStream, index: int, objid: int) -> object:
        calls.append(objid)
        return whole_parse(self, stream, index, objid)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PDFDocument, "_getobj_objstm", counted)
        lazy, _ = _objects(path, lazy=True)
        taken_whole = len(calls)
    whole, _ = _objects(path, lazy=False)
    assert lazy == whole
    assert taken_whole >= 2  # the two misnamed objects
