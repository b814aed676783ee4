"""Whatever the files folder holds, the indexer reads only its regular files, each the
very file the scan saw: FIFOs never block, odd names never stop the others, and a file
swapped for a link to an outside file during a reindex is never indexed nor cached."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pdfindex.api import PdfIndex
from pdfindex.errors import UnsafeFile
from pdfindex.extract.cache import file_sha256
from pdfindex.extract.worker import extract_file
from pdfindex.indexer.progress import ELEMENTS_STAGE, TEXT, Step
from pdfindex.indexer.scan import scan_folder
from pdfindex.models import FileStatus
from pdfindex.paths import NOT_REGULAR, NOT_UTF8
from tests import elementgen, pdfgen
from tests.conftest import make_settings
from tests.mcpclient import InMemory, open_app, text_of

BAD_NAME = b"bad\xffname.pdf"  # not UTF-8: os functions hold it as a surrogate
SHOWN_BAD = "bad\\xffname.pdf"  # how the logs and `skipped` show it
HANG_GUARD = 120  # seconds: a run that hangs is killed and fails the test, nothing timed


def _hostile_folder(root: Path) -> Path:
    """files/ with one good PDF, FIFOs named .pdf and .txt, a PDF and a folder whose names
    are not UTF-8 (holding the word "zebra", which must therefore never be found)."""
    files = root / "files"
    files.mkdir(parents=True)
    pdfgen.write_pdf(files / "good.pdf", ["a unicorn in the garden"])
    os.mkfifo(files / "x.pdf")
    os.mkfifo(files / "notes.txt")
    pdfgen.write_pdf(os.fsdecode(bytes(files) + b"/" + BAD_NAME), ["zebra crossing"])
    folder = os.fsdecode(bytes(files) + b"/dir\xfe")
    os.mkdir(folder)
    pdfgen.write_pdf(Path(folder) / "inner.pdf", ["zebra stripes"])
    return files


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pdfindex.cli", *args, "--root", str(root), "--workers", "1"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        stdin=subprocess.DEVNULL,
    )


def test_scan_keeps_only_regular_files_with_utf8_names(tmp_path: Path) -> None:
    files = _hostile_folder(tmp_path)
    skipped: dict[str, str] = {}
    found = scan_folder(files, skipped)
    assert list(found) == ["good.pdf"]
    assert skipped == {
        "x.pdf": NOT_REGULAR,
        "notes.txt": NOT_REGULAR,
        SHOWN_BAD: NOT_UTF8,
        "dir\\xfe": NOT_UTF8,
    }
    json.dumps(skipped).encode("utf-8")  # the escaped names are plain text


def test_reads_refuse_fifos_and_links_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "x.pdf"
    os.mkfifo(fifo)  # nobody ever writes: a blocking open would wait forever
    with pytest.raises(UnsafeFile, match="not a regular file"):
        file_sha256(fifo)
    failed = extract_file(fifo, "pdfium")
    assert failed.status == FileStatus.FAILED
    assert "not a regular file" in (failed.error or "")
    real = pdfgen.write_pdf(tmp_path / "real.pdf", ["hello"])
    link = tmp_path / "link.pdf"
    link.symlink_to(real)
    with pytest.raises(OSError):
        file_sha256(link)  # O_NOFOLLOW
    assert extract_file(link, "pdfium").status == FileStatus.FAILED
    stat = real.stat()
    assert extract_file(real, "pdfium", identity=(stat.st_dev, stat.st_ino)).status == FileStatus.OK
    other = shutil.copy(real, tmp_path / "copy.pdf")
    refused = extract_file(Path(other), "pdfium", identity=(stat.st_dev, stat.st_ino))
    assert refused.status == FileStatus.FAILED
    assert "not the file the scan saw" in (refused.error or "")


def test_a_folder_swapped_for_a_link_is_refused_at_open(tmp_path: Path) -> None:
    """files/sub/b.pdf, then `sub` becomes a link to an outside folder holding a b.pdf
    (the identity is the one the scan then sees): the open itself says it left the folder."""
    files = tmp_path / "files"
    (files / "sub").mkdir(parents=True)
    pdfgen.write_pdf(files / "sub" / "b.pdf", ["banana split"])
    secret = _secret(tmp_path)
    (files / "sub").rename(tmp_path / "sub-moved")
    (files / "sub").symlink_to(secret.parent, target_is_directory=True)
    outside = secret.stat()
    with pytest.raises(UnsafeFile, match="outside the files folder"):
        file_sha256(files / "sub" / "b.pdf", (outside.st_dev, outside.st_ino), files)
    assert len(file_sha256(files / "sub" / "b.pdf", (outside.st_dev, outside.st_ino))) == 64


def test_cli_indexes_the_rest_and_names_what_it_skipped(tmp_path: Path) -> None:
    _hostile_folder(tmp_path)
    run = _cli(tmp_path, "reindex")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("added 1,")
    assert "failed 0" in run.stdout
    assert f"x.pdf: {NOT_REGULAR}" in run.stderr
    assert f"notes.txt: {NOT_REGULAR}" in run.stderr
    assert f"{SHOWN_BAD}: {NOT_UTF8}" in run.stderr
    assert "Traceback" not in run.stderr
    stats = _cli(tmp_path, "stats", "--json")
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["documents"] == 1
    found = _cli(tmp_path, "search", "unicorn")
    assert found.returncode == 0, found.stderr
    assert "good.pdf" in found.stdout, found.stderr
    missing = _cli(tmp_path, "search", "zebra")
    assert missing.returncode == 1
    assert "Traceback" not in missing.stderr


def test_live_index_and_list_searchable_files(tmp_path: Path) -> None:
    _hostile_folder(tmp_path)
    with open_app(make_settings(tmp_path, workers=1)) as app:
        listed, searched, zebra = InMemory(app).calls(
            ("list_searchable_files", {"path": "."}),
            ("search_documents", {"query": "unicorn"}),
            ("search_documents", {"query": "zebra"}),
        )
        assert not listed.is_error
        assert not searched.is_error
        rows = listed.structured_content["files"]  # type: ignore[index]
        indexed = [row for row in rows if row["status"] != "skipped"]
        assert [row["path"] for row in indexed] == ["good.pdf"]
        assert indexed[0]["status"] == FileStatus.OK
        skipped = {row["path"]: row["error"] for row in rows if row["status"] == "skipped"}
        # The FIFOs and the undecodable names are listed as skipped, with the reason, their
        # names escaped; nothing under the undecodable folder is looked at.
        assert skipped == {
            "x.pdf": NOT_REGULAR,
            "notes.txt": NOT_REGULAR,
            SHOWN_BAD: NOT_UTF8,
            "dir\\xfe": NOT_UTF8,
        }, skipped
        assert "Found 1 pages" in text_of(searched)
        assert "Document: good" in text_of(searched)
        assert "**zebra**" not in text_of(zebra)
        assert app.index.engine.catalog().keys() == {"good.pdf"}


def _cached_texts(index: PdfIndex) -> str:
    """Every text the extraction cache holds, as one string."""
    return " ".join(
        gzip.decompress(entry.read_bytes()).decode("utf-8")
        for entry in index.cache.folder.rglob("*.json.gz")
    )


def _secret(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    return pdfgen.write_pdf(outside / "b.pdf", ["classified xylophone secret"])


def test_file_swapped_for_a_link_after_the_scan_is_refused(tmp_path: Path) -> None:
    """The scan and hashing see a.pdf and sub/b.pdf; then (at the start of the text pass,
    before any worker opens them) a.pdf becomes a link to an outside PDF and `sub` a link to
    an outside folder holding a b.pdf: neither is read."""
    files = tmp_path / "files"
    (files / "sub").mkdir(parents=True)
    pdfgen.write_pdf(files / "a.pdf", ["apple orchard"])
    pdfgen.write_pdf(files / "sub" / "b.pdf", ["banana split"])
    secret = _secret(tmp_path)
    index = PdfIndex(make_settings(tmp_path, workers=1, elements=False))

    def swap(step: Step) -> None:
        if step.stage == TEXT and step.done == 0:
            (files / "a.pdf").unlink()
            (files / "a.pdf").symlink_to(secret)
            (files / "sub").rename(tmp_path / "sub-moved")
            (files / "sub").symlink_to(secret.parent, target_is_directory=True)

    try:
        summary = index.reindex(progress=swap)
        assert summary.failed == 2, summary.failures
        assert all("refused" in reason for reason in summary.failures.values())
        assert "not the file the scan saw" in summary.failures["sub/b.pdf"]
        assert index.search("xylophone")[1] == []
        assert "xylophone" not in _cached_texts(index)
        (files / "a.pdf").unlink()
        pdfgen.write_pdf(files / "a.pdf", ["apple orchard"])
        again = index.reindex(full=True)
        assert again.failed == 0
        assert index.search("xylophone")[1] == []
        assert [hit.path for hit in index.search("apple")[1]] == ["a.pdf"]
    finally:
        index.close()


def test_swap_before_the_elements_pass_is_refused(tmp_path: Path) -> None:
    """Five PDFs with figures; once the first one's elements are found, the others are
    swapped for links to an outside PDF. A worker already holding one (it gets its next
    file before the last is written) read it inside; every one not yet sent is refused."""
    files = tmp_path / "files"
    files.mkdir()
    names = [f"{n}.pdf" for n in ("one", "two", "three", "four", "five")]
    for name in names:
        elementgen.report_pdf(files / name)
    outside = tmp_path / "outside"
    outside.mkdir()
    elementgen.report_pdf(outside / "secret.pdf")
    index = PdfIndex(make_settings(tmp_path, workers=1))

    swapped: list[str] = []

    def swap(step: Step) -> None:
        if step.stage == ELEMENTS_STAGE and step.done == 1:
            for name in names:
                if name != step.path:
                    swapped.append(name)
                    other = files / name
                    keep = other.stat()
                    other.unlink()
                    other.symlink_to(outside / "secret.pdf")
                    times = (keep.st_atime_ns, keep.st_mtime_ns)
                    os.utime(other, ns=times, follow_symlinks=False)

    try:
        summary = index.reindex(progress=swap)
        assert summary.elements_found > 0
        records = index.engine.catalog()
        (kept,) = records.keys() - set(swapped)
        assert records[kept].elements_state == "done"
        refused = [n for n in swapped if records[n].elements_state == FileStatus.FAILED]
        assert len(refused) >= 2  # at most two were in the worker's hands
        for name in refused:
            assert any("refused" in note for note in records[name].notes)
            assert index.engine.elements(records[name].slug) == []
        assert all(records[n].elements_state in ("done", FileStatus.FAILED) for n in swapped)
    finally:
        index.close()
