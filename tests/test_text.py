"""Stored text quality (issue 12, point 9): LF line ends, TeX's detached accents put back on
their letters, no control bytes in text or titles, a language guess that knows scripts,
and cached text made under older rules cleaned when it is read."""

from __future__ import annotations

import gzip
import json
import re
import unicodedata
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from fpdf import FPDF
from hypothesis import given, settings
from hypothesis import strategies as st

from pdfindex.api import PdfIndex
from pdfindex.extract.adapters import get_adapter
from pdfindex.extract.adapters.base import Extraction
from pdfindex.extract.cache import ExtractionCache
from pdfindex.extract.text import TEXT_VERSION, normalize_text
from pdfindex.text.language import _SCRIPTS, _script_counts, guess_language
from pdfindex.text.stopwords import STOP_WORDS
from pdfindex.tools.exact import search_pdf
from tests.brute import brute_force
from tests.conftest import make_settings
from tests.pdfgen import FIXED_DATE, find_unicode_font, write_differences_pdf

# Runs of text and (accent, letter) pairs drawn TeX's way: the accent glyph first, over
# the letter, without advancing.
TEX_LINES = [
    ["Institut f", ("¨", "u"), "r Physik, Universit", ("¨", "a"), "t Rostock"],
    [
        "Fran",
        ("¸", "c"),
        "ais, Stefanovi",
        ("´", "c"),
        ", Se",
        ("˜", "n"),
        "orita, Uro",
        ("ˇ", "s"),
    ],
    ["H", ("`", "a"), "n Th", ("´", "ê"), " Th", ("`", "a"), "nh, r", ("ˆ", "o"), "le"],
    ["code: x^y a~b, a lone ¨ accent, q\u0307 in maths"],
]
TEX_WORDS = ["für", "Universität", "Français", "Stefanović", "Señorita", "Uroš", "Hàn Thế Thành"]


def write_tex_like_pdf(path: Path, title: str = "Maaj\x96 Titel\r\nzwei") -> Path:
    """A real PDF whose accents are separate glyphs placed over their letters, as TeX's
    \\accent makes them; its title carries a control byte and a line break."""
    pdf = FPDF(unit="pt")
    pdf.set_creation_date(FIXED_DATE)
    pdf.add_font("Body", fname=str(find_unicode_font()))
    pdf.set_font("Body", size=11)
    pdf.set_title(title)
    pdf.add_page()
    for row, parts in enumerate(TEX_LINES):
        x, y = 56.0, 80.0 + 20 * row
        for part in parts:
            if isinstance(part, str):
                pdf.text(x, y, part)
                x += pdf.get_string_width(part)
                continue
            accent, letter = part
            width = pdf.get_string_width(letter)
            pdf.text(x + (width - pdf.get_string_width(accent)) / 2, y, accent)
            pdf.text(x, y, letter)
            x += width
    path.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(path))
    return path


# -- the rules ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        ("Universit¨at", "Universität"),  # pdfium on TeX: the accent before its letter
        ("Universit \u0308at", "Universität"),  # the same after NFKC (old caches)
        ("Universita\u00a8t fu\u00a8r", "Universität für"),  # the accent after its letter
        ("Fran¸cais Stefanovi´c", "Français Stefanović"),
        ("Th´ˆe H`an el`eve", "Thế Hàn elève"),  # stacked (Vietnamese), backquote grave
        ("F´ısica na¨ıve", "Física naïve"),  # TeX's dotless \i under an accent
        ("Se˜norita Uroˇs Hˆotel ˚A", "Señorita Uroš Hôtel Å"),
        ("line one\r\nline two\rthree", "line one\nline two\nthree"),
        # a bare code is never guessed to be a ligature (27 is ff in T1, fi in others)
        ("de\x1bnition o\x1b \x1b[31m", "denition o [31m"),
        ("Maaj\x96\x00\x7f", "Maaj"),  # C0 and C1 controls
        ("ﬁnancial ﬂow", "financial flow"),  # NFKC ligatures stay folded
    ],
)
def test_normalize_text_repairs(raw: str, stored: str) -> None:
    assert normalize_text(raw) == stored


