"""Incremental indexing: what is re-parsed after touch, modify, rename, copy, delete, add."""

from __future__ import annotations

import os
import shutil
import time
from collections import Counter
from pathlib import Path

import pytest

from pdfindex.api import PdfIndex
from pdfindex.errors import IndexLocked
from pdfindex.indexer.progress import TEXT, Step
from pdfindex.tools.exact import search_pdf
from tests import pdfgen
from tests.conftest import make_settings


def found(index: PdfIndex, name: str, text: str) -> bool:
    return bool(search_pdf(index, name, text).get("query_exists"))


def consistent(index: PdfIndex) -> None:
    """Catalog and page records agree; no page twice."""
    catalog = index.engine.catalog()
    pages = index.engine.candidates().refs
    seen = [(p.path, p.page) for p in pages]
    assert len(seen) == len(set(seen))
    for path, record in catalog.items():
        numbers = sorted(n for p, n in seen if p == path)
        assert numbers == list(range(1, record.pages + 1)), path
    assert {p for p, _ in seen} <= set(catalog)
    # What ranking counts without the catalog (Engine.indexed_pages) is what stats counts.
    readable = sum(r.pages for r in catalog.values() if r.status in ("ok", "empty"))
    assert index.engine.indexed_pages() == len(seen) == readable == index.pages()
    for record in catalog.values():  # elements agree with the record's counts
        kinds = Counter(e["kind"] for e in index.engine.elements(record.slug))
        assert dict(kinds) == record.elements, record.path


@pytest.fixture
def small(tmp_path: Path) -> tuple[PdfIndex, Path]:
    files = tmp_path / "files"
    files.mkdir()
    pdfgen.write_pdf(files / "one.pdf", ["apple orchard", "banana split"])
    pdfgen.write_pdf(files / "two.pdf", ["cherry pie"])
    pdfgen.write_pdf(files / "three.pdf", ["date palm"])
    index = PdfIndex(make_settings(tmp_path))
    first = index.reindex()
    assert (first.added, first.parsed, first.pages) == (3, 3, 4)
    yield index, files
    index.close()


def test_no_change_rescan_opens_nothing(small: tuple[PdfIndex, Path]) -> None:
    index, _ = small
    summary = index.reindex()
    assert summary.parsed == 0
    assert summary.unchanged == 3
    assert summary.touched == 0


def test_touch_reparses_nothing(small: tuple[PdfIndex, Path]) -> None:
    index, files = small
    later = time.time() + 10
    os.utime(files / "one.pdf", (later, later))
    summary = index.reindex()
    assert (summary.touched, summary.parsed, summary.updated) == (1, 0, 0)
    assert index.engine.record("one.pdf").mtime == pytest.approx(later)
    assert index.reindex().unchanged == 3
    consistent(index)


def test_modify_reparses_one_file(small: tuple[PdfIndex, Path]) -> None:
    index, files = small
    pdfgen.write_pdf(files / "two.pdf", ["cherry tart", "elderberry wine"])
    summary = index.reindex()
    assert (summary.updated, summary.parsed_paths) == (1, ["two.pdf"])
    assert search_pdf(index, "two", "elderberry")["query_exists"]
    assert not search_pdf(index, "two", "cherry pie")["query_exists"]
    assert index.engine.record("two.pdf").slug == "two"
    consistent(index)


def test_rename_is_a_move_without_parsing(small: tuple[PdfIndex, Path]) -> None:
    index, files = small
    (files / "moved").mkdir()
    (files / "one.pdf").rename(files / "moved" / "One Renamed.pdf")
    summary = index.reindex()
    assert (summary.moved, summary.removed, summary.parsed) == (1, 0, 0)
    assert search_pdf(index, "moved/One Renamed", "banana")["query_exists"]
    assert search_pdf(index, "one", "banana")["file_exists"] is False
    assert index.engine.record("moved/One Renamed.pdf").slug == "moved_one_renamed"
    consistent(index)


def test_rename_without_cache_takes_pages_from_the_index(small: tuple[PdfIndex, Path]) -> None:
    index, files = small
    shutil.rmtree(index.settings.index_dir / "cache")
    (files / "one.pdf").rename(files / "uno.pdf")
    summary = index.reindex()
    assert (summary.moved, summary.parsed) == (1, 0)
    assert search_pdf(index, "uno", "apple orchard")["query_exists"]
    consistent(index)


def test_copy_uses_the_cache(small: tuple[PdfIndex, Path]) -> None:
    index, files = small
    shutil.copy(files / "two.pdf", files / "two-copy.pdf")
    summary = index.reindex()
    assert (summary.added, summary.parsed, summary.from_cache) == (1, 0, 1)
    assert search_pdf(index, "two-copy", "cherry")["query_exists"]
    consistent(index)


