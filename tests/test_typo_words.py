"""A typo's words found from the vocabulary's character pairs (issue 30): exactly the
words a comparison with every word of a near length finds, and on the Tantivy engine
exactly the pages, scores and totals its own automaton gives; built in a thread by a
process that goes on answering, never by one that answers once."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from pdfindex.config import index_settings
from pdfindex.engine import Engine, open_engine
from pdfindex.engine import vocabulary as vocabulary_module
from pdfindex.engine.vocabulary import GenerationCache, Vocabulary, within
from pdfindex.memory import one_shot
from pdfindex.models import FileRecord
from pdfindex.query import Fuzzy
from pdfindex.text.index import index_text

# Few letters, so that words have many neighbours; ß, a Greek and a Japanese letter, a
# letter outside the Basic Multilingual Plane (4 bytes in UTF-8) and a combining mark.
LETTERS = "abcdeß" + "\u03b1" + "\u30af" + "\U0001d465" + "\u0301"
word_text = st.text(alphabet=LETTERS, min_size=1, max_size=9)


def scanned(words: list[str], word: str, maxdist: int) -> list[str]:
    near = [w for w in words if abs(len(w) - len(word)) <= maxdist]
    return within(near, word, maxdist)


@settings(max_examples=150, deadline=None)
# Transpositions break the most pairs an edit can: three (xaby -> xbay).
@example(words=["abcdef", "abcdeg"], word="acbdef", maxdist=1, narrowed=True, folded=False)
@example(words=["abcdefgh"], word="acbdegfh", maxdist=2, narrowed=True, folded=False)
@example(words=["abcdefgh"], word="acbdegfh", maxdist=2, narrowed=True, folded=True)
@given(
    words=st.lists(word_text, min_size=0, max_size=300, unique=True),
    word=word_text,
    maxdist=st.sampled_from([1, 2, 3]),
    narrowed=st.booleans(),
    folded=st.booleans(),
)
def test_a_typos_words_are_those_a_scan_finds(
    words: list[str], word: str, maxdist: int, narrowed: bool, folded: bool
) -> None:
    """Narrowed by the words' character pairs (a lasting process) or not (one-shot).
    Folded: the pairs' keys squeezed into 14 bits (as past 4 million words, here far
    more often) share keys, which may only add words to compare."""
    original = vocabulary_module.MIN_OWNER_BITS
    vocabulary_module.MIN_OWNER_BITS = 50 if folded else original
    try:
        vocabulary = Vocabulary(words, narrowed=narrowed)
    finally:
        vocabulary_module.MIN_OWNER_BITS = original
    assert len(vocabulary) == len(words)
    assert vocabulary.within(word, maxdist) == scanned(words, word, maxdist)


def test_the_pairs_narrow_a_long_word_to_few_comparisons(monkeypatch: pytest.MonkeyPatch) -> None:
    """What makes it fast: among 20,000 random words, a typo of one of them is compared
    with a handful, and the answer is still the scan's."""
    rng = random.Random(3)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = sorted({"".join(rng.choices(letters, k=rng.randint(4, 14))) for _ in range(20_000)})
    vocabulary = Vocabulary(words, narrowed=True)
    compared: list[int] = []
    real_within = vocabulary_module.within

    def counting(candidates: list[str], word: str, maxdist: int) -> list[str]:
        compared.append(len(candidates))
        return real_within(candidates, word, maxdist)

    monkeypatch.setattr(vocabulary_module, "within", counting)
    for word in rng.sample(words, 30):
        typo = word[:2] + word[3:] + "j"  # a deletion and an insertion
        assert vocabulary.within(typo, 2) == real_within(
            [w for w in words if abs(len(w) - len(typo)) <= 2], typo, 2
        )
    near_length = sum(1 for w in words if abs(len(w) - 9) <= 2)  # typical: 6,500
    assert sorted(compared)[len(compared) // 2] < near_length / 20


# -- the Tantivy engine: the vocabulary's words match as its automaton does ------------


SYLLABLES = ["ka", "ko", "ke", "ta", "to", "ra", "ri", "ro", "sa", "su", "na"]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Engine, list[str]]]:
    """Pages of words of a few syllables (many typos of one another), one file of them
    deleted: its words stay in the vocabulary, and match no page either way."""
    rng = random.Random(7)
    vocabulary = sorted({"".join(rng.choices(SYLLABLES, k=rng.randint(1, 4))) for _ in range(900)})
    engine = open_engine(index_settings(tmp_path_factory.mktemp("typos"), "tantivy"))
    with engine.writer(timeout=1) as writer:
        for n in range(25):
            pages = [
                " ".join(rng.choices(vocabulary, k=rng.randint(5, 60)))
                for _ in range(rng.randint(1, 5))
            ]
            path = f"d{n:02d}.pdf"
            record = FileRecord(path, f"d{n:02d}", "t", len(pages), 1, 0.0, "0", "ok", None, 0, "x")
            writer.add_file(record, pages, [index_text(p) for p in pages])
    with engine.writer(timeout=1) as writer:
        writer.remove_file("d03.pdf")
    yield engine, vocabulary
    engine.close()