@pytest.mark.parametrize(
    "text",
    [
        "x^y a~b Fig.~1 `quote' code`\\no",  # ASCII ^ ~ ` in code and maths
        "a lone ¨ accent, (\u0308), and Julich ¨\nnext",  # lone accents and marks
        "q\u0307 and x\u0301",  # an accent over a letter with no precomposed form
        "Ελληνικά ά ὰ ᾶ, Русский, 日本語のテキスト, עברית, العربية",  # other scripts
        "Tiếng Việt có dấu: người, được, Thế",  # Vietnamese, precomposed
        "tab\tand\nline feed stay",
    ],
)
def test_normalize_text_leaves_legitimate_text(text: str) -> None:
    assert normalize_text(text) == unicodedata.normalize("NFKC", text)


TEXTS = st.text(
    alphabet=st.sampled_from(
        list("aeiouncstzAEU ı\n\r\t`^~.,")
        + list("¨´¸¯˘˙˚˛˜˝ˆˇ")
        + ["\u0308", "\u0301", "\u0302", "ä", "é", "ế", "\x02", "\x1c", "\x96", "\u00a0"]
    ),
    max_size=40,
)


@settings(max_examples=400, deadline=None)
@given(text=TEXTS)
def test_normalize_text_is_stable_and_repairs_old_cached_text(text: str) -> None:
    """Normalising twice changes nothing (stored text is final), and text cached under
    the old rule (NFKC alone) comes out as if extracted today."""
    once = normalize_text(text)
    assert normalize_text(once) == once
    assert normalize_text(unicodedata.normalize("NFKC", text)) == once
    assert "\r" not in once


# -- real PDFs through both extractors --------------------------------------------------


@pytest.mark.parametrize("engine", ["pdfium", "pdfminer"])
def test_extractors_reattach_tex_accents(tmp_path: Path, engine: str) -> None:
    path = write_tex_like_pdf(tmp_path / "tex.pdf")
    raw = _raw_pdfium_text(path)
    assert "Universität" not in unicodedata.normalize("NFKC", raw)  # the problem is real
    extraction = get_adapter(engine).extract(path)
    (page,) = extraction.pages
    for word in TEX_WORDS:
        assert word in page, (word, page)
    assert "rôle" in page
    assert "x^y a~b" in page
    assert "q\u0307" in page
    assert "\r" not in page
    assert extraction.metadata["title"] == "Maaj Titel zwei"


@pytest.mark.parametrize("engine", ["pdfium", "pdfminer"])
def test_a_page_with_characters_beyond_the_bmp_is_read_to_its_end(
    tmp_path: Path, engine: str
) -> None:
    # pypdfium2's get_text_bounded counted its buffer in characters and filled it in UTF-16
    # units: such a page lost one character at its end for each of those (its page number).
    path = write_differences_pdf(
        tmp_path / "math.pdf", "65 /u1D538 66 /u1D539", [b"Let A and B be sets.", b"page 417"]
    )
    (page,) = get_adapter(engine).extract(path).pages
    # Stored text is NFKC: the double-struck letters are kept as plain ones.
    assert page.strip().splitlines() == ["Let A and B be sets.", "page 417"]
    assert "\U0001d538" in _raw_pdfium_text(path)  # the characters are beyond the BMP


def _raw_pdfium_text(path: Path) -> str:
    pdf = pdfium.PdfDocument(str(path))
    try:
        textpage = pdf[0].get_textpage()
        return textpage.get_text_bounded()
    finally:
        pdf.close()


# -- through the index ------------------------------------------------------------------


@pytest.fixture
def text_index(tmp_path: Path) -> PdfIndex:
    files = tmp_path / "files"
    write_tex_like_pdf(files / "tex.pdf")
    (files / "manual-ja.txt").write_text(
        "このマニュアルでは、インストールの方法と設定ファイルの書き方を説明します。"
        "TeX と LaTeX の基本的な使い方も紹介します。\r\n" * 4,
        encoding="utf-8",
    )
    (files / "windows.txt").write_text("first line\r\nsecond line\rthird\r\n", encoding="utf-8")
    index = PdfIndex(make_settings(tmp_path))
    index.reindex()
    return index


