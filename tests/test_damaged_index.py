"""A damaged index, a lost format file and two writers on a fresh root, through the real
CLI (subprocesses, so a Rust panic or a traceback would show on stderr) on a real index.

A damaged index is found when it is opened and rebuilt from the extraction cache with one
line on stderr; no PDF is parsed again. An index that only lost its format file is kept.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pdfindex.api import PdfIndex
from tests import pdfgen
from tests.conftest import ENGINE, make_settings
from tests.mcpclient import stdio, text_of
from tests.waiting import eventually_async, indexed

REPO = Path(__file__).resolve().parents[1]
DOCS = 4


def _cli(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The real `pdfindex` process, running this work tree's code."""
    return subprocess.run(  # RUST_BACKTRACE: a panic would print its backtrace too
        [sys.executable, "-m", "pdfindex", "--root", str(root), *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(REPO), "RUST_BACKTRACE": "1", **env},
    )


def _write_files(root: Path) -> None:
    files = root / "files"
    files.mkdir(parents=True, exist_ok=True)
    for n in range(DOCS):
        pdfgen.write_pdf(files / f"doc{n}.pdf", [f"first page {n}", f"second page zebra {n}"])


@pytest.fixture
def built(tmp_path: Path) -> Path:
    """A root with an index of DOCS files (two commits, so two segments or more)."""
    _write_files(tmp_path)
    last = tmp_path / "files" / f"doc{DOCS - 1}.pdf"
    last.rename(tmp_path / "later.pdf")
    assert _cli(tmp_path, "reindex").returncode == 0
    (tmp_path / "later.pdf").rename(last)
    assert _cli(tmp_path, "reindex").returncode == 0
    return tmp_path


def _largest(folder: Path, pattern: str) -> Path:
    return max(folder.glob(pattern), key=lambda f: f.stat().st_size)


def _truncate(path: Path, keep: float = 0.5) -> None:
    path.write_bytes(path.read_bytes()[: int(path.stat().st_size * keep)])


def _garble(path: Path) -> None:
    """Bytes overwritten in the middle of the file, its length kept."""
    data = bytearray(path.read_bytes())
    start = len(data) // 4
    data[start : start + len(data) // 2] = bytes(range(7, 256, 3)) * (len(data) // 170 + 1)
    path.write_bytes(bytes(data[: path.stat().st_size]))


# name -> (engine -> damage done to its folder)
DAMAGE: dict[str, dict[str, Callable[[Path], None]]] = {
    "truncated table of contents": {
        "tantivy": lambda d: _truncate(d / "meta.json"),
        "whoosh": lambda d: _truncate(_largest(d, "_MAIN_*.toc")),
    },
    "missing table of contents": {
        "tantivy": lambda d: (d / "meta.json").unlink(),
        "whoosh": lambda d: _largest(d, "_MAIN_*.toc").unlink(),
    },
    "missing segment file": {
        "tantivy": lambda d: _largest(d, "*.store").unlink(),
        "whoosh": lambda d: _largest(d, "*.seg").unlink(),
    },
    "truncated segment file": {
        "tantivy": lambda d: _truncate(_largest(d, "*.idx")),
        "whoosh": lambda d: _truncate(_largest(d, "*.seg")),
    },
    "garbage in a segment file": {
        "tantivy": lambda d: _garble(_largest(d, "*.store")),
        "whoosh": lambda d: _garble(_largest(d, "*.seg")),
    },
}


def _reports_recovered() -> None:
    """These cases need the engine to report `recovered` (why the index it opened was
    started empty) and to remove a failed write's files: they fail, never skip, when
    it stops."""
    from pdfindex.config import index_settings
    from pdfindex.engine import open_engine

    probe = open_engine(index_settings(Path.cwd() / "probe", ENGINE["name"]))
    reports = hasattr(probe, "recovered")
    probe.close()
    assert reports, (
        f"the {ENGINE['name']} engine no longer reports `recovered`: a damaged index "
        "would be started empty without a word"
    )


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_index_is_rebuilt_from_the_cache_with_one_line(built: Path, damage: str) -> None:
    _reports_recovered()
    engine = ENGINE["name"]
    DAMAGE[damage][engine](built / "index" / engine)

    result = _cli(built, "search", "zebra")

    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "Aborted" not in result.stderr
    assert "panicked" not in result.stderr
    assert "backtrace" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if "was damaged" in line]
    assert len(lines) == 1, result.stderr
    assert f"rebuilt it ({DOCS} files" in lines[0], lines[0]
    assert "0 parsed" in lines[0], lines[0]
    assert f"{DOCS} of {DOCS} pages" in result.stdout
    # Rebuilt for good: the next command opens it without a word.
    again = _cli(built, "search", "zebra")
    assert again.returncode == 0
    assert "damaged" not in again.stderr
    assert f"{DOCS} of {DOCS} pages" in again.stdout


