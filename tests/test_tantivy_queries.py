"""Tantivy's queries read less than they did, with the same answer (issue 30): a broad
prefix alone (more words than SCORED_EXPANSIONS) is ranked by its commonest words and
counted by the prefix apart (compiler.broad_prefix), and a question's coordination bonus
finds a word-or-its-stem's pages from the stem alone (compiler._Compiler.matching): the
same pages, scores and totals as the one query of before, and totals that a scan of the
words finds."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from pdfindex.config import index_settings
from pdfindex.engine import Engine, open_engine
from pdfindex.engine.tantivy import compiler
from pdfindex.engine.tantivy import engine as tantivy_engine
from pdfindex.models import FileRecord
from pdfindex.query import And, Prefix, Term
from pdfindex.text.index import index_text
from pdfindex.text.words import words

# 30 words of one prefix, of unequal frequency: the 16 commonest are scored, the rest
# only match; a page may hold only rare ones (it scores 0 and comes last).
CON = [f"con{chr(97 + n // 26)}{chr(97 + n % 26)}" for n in range(30)]
OTHER = "table figure margin font the of".split()


def _add_files(
    writer: Any, prefix: str, files: list[list[str]], indexed: dict[tuple[str, int], str]
) -> None:
    """Each list of page texts as file `<prefix>NN.pdf`; its pages' index texts noted in
    `indexed` by (path, page)."""
    for n, pages in enumerate(files):
        path, slug = f"{prefix}{n:02d}.pdf", f"{prefix}{n:02d}"
        record = FileRecord(path, slug, "t", len(pages), 1, 0.0, "0", "ok", None, 0, "x")
        texts = [index_text(p) for p in pages]
        writer.add_file(record, pages, texts)
        indexed.update({(path, number): text for number, text in enumerate(texts, 1)})


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Engine, dict[tuple[str, int], str]]:
    rng = random.Random(5)
    folder: Path = tmp_path_factory.mktemp("prefix")
    engine = open_engine(index_settings(folder, "tantivy"))
    indexed: dict[tuple[str, int], str] = {}
    weights = [1.0 / (n + 1) for n in range(len(CON))]
    files = []
    for _ in range(20):
        pages = []
        for _ in range(rng.randint(1, 6)):
            held = rng.choices(CON, weights, k=rng.randint(0, 4))
            if rng.random() < 0.2:
                held = [rng.choice(CON[20:])]  # only a rare one: scored 0
            pages.append(" ".join(held + rng.choices(OTHER, k=rng.randint(1, 40))))
        files.append(pages)
    with engine.writer(timeout=1) as writer:
        _add_files(writer, "d", files, indexed)
    yield engine, indexed
    engine.close()


@pytest.mark.parametrize("limit", [1, 3, 10, 1000])
@pytest.mark.parametrize("query", [Prefix("con"), Prefix("con", boost=2.0), Prefix("conb")])
def test_a_broad_prefix_ranks_as_the_one_query_does(
    library: tuple[Engine, dict[tuple[str, int], str]],
    query: Prefix,
    limit: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine, indexed = library
    got = engine.ranked(query, limit)
    monkeypatch.setattr(tantivy_engine, "broad_prefix", lambda *_args: None)
    want = engine.ranked(query, limit)
    assert got.total == want.total
    assert [(h.path, h.page, h.score) for h in got.hits] == [
        (h.path, h.page, h.score) for h in want.hits
    ]
    assert got.terms == want.terms
    scan = [k for k, text in indexed.items() if any(w.startswith(query.text) for w in words(text))]
    assert got.total == len(scan)
    if limit == 1000 and query.text == "con":  # those holding only unscored words last, at 0
        assert len(got.hits) == len(scan)
        assert got.hits[-1].score == 0


def test_only_a_prefix_alone_of_many_words_is_split(
    library: tuple[Engine, dict[tuple[str, int], str]],
) -> None:
    engine, _ = library
    expand = engine._expander(engine._searcher())  # type: ignore[attr-defined]
    schema = engine._schema  # type: ignore[attr-defined]
    assert len(expand("con", compiler.EXPANSIONS_READ)) > compiler.SCORED_EXPANSIONS
    assert compiler.broad_prefix(Prefix("con"), schema, expand) is not None
    assert compiler.broad_prefix(Prefix("conb"), schema, expand) is None  # few words
    assert compiler.broad_prefix(And((Prefix("con"), Term("table"))), schema, expand) is None


@pytest.mark.parametrize(
    "question",
    [
        "how do I change the table of contents?",
        "font figures and margins of the tables",
        "which conaa or conab fonts",
    ],
)
def test_a_question_counts_its_words_from_their_stems_alone(
    library: tuple[Engine, dict[tuple[str, int], str]],
    question: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A coordination bonus finds a word-or-its-stem's pages from the stem alone
    (compiler._Compiler.matching): the same pages and scores as from both."""
    from pdfindex.search.understand import understand

    engine, _ = library
    tree = understand(question)
    got = engine.ranked(tree, 1000)
    monkeypatch.setattr(compiler._Compiler, "matching", lambda _self, _node, compiled: compiled)
    want = engine.ranked(tree, 1000)
    assert got.total == want.total > 0
    assert [(h.path, h.page, h.score) for h in got.hits] == [
        (h.path, h.page, h.score) for h in want.hits
    ]