def test_search_finds_reattached_accents_as_typed(text_index: PdfIndex) -> None:
    """Composed, decomposed and NFKD queries all find the composed stored text, and the
    answer equals a brute-force scan of the stored text."""
    _, pages = text_index.page_texts("tex")
    stored = pages[0][1]
    for query in ("Universität", "Universita\u0308t", unicodedata.normalize("NFKD", "Thế")):
        result = search_pdf(text_index, "tex", query)
        assert result["query_exists"], query
        matches, _ = text_index.exact(query, document="tex", limit=100, context_length=0)
        assert [m.start for m in matches] == [s for s, _ in brute_force(stored, query)]
    total, hits = text_index.search("Universität Stefanović")
    assert total == 1
    assert hits[0].path == "tex.pdf"
    assert not search_pdf(text_index, "tex", "Universit \u0308at")["query_exists"]
    text_index.close()


def test_stored_text_and_catalog_are_clean(text_index: PdfIndex) -> None:
    _, pages = text_index.page_texts("windows")
    assert pages[0][1].startswith("first line\nsecond line\nthird")
    record = text_index.find_record("tex")
    assert record.title == "Maaj Titel zwei"
    assert text_index.find_record("manual-ja").language == "ja"
    text_index.close()


def test_old_cache_entries_are_renormalised_without_parsing(tmp_path: Path) -> None:
    """An index whose cache holds text made by the old rule (NFKC only, CRLF, controls)
    gets today's text from a rebuild that parses nothing; the entry is rewritten once."""
    files = tmp_path / "files"
    write_tex_like_pdf(files / "tex.pdf")
    index = PdfIndex(make_settings(tmp_path))
    index.reindex()
    entries = [
        p for p in (tmp_path / "index" / "cache").rglob("*.json.gz") if "elements" not in p.name
    ]
    assert len(entries) == 1
    data = json.loads(gzip.decompress(entries[0].read_bytes()))
    assert data["text_version"] == TEXT_VERSION
    data.pop("text_version")
    data["pages"] = ["Universit \u0308at and fu \u0308r\r\nnext line\x02"]  # the old rule's text
    data["metadata"]["title"] = "Maaj\x96 Titel\r\nzwei"
    entries[0].write_bytes(gzip.compress(json.dumps(data).encode()))

    summary = index.reindex(full=True)
    assert summary.parsed == 0
    assert summary.from_cache == 1
    _, pages = index.page_texts("tex")
    assert pages[0][1] == "Universität and für\nnext line"
    assert index.find_record("tex").title == "Maaj Titel zwei"
    rewritten = json.loads(gzip.decompress(entries[0].read_bytes()))
    assert rewritten["text_version"] == TEXT_VERSION
    assert rewritten["pages"] == ["Universität and für\nnext line"]
    index.close()


def test_cache_get_renormalises_elements_and_keeps_version(tmp_path: Path) -> None:
    cache = ExtractionCache(tmp_path)
    old = Extraction(
        status="ok",
        elements=[
            {
                "label": "Table 1",
                "caption": "Gr \u0308oße",
                "context": "x\r\ny",
                "cells": [["f \u0308ur"]],
            }
        ],
    )
    cache.put("ab" * 32, "elements-1", old)
    target = next(tmp_path.rglob("*.json.gz"))
    data = json.loads(gzip.decompress(target.read_bytes()))
    data.pop("text_version")
    target.write_bytes(gzip.compress(json.dumps(data).encode()))
    element = cache.get("ab" * 32, "elements-1").elements[0]
    assert element["caption"] == "Größe"
    assert element["context"] == "x\ny"
    assert element["cells"] == [["für"]]


