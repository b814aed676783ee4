"""Live updates (watchdog), crash safety, resource bounds and concurrent readers.

The server process (parallel calls while files land, SIGTERM) is in tests/test_server.py."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from pdfindex.api import PdfIndex
from pdfindex.indexer import update
from pdfindex.indexer.live import LiveIndex
from pdfindex.indexer.progress import Step
from pdfindex.tools.exact import search_pdf
from tests import elementgen, pdfgen
from tests.conftest import make_settings
from tests.test_incremental import consistent
from tests.waiting import eventually


def found(index: PdfIndex, name: str, text: str) -> bool:
    return bool(search_pdf(index, name, text).get("query_exists"))


@pytest.fixture
def index(tmp_path: Path) -> Iterator[PdfIndex]:
    pdfgen.write_pdf(tmp_path / "files" / "first.pdf", ["already here before start"])
    index = PdfIndex(make_settings(tmp_path))
    yield index
    index.close()


@pytest.fixture
def live(index: PdfIndex) -> Iterator[LiveIndex]:
    before = set(threading.enumerate())
    live = index.live(quiet=0.3).start()
    assert live.caught_up.wait(30)
    yield live
    live.close()
    # stricter than conftest's _no_leaked_threads: close() itself joins what start() began
    leaked = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not leaked, f"threads left running: {leaked}"


def test_a_run_past_its_commit_interval_commits_as_it_goes(tmp_path: Path) -> None:
    """A one-off run commits what it wrote once its interval has passed and goes on
    (Tantivy with the same writer, so its merges run beside; the others with a new one):
    a reader meanwhile finds every file written before, and the end keeps each page once."""
    names = [f"part{n}" for n in range(6)]
    for n, name in enumerate(names):
        pdfgen.write_pdf(tmp_path / "files" / f"{name}.pdf", [f"chapter marker{n}x here"])
    index = PdfIndex(make_settings(tmp_path))
    reader = PdfIndex(make_settings(tmp_path))
    committed: dict[int, int] = {}

    def look(step: Step) -> None:
        if step.path:  # called as the file is written, before it is committed
            committed[step.done] = sum(
                found(reader, name, f"marker{n}x") for n, name in enumerate(names)
            )

    try:
        summary = index.reindex(progress=look, commit_interval=0.0)
        assert summary.added == len(names)
        assert committed == {done: done - 1 for done in range(1, len(names) + 1)}
        assert all(found(reader, name, f"marker{n}x") for n, name in enumerate(names))
        consistent(index)
    finally:
        reader.close()
        index.close()


def test_a_refill_from_the_cache_commits_every_so_many_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages from the extraction cache come faster than Tantivy indexes them: a run that
    may commit as it goes commits every COMMIT_PAGES pages (each commit a segment of its
    own here), a full rebuild still once; every page is found either way."""
    names = [f"part{n}" for n in range(4)]
    for n, name in enumerate(names):
        pdfgen.write_pdf(tmp_path / "files" / f"{name}.pdf", [f"chapter marker{n}x here"])
    settings = make_settings(tmp_path, engine="tantivy", elements=False)  # no other commit
    first = PdfIndex(settings)
    assert first.reindex().parsed == len(names)  # fills the extraction cache
    first.close()
    shutil.rmtree(settings.index_dir / "tantivy")  # the cache stays: a refill
    monkeypatch.setattr(update, "COMMIT_PAGES", 1)
    index = PdfIndex(settings)
    try:
        assert index.reindex().from_cache == len(names)
        assert index.engine.segment_count() == len(names)
        assert all(found(index, name, f"marker{n}x") for n, name in enumerate(names))
        summary = index.reindex(full=True)
        assert summary.from_cache == len(names)
        assert index.engine.segment_count() == 1
        assert all(found(index, name, f"marker{n}x") for n, name in enumerate(names))
        consistent(index)
    finally:
        index.close()