def ranked_both_ways(engine: Engine, query: Fuzzy, limit: int) -> tuple[object, object]:
    """The ranking with the vocabulary's words, and with Tantivy's automaton."""
    searcher = engine._searcher()  # type: ignore[attr-defined]
    generation = engine._generation()  # type: ignore[attr-defined]
    engine._vocabulary.get(searcher, generation)  # type: ignore[attr-defined]
    with_words = engine.ranked(query, limit)
    typos = engine._typos  # type: ignore[attr-defined]
    engine._typos = lambda *_args: lambda _word, _distance: None  # type: ignore[attr-defined]
    try:
        with_automaton = engine.ranked(query, limit)
    finally:
        engine._typos = typos  # type: ignore[attr-defined]
    return with_words, with_automaton


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data(), distance=st.sampled_from([1, 2]), limit=st.sampled_from([1, 10, 500]))
def test_a_typo_ranks_from_its_words_as_from_the_automaton(
    library: tuple[Engine, list[str]], data: st.DataObject, distance: int, limit: int
) -> None:
    engine, vocabulary = library
    word = list(data.draw(st.sampled_from(vocabulary)))
    for _ in range(data.draw(st.integers(0, 2))):
        at = data.draw(st.integers(0, len(word)))
        letter = data.draw(st.sampled_from("aknorstu"))
        edit = data.draw(st.sampled_from(["insert", "delete", "replace", "swap"]))
        if edit == "insert":
            word.insert(at, letter)
        elif edit == "delete" and len(word) > 1:
            del word[min(at, len(word) - 1)]
        elif edit == "replace":
            word[min(at, len(word) - 1)] = letter
        elif at + 1 < len(word):
            word[at], word[at + 1] = word[at + 1], word[at]
    query = Fuzzy("".join(word), distance)
    assume(len(query.text) > 1)
    got, want = ranked_both_ways(engine, query, limit)
    assert got.total == want.total  # type: ignore[attr-defined]
    assert [(h.path, h.page, h.score) for h in got.hits] == [  # type: ignore[attr-defined]
        (h.path, h.page, h.score)
        for h in want.hits  # type: ignore[attr-defined]
    ]
    assert want.terms <= got.terms  # type: ignore[attr-defined]
    assert all(h.path != "d03.pdf" for h in got.hits)  # type: ignore[attr-defined]


def test_a_lasting_process_reads_the_vocabulary_in_a_thread(
    library: tuple[Engine, list[str]],
) -> None:
    """The first typo of a commit is answered by the automaton while a thread reads the
    vocabulary; the answers after it come from the vocabulary, the same."""
    engine, vocabulary = library
    cache = GenerationCache(engine._vocabulary._compute)  # type: ignore[attr-defined]
    engine._vocabulary, kept = cache, engine._vocabulary  # type: ignore[attr-defined]
    try:
        query = Fuzzy(vocabulary[100] + "a", 1)
        first = engine.ranked(query, 10)
        deadline = time.monotonic() + 30
        while cache._held[0] < 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert cache._held[0] == engine._generation()  # type: ignore[attr-defined]
        later = engine.ranked(query, 10)
        assert (later.total, later.hits) == (first.total, first.hits)
        assert set(cache._held[1].within(query.text, 1)) <= later.terms  # its words marked
    finally:
        engine._vocabulary = kept  # type: ignore[attr-defined]


def test_a_process_that_answers_once_never_reads_it() -> None:
    computed: list[int] = []
    cache = GenerationCache(lambda source: computed.append(source) or source)
    with one_shot():
        assert cache.ready(5, generation=1) is None
    time.sleep(0.05)
    assert computed == []
    assert cache.ready(5, generation=1) is None  # lasting: started in a thread
    for _ in range(500):
        if cache.ready(5, generation=1) is not None:
            break
        time.sleep(0.01)
    assert cache.ready(5, generation=1) == 5
    assert computed == [5]
    assert cache.ready(6, generation=-1) is None  # no generation: nothing to keep


def test_one_thread_at_a_time_computes_it() -> None:
    release = threading.Event()
    computed: list[int] = []

    def slow(source: int) -> int:
        computed.append(source)
        release.wait(10)
        return source

    cache = GenerationCache(slow)
    for _ in range(5):
        assert cache.ready(1, generation=1) is None
    release.set()
    for _ in range(500):
        if cache.ready(1, generation=1) is not None:
            break
        time.sleep(0.01)
    assert computed == [1]


def test_the_vocabulary_path_needs_no_file(tmp_path: Path) -> None:
    """An empty index: no words, no typo's words, no error."""
    engine = open_engine(index_settings(tmp_path, "tantivy"))
    try:
        got, want = ranked_both_ways(engine, Fuzzy("word", 1), 10)
        assert got.total == want.total == 0  # type: ignore[attr-defined]
    finally:
        engine.close()


def test_the_benchmark_checks_and_times_the_typos(tmp_path: Path) -> None:
    """`python -m benchmarks.typos ROOT` on a small index: every typo's words and ranking
    the same both ways, and a row per timed typo."""
    import subprocess
    import sys

    (tmp_path / "files").mkdir()
    engine = open_engine(index_settings(tmp_path / "index", "tantivy"))
    rng = random.Random(11)
    words = ["hyphenation", "document", "example", "integral", "boundingbox", "margins"]
    pages = [" ".join(rng.choices(words + SYLLABLES, k=40)) for _ in range(30)]
    record = FileRecord("d.pdf", "d", "t", len(pages), 1, 0.0, "0", "ok", None, 0, "x")
    with engine.writer(timeout=1) as writer:
        writer.add_file(record, pages, [index_text(p) for p in pages])
    engine.close()
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.typos", str(tmp_path), "--typos", "40"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    row = next(line for line in out.splitlines() if line.startswith("| narrowed by pairs ("))
    assert row.split("|")[3].strip() == "0", out  # answers that differ from the scan
    assert " 0 differ (total, pages or scores)" in out, out
    assert out.count("~2` |") == 5, out
