"""The postgres engine deployed: reads from a hot standby (`read_url`) made as an
operator makes one (`pg_basebackup -R`), and an indexer SIGKILLed mid-commit.

Runs once (conftest ONE_PASS), on its own primary and standby (tests/pgserver.py), whatever
the pass's engine; skips with the reason where PostgreSQL cannot be started.
"""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks import reliability
from pdfindex.api import PdfIndex
from pdfindex.config import load_settings
from pdfindex.engine.postgres import engine as postgres_engine
from pdfindex.errors import ConfigError
from tests import pdfgen, pgserver
from tests.conftest import make_settings

pytest.importorskip("psycopg", reason="the postgres extra is not installed")

REPLAY_GUARD = 30.0  # seconds a standby may take to replay a commit (ms in practice)


class Pair:
    """A primary and its hot standby; databases made on the primary reach the standby."""

    def __init__(self, primary: pgserver.PgServer, standby: pgserver.PgServer) -> None:
        self.primary = primary
        self.standby = standby

    def new_database(self) -> tuple[str, str]:
        """A fresh database: its URL on the primary and on the standby (once replayed)."""
        url = self.primary.new_database("r")
        self.replayed()
        name = url.split("?")[0].rsplit("/", 1)[1]
        return url, self.standby.url(name)

    def replayed(self) -> None:
        """The standby has replayed all the primary had written (bounded)."""
        self.standby.wait_replayed(self.primary, timeout=REPLAY_GUARD)


@pytest.fixture(scope="module")
def pair() -> Iterator[Pair]:
    try:
        primary = pgserver.start_server()
    except pgserver.Unavailable as exc:
        pytest.skip(f"PostgreSQL cannot be started here: {exc}")
    try:
        # A commit's WAL written before it returns (fsync stays off): the primary's WAL
        # position after a commit covers it, and the tests wait for the standby up to there.
        primary.sql("postgres", "ALTER SYSTEM SET synchronous_commit = on")
        primary.sql("postgres", "SELECT pg_reload_conf()")
        standby = primary.start_standby()
    except pgserver.Unavailable as exc:
        primary.stop()
        pytest.skip(f"a hot standby cannot be started here: {exc}")
    yield Pair(primary, standby)
    standby.stop()
    primary.stop()


