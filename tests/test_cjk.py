"""Chinese and Japanese: each character is an index word, so a word inside a run of text
(they write no spaces) is found by every search, exact and ranked, on every engine.

Real PDFs (tests/pdfgen.write_cjk_pdf) through the real index; the exact search is
compared with a brute-force scan of the stored text, and a ranked search for a run must
find every page the exact search finds it on.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pdfindex.api import PdfIndex
from pdfindex.cli import main
from pdfindex.query import Phrase, Term, parse
from pdfindex.search.exact import exact_search
from pdfindex.search.understand import understand
from pdfindex.text.words import cjk_runs, is_cjk, query_words, words
from pdfindex.tools.catalog import search_documents
from pdfindex.tools.exact import search_pdf
from pdfindex.tools.fuzzy import fuzzy_search
from pdfindex.tools.passages import query_documents
from pdfindex.tools.sessions import SessionStore
from tests import pdfgen
from tests.brute import brute_force
from tests.conftest import make_settings

JAPANESE = [
    "LuaTeX-ja の安定版は CTAN から取得できる。\n開発版は master ブランチにある。",
    "日本語用クラスファイルを生成するために、\n以下を実行する必要がある。",
    "縦組みの文書では、々や〆のような記号も\n一文字として扱われる。",
    "設定ファイルを読み込むた\nめに、次のコマンドを使う。",
    "一文目です。二文目です。三文目です。四文目には索引ファイルがある。五文目です。",
]
CHINESE = ["中文检索：稳定版本的文件可以在这里下载。"]
ENGLISH = ["A stable release of the package is on CTAN."]

# Pieces that generated pages are made of: kanji, kana, the iteration mark, punctuation
# that is not a word (・ 。 、), Latin words glued to kana, line breaks.
PIECES = ["安定", "版", "日本語", "の", "クラス", "ファイル", "々", "ー", "・", "。", "、"]
PIECES += ["master", "に", "2", " ", "\n", "-\n", "生成", "する", "文字"]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Iterator[PdfIndex]:
    """Real CJK PDFs and generated ones, one index of this pass's engine."""
    root = tmp_path_factory.mktemp("cjk")
    files = root / "files"
    files.mkdir()
    pdfgen.write_cjk_pdf(files / "ja.pdf", JAPANESE)
    pdfgen.write_cjk_pdf(files / "zh.pdf", CHINESE)
    pdfgen.write_pdf(files / "en.pdf", ENGLISH)
    rng = random.Random(7)
    generated = ["".join(rng.choice(PIECES) for _ in range(40)) for _ in range(12)]
    pdfgen.write_cjk_pdf(files / "generated.pdf", generated)
    index = PdfIndex(make_settings(root, elements=False, ocr=False))
    summary = index.reindex()
    assert summary.failed == 0, summary
    yield index
    index.close()


def test_words_split_cjk_characters_and_keep_other_words() -> None:
    assert words("masterに反映 Straße e.g.") == ["master", "に", "反", "映", "strasse", "e", "g"]
    assert words("한국어 단어") == ["한국어", "단어"]  # Korean spaces its words
    assert query_words("安定版、日本") == ["安定", "定版", "日本"]
    assert query_words("版 word") == ["版", "word"]
    assert cjk_runs("x安定版 y") == [["x"], ["安", "定", "版"], ["y"]]
    assert is_cjk("安定")
    assert is_cjk("ー")
    assert not is_cjk("word")
    assert not is_cjk("한")


def test_a_run_in_a_query_is_a_phrase_of_its_characters() -> None:
    assert parse("安定版") == Phrase(("安", "定", "版"))
    assert parse('"安定版"') == Phrase(("安", "定", "版"))
    long = parse("あ" * 45)  # past MAX_PHRASE_WORDS: phrases that overlap by one character
    assert [len(p.words) for p in long.children] == [20, 20, 7]
    natural = understand("安定版はどこ？")  # pairs, any of them, more of them higher
    assert Phrase(("安", "定")) in natural.children
    assert Term("安") not in natural.children


@pytest.mark.parametrize(
    ("query", "page"),
    [("安定版", 1), ("ブランチ", 1), ("クラスファイル", 2), ("々", 3), ("稳定版本", 1)],
)
def test_a_word_inside_a_run_is_found_by_ranked_and_exact_search(
    library: PdfIndex, query: str, page: int
) -> None:
    slug = "zh" if query == "稳定版本" else "ja"
    _, everywhere = library.search(query, limit=50)
    assert (slug, page) in {(h.slug, h.page) for h in everywhere}
    total, hits = library.search(query, document=slug)
    assert total >= 1
    assert (hits[0].slug, hits[0].page) == (slug, page)
    assert f"**{query}**" in hits[0].snippet
    found = search_pdf(library, slug, query)
    assert found["query_exists"]
    assert found["matches"]