# -- language -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("The package provides a command for the layout of tables and figures in the text.", "en"),
        (
            "Das Paket stellt einen Befehl für die Tabellen und die Abbildungen "
            "in dem Text zur Verfügung.",
            "de",
        ),
        (
            "Le paquet fournit une commande pour la mise en page des tableaux "
            "et des figures dans le texte.",
            "fr",
        ),
        (
            "El paquete ofrece una orden para la composición de las tablas "
            "y de las figuras en el texto.",
            "es",
        ),
        (
            "Pakiet dostarcza polecenie do składu tabel i rysunków, "
            "które nie jest trudne w użyciu, ale to się opłaca.",
            "pl",
        ),
        (
            "このマニュアルでは、インストールの方法と設定ファイルの書き方を"
            "説明します。TeX and LaTeX usage.",
            "ja",
        ),
        ("本手册介绍如何安装软件以及如何编写配置文件。这是一个用于排版的宏包的说明文档。", "zh"),
        ("이 설명서는 소프트웨어 설치 방법과 구성 파일 작성 방법을 설명합니다.", "ko"),
        (
            "Этот пакет предназначен для набора таблиц и рисунков в тексте, "
            "и он не требует настройки.",
            "ru",
        ),
        (
            "Το πακέτο παρέχει μια εντολή για τη στοιχειοθεσία πινάκων και σχημάτων στο κείμενο.",
            "el",
        ),
        ("هذه الحزمة توفر أمرا لتنسيق الجداول والأشكال في النص الذي يكتبه المستخدم.", "ar"),
        ("החבילה הזאת מספקת פקודה לעימוד טבלאות ואיורים בתוך הטקסט של המשתמש.", "he"),
        ("x = 1", "unknown"),
        ("∑ ∫ ≤ ≥ 1 2 3 4 5 6 7 8 9 0 + − × ÷ = ≠ ≈ ∞ √ ∂ ∇ ∈ ∉ ⊂ ⊃ ∪ ∩", "unknown"),
    ],
)
def test_guess_language(text: str, code: str) -> None:
    assert guess_language(text) == code


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="aZé ñ\nдЖاשกकაԱ日本カナ한ΩΣ\u1e00\u00d7\u2028", max_size=60))
def test_each_writing_system_is_counted_letter_by_letter(text: str) -> None:
    """The language guess counts a system's letters by runs, and only through text holding
    one of them: the counts of one match per letter."""
    expected = {name: len(re.findall(f"[{chars}]", text)) for name, chars in _SCRIPTS.items()}
    assert _script_counts(text) == expected


def test_question_stop_words_are_unchanged() -> None:
    """The words a question drops before ranked retrieval (tools/passages.py) stay the
    seven languages they were: more languages must not change ranking."""
    assert {"the", "und", "les", "los", "della", "het", "não"} <= STOP_WORDS
    assert not {"się", "och", "että", "ve", "và"} & STOP_WORDS
    assert len(STOP_WORDS) == 98


JOIN_PIECES = ["ab", "x_1", "日本", "é", "42", "-", "\u00ad", "\u2010", "\n", "\r\n", " ", "\t"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([*JOIN_PIECES, ".", "--"]), max_size=60))
def test_joinable_finds_what_the_joinable_regex_finds(pieces: list[str]) -> None:
    """Line-end hyphenated words found from the hyphens (issue 30) are JOINABLE's own
    matches, at the same places."""
    from pdfindex.text.index import JOINABLE, joinable

    text = "".join(pieces)
    expected = [(m.start(), m.end()) for m in JOINABLE.finditer(text)]
    assert [(m.start(), m.end()) for m in joinable(text)] == expected


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=80))
def test_ascii_pages_split_into_the_words_of_the_general_split(text: str) -> None:
    """ASCII text is split by \\w runs over the text lowered at once (issue 30): the same
    words, places and sets as the split that keeps CJK characters apart."""
    from pdfindex.text import words as w

    general = [(m.group().casefold(), m.start(), m.end()) for m in w._WORD.finditer(text)]
    assert w.word_spans(text) == general
    assert w.words(text) == [word for word, _, _ in general]
    assert w.word_set([text, text.upper()]) == {word for word, _, _ in general}


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["load", "loading", "reload", "famili", "x_load", "é", " ", "-"])),
    st.sets(st.sampled_from(["load", "famili", "reload", "é"]), min_size=1),
)
def test_stem_candidates_are_the_words_a_word_boundary_regex_finds(
    pieces: list[str], stems: set[str]
) -> None:
    """Words starting as a stem does, found without a leading \\b (issue 30)."""
    import re

    from pdfindex.text.words import stem_candidates

    text = "".join(pieces)
    starts = sorted({stem[:-1] or stem for stem in stems}, key=len, reverse=True)
    bounded = re.compile(r"\b(?:" + "|".join(map(re.escape, starts)) + r")\w*")
    assert stem_candidates([text], stems) == sorted(set(bounded.findall(text.casefold())))