def test_delete_and_add(small: tuple[PdfIndex, Path]) -> None:
    index, files = small
    (files / "three.pdf").unlink()
    pdfgen.write_pdf(files / "four.pdf", ["fig jam"])
    summary = index.reindex()
    assert (summary.removed, summary.added, summary.parsed_paths) == (1, 1, ["four.pdf"])
    assert set(index.engine.catalog()) == {"one.pdf", "two.pdf", "four.pdf"}
    assert not [p for p in index.engine.candidates().refs if p.path == "three.pdf"]
    consistent(index)


def test_full_rebuild_reparses_nothing_cached(small: tuple[PdfIndex, Path]) -> None:
    index, _ = small
    summary = index.reindex(full=True)
    assert (summary.added, summary.parsed, summary.from_cache, summary.pages) == (3, 0, 3, 4)
    assert search_pdf(index, "one", "banana")["query_exists"]
    consistent(index)


def test_a_rebuild_from_the_cache_shows_progress_and_stops_when_asked(
    small: tuple[PdfIndex, Path],
) -> None:
    """Cache hits are steps of the text pass (a large library's refill takes minutes);
    a run stopped among them keeps what it wrote and the next run writes the rest."""
    index, files = small
    pdfgen.write_pdf(files / "four.pdf", ["fig jam"])  # the one file to parse
    steps: list[Step] = []
    summary = index.reindex(full=True, progress=steps.append)
    assert (summary.from_cache, summary.parsed) == (3, 1)
    text = [(s.done, s.total) for s in steps if s.stage == TEXT]
    assert text == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]
    assert [s.path for s in steps[1:4]] == ["one.pdf", "three.pdf", "two.pdf"]  # cached

    shutil.rmtree(files)
    files.mkdir()
    (files / "later").mkdir()
    for n in range(4):  # same bytes, new names: each a cache hit
        pdfgen.write_pdf(files / "later" / f"n{n}.pdf", [f"numbered {n} page"])
    index.reindex()
    for n in range(4):
        (files / "later" / f"n{n}.pdf").rename(files / f"copy{n}.pdf")
    stop_after = 2
    seen: list[Step] = []
    stopped = index.reindex(
        progress=seen.append, should_stop=lambda: len([s for s in seen if s.path]) >= stop_after
    )
    assert not stopped.finished
    assert stopped.from_cache == stop_after
    kept = [found(index, f"copy{n}", f"numbered {n}") for n in range(4)]
    assert kept == [True, True, False, False]
    rest = index.reindex()
    assert rest.finished
    assert (rest.from_cache, rest.parsed) == (2, 0)
    assert all(found(index, f"copy{n}", f"numbered {n}") for n in range(4))
    consistent(index)


def test_slug_clash_gets_a_suffix_and_slugs_stay_stable(small: tuple[PdfIndex, Path]) -> None:
    index, files = small
    pdfgen.write_pdf(files / "One.PDF", ["upper case twin"])
    index.reindex()
    slugs = {p: r.slug for p, r in index.engine.catalog().items()}
    assert slugs["one.pdf"] == "one"
    assert slugs["One.PDF"] == "one_2"
    pdfgen.write_pdf(files / "one.pdf", ["apple changed"])
    index.reindex()
    assert index.engine.record("one.pdf").slug == "one"
    index.reindex(full=True)  # "One.PDF" sorts first, yet keeps its suffix
    assert {p: r.slug for p, r in index.engine.catalog().items()} == slugs | {"one.pdf": "one"}