def test_serve_answers_at_once_on_a_damaged_index_and_refills_it(built: Path) -> None:
    """`serve` does not rebuild before answering: it starts the damaged index empty, says
    so in one log line, and its start-up scan refills it from the extraction cache."""
    _reports_recovered()
    engine = ENGINE["name"]
    DAMAGE["missing segment file"][engine](built / "index" / engine)

    async def main() -> None:
        async with stdio(built) as client:
            status = await client.call_tool("get_library_status", {})
            assert not status.is_error, text_of(status)
            await indexed(client, "doc2", "zebra")  # the index refilled

    asyncio.run(main())
    log = max((built / "logs").glob("*.log"), key=lambda p: p.stat().st_mtime)
    damaged = [line for line in log.read_text().splitlines() if "was damaged" in line]
    assert len(damaged) == 1, damaged
    assert "start-up scan refills it" in damaged[0], damaged
    again = _cli(built, "search", "zebra")  # refilled for good, from the cache
    assert again.returncode == 0
    assert "damaged" not in again.stderr
    assert f"{DOCS} of {DOCS} pages" in again.stdout


def test_an_index_that_lost_only_its_format_file_is_kept(built: Path) -> None:
    engine = ENGINE["name"]
    folder = built / "index"
    format_file = folder / engine / "pdfindex-format.json"
    if engine == "whoosh":
        format_file = folder / "pdfindex-format.json"
    format_file.unlink()

    result = _cli(built, "stats", "--json")

    assert result.returncode == 0, result.stderr
    assert '"documents": 4' in result.stdout  # not wiped
    assert "damaged" not in result.stderr
    assert format_file.exists()  # written back
    assert _cli(built, "reindex").stdout.startswith("added 0, updated 0")


RACER = """
import sys, time
from pathlib import Path
from pdfindex.config import index_settings
from pdfindex.engine import open_engine
from pdfindex.errors import IndexLocked

def main():
    folder, start, engine = Path(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
    time.sleep(max(0.0, start - time.time()))
    try:
        opened = open_engine(index_settings(folder, engine))
        with opened.writer(0.1) as writer:
            writer.changed = True
        opened.catalog()
        print("ok")
    except IndexLocked as exc:
        print("locked:", exc)

if __name__ == "__main__":
    main()
"""


def test_two_processes_opening_a_fresh_index_at_once_never_crash(tmp_path: Path) -> None:
    """Before the creation lock, 5 in 22 such pairs crashed (a half-made index read or
    wiped by the other process): 12 pairs miss that with a chance of about 5%."""
    script = tmp_path / "racer.py"
    script.write_text(RACER)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for attempt in range(12):
        folder = tmp_path / f"index{attempt}"
        start = f"{time.time() + 1.0}"  # both start together, after their imports
        racers = [
            subprocess.Popen(
                [sys.executable, str(script), str(folder), start, ENGINE["name"]],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
            )
            for _ in range(2)
        ]
        results = [racer.communicate(timeout=120) for racer in racers]
        for stdout, stderr in results:
            assert stderr == "", stderr
            assert stdout.startswith(("ok", "locked: another pdfindex process is writing"))
        assert any(stdout.startswith("ok") for stdout, _ in results)


def test_two_reindex_at_once_on_a_fresh_root_give_the_clear_message(tmp_path: Path) -> None:
    _write_files(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO), "PDFINDEX_LOCK_TIMEOUT": "0.1"}
    command = [sys.executable, "-m", "pdfindex", "--root", str(tmp_path), "reindex"]
    runs = [
        subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        for _ in range(2)
    ]
    results = [(run.wait(timeout=180), *run.communicate()) for run in runs]
    for code, _stdout, stderr in results:
        assert "Traceback" not in stderr
        assert code == 0 or (code == 2 and "another pdfindex process is writing" in stderr)
    assert 0 in [code for code, _, _ in results]
    index = PdfIndex(make_settings(tmp_path))
    try:
        assert len(index.engine.catalog()) == DOCS
    finally:
        index.close()


# 6 files of 300 pages fit, 16 do not (Tantivy: text cache 3.4 MB and index 8.4 MB for 16)
DISK_MB = {"tantivy": 14, "whoosh": 17}


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A small tmpfs as the index folder (needs root and CAP_SYS_ADMIN), unmounted after."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={DISK_MB[ENGINE['name']]}m", "tmpfs", str(disk)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs (not root, or no CAP_SYS_ADMIN): {mounted.stderr}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