def test_catch_up_then_follow_every_kind_of_change(
    live: LiveIndex, index: PdfIndex, tmp_path: Path
) -> None:
    files = tmp_path / "files"
    assert found(index, "first", "already here")
    assert live.watching

    pdfgen.write_pdf(files / "new.pdf", ["freshly landed"])  # add
    eventually(lambda: found(index, "new", "freshly landed"), "the added file indexed")

    pdfgen.write_pdf(files / "new.pdf", ["rewritten content"])  # modify
    eventually(lambda: found(index, "new", "rewritten content"), "the change indexed")

    (files / "deep" / "er").mkdir(parents=True)  # move into a new sub-folder
    (files / "new.pdf").rename(files / "deep" / "er" / "moved.pdf")
    eventually(lambda: found(index, "deep/er/moved", "rewritten"), "the moved file indexed")
    assert index.engine.record("new.pdf") is None
    assert live.wait_idle(30)  # text is committed before the run (its elements pass) ends
    assert live.last_summary is not None
    assert live.last_summary.parsed == 0

    (files / "first.pdf").unlink()  # delete
    eventually(
        lambda: index.engine.record("first.pdf"), "the deleted file gone", holds=lambda r: r is None
    )
    consistent(index)


def test_wait_for_one_file_and_progress_of_an_update(
    live: LiveIndex, index: PdfIndex, tmp_path: Path
) -> None:
    """A call about a file that just landed waits for that file (not for a quiet
    folder), and the update reports each file it indexes, then goes idle."""
    steps: list[tuple[str, int, int, str]] = []
    live.on_step = lambda step: steps.append((step.stage, step.done, step.total, step.path))
    assert index.indexing() is None
    assert not live.wait_for(lambda: False, 0.1)
    pdfgen.write_pdf(tmp_path / "files" / "landed.pdf", ["just landed"])
    # (until the observer has seen the file, nothing is pending and wait_for returns)
    eventually(lambda: live.wait_for(lambda: index.is_indexed("landed"), 30), "landed.pdf indexed")
    assert found(index, "landed", "just landed")
    assert live.wait_idle(30)
    assert ("text", 1, 1, "landed.pdf") in steps
    assert live.step is None
    assert index.indexing() is None


def test_editor_save_via_temp_file_and_rename(
    live: LiveIndex, index: PdfIndex, tmp_path: Path
) -> None:
    files = tmp_path / "files"
    pdfgen.write_pdf(files / ".report.pdf.tmp", ["saved by an editor"])
    os.replace(files / ".report.pdf.tmp", files / "report.pdf")
    eventually(lambda: found(index, "report", "saved by an editor"), "the saved file indexed")
    assert ".report.pdf.tmp" not in index.engine.catalog()