def test_a_hanging_or_slow_file_times_out_and_the_run_goes_on(tmp_path: Path, corpus: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    shutil.copy(corpus / "large.pdf", files / "large.pdf")
    pdfgen.write_pdf(files / "small.pdf", ["still indexed"])
    index = PdfIndex(make_settings(tmp_path, timeout=0.05, workers=1))
    summary = index.reindex()
    assert summary.failures.get("large.pdf", "").startswith("timeout")
    assert index.engine.record("large.pdf").status == "failed"
    # The run went on to the next file. On a loaded machine even a one-page PDF can take
    # longer than 0.05 s; then it failed the same way, on its own.
    if summary.failures.get("small.pdf", "").startswith("timeout"):
        assert index.engine.record("small.pdf").status == "failed"
    else:
        assert search_pdf(index, "small", "still indexed")["query_exists"]
    index.close()


def test_failed_files_are_retried_when_they_change(small: tuple[PdfIndex, Path]) -> None:
    index, files = small
    pdfgen.write_corrupt_pdf(files / "bad.pdf")
    assert index.reindex().failed == 1
    assert index.reindex().parsed == 0  # unchanged: not retried every scan
    pdfgen.write_pdf(files / "bad.pdf", ["repaired now"])
    summary = index.reindex()
    assert summary.parsed_paths == ["bad.pdf"]
    assert summary.failed == 0
    assert index.engine.record("bad.pdf").status == "ok"


def test_a_second_writer_gets_a_clear_error(small: tuple[PdfIndex, Path]) -> None:
    index, _ = small
    other = PdfIndex(make_settings(index.settings.root, lock_timeout=0.3))
    with index.engine.writer(timeout=1):
        with pytest.raises(IndexLocked, match="another pdfindex process"):
            other.reindex()
    assert other.reindex().unchanged == 3  # works once the lock is free
    other.close()


def test_symlinks_leading_outside_are_not_followed(
    small: tuple[PdfIndex, Path], tmp_path: Path
) -> None:
    index, files = small
    outside = tmp_path / "outside"
    outside.mkdir()
    pdfgen.write_pdf(outside / "secret.pdf", ["top secret"])
    (files / "link.pdf").symlink_to(outside / "secret.pdf")
    (files / "loop").symlink_to(files)
    index.reindex()
    assert "link.pdf" not in index.engine.catalog()
    assert not index.exact("top secret")[0]


# -- runs limited to the paths a watcher saw change (pdfindex.indexer.live) ----------------


def test_a_run_over_changed_paths_looks_at_nothing_else(small: tuple[PdfIndex, Path]) -> None:
    index, files = small
    pdfgen.write_pdf(files / "four.pdf", ["elderberry wine"])
    summary = index.indexer.reindex(changes={("", "four.pdf")})
    # The three other files were neither stat'ed nor compared: on the old code every run
    # counted them unchanged.
    assert (summary.scope, summary.added, summary.unchanged, summary.parsed) == (1, 1, 0, 1)
    assert found(index, "four", "elderberry")
    consistent(index)
    summary = index.indexer.reindex(changes={("", "four.pdf")})  # nothing changed there
    assert (summary.unchanged, summary.added, summary.parsed) == (1, 0, 0)
    (files / "four.pdf").unlink()
    summary = index.indexer.reindex(changes={("", "four.pdf")})
    assert (summary.removed, summary.unchanged) == (1, 0)
    assert index.engine.record("four.pdf") is None
    assert index.engine.record("one.pdf") is not None  # out of scope: kept, not removed


def test_a_renamed_folder_moves_what_it_holds(small: tuple[PdfIndex, Path]) -> None:
    index, files = small
    pdfgen.write_pdf(files / "a" / "x.pdf", ["fig tree"])
    pdfgen.write_pdf(files / "a" / "deep" / "y.pdf", ["grape vine"])
    assert index.indexer.reindex(changes={("", "a")}).added == 2
    (files / "a").rename(files / "b (2)")  # a name with regex characters, a space
    summary = index.indexer.reindex(changes={("", "a"), ("", "b (2)")})
    assert (summary.moved, summary.parsed, summary.removed) == (2, 0, 0)
    assert index.engine.record("a/x.pdf") is None
    assert index.engine.record("b (2)/deep/y.pdf") is not None
    assert found(index, "b (2)/x", "fig tree")
    shutil.rmtree(files / "b (2)")
    summary = index.indexer.reindex(changes={("", "b (2)")})
    assert (summary.removed, summary.unchanged) == (2, 0)
    assert sorted(index.engine.catalog()) == ["one.pdf", "three.pdf", "two.pdf"]
    consistent(index)


def test_a_changed_run_keeps_every_other_slug(small: tuple[PdfIndex, Path]) -> None:
    """A run that reads only the changed paths' records still gives a new file a slug no
    other file has (the engine is asked about the others)."""
    index, files = small
    pdfgen.write_pdf(files / "One.PDF", ["upper case twin"])
    index.indexer.reindex(changes={("", "One.PDF")})
    assert index.engine.record("One.PDF").slug == "one_2"
    assert index.engine.record("one.pdf").slug == "one"


def test_the_files_folder_itself_changed_scans_it_whole(small: tuple[PdfIndex, Path]) -> None:
    index, _ = small
    summary = index.indexer.reindex(changes={("", "")})
    assert summary.scope is None
    assert summary.unchanged == 3


def test_records_starting_reads_by_path_prefix(small: tuple[PdfIndex, Path]) -> None:
    """Engine.records_starting on every engine: folders, stems, regex characters."""
    index, files = small
    for name in ("c (1)/x+y.pdf", "c (1)/z.pdf", "c (1)x.pdf", "c [2]/w.pdf"):
        pdfgen.write_pdf(files / name, [f"page of {name}"])
    index.reindex()
    engine = index.engine

    def paths(prefix: str) -> list[str]:
        return [r.path for r in engine.records_starting(prefix)]

    assert paths("c (1)/") == ["c (1)/x+y.pdf", "c (1)/z.pdf"]
    assert paths("c (1)") == ["c (1)/x+y.pdf", "c (1)/z.pdf", "c (1)x.pdf"]
    assert paths("c [2]/") == ["c [2]/w.pdf"]
    assert paths("one.") == ["one.pdf"]
    assert paths("c (1)/x+") == ["c (1)/x+y.pdf"]
    assert paths("nothing/") == []
    assert paths("") == sorted(engine.catalog())
    assert engine.records_starting("one.")[0] == engine.record("one.pdf")
