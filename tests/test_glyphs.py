"""Ligatures a font names in its own way (issue 28 item 5): pypdfium2 hands back the bare
code (`de\\x1bnition`) for TeX's `/f_i`, `/f_f_l`, ... without ToUnicode; pdfindex reads
those glyphs by the font's own names, never by a guessed table."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks.extraction_vs_pdftotext import classify, words
from pdfindex.api import PdfIndex
from pdfindex.extract.adapters.pdfium import PdfiumAdapter
from pdfindex.extract.glyphs import resolve
from pdfindex.search.exact import exact_search
from tests import pdfgen
from tests.conftest import make_settings

REPO = Path(__file__).resolve().parents[1]
# F1: 27 fi, 28 ffi, 29 ff, 30 fl; F2 (the same base font): 27 ffl; F3: 27 ff, 28 fi,
# 29 fl; F4: 27 fi, 28 ffi, 29 ff, whose ToUnicode maps them to nothing
LINES = (
    ("F1", b"the de\x1bnition \x1ble of the o\x1cce"),
    ("F2", b"a wa\x1be for breakfast"),
    ("F3", b"o\x1b the \x1crst \x1cgure"),
    ("F1", b"a bu\x1der and a \x1eow"),
    ("F1", b"an un\x1fnamed code"),  # 31: no name in F1 (nor in its base encoding)
    ("F4", b"the o\x1cce \x1bles su\x1cce"),  # ToUnicode maps 27-29 to nothing
)


@pytest.fixture(scope="module")
def glyph_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return pdfgen.write_glyph_names_pdf(tmp_path_factory.mktemp("glyphs") / "tex.pdf", LINES)


@pytest.fixture(scope="module")
def page(glyph_pdf: Path) -> str:
    return PdfiumAdapter().extract(glyph_pdf).pages[0]


@pytest.mark.parametrize(
    "words",
    [
        "the definition file of the office",  # F1's 27 is fi, its 28 ffi
        "a waffle for breakfast",  # F2 shares F1's base font: its own 27 is ffl
        "off the first figure",  # F3's 27 is ff (T1's order), its 28 fi
        "a buffer and a flow",
        "the office files suffice",  # an empty ToUnicode entry: the encoding's name
    ],
)
def test_each_ligature_reads_as_its_font_names_it(page: str, words: str) -> None:
    assert words in page.splitlines()


@pytest.mark.parametrize("wrong", ["deffnition", "ffle", "waffe", "ffrst", "ffgure", "unfflnamed"])
def test_no_code_is_read_by_a_fixed_table(page: str, wrong: str) -> None:
    assert wrong not in page.split()


def test_a_page_whose_font_names_are_unambiguous_reads_alike(tmp_path: Path) -> None:
    """No two fonts of one name read a code apart: the fonts' tables alone are read."""
    lines = [line for line in LINES if line[0] in ("F3", "F4")]
    pdf = pdfgen.write_glyph_names_pdf(tmp_path / "tables.pdf", lines)
    page = PdfiumAdapter().extract(pdf).pages[0]
    assert page.splitlines() == ["off the first figure", "the office files suffice"]


def test_a_glyph_no_font_names_is_dropped_not_guessed(page: str) -> None:
    assert "an unnamed code" in page.splitlines()


def test_no_control_code_is_stored(page: str) -> None:
    assert not [c for c in page if ord(c) < 32 and c != "\n"]


def test_the_reading_is_the_fixed_extractor_version() -> None:
    assert "+glyphs-" in PdfiumAdapter().version


def test_resolve_pairs_each_glyph_with_its_own_reading() -> None:
    glyphs = [("Lin", 27), ("Lin", 27)]
    readings = [("Lin", 27, "fi"), ("Other", 27, "ff"), ("Lin", 27, "ffl")]
    assert resolve("de\x1bnition wa\x1be", glyphs, readings) == "definition waffle"


def test_resolve_without_twins_takes_only_readings_that_agree() -> None:
    glyphs = [("Lin", 27), ("Lin", 28)]
    readings = [("Lin", 28, "fl"), ("Lin", 27, "fi"), ("Lin", 27, "ff")]  # 27: fi or ff?
    assert resolve("a\x1bb\x1cc", glyphs, readings) == "a\x1bbflc"


