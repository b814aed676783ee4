"""Each file's place in path order (pdfindex.engine.tantivy.places): whatever order files
come, go and come back in, over how many commits, the places rise with the paths, and
exact search over the whole library reads pages in (path, page) order by them; where a
gap runs out, a file gets no place and the search orders by the text key instead, with
the same answers (issue 30)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pdfindex.config import index_settings
from pdfindex.engine import open_engine
from pdfindex.engine.tantivy import candidates, places
from pdfindex.engine.tantivy import engine as tantivy_engine
from pdfindex.engine.tantivy.places import UNPLACED, PlaceSession
from pdfindex.models import FileRecord
from pdfindex.search.exact import exact_search
from pdfindex.text.index import index_text
from tests.brute import brute_force

NAMES = [f"{a}{b}.pdf" for a in "abcdefgh" for b in ("", "a", "b", "ba", "z")]


def commit(committed: dict[str, int], session_ranks: dict[str, int | None]) -> None:
    for path, rank in session_ranks.items():
        if rank is None:
            committed.pop(path, None)
        else:
            committed[path] = rank


def assert_rising(committed: dict[str, int]) -> None:
    placed = [committed[p] for p in sorted(committed) if committed[p] != UNPLACED]
    assert placed == sorted(set(placed)), placed


operation = st.tuples(st.sampled_from(["add", "remove", "replace", "plan"]), st.sampled_from(NAMES))


@pytest.mark.parametrize("room", ["wide", "tight"])
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(sessions=st.lists(st.lists(operation, max_size=12), min_size=1, max_size=8))
def test_places_rise_with_the_paths_whatever_comes_and_goes(
    room: str, sessions: list[list[tuple[str, str]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    if room == "tight":  # gaps run out: some files get no place, the rest still rise
        monkeypatch.setattr(places, "END", 40)
        monkeypatch.setattr(places, "APPEND_STEP", 4)
    committed: dict[str, int] = {}
    planned: dict[str, int] = {}
    for operations in sessions:
        session = PlaceSession(
            planned,
            lambda: sorted(committed.items()),
            committed.get,
        )
        written: dict[str, int | None] = {}
        for op, path in operations:
            if op == "plan":
                session.plan([path, *random.Random(path).sample(NAMES, 3)])
            elif op == "remove":
                session.forget(path)
                written[path] = None
            else:  # add, or replace (keeps the place it has)
                written[path] = session.rank(path)
        commit(committed, written)
        assert_rising(committed)


def test_a_plan_spreads_a_build_evenly_whatever_order_it_adds_in() -> None:
    paths = [f"f{n:05d}.pdf" for n in range(5000)]
    session = PlaceSession({}, list, lambda path: None, empty=True)
    session.plan(paths)
    shuffled = random.Random(1).sample(paths, len(paths))
    ranks = {path: session.rank(path) for path in shuffled}
    ordered = [ranks[p] for p in paths]
    gaps = [b - a for a, b in zip(ordered, ordered[1:], strict=False)]
    assert min(gaps) == max(gaps) == places.END // (len(paths) + 1)
    # a file added later between two of them has room for 20 more halvings there
    assert session.rank("f00001a.pdf") - ranks["f00001.pdf"] > 1 << 20


def test_ranks_that_do_not_rise_place_no_new_file() -> None:
    """Committed ranks out of the paths' order (a damaged index) cannot order a new file:
    it gets no place, so readers order by the text key; nothing is planned among them."""
    committed = {"a.pdf": 30, "b.pdf": 10, "c.pdf": 50}
    planned: dict[str, int] = {}
    session = PlaceSession(planned, lambda: sorted(committed.items()), committed.get)
    session.plan(["ab.pdf", "d.pdf"])
    assert planned == {}
    assert session.rank("d.pdf") == UNPLACED
    assert session.rank("b.pdf") == 10  # a file rewritten keeps what it has
    assert session.known() is None  # not handed to the next session
    healthy = PlaceSession({}, lambda: [("a.pdf", 10), ("c.pdf", 50)], lambda path: None)
    assert 10 < healthy.rank("b.pdf") < 50


def record(path: str, pages: int) -> FileRecord:
    slug = path.removesuffix(".pdf").replace("/", "-")
    return FileRecord(path, slug, "t", pages, 1, 0.0, "0", "ok", None, 0.0, "x")


write_op = st.tuples(st.sampled_from(["write", "remove", "commit"]), st.sampled_from(NAMES[:4]))


@settings(max_examples=40, deadline=None)
@given(sessions=st.lists(st.lists(write_op, max_size=10), min_size=1, max_size=3))
def test_what_a_writer_writes_again_or_removes_ends_as_its_last_version_once(
    sessions: list[list[tuple[str, str]]],
) -> None:
    """A writer that began on an empty index deletes nothing for a path it has not
    written yet; a path it writes again, removes, or writes across its own commits
    (commit_so_far) still ends as its last version, each page once, in any session."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        engine = open_engine(index_settings(Path(folder), "tantivy"))
        library: dict[str, list[str]] = {}
        version = 0
        for operations in sessions:
            with engine.writer(timeout=5) as writer:
                for op, path in operations:
                    version += 1
                    if op == "write":
                        pages = [f"v{version} page {n}" for n in range(1, version % 3 + 2)]
                        writer.replace_file(record(path, len(pages)), pages, pages)
                        library[path] = pages
                    elif op == "remove":
                        writer.remove_file(path)
                        library.pop(path, None)
                    else:
                        assert writer.commit_so_far()
            assert set(engine.catalog()) == set(library)
            held = [(ref.path, ref.page) for ref in engine.candidates().refs]
            assert sorted(held) == sorted(
                (path, n) for path, pages in library.items() for n in range(1, len(pages) + 1)
            )
            for path, pages in library.items():
                assert engine.page_texts(record(path, 0).slug) == pages