def test_the_benchmark_times_each_form(tmp_path: Path) -> None:
    """benchmarks.query_splits runs on an indexed root and reports each query, each way."""
    import subprocess
    import sys

    (tmp_path / "files").mkdir()
    engine = open_engine(index_settings(tmp_path / "index", "tantivy"))
    pages = [" ".join(CON[: n + 1]) + " the page margins of a document" for n in range(20)]
    record = FileRecord("d.pdf", "d", "t", len(pages), 1, 0.0, "0", "ok", None, 0, "x")
    with engine.writer(timeout=1) as writer:
        writer.add_file(record, pages, [index_text(p) for p in pages])
    engine.close()
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.query_splits", str(tmp_path), "--rounds", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ") and "ms" not in line]
    assert [row.split(" | ")[0] for row in rows] == [
        "| prefix `con*`",
        "| question, as the tools read it",
        "| typo `hypenaton~2`",
    ]
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")[1:]]
        assert all(float(cell.split()[0]) > 0 for cell in cells), row


def test_a_prefix_s_regex_is_compiled_once_per_schema(
    library: tuple[Engine, dict[tuple[str, int], str]], tmp_path: Path
) -> None:
    """compiler.prefix_query keeps the compiled regex query of a prefix (0.3 ms of
    `con*`'s 3.5 at 48,000 pages) for the schema it was built for, and the searches it
    answers are the same each time."""
    engine, _indexed = library
    schema = engine._schema  # type: ignore[attr-defined]
    first = compiler.prefix_query(schema, "content", "conb")
    assert compiler.prefix_query(schema, "content", "conb") is first
    assert compiler.prefix_query(schema, "content", "conc") is not first
    other = open_engine(index_settings(tmp_path, "tantivy"))
    try:
        assert compiler.prefix_query(other._schema, "content", "conb") is not first  # type: ignore[attr-defined]
    finally:
        other.close()
    assert engine.ranked(Prefix("conb"), 5) == engine.ranked(Prefix("conb"), 5)


UNICODE_WORDS = (
    "con constant co c café cafés ça ÇA straße strasse éclair 安定版 安 x1 x_y 2024 z".split()
)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Engine, dict[tuple[str, int], str]]:
    """Pages of words of 1 to 8 characters, accented, casefolded to other lengths (ß), CJK,
    digits: the head field's terms against a scan."""
    rng = random.Random(11)
    folder: Path = tmp_path_factory.mktemp("heads")
    engine = open_engine(index_settings(folder, "tantivy"))
    indexed: dict[tuple[str, int], str] = {}
    files = [
        [
            " ".join(rng.choices(UNICODE_WORDS + OTHER, k=rng.randint(0, 12)))
            for _ in range(rng.randint(1, 5))
        ]
        for _ in range(12)
    ]
    with engine.writer(timeout=1) as writer:
        _add_files(writer, "m", files, indexed)
        writer.remove_file("m03.pdf")  # deleted pages are not counted
    indexed = {key: text for key, text in indexed.items() if key[0] != "m03.pdf"}
    yield engine, indexed
    engine.close()


@pytest.mark.parametrize(
    "prefix",
    ["c", "co", "con", "cons", "ca", "ç", "st", "str", "stra", "é", "安", "x", "x_", "2", "t", "q"],
)
def test_a_short_prefix_counts_its_pages_from_one_head_term(
    mixed: tuple[Engine, dict[tuple[str, int], str]], prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A prefix of HEAD characters or fewer matches the pages of one term of the head
    field (schema.HEAD_FIELD): the pages a scan of the words finds, and those the regex
    over the words matched, alone and inside a boolean query."""
    engine, indexed = mixed
    scan = {k for k, text in indexed.items() if any(w.startswith(prefix) for w in words(text))}
    alone = engine.ranked(Prefix(prefix), 1000)
    both = engine.ranked(And((Prefix(prefix), Term("the"))), 1000)
    assert alone.total == len(scan)
    assert {(h.path, h.page) for h in alone.hits} == scan
    monkeypatch.setattr(compiler, "HEAD", 0)  # every prefix by the regex over the words
    for got, query in ((alone, Prefix(prefix)), (both, And((Prefix(prefix), Term("the"))))):
        want = engine.ranked(query, 1000)
        assert got.total == want.total
        assert [(h.path, h.page, h.score) for h in got.hits] == [
            (h.path, h.page, h.score) for h in want.hits
        ]
