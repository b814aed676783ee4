"""Calls that answer from what is kept per index generation (issue 31, defect 12): after
the first call, `stats`, get_library_status, query_documents and the lookup of an unknown
name decode no catalog record again, until a commit; their answers are the ones a fresh
reading of the catalog gives. Measured by counting the records the engine decodes (its
module's FileRecord, swapped for a counting one), never by the clock."""

from __future__ import annotations

import difflib
import random
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pdfindex import models
from pdfindex.api import PdfIndex
from pdfindex.errors import DocumentNotFound
from pdfindex.extract.adapters.base import Extraction
from pdfindex.extract.cache import ExtractionCache
from pdfindex.models import FileStatus
from pdfindex.names import SUGGESTIONS, close_matches, closest
from pdfindex.tools import catalog, names, passages
from pdfindex.tools.sessions import SessionStore
from tests.conftest import make_settings

FILES = 2500  # small text files: cheap to index, many records to decode
EMPTY_FILES = 5  # no text: records of status `empty`, listed as problems
UNKNOWN = ["part001/no-such-notes", "nothing like it", "note000123x", "zzzz"]


def fill(files: Path, count: int, first: int = 0) -> None:
    for n in range(first, first + count):
        folder = files / f"part{n // 1000:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        topic = ("margins", "fonts", "tables")[n % 3]
        (folder / f"note{n:06d}.txt").write_text(f"Note {n} on {topic}\n\nword{n} {topic}\n")


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Path:
    """A project root of FILES text files (and a few empty ones), indexed."""
    root = tmp_path_factory.mktemp("scale")
    fill(root / "files", FILES)
    for n in range(EMPTY_FILES):
        (root / "files" / f"blank{n}.md").write_text("")
    index = PdfIndex(make_settings(root))
    try:
        summary = index.reindex()
    finally:
        index.close()
    assert summary.added == FILES + EMPTY_FILES
    return root