def words(rng: random.Random) -> str:
    pool = ["note that", "the page", "margins", "bounding box", "note", "that"]
    return " ".join(rng.choice(pool) for _ in range(rng.randint(0, 12)))


def expected(library: dict[str, list[str]], query: str) -> list[tuple[str, int, int]]:
    return [
        (path, number, start)
        for path in sorted(library)
        for number, text in enumerate(library[path], 1)
        for start, _ in brute_force(text, query)
    ]


@pytest.mark.parametrize("room", ["wide", "tight"])
def test_exact_search_reads_the_library_in_path_order_after_any_commits(
    room: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files written one commit at a time in random order (as a watcher writes them),
    some removed, rewritten or moved: the whole library's matches come in (path, page,
    offset) order, by the places (wide) or, once a file could get none, by the text key
    (tight)."""
    if room == "tight":
        monkeypatch.setattr(places, "END", 16)
        monkeypatch.setattr(places, "APPEND_STEP", 2)
    rng = random.Random(30)
    engine = open_engine(index_settings(tmp_path, "tantivy"))
    library: dict[str, list[str]] = {}
    folders = ["", "a/", "b/c/"]
    names = [f"{f}{n}.pdf" for f in folders for n in ("x", "y", "yy", "z", "m1", "m2")]
    for step in range(40):
        path = rng.choice(names)
        with engine.writer(timeout=1) as writer:
            if path in library and step % 5 == 0:
                writer.remove_file(path)
                del library[path]
                continue
            pages = [words(rng) for _ in range(rng.randint(1, 6))]
            writer.replace_file(record(path, len(pages)), pages, [index_text(p) for p in pages])
            library[path] = pages
    searcher = engine._searcher()  # type: ignore[attr-defined]
    placed = engine._placed.get(searcher, engine.generation())  # type: ignore[attr-defined]
    assert placed == (room == "wide")
    for query in ("note that", "margins", "box note", "the page margins"):
        want = expected(library, query)
        for limit in (1, 3, 10, 1000):
            found, more = exact_search(engine, query, limit=limit, context_length=0)
            assert [(m.path, m.page, m.start) for m in found] == want[:limit], (query, limit)
            assert more == (len(want) > limit)
    # A folder's pages only, in order too
    want = [hit for hit in expected(library, "note") if hit[0].startswith("a/")]
    refs = engine.candidates(path="a/", pieces=["note"]).refs
    assert [(ref.path, ref.page) for ref in refs] == sorted({(p, n) for p, n, _ in want})
    # A library too large to list is read a group of files at a time: in path order too,
    # rewritten files (their path counted twice in the term dictionary) included.
    monkeypatch.setattr(tantivy_engine, "LISTED_UP_TO", 0)
    monkeypatch.setattr(candidates, "FILES_PER_GROUP", 2)
    grouped = engine.candidates().refs
    assert isinstance(grouped, candidates.GroupedRefs)
    every = [(path, n) for path in sorted(library) for n in range(1, len(library[path]) + 1)]
    assert [(ref.path, ref.page) for ref in grouped] == every


def test_a_rebuild_places_every_file_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An index where a file got no place is ordered again by a full rebuild, which plans
    the whole library's places at once."""
    monkeypatch.setattr(places, "END", 8)
    monkeypatch.setattr(places, "APPEND_STEP", 1)
    engine = open_engine(index_settings(tmp_path, "tantivy"))
    paths = [f"p{n}.pdf" for n in range(12)]
    with engine.writer(timeout=1) as writer:
        for path in paths:
            writer.add_file(record(path, 1), ["note that"], ["note that"])
    assert not engine._placed.get(engine._searcher(), engine.generation())  # type: ignore[attr-defined]
    monkeypatch.setattr(places, "END", 1 << 20)
    with engine.writer(timeout=1, clear=True) as writer:
        writer.will_add(reversed(paths))
        for path in reversed(paths):
            writer.add_file(record(path, 1), ["note that"], ["note that"])
    assert engine._placed.get(engine._searcher(), engine.generation())  # type: ignore[attr-defined]
    found, _ = exact_search(engine, "note that", limit=100, context_length=0)
    assert [m.path for m in found] == sorted(paths)