def _index(root: Path, url: str, read_url: str = "") -> PdfIndex:
    """A PdfIndex on the postgres engine; `read_url` as a user sets it (pdfindex.toml)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pdfindex.toml").write_text(f'read_url = "{read_url}"\n' if read_url else "")
    settings = make_settings(root, engine="postgres", database_url=url, elements=False)
    assert settings.read_url == read_url
    return PdfIndex(settings)


def _paths(index: PdfIndex, query: str) -> list[tuple[str, int]]:
    return [(h.path, h.page) for h in index.search(query)[1]]


def test_settings_show_the_read_url_without_its_password(tmp_path: Path) -> None:
    url = "postgresql://reader:s3cret@standby.example/library"
    settings = load_settings({"read_url": url}, root=tmp_path)
    assert (
        settings.as_dict()["read_url"]["value"] == "postgresql://reader:***@standby.example/library"
    )
    assert "s3cret" not in repr(settings)


def test_a_standby_answers_searches_after_the_primarys_commit(pair: Pair, tmp_path: Path) -> None:
    url, standby_url = pair.new_database()
    # The reader opens first, on an empty database: the primary makes the tables (a
    # standby is read-only) and the reader waits until its standby has them.
    reader = _index(tmp_path / "reader", url, standby_url)
    writer = _index(tmp_path / "writer", url)
    files = tmp_path / "writer" / "files"
    try:
        assert reader.engine._rows("SELECT pg_is_in_recovery()") == [(True,)]
        pdfgen.write_pdf(files / "a.pdf", ["a page about hyphenation"])
        writer.reindex()
        pair.replayed()
        assert _paths(reader, "hyphenation") == [("a.pdf", 1)]
        assert _paths(reader, "lighthose~1") == []  # the vocabulary of this generation
        pdfgen.write_pdf(files / "b.pdf", ["intro", "the lighthouse keeper"])
        writer.reindex()
        pair.replayed()
        assert _paths(reader, "lighthose~1") == [("b.pdf", 2)]  # the cache followed
        matches = reader.exact("lighthouse keep")[0]
        assert [(m.path, m.page, m.start) for m in matches] == [("b.pdf", 2, 4)]
        assert [r.path for r in reader.documents()] == ["a.pdf", "b.pdf"]
        (files / "a.pdf").unlink()
        writer.reindex()
        pair.replayed()
        assert _paths(reader, "hyphenation") == []
        assert [r.path for r in reader.documents()] == ["b.pdf"]
    finally:
        reader.close()
        writer.close()


def test_an_indexer_reading_from_the_standby_reads_its_own_writes(
    pair: Pair, tmp_path: Path
) -> None:
    """It writes to the primary and reads the catalog on the standby: each commit waits
    until the standby has replayed the last one, so nothing is added twice or missed."""
    url, standby_url = pair.new_database()
    index = _index(tmp_path, url, standby_url)
    try:
        for n in range(3):
            pdfgen.write_pdf(tmp_path / "files" / f"d{n}.pdf", [f"document number{n}"])
            summary = index.reindex()
            assert (summary.added, summary.updated) == (1, 0), summary
            assert _paths(index, f"number{n}") == [(f"d{n}.pdf", 1)]  # no wait by the test
        assert index.reindex().added == 0
    finally:
        index.close()


def test_stats_and_library_status_name_the_replica_read_from(pair: Pair, tmp_path: Path) -> None:
    from pdfindex.tools.catalog import library_status

    url, standby_url = pair.new_database()
    pdfgen.write_pdf(tmp_path / "files" / "a.pdf", ["replica words"])
    index = _index(tmp_path, url, standby_url)
    try:
        index.reindex()
        stats = index.stats()
        assert (stats["database"], stats["read_database"]) == (url, standby_url)
        status = library_status(index, watching=False, pending=False, last_error=None)
        assert f"read from the replica {standby_url}" in status, status
    finally:
        index.close()
    plain = _index(tmp_path / "plain", url)
    try:
        assert plain.stats()["read_database"] is None
    finally:
        plain.close()


def test_a_standby_that_goes_down_is_named_and_used_again_once_back(
    pair: Pair, tmp_path: Path
) -> None:
    url, standby_url = pair.new_database()
    pdfgen.write_pdf(tmp_path / "writer" / "files" / "a.pdf", ["steady words"])
    writer = _index(tmp_path / "writer", url)
    writer.reindex()
    pair.replayed()
    reader = _index(tmp_path / "reader", url, standby_url)
    try:
        assert _paths(reader, "steady") == [("a.pdf", 1)]
        pair.standby.halt()
        try:
            for _ in range(2):  # the dropped connection, then a new one refused
                with pytest.raises(ConfigError, match="cannot connect to the read replica"):
                    reader.search("steady")
        finally:
            pair.standby.resume()
        assert _paths(reader, "steady") == [("a.pdf", 1)]
    finally:
        reader.close()
        writer.close()


def test_a_read_url_that_is_not_a_replica_of_the_database_is_refused(
    pair: Pair, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another database than the primary's copy: it never gets the tables the primary
    makes, and the reader says what read_url must be rather than writing there."""
    url, _ = pair.new_database()
    elsewhere = pair.primary.new_database("other")
    monkeypatch.setattr(postgres_engine, "REPLAY_WAIT", 0.5)
    with pytest.raises(ConfigError, match="must be a streaming replica") as raised:
        _index(tmp_path, url, elsewhere)
    assert "found None" in str(raised.value)
    name = elsewhere.split("?")[0].rsplit("/", 1)[1]
    assert pair.primary.value(name, "SELECT to_regclass('pdfindex_meta') IS NULL") is True


# -- an indexer SIGKILLed mid-commit -----------------------------------------------------

KILLED_DOCUMENTS = 24
WORDS = ["lighthouse", "Document 3 version", "marker", "page marker p0002"]
# When each run is killed: ("start", s) s seconds after it started; ("lock", s) s seconds
# after its writer's transaction was first seen open (its advisory lock held), at the
# next look that sees one open (between two commits none is); a run that ends first just
# ends. The lock moments land in the text pass's batches and, later, in the elements
# pass: rows being copied, the vocabulary being counted, COMMIT being sent.
KILLS = [("start", 0.4), ("lock", 0.0), ("lock", 0.03), ("lock", 0.1), ("lock", 0.3)]
KILLS += [("lock", 0.8)]
POLL = 0.002  # seconds between two looks at pg_locks
RUN_GUARD = 120.0  # seconds a run may take before the test gives up on it