class Decoded:
    """Counts the catalog records the engine decodes: its module's FileRecord replaced
    by a subclass that counts its instances."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, index: PdfIndex) -> None:
        module = __import__(type(index.engine).__module__, fromlist=["FileRecord"])
        self.count = 0
        counter = self

        class Counting(models.FileRecord):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                counter.count += 1
                super().__init__(*args, **kwargs)

        monkeypatch.setattr(module, "FileRecord", Counting)


@pytest.fixture
def index(library: Path) -> Iterator[PdfIndex]:
    """A PdfIndex of its own over the library: nothing read nor cached yet."""
    opened = PdfIndex(make_settings(library))
    yield opened
    opened.close()


def old_stats(index: PdfIndex) -> dict[str, Any]:
    """The catalog part of `stats` as it was worked out on every call (the oracle)."""
    records = list(index.engine.catalog().values())
    by_status = {
        s: 0 for s in (FileStatus.OK, FileStatus.EMPTY, FileStatus.ENCRYPTED, FileStatus.FAILED)
    }
    for record in records:
        by_status[record.status] = by_status.get(record.status, 0) + 1
    return {
        "documents": len(records),
        "pages": sum(r.pages for r in records if r.status in (FileStatus.OK, FileStatus.EMPTY)),
        "by_status": by_status,
        "problems": [
            {"path": r.path, "status": r.status, "reason": r.error}
            for r in sorted(records, key=lambda r: r.path)
            if r.status != FileStatus.OK
        ],
        "elements": dict(sum((Counter(r.elements) for r in records), Counter()).most_common()),
        "elements_pending": sum(1 for r in records if r.elements_state == "pending"),
        "ocr": index.ocr_status(records),
    }


def similar(index: PdfIndex, name: str) -> list[str]:
    """The paths of the closest names an unknown `name` gets (CLI and tools alike)."""
    return [record.path for record in closest(index, name)]


def old_similar(index: PdfIndex, name: str, most: int = SUGGESTIONS) -> list[str]:
    """`similar` worked out from scratch: difflib over every spelling of every record."""
    key = name.strip().lower().removesuffix(".pdf")
    spellings: dict[str, str] = {}
    for record in index.engine.catalog().values():
        for spelling in (record.path, str(Path(record.path).with_suffix("")), record.slug):
            spellings.setdefault(spelling.lower(), record.path)
    found = difflib.get_close_matches(key, list(spellings), n=most * 3, cutoff=0.5)
    found += [n for n in spellings if key and key in n]
    return list(dict.fromkeys(spellings[n] for n in found))[:most]


def unknown_answer(index: PdfIndex, name: str) -> str:
    with pytest.raises(DocumentNotFound) as raised:
        names.find_document(index, name)
    return str(raised.value)


def test_repeated_calls_decode_no_record(
    index: PdfIndex, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    decoded = Decoded(monkeypatch, index)
    records = FILES + EMPTY_FILES
    first = index.stats()
    assert decoded.count == records  # the catalog, read once
    assert first["documents"] == records
    assert first["by_status"][FileStatus.EMPTY] == EMPTY_FILES
    assert len(first["problems"]) == EMPTY_FILES
    sessions = SessionStore(tmp_path / "sessions")
    status = catalog.library_status(index, "off", False, None)
    assert decoded.count == records  # the status shares the stats' figures
    answers = {name: unknown_answer(index, name) for name in UNKNOWN}
    close = {name: similar(index, name) for name in UNKNOWN}
    # The records are kept by no one (at 40,000 files ~200 MB): each kind of figure reads
    # them once per generation, here the names that did-you-mean compares with (their
    # paths kept, and the records of the closest, 5 at most, read by path each time).
    suggested = 2 * SUGGESTIONS * len(UNKNOWN)  # at most, each call
    assert 2 * records <= decoded.count <= 2 * records + suggested
    kept, _listed = index.per_generation("names.spellings", lambda _records: None, True)
    assert all(isinstance(path, str) for path in kept.values())  # paths, no record held
    before_question = decoded.count
    passages.query_documents(index, sessions, "margins of the notes")
    # and the names a question may name a document by; the cited documents' titles are
    # read one record each (5 at most)
    read = decoded.count
    assert before_question + records <= read <= before_question + records + 5
    for _ in range(3):
        assert index.stats() == first
        assert (
            catalog.library_status(index, "off", False, None).split("\nChecked at")[0]
            == (status.split("\nChecked at")[0])
        )
        assert {name: unknown_answer(index, name) for name in UNKNOWN} == answers
        assert {name: similar(index, name) for name in UNKNOWN} == close
        found = passages.query_documents(index, sessions, "margins of the notes")
        assert found["status"] == "success"
        with pytest.raises(DocumentNotFound):
            index.find_record("part001/no-such-notes")
    # none of the catalog again: cited titles and the suggested names' records only
    assert decoded.count - read <= 3 * (5 + suggested)
    # what is kept is what reading every record gives (decoding them all, once more)
    expected = old_stats(index)
    assert {key: first[key] for key in expected} == expected
    assert close == {name: old_similar(index, name) for name in UNKNOWN}
    for name, paths in close.items():  # the tools name the same ones, in the same order
        listed = [answers[name].index(f"({path})") for path in paths]
        assert listed == sorted(listed), (name, answers[name])
    assert "note000123" in answers["note000123x"]  # the closest names are named


def test_a_known_name_decodes_its_own_record_only(
    index: PdfIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    decoded = Decoded(monkeypatch, index)
    index.stats()  # the catalog of this generation, read once
    decoded.count = 0
    wanted = ["part001/note001234", "part001_note001235", "part002/note002001.txt"]
    for name in wanted * 2:
        assert names.find_document(index, name).path.startswith(name[:7])
        assert index.find_record(name).path.startswith(name[:7])
    assert decoded.count <= 2 * len(wanted) * 2  # one record a lookup, at most


def test_answers_follow_a_commit(tmp_path: Path) -> None:
    root = tmp_path / "small"
    fill(root / "files", 30)
    index = PdfIndex(make_settings(root))
    try:
        index.reindex()
        before = index.stats()
        cached = index.per_generation("stats", lambda _catalog: pytest.fail("computed again"))
        assert index.per_generation("stats", lambda _catalog: None) is cached  # kept
        with pytest.raises(DocumentNotFound):
            names.find_document(index, "extra/later")
        # a file added, one emptied, one removed: a commit, and every answer follows it
        (root / "files" / "extra").mkdir()
        (root / "files" / "extra" / "later.md").write_text("# Later\n\nadded afterwards\n")
        (root / "files" / "part000" / "note000003.txt").write_text("")
        (root / "files" / "part000" / "note000004.txt").unlink()
        summary = index.reindex()
        assert (summary.added, summary.removed) == (1, 1)
        after = index.stats()
        assert after["documents"] == before["documents"]
        assert after["by_status"][FileStatus.OK] == before["by_status"][FileStatus.OK] - 1
        assert after["by_status"][FileStatus.EMPTY] == before["by_status"][FileStatus.EMPTY] + 1
        assert [p["path"] for p in after["problems"]] == ["part000/note000003.txt"]
        assert after["last_update"] >= before["last_update"]
        assert names.find_document(index, "extra/later").path == "extra/later.md"
        assert "note000004" not in " ".join(similar(index, "part000/note000004"))
        assert index.find_record("extra/later").slug == "extra_later"
        fresh = PdfIndex(make_settings(root))  # another process, reading it all anew
        try:
            assert fresh.stats() == after
        finally:
            fresh.close()
    finally:
        index.close()


def test_a_lagging_value_answers_at_once_after_a_commit_and_then_follows_it(
    tmp_path: Path,
) -> None:
    """query_documents' document names (PdfIndex.lagging): after a commit the value of
    before answers while a thread counts the records again; the next calls get the new
    one. The first call counts them itself."""
    root = tmp_path / "small"
    fill(root / "files", 5)
    index = PdfIndex(make_settings(root))
    counting = threading.Event()
    counting.set()

    def paths(records: Any) -> list[str]:
        assert counting.wait(timeout=30)
        return sorted(record.path for record in records)

    try:
        index.reindex()
        first = index.lagging("test.paths", paths)
        assert len(first) == 5
        assert index.lagging("test.paths", lambda _records: pytest.fail("counted again")) == first
        (root / "files" / "later.md").write_text("# Later\n\nadded afterwards\n")
        index.reindex()
        counting.clear()  # the thread counting again waits: the call must not
        assert index.lagging("test.paths", paths) == first
        counting.set()
        for _ in range(300):
            if "later.md" in index.lagging("test.paths", paths):
                break
            threading.Event().wait(0.05)
        assert index.lagging("test.paths", paths) == sorted([*first, "later.md"])
    finally:
        counting.set()
        index.close()


def test_the_writer_reads_records_of_its_own(library: Path) -> None:
    """The indexer changes the records it reads before it writes them: none of that
    reaches the records readers share, nor outlives a commit that did not happen."""
    index = PdfIndex(make_settings(library))
    try:
        path = "part000/note000007.txt"
        shared = index.engine.catalog()
        assert index.engine.catalog()[path] is not shared[path]  # each call's own records
        assert index.stats()["by_status"][FileStatus.FAILED] == 0
        seen: list[str] = []
        with index.engine.writer(timeout=5) as _writer:
            own = index.engine.catalog()[path]
            assert own is not shared[path]
            own.status, own.pages = FileStatus.FAILED, 99
            reader = threading.Thread(
                target=lambda: seen.append(index.engine.catalog()[path].status)
            )
            reader.start()
            reader.join()
            assert seen == [FileStatus.OK]
            assert shared[path].status == FileStatus.OK
        assert index.engine.catalog()[path].status == FileStatus.OK  # nothing written: rolled back
        assert index.stats()["by_status"][FileStatus.FAILED] == 0
    finally:
        index.close()


def test_the_cache_size_is_kept_up_to_date_by_put(tmp_path: Path) -> None:
    cache = ExtractionCache(tmp_path / "cache")
    assert cache.size_bytes() == 0
    cache.put("ab" * 32, "v1", Extraction(FileStatus.OK, pages=["some text"]))
    cache.put("cd" * 32, "v1", Extraction(FileStatus.OK, pages=["other text " * 50]))
    walked = ExtractionCache(tmp_path / "cache").size_bytes()
    assert cache.size_bytes() == walked > 0
    cache.put(
        "ab" * 32, "v1", Extraction(FileStatus.OK, pages=["replaced with a longer text " * 20])
    )
    cache.put("ef" * 32, "v1", Extraction(FileStatus.FAILED, error="not kept"))  # not cached
    assert cache.size_bytes() == ExtractionCache(tmp_path / "cache").size_bytes() != walked
    # a file the cache did not write is not seen: no walk of the folder per call
    (tmp_path / "cache" / "zz").mkdir()
    (tmp_path / "cache" / "zz" / "stray.json.gz").write_bytes(b"x" * 100)
    assert cache.size_bytes() == ExtractionCache(tmp_path / "cache").size_bytes() - 100


def test_close_matches_is_difflibs_answer() -> None:
    rng = random.Random(31)
    letters = "abcdeno/_.-xyz0123"
    for trial in range(150):
        words = {
            "".join(rng.choice(letters) for _ in range(rng.randint(1, 24)))
            for _ in range(rng.randint(0, 200))
        }
        spellings = sorted(words)
        key = "".join(rng.choice(letters) for _ in range(rng.randint(1, 12)))
        if trial % 3 == 0 and spellings:
            key = rng.choice(spellings)[: rng.randint(1, 12)]
        for n, cutoff in ((9, 0.5), (3, 0.6), (1, 0.0), (20, 0.8)):
            expected = difflib.get_close_matches(key, spellings, n, cutoff)
            assert close_matches(key, spellings, n, cutoff) == expected


def test_a_serving_process_finds_the_document_names_before_the_first_question(
    tmp_path: Path,
) -> None:
    """Every record is read for the names a question may use (2.6 s at a million pages):
    `serve` does it once its start-up scan is done, so the first query_documents reads
    none of them."""
    from pdfindex.tools import topic
    from tests.mcpclient import open_app

    root = tmp_path / "served"
    fill(root / "files", 12)
    (root / "files" / "geometry.md").write_text("# Geometry handbook\n\nmargins of pages\n")
    with open_app(make_settings(root)) as app:
        for _ in range(600):
            if topic.NAMES in app.index._lagging:
                break
            threading.Event().wait(0.05)
        generation, names = app.index._lagging[topic.NAMES]
        assert generation == app.index.engine.generation()
        assert names == topic.document_names(app.index.engine.records())
        assert names["geometry"] == names["handbook"] == ("geometry",)