@pytest.mark.parametrize("filled_by", ["text cache", "index"])
def test_a_full_disk_gives_one_line_and_leaves_the_index_as_it_was(
    tmp_path: Path, small_disk: Path, filled_by: str
) -> None:
    """16 files of 300 pages: text cache 3.4 MB, index 19 MB on Tantivy. With the text cache
    filled beforehand, the index's own write is the one that fails."""
    _reports_recovered()  # the engine change that also cleans up a failed write
    files, held = tmp_path / "files", tmp_path / "held"
    files.mkdir()
    held.mkdir()
    for n in range(16):
        pdfgen.write_large_pdf((files if n < 6 else held) / f"big{n}.pdf", 300, seed=n)
    if filled_by == "index":
        whole = tmp_path / "whole"
        shutil.copytree(files, whole / "files")
        shutil.copytree(held, whole / "files", dirs_exist_ok=True)
        assert _cli(whole, "reindex").returncode == 0
        shutil.copytree(whole / "index" / "cache", small_disk / "cache")
    index_dir = f"--index-dir={small_disk}"
    assert _cli(tmp_path, "reindex", index_dir).returncode == 0
    folder = small_disk / ENGINE["name"]
    before = sorted(f.name for f in folder.iterdir())
    for pdf in held.iterdir():
        pdf.rename(files / pdf.name)

    failed = _cli(tmp_path, "reindex", index_dir)

    assert failed.returncode == 2
    assert failed.stderr.strip().splitlines() == [
        f"Error: the disk holding the index in {small_disk} is full: nothing was committed, "
        "the index is as it was. Free some space and run the command again"
    ]
    assert sorted(f.name for f in folder.iterdir()) == before  # no partial segment left
    search = _cli(tmp_path, "search", "--json", index_dir, "the")
    assert search.returncode == 0
    assert json.loads(search.stdout)["total"] == 1800

    subprocess.run(["mount", "-o", "remount,size=32m", str(small_disk)], check=True)
    retry = _cli(tmp_path, "reindex", index_dir)
    assert retry.returncode == 0, retry.stderr
    assert retry.stdout.startswith("added 10,")


def test_a_full_disk_under_serve_is_one_line_in_the_status_and_the_log(
    tmp_path: Path, small_disk: Path
) -> None:
    """The start-up scan of `serve` fills the small disk (text cache and index): the
    server keeps answering, get_library_status names the full disk in one line, and the
    log holds that line without a traceback."""
    _reports_recovered()
    files = tmp_path / "files"
    files.mkdir()
    for n in range(16):
        pdfgen.write_large_pdf(files / f"big{n}.pdf", 300, seed=n)

    async def main() -> str:
        async with stdio(tmp_path, f"--index-dir={small_disk}", "--no-watch") as client:

            async def status() -> str:
                return text_of(await client.call_tool("get_library_status", {}))

            return await eventually_async(
                status, "a full-disk status", 120, 0.25, holds=lambda text: "degraded" in text
            )

    status = asyncio.run(main())
    assert "is full: nothing was committed" in status, status
    log = max((tmp_path / "logs").glob("*.log"), key=lambda p: p.stat().st_mtime).read_text()
    assert "Traceback" not in log
    assert any("failed: the disk holding the index" in line for line in log.splitlines())


def test_reindex_refills_an_older_index_itself_with_its_own_options(built: Path) -> None:
    """`reindex --elements-later` on an index of an older format: the index is started
    empty at open and this reindex refills it from the cache, with its options, summary
    and progress (opening it used to refill it first, elements pass included, whatever the
    options said)."""
    engine = ENGINE["name"]
    folder = built / "index" / engine
    format_file = folder / "pdfindex-format.json"
    if engine == "whoosh":
        format_file = built / "index" / "pdfindex-format.json"
    format_file.write_text(json.dumps({"format": 3}))

    result = _cli(built, "reindex", "--elements-later", "--json")

    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert (summary["added"], summary["from_cache"], summary["parsed"]) == (DOCS, DOCS, 0)
    lines = [line for line in result.stderr.splitlines() if "older" in line]
    if engine == "tantivy":  # Whoosh starts an older index empty without a word
        assert len(lines) == 1, result.stderr
        assert "this reindex refills it" in lines[0], lines[0]
    again = _cli(built, "search", "zebra")
    assert f"{DOCS} of {DOCS} pages" in again.stdout