def test_a_word_broken_at_a_line_end_is_found(library: PdfIndex) -> None:
    """Japanese lines end inside words with no hyphen (page 4: 読み込むた / めに): the
    exact search ignores a line break between two CJK characters, and the ranked phrase
    does not see it."""
    assert "た\nめに" in library.engine.page_texts("ja")[3]
    matches, _ = exact_search(library.engine, "読み込むために", slug="ja")
    assert [m.page for m in matches] == [4]
    assert "**読み込むた\nめに**" in search_pdf(library, "ja", "読み込むために")["matches"][0]
    _, hits = library.search("読み込むために", document="ja")
    assert [h.page for h in hits] == [4]
    assert not search_pdf(library, "ja", "読み込むためにに")["query_exists"]


def test_fuzzy_search_finds_cjk_characters_inside_a_line(library: PdfIndex) -> None:
    found = fuzzy_search(library, "安定版", path="ja.pdf")
    first = found["matches"][0]
    assert (first["file"], first["page"]) == ("ja.pdf", 1)
    assert "安定版" in first["content"]


def test_query_documents_cites_the_japanese_sentences_that_answer(
    library: PdfIndex, tmp_path: Path
) -> None:
    """Passages end at 。 (no space follows it), and a passage counts the question's
    pairs of characters; a follow-up in the session keeps the earlier question's pairs."""
    sessions = SessionStore(tmp_path)
    answer = query_documents(library, sessions, "索引ファイルはどこにある？", top_k=1)
    source = answer["sources"][0]
    assert (source["metadata"]["document_id"], source["metadata"]["page"]) == ("ja", 5)
    assert source["content"] == "四文目には索引ファイルがある。五文目です。"
    again = query_documents(library, sessions, "五文目は？", answer["session_id"], top_k=1)
    assert again["status"] == "success"
    assert again["sources"][0]["metadata"]["page"] == 5


def test_a_question_in_japanese_ranks_its_answer_page_first(library: PdfIndex) -> None:
    text = search_documents(library, "クラスファイルを生成するにはどうすればいいですか？")
    first = text.split("[1]", 1)[1].split("\n[2]", 1)[0]
    assert "Page 2" in first
    assert "Document: ja" in first
    assert "**クラスファイルを生成する**" in first  # the pairs marked as one run


def test_the_cli_ranks_a_japanese_question(library: PdfIndex) -> None:
    root = str(library.settings.root)
    question = "日本語用のクラスファイルはどう作りますか？"
    # the module's library, not the test's own database (the postgres pass)
    runner = CliRunner(env={"PDFINDEX_DATABASE_URL": library.settings.database_url})
    result = runner.invoke(main, ["search", "--root", root, question])
    assert result.exit_code == 0, result.output
    assert "ja.pdf  page 2" in result.stdout.splitlines()[0]
    plain = runner.invoke(main, ["search", "--root", root, "安定版"])
    assert plain.exit_code == 0
    assert "ja.pdf  page 1" in plain.stdout


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_exact_search_of_cjk_text_equals_brute_force(
    library: PdfIndex, data: st.DataObject
) -> None:
    """Narrowed by each CJK character of the query (a whole index word); a ranked search
    for a run of CJK characters finds every page the exact search finds it on."""
    texts = library.engine.page_texts("generated")
    page = data.draw(st.integers(1, len(texts)))
    text = texts[page - 1]
    start = data.draw(st.integers(0, len(text) - 1))
    query = text[start : start + data.draw(st.integers(1, 12))]
    assume(query.strip())
    expected = [(n, s) for n, t in enumerate(texts, 1) for s, _ in brute_force(t, query)]
    matches, _ = exact_search(library.engine, query, slug="generated", limit=1000)
    assert [(m.page, m.start) for m in matches] == expected
    run = [w for w in words(query) if is_cjk(w)]
    if run and "".join(run) == query:  # only CJK characters side by side: a phrase
        _, hits = library.search(query, document="generated", limit=50)
        assert {n for n, _ in expected} <= {h.page for h in hits}


def test_a_whoosh_index_written_before_keeps_its_words_and_stays_exact(tmp_path: Path) -> None:
    """An index whose analyzer (kept in it) made runs one word: the exact search does not
    require the query's characters as words there, so it still finds them."""
    import shutil

    legacy = Path(__file__).parent / "data" / "legacy-index-v6"
    shutil.copytree(legacy, tmp_path, dirs_exist_ok=True)
    index = PdfIndex(make_settings(tmp_path, engine="whoosh"))
    try:
        assert index.engine.splits_cjk is False
        record = index.engine.record("notes.pdf")
        assert record is not None
        with index.engine.writer(timeout=5) as writer:
            writer.replace_file(record, ["日本語の安定版"], ["日本語の安定版"])
        assert search_pdf(index, "notes", "安定版")["query_exists"]
    finally:
        index.close()
    fresh = PdfIndex(make_settings(tmp_path / "fresh", engine="whoosh"))
    try:
        assert fresh.engine.splits_cjk is True
    finally:
        fresh.close()