def test_resolve_never_takes_a_reading_that_is_a_code_itself() -> None:
    assert resolve("x\ue001y", [("F", 0xE001)], [("F", 0xE001, "\ue001")]) == "x\ue001y"


def test_an_index_finds_the_words_and_not_the_misreadings(tmp_path: Path, glyph_pdf: Path) -> None:
    settings = make_settings(tmp_path)
    (tmp_path / "files" / "tex.pdf").write_bytes(glyph_pdf.read_bytes())
    index = PdfIndex(settings)
    try:
        index.reindex()
        found, _ = exact_search(index.engine, "definition file", limit=10, context_length=0)
        wrong, _ = exact_search(index.engine, "deffnition", limit=10, context_length=0)
    finally:
        index.close()
    assert [(m.path, m.page) for m in found] == [("tex.pdf", 1)]
    assert wrong == []


def test_a_file_read_by_an_older_extractor_version_is_read_again(
    tmp_path: Path, glyph_pdf: Path
) -> None:
    """An index built before the fix holds `deffnition`: the next reindex re-reads the
    files its pypdfium2 reader read (the version names the fix), once."""
    settings = make_settings(tmp_path, ocr=False)
    (tmp_path / "files" / "tex.pdf").write_bytes(glyph_pdf.read_bytes())
    (tmp_path / "files" / "failed.pdf").write_bytes(glyph_pdf.read_bytes()[:200])
    index = PdfIndex(settings)
    try:
        index.reindex()
        catalog = index.engine.catalog()
        with index.engine.writer(timeout=5) as writer:
            old = catalog["tex.pdf"].extractor.partition("+")[0]  # "pypdfium2-5.15.2"
            writer.replace_record(replace(catalog["tex.pdf"], extractor=old))
            # a failure the pool reported names no version: never read again for that
            writer.replace_record(replace(catalog["failed.pdf"], extractor="pdfium"))
        shutil.rmtree(settings.index_dir / "cache")  # its entries were under the old version
        again = index.reindex()
        after = index.reindex()
    finally:
        index.close()
    assert again.parsed_paths == ["tex.pdf"]
    assert after.parsed == 0


def test_the_pdftotext_comparison_agrees_on_the_ligature_page(
    tmp_path: Path, glyph_pdf: Path
) -> None:
    """The committed benchmark, run as a user runs it: pdftotext reads the same words."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "tex.pdf").write_bytes(glyph_pdf.read_bytes())
    command = [sys.executable, "-m", "benchmarks.extraction_vs_pdftotext", "--corpus"]
    command += [str(corpus), "--out", str(tmp_path), "--name", "run", "--workers", "1"]
    subprocess.run(command, check=True, capture_output=True, cwd=REPO)
    result = json.loads((tmp_path / "run.json").read_text())
    assert (result["pages_compared"], result["pages_differing"]) == (1, 0)
    assert result["watched"]["deffnition"] == {"files": 0, "pages": 0}


@pytest.mark.parametrize(
    ("ours", "theirs", "cause"),
    [
        (
            "the deffnition of a ffrst ffgure here",
            "the definition of a first figure here",
            "ligature/PUA",
        ),
        (
            "the denition of a rst gure here",
            "the definition of a first figure here",
            "ligature/PUA",
        ),
        ("we are writ-\ning and read-\ning it", "we are writing and reading it", "hyphenation"),
        ("theword andthe rest isgood", "the word and the rest is good", "spacing/columns"),
        ("Universitat fur Munchen", "Universität für München", "accents/encoding"),
        (
            "chemformula is here and there again",
            "chemfo r m u l a is here and there again",
            "spacing/columns",
        ),
        ("ルビ文字列 と 親文字 a b c d e f", "a b c d e f", "CJK text"),
        ("1941 x 1942 y 1943 z a b c d", "x y z a b c d", "numbers"),
        ("", "a page only pdftotext reads", "missing text (pdfindex)"),
    ],
)
def test_the_comparison_names_the_cause(ours: str, theirs: str, cause: str) -> None:
    found, _explained = classify(words(ours), words(theirs), ours, theirs)
    assert found == cause
