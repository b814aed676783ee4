"""Disk use stays under its caps however many calls are made (issue 31, defect 10): the
page-image cache (`page_cache_mb`, least recently used first, never an image of an older
version of the PDF), `query_documents` sessions (`max_sessions`, `session_expiry_days`;
`list_sessions` a page at a time) and the logs (rotated at `log_file_mb`, `log_keep`
session logs kept). The tools are called in-process, thousands of times, under small caps;
`python -m benchmarks.disk_bounds` makes the 250,000-call version."""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from pdfindex import deadline
from pdfindex.config import load_settings
from pdfindex.logs import setup_logging
from pdfindex.server import AppContext
from pdfindex.tools import passages
from pdfindex.tools.pages import get_page_image
from pdfindex.tools.sessions import SessionStore
from tests import pdfgen
from tests.conftest import make_settings
from tests.mcpclient import open_app

MAX_SESSIONS = 40
CACHE_MB = 1.0  # a page of this corpus is 7 KB at 36 dpi, 400 KB at 300 dpi
SESSION_FILE = 8_000  # bytes: a session keeps its last 20 queries, each under 300 bytes here


def usage(folder: Path) -> tuple[int, int]:
    """(files, bytes) under `folder`."""
    files = [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []
    return len(files), sum(p.stat().st_size for p in files)


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Iterator[AppContext]:
    root = tmp_path_factory.mktemp("disk")
    files = root / "files"
    files.mkdir()
    pdfgen.write_pdf(
        files / "doc.pdf",
        ["Attention heads and budgets. " * 40, "Second page on budgets. " * 50, "Third."],
    )
    pdfgen.write_pdf(files / "changing.pdf", ["The first version of this page."])
    settings = make_settings(
        root, max_sessions=MAX_SESSIONS, page_cache_mb=CACHE_MB, elements=False, ocr=False
    )
    with open_app(settings) as opened:
        yield opened


def test_query_documents_calls_keep_sessions_under_their_cap(app: AppContext) -> None:
    folder = app.index.settings.index_dir / "sessions"
    first = passages.query_documents(app.index, app.sessions, "attention heads")
    conversation = first["session_id"]
    follow = passages.query_documents(app.index, app.sessions, "and budgets?", conversation)
    assert follow["status"] == "success"
    for n in range(2_000):
        answer = passages.query_documents(app.index, app.sessions, f"budgets question {n}")
        assert answer["status"] == "success", answer
        if n % 50 == 0:
            assert usage(folder)[0] <= MAX_SESSIONS, n
    files, size = usage(folder)
    assert files <= MAX_SESSIONS, (files, size)
    assert size <= MAX_SESSIONS * SESSION_FILE, (files, size)
    # One-off questions are evicted first: the conversation outlived 2,000 of them.
    again = passages.query_documents(app.index, app.sessions, "heads?", conversation)
    assert again["status"] == "success", again
    assert again["query_metadata"]["earlier_queries_used"] == 2

    listing = passages.list_sessions(app.sessions, 40_000, page=1, page_size=10)
    assert listing["status"] == "success"
    assert listing["sessions"][0]["session_id"] == conversation  # most recent first
    assert len(listing["sessions"]) == 10
    assert listing["total_count"] == listing["pagination"]["total"] == files
    assert listing["pagination"]["has_next"]
    assert listing["pagination"]["pages"] == 4
    last = passages.list_sessions(app.sessions, 40_000, page=4, page_size=10)
    assert not last["pagination"]["has_next"]
    assert 1 <= len(last["sessions"]) <= 10
    seen = {s["session_id"] for s in listing["sessions"]} | {
        s["session_id"] for s in last["sessions"]
    }
    assert len(seen) == len(listing["sessions"]) + len(last["sessions"])


def _old_session(folder: Path, n: int, at: float) -> None:
    """A session file as a version without a cap left it: 4 KB, written at `at`."""
    sid = str(uuid.UUID(int=n + 1))
    queries = [{"query": f"q{n} " + "x" * 150, "at": at, "cited": ["doc"]}] * 20
    data = {"session_id": sid, "created_at": at, "last_activity": at, "queries": queries}
    path = folder / f"{sid}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    os.utime(path, (at, at))


def test_list_sessions_pages_a_folder_of_many_sessions_in_time(tmp_path: Path) -> None:
    """20,000 sessions left by an older version: each list_sessions lists the newest
    `max_sessions` in time, and removes the rest and the expired over a few calls; later
    calls do not read every session again."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    now = time.time()
    for n in range(20_000):
        _old_session(folder, n, now - 3600 - (20_000 - n))  # n = 19,999 is the newest
    _old_session(folder, 20_000, now - 10 * 24 * 3600)  # idle for ten days: expired
    store = SessionStore(folder, max_sessions=500, expire_seconds=7 * 24 * 3600)
    started = time.monotonic()
    first = passages.list_sessions(store, 40_000, page=1, page_size=20)
    elapsed = time.monotonic() - started
    assert elapsed < 8.0, elapsed  # the request time limit is 10 s
    assert first["total_count"] == 500
    assert len(first["sessions"]) == 20
    assert first["sessions"][0]["session_id"] == str(uuid.UUID(int=20_000))
    assert first["statistics"]["total_queries"] == 500 * 20
    assert first["pagination"] == {
        "page": 1,
        "page_size": 20,
        "total": 500,
        "pages": 25,
        "has_next": True,
    }
    for _call in range(100):  # the surplus goes a quarter of a second per call
        started = time.monotonic()
        again = passages.list_sessions(store, 40_000, page=25, page_size=20)
        assert time.monotonic() - started < 2.0
        assert again["total_count"] == 500
        assert again["sessions"][-1]["session_id"] == str(uuid.UUID(int=19_501))
        assert not again["pagination"]["has_next"]
        if usage(folder)[0] == 500:
            break
    assert usage(folder)[0] == 500


def test_sessions_expire_after_the_configured_days(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s", max_sessions=10, expire_seconds=3600)
    session = store.new()
    store.record(session, "first", ["doc"])
    for path in (tmp_path / "s").iterdir():
        os.utime(path, (time.time() - 7200, time.time() - 7200))
    listing = passages.list_sessions(store, 40_000)
    assert listing["total_count"] == 0
    assert listing["sessions"] == []
    assert usage(tmp_path / "s")[0] == 0


def test_a_short_request_time_limit_still_keeps_the_cap(tmp_path: Path) -> None:
    """Removal stops before the request's time limit only for a backlog (an old folder):
    each call still removes what its own sessions pushed over the cap."""
    store = SessionStore(tmp_path / "s", max_sessions=50)
    with deadline.limit(0.001):
        time.sleep(0.002)  # past the limit from the start
        for n in range(500):
            store.record(store.new(), f"question {n}", [])
            assert usage(tmp_path / "s")[0] <= 50


def test_page_images_stay_under_the_cache_cap(app: AppContext) -> None:
    cache = app.index.settings.index_dir / "pages"
    cap = CACHE_MB * 1_000_000
    _, kept = get_page_image(app.index, "doc", 1, 72)
    written = 0
    for dpi in range(84, 301, 24):
        for page in (1, 2, 3):
            caption, png = get_page_image(app.index, "doc", page, dpi)
            assert "(cached)" not in caption
            written += len(png)
            if page == 1:  # used again and again: the least recently used go first
                caption, png = get_page_image(app.index, "doc", 1, 72)
                assert "(cached)" in caption
                assert png == kept
    assert written > 2 * cap  # without a cap the folder would hold all of them
    assert usage(cache)[1] <= cap, usage(cache)
    caption, _ = get_page_image(app.index, "doc", 1, 72)
    assert "(cached)" in caption


def test_a_changed_pdf_never_gets_an_old_image(app: AppContext) -> None:
    """The PDF changes on disk before the index sees it: the image is of the new bytes,
    and the images of the old version are gone."""
    files = app.index.settings.files_dir
    cache = app.index.settings.index_dir / "pages"
    before, old = get_page_image(app.index, "changing", 1, 60)
    assert "(cached)" not in before
    assert "(cached)" in get_page_image(app.index, "changing", 1, 60)[0]
    count_before = usage(cache)[0]
    stat = (files / "changing.pdf").stat()
    pdfgen.write_pdf(files / "changing.pdf", ["A second, different version: new words here."])
    os.utime(files / "changing.pdf", ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    after, new = get_page_image(app.index, "changing", 1, 60)
    assert "(cached)" not in after
    assert new != old
    assert usage(cache)[0] == count_before  # the old version's image was removed
    assert "(cached)" in get_page_image(app.index, "changing", 1, 60)[0]


@pytest.fixture
def restored_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        yield
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
            if handler not in handlers:
                handler.close()
        for handler in handlers:
            root.addHandler(handler)
        root.setLevel(level)


def test_logs_rotate_by_size_and_old_session_logs_go(
    tmp_path: Path, restored_logging: None
) -> None:
    logs = tmp_path / "logs"
    log = logging.getLogger("pdfindex.server")
    result = "r" * 4_000  # a call logs ~4.2 KB (request and response)
    max_bytes, keep = 50_000, 3
    for _session in range(6):
        current = setup_logging(logs, stderr=False, max_bytes=max_bytes, keep=keep)
        assert current is not None
        assert current.exists()
        for n in range(300):
            log.info("request query_documents %s", n)
            log.info("response query_documents %s", result)
        files = sorted(logs.iterdir())
        assert all(f.stat().st_size <= max_bytes + 5_000 for f in files), files
    sessions = {f.name.split(".log")[0] for f in logs.iterdir()}
    assert len(sessions) == keep, sorted(logs.iterdir())
    count, size = usage(logs)
    assert count <= keep * 3, (count, size)
    assert size <= keep * 3 * (max_bytes + 5_000), (count, size)
    assert current.name.split(".log")[0] in sessions  # the current session's log is kept
    assert "response query_documents" in current.read_text(encoding="utf-8")


def test_the_caps_are_settings(tmp_path: Path) -> None:
    settings = load_settings({}, root=tmp_path)
    assert settings.page_cache_mb == 200
    assert settings.max_sessions == 1000
    assert settings.session_expiry_days == 7
    assert settings.log_file_mb == 5
    assert settings.log_keep == 10
    app_settings = make_settings(tmp_path, max_sessions=3, session_expiry_days=0.5)
    store = SessionStore.for_settings(app_settings)
    assert (store.max_sessions, store.expire_seconds) == (3, 43_200)
    assert store.folder == app_settings.index_dir / "sessions"