def test_a_slowly_written_file_is_indexed_when_complete(
    live: LiveIndex, index: PdfIndex, tmp_path: Path
) -> None:
    source = pdfgen.write_pdf(tmp_path / "source.pdf", ["written slowly in two halves"])
    data = source.read_bytes()
    target = tmp_path / "files" / "slow.pdf"
    with open(target, "wb") as handle:
        handle.write(data[: len(data) // 2])
        handle.flush()
        time.sleep(1.5)  # longer than the quiet period: a scan sees half a file
        handle.write(data[len(data) // 2 :])
    eventually(lambda: found(index, "slow", "written slowly"), "the completed file indexed")
    record = index.engine.record("slow.pdf")
    assert record is not None
    assert record.status == "ok"
    assert record.size == len(data)


def test_a_change_reindexes_only_its_own_path(
    live: LiveIndex, index: PdfIndex, tmp_path: Path
) -> None:
    """The watcher names what changed and the run looks at that alone: the other files
    are neither stat'ed nor compared, and the writer never decodes the catalog whole."""
    files = tmp_path / "files"
    for n in range(4):
        pdfgen.write_pdf(files / "many" / f"f{n}.pdf", [f"filler {n}"])
    eventually(lambda: index.engine.record("many/f3.pdf"), "the first files indexed")
    assert live.wait_idle(30)
    decoded = Counter[str]()
    whole = index.engine.catalog

    def counted() -> dict[str, object]:
        decoded[threading.current_thread().name] += 1
        return whole()

    index.engine.catalog = counted  # type: ignore[method-assign]
    pdfgen.write_pdf(files / "one-more.pdf", ["a single landed file"])
    eventually(lambda: found(index, "one-more", "single landed"), "the landed file indexed")
    assert live.wait_idle(30)
    summary = live.last_summary
    assert summary is not None
    assert (summary.scope, summary.added, summary.unchanged) == (1, 1, 0)
    assert decoded["pdfindex-writer"] == 0  # the run's own reads


def test_folders_renamed_deleted_and_moved_in(
    live: LiveIndex, index: PdfIndex, tmp_path: Path
) -> None:
    files = tmp_path / "files"
    pdfgen.write_pdf(files / "shelf" / "a.pdf", ["alpha shelf page"])
    pdfgen.write_pdf(files / "shelf" / "inner" / "b.pdf", ["beta inner page"])
    eventually(lambda: found(index, "shelf/inner/b", "beta inner"), "the folder indexed")
    assert live.wait_idle(30)

    (files / "shelf").rename(files / "cabinet")  # one folder event for two files
    eventually(lambda: found(index, "cabinet/inner/b", "beta inner"), "the renamed folder")
    eventually(lambda: index.engine.record("shelf/a.pdf") is None, "the old paths gone")
    assert index.engine.record("shelf/inner/b.pdf") is None
    assert live.wait_idle(30)

    shutil.rmtree(files / "cabinet")
    eventually(lambda: index.engine.record("cabinet/a.pdf") is None, "the deleted folder")
    assert index.engine.record("cabinet/inner/b.pdf") is None

    outside = tmp_path / "outside"
    pdfgen.write_pdf(outside / "c.pdf", ["gamma arrives whole"])
    outside.rename(files / "arrived")  # a folder moved in: no event for its file
    eventually(lambda: found(index, "arrived/c", "gamma arrives"), "the moved-in folder")
    assert index.engine.record("first.pdf") is not None
    assert live.wait_idle(30)
    consistent(index)


def test_without_watch_no_observer_runs(tmp_path: Path) -> None:
    index = PdfIndex(make_settings(tmp_path))
    live = index.live(watch=False).start()
    assert live.caught_up.wait(30)
    assert not live.watching
    live.close()
    index.close()


def test_memory_cap_marks_the_file_failed_and_the_run_goes_on(tmp_path: Path, corpus: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    shutil.copy(corpus / "large.pdf", files / "large.pdf")
    pdfgen.write_pdf(files / "small.pdf", ["survives the cap"])
    index = PdfIndex(make_settings(tmp_path, memory_mb=1, workers=1))
    summary = index.reindex()
    assert "memory" in summary.failures["large.pdf"]
    assert found(index, "small", "survives the cap") or "memory" in summary.failures["small.pdf"]
    index.close()


def _corpus_for_crash(folder: Path, n: int) -> None:
    folder.mkdir(parents=True)
    pages = pdfgen.lorem_pages(30, seed=11)
    for i in range(n):
        pdfgen.write_pdf(folder / f"doc{i:02d}.pdf", pages[i % 5 : i % 5 + 25])


def test_sigkill_mid_build_leaves_a_consistent_index(tmp_path: Path) -> None:
    _corpus_for_crash(tmp_path / "files", 30)
    command = [
        sys.executable,
        "-m",
        "pdfindex.cli",
        "reindex",
        "--root",
        str(tmp_path),
        "--workers",
        "1",
        "--commit-every",
        "0.2",
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    reader = PdfIndex(make_settings(tmp_path))  # a reader beside the writer never waits
    try:
        eventually(
            lambda: len(reader.engine.catalog()), "3 files committed", holds=lambda n: n >= 3
        )
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    committed = len(reader.engine.catalog())
    assert 3 <= committed < 30, committed  # killed mid-build, after some commits
    consistent(reader)
    summary = reader.reindex()  # the next run repairs the rest
    assert summary.added == 30 - committed
    assert len(reader.engine.catalog()) == 30
    consistent(reader)
    reader.close()


def test_sigkill_in_the_elements_pass_leaves_a_consistent_index(tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    report = files / "report-00.pdf"
    elementgen.report_pdf(report)  # 7 pages, 8 elements
    for i in range(1, 60):
        shutil.copy(report, files / f"report-{i:02d}.pdf")
    command = [sys.executable, "-m", "pdfindex.cli", "reindex", "--root", str(tmp_path)]
    command += ["--workers", "1", "--commit-every", "0.2"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    reader = PdfIndex(make_settings(tmp_path))

    def states() -> Counter[str]:
        return Counter(r.elements_state for r in reader.engine.catalog().values())

    try:  # the text of all 60 is committed first, then their elements in batches
        eventually(
            states,
            "a file's elements done and another's pending",
            holds=lambda counts: counts["done"] >= 1 and counts["pending"] >= 1,
        )
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    assert len(reader.engine.catalog()) == 60
    assert states()["pending"] >= 1
    consistent(reader)
    assert search_pdf(reader, "report-59", "storage engine")["query_exists"]  # text first
    summary = reader.reindex()
    assert summary.parsed == 0
    assert states() == {"done": 60}
    consistent(reader)
    reader.close()