def _writer_locks(primary: pgserver.PgServer, database: str) -> int:
    """Advisory locks held in `database`: the writer's (whichever key it uses)."""
    return int(
        primary.value(  # type: ignore[arg-type]
            "postgres",
            "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database"
            f" WHERE l.locktype = 'advisory' AND l.granted AND d.datname = '{database}'",
        )
    )


def _run_and_kill(
    root: Path, primary: pgserver.PgServer, database: str, moment: tuple[str, float]
) -> dict[str, object]:
    """One `pdfindex reindex` killed at `moment` (unless it ended first)."""
    process = subprocess.Popen(
        reliability.reindex_command(root, "postgres"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    began = time.monotonic()
    kind, delay = moment
    seen = None
    while process.poll() is None and time.monotonic() - began < RUN_GUARD:
        held = kind == "lock" and _writer_locks(primary, database) > 0
        if held and seen is None:
            seen = time.monotonic()
        due = began + delay if kind == "start" else (seen + delay if seen else None)
        # A lock moment waits for a transaction to be open (between two commits none is).
        if due is not None and time.monotonic() >= due and (held or kind == "start"):
            process.send_signal(signal.SIGKILL)
            break
        time.sleep(POLL)
    else:
        held = False
    process.wait(RUN_GUARD)
    stderr = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
    if process.stderr:
        process.stderr.close()
    killed = process.returncode == -signal.SIGKILL
    # The killed client's session ends, and its advisory lock with it (bounded wait).
    freed = time.monotonic()
    while _writer_locks(primary, database) and time.monotonic() - freed < REPLAY_GUARD:
        time.sleep(POLL)
    return {
        "moment": moment,
        "killed": killed,
        "lock_held_at_kill": killed and held,
        "exit": process.returncode,
        "stderr": stderr[-500:],
        "locks_after": _writer_locks(primary, database),
    }


def test_sigkill_of_the_indexer_mid_commit_loses_nothing(
    pair: Pair, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As tests/test_reliability.py's loop for the embedded engines, on the postgres
    engine, with kills timed by the writer's transaction: each run then the next (files
    added, changed and removed between runs) and a last one to the end equal a fresh
    build of the same files in another database."""
    killed_url, _ = pair.new_database()
    fresh_url, _ = pair.new_database()
    database = killed_url.split("?")[0].rsplit("/", 1)[1]
    monkeypatch.setenv("PDFINDEX_ENGINE", "postgres")
    monkeypatch.setenv("PDFINDEX_LOCK_TIMEOUT", "1")  # a lock left behind fails the next run
    monkeypatch.setenv("PDFINDEX_OCR", "false")
    monkeypatch.setenv("PDFINDEX_DATABASE_URL", killed_url)
    root, files = tmp_path / "killed", tmp_path / "killed" / "files"
    for number in range(KILLED_DOCUMENTS):
        reliability.write_document(files / f"doc{number:03d}.pdf", number)
    rng = random.Random(15)
    events = []
    for step, moment in enumerate(KILLS):
        changes = reliability._mutate(files, rng, step) if step else []
        events.append({**_run_and_kill(root, pair.primary, database, moment), "changes": changes})
    final = reliability.run_reindex(root, "postgres")
    killed = reliability.snapshot(root, WORDS, "postgres")
    shutil.copytree(files, tmp_path / "fresh" / "files")
    monkeypatch.setenv("PDFINDEX_DATABASE_URL", fresh_url)
    fresh = reliability.run_reindex(tmp_path / "fresh", "postgres")
    built = reliability.snapshot(tmp_path / "fresh", WORDS, "postgres")

    assert final["exit"] == 0, (final, fresh)
    assert fresh["exit"] == 0, (final, fresh)
    assert all(e["killed"] or e["exit"] == 0 for e in events), events  # never "locked"
    assert sum(e["lock_held_at_kill"] for e in events) == 5, events  # mid-transaction kills
    assert [e["locks_after"] for e in events] == [0] * len(events)  # the lock died too
    assert len(built["documents"]) > KILLED_DOCUMENTS  # files were added between runs
    assert {d["status"] for d in built["documents"].values()} == {"ok"}
    assert killed["documents"] == built["documents"]  # path, sha256, pages, elements
    assert killed["texts"] == built["texts"]
    assert killed["hits"] == built["hits"]  # exact search: paths, pages and offsets
    assert len(built["hits"]["lighthouse"]["hits"]) > KILLED_DOCUMENTS // 2  # not vacuous