def test_a_process_reads_the_ranks_once_until_another_commits(tmp_path: Path) -> None:
    """The ranks a commit left are the next session's, unless another process (here a
    second engine on the same folder) committed in between: then they are read again,
    and every place still rises with the paths."""
    first = open_engine(index_settings(tmp_path, "tantivy"))
    other = open_engine(index_settings(tmp_path, "tantivy"))
    reads: list[int] = []
    read = first._read_places  # type: ignore[attr-defined]
    first._read_places = lambda: reads.append(1) or read()  # type: ignore[attr-defined]

    def add(engine: object, path: str) -> None:
        with engine.writer(timeout=5) as writer:  # type: ignore[attr-defined]
            writer.add_file(record(path, 1), ["note that"], ["note that"])

    add(first, "m.pdf")
    add(first, "c.pdf")
    add(first, "x.pdf")
    assert len(reads) == 1
    add(other, "d.pdf")  # between c and m, placed by the other process
    add(first, "e.pdf")  # between d and m: read again, so it knows d
    assert len(reads) == 2
    found, _ = exact_search(first, "note that", limit=100, context_length=0)  # type: ignore[arg-type]
    assert [m.path for m in found] == ["c.pdf", "d.pdf", "e.pdf", "m.pdf", "x.pdf"]
    searcher = first._searcher()  # type: ignore[attr-defined]
    assert first._placed.get(searcher, first.generation())  # type: ignore[attr-defined]
    ranks = dict(read())
    assert [ranks[p] for p in sorted(ranks)] == sorted(set(ranks.values()))  # strictly
