"""query_documents sessions: previous queries and cited documents, kept as JSON files in
the index folder so a restart keeps them.

Their disk use is bounded: at most `max_sessions` files (the least recently active go
first, and sessions of one query, the one-off questions, before conversations), and a
session idle longer than `session_expiry_days` expires. A file's mtime is its session's
last activity, so ordering, expiry and eviction read the folder's listing, never the files;
list_sessions reads only the page it shows (and, once per change, what its statistics need).
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
import uuid
from collections import deque
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pdfindex import deadline
from pdfindex.config import SETTINGS
from pdfindex.errors import SessionNotFound

if TYPE_CHECKING:
    from pdfindex.config import Settings

# The settings' defaults, for a store made without settings (tests, scripts):
MAX_SESSIONS: int = SETTINGS["max_sessions"].default
EXPIRE_SECONDS: float = SETTINGS["session_expiry_days"].default * 24 * 3600
KEEP_QUERIES = 20
ONCE = ".once.json"  # a session of one query so far: evicted before conversations
SWEEP_SECONDS = 3600.0  # expired sessions are removed at least this often while recording
STALE_TMP_SECONDS = 3600.0  # a temporary file this old was left by a crash
# Removal of a backlog (thousands of files an uncapped version left): each call removes
# files for DRAIN_SECONDS at most (and stops SPARE_SECONDS before its request's limit),
# but always ALWAYS_REMOVED (milliseconds), so that each call's own surplus goes at once.
DRAIN_SECONDS = 0.25
SPARE_SECONDS = 1.0
ALWAYS_REMOVED = 200
PAGE_SIZE, MAX_PAGE_SIZE = 50, 100  # list_sessions' sessions per page: default, most


@dataclass
class Session:
    session_id: str
    created_at: float
    last_activity: float
    queries: list[dict] = field(default_factory=list)  # {query, at, cited, seconds, topic}

    def cited(self) -> set[str]:
        return {slug for q in self.queries for slug in q.get("cited", [])}

    def average_time(self) -> float | None:
        """Mean seconds of the queries that recorded their time (older ones did not)."""
        times = [q["seconds"] for q in self.queries if "seconds" in q]
        return round(sum(times) / len(times), 3) if times else None


@dataclass(frozen=True)
class Entry:
    """A session file as the folder's listing shows it."""

    session_id: str
    path: str
    mtime: float  # the session's last activity
    mtime_ns: int
    size: int
    once: bool  # one query so far


@dataclass(frozen=True)
class Summary:
    """What list_sessions' statistics need of a session."""

    session_id: str
    created_at: float
    queries: int


class SessionStore:
    def __init__(
        self,
        folder: Path,
        max_sessions: int = MAX_SESSIONS,
        expire_seconds: float = EXPIRE_SECONDS,
    ) -> None:
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be 1 or more, got {max_sessions}")
        self.folder = folder
        self.max_sessions = max_sessions
        self.expire_seconds = expire_seconds
        self._lock = threading.Lock()
        self._summaries: dict[str, tuple[int, int, Summary]] = {}  # path -> mtime_ns, size
        self._swept = 0.0  # when expired sessions were last removed
        # Session files as of the last listing, plus the sessions made since (listing the
        # folder at each call would cost more than the call's own work):
        self._count: int | None = None
        self._unlisted = 0  # calls since the folder was last listed
        self._backlog: deque[str] = deque()  # files to remove, a few per call
        self._backlogged: set[str] = set()  # the same, to skip them in listings

    @classmethod
    def for_settings(cls, settings: Settings) -> SessionStore:
        """The store of a library: `index_dir/sessions`, with its caps."""
        return cls(
            settings.index_dir / "sessions",
            settings.max_sessions,
            settings.session_expiry_days * 24 * 3600,
        )

    def _file(self, session_id: str, once: bool = False) -> Path:
        name = str(uuid.UUID(session_id))  # only UUIDs become names
        return self.folder / (name + (ONCE if once else ".json"))

    def new(self) -> Session:
        now = time.time()
        return Session(str(uuid.uuid4()), now, now)

    def get(self, session_id: str) -> Session:
        for path in (self._file(session_id), self._file(session_id, once=True)):
            try:
                session = Session(**json.loads(path.read_text(encoding="utf-8")))
                break
            except FileNotFoundError:
                continue
            except (ValueError, TypeError):  # damaged: it can never be used again
                path.unlink(missing_ok=True)
        else:
            raise SessionNotFound(
                f"session {session_id} is unknown or expired; omit session_id to start one"
            )
        if time.time() - session.last_activity > self.expire_seconds:
            path.unlink(missing_ok=True)
            raise SessionNotFound(f"session {session_id} expired; omit session_id to start one")
        return session

    def record(
        self,
        session: Session,
        query: str,
        cited: list[str],
        seconds: float | None = None,
        topic: str | None = None,
    ) -> None:
        """Add a query to the session and write it; then keep the folder under its cap.
        `cited`: the documents of its answer, best first; `topic`: how it stands to the
        session's topic (`topic.Topic.state`)."""
        session.last_activity = time.time()
        entry = {"query": query, "at": session.last_activity, "cited": cited}
        if seconds is not None:
            entry["seconds"] = round(seconds, 3)
        if topic is not None:
            entry["topic"] = topic
        session.queries.append(entry)
        session.queries = session.queries[-KEEP_QUERIES:]
        once = len(session.queries) == 1
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(asdict(session), handle)
        written = self._file(session.session_id, once)
        with self._lock:
            self._backlogged.discard(str(written))  # continued after it was evicted
        os.replace(tmp, written)
        self._file(session.session_id, not once).unlink(missing_ok=True)
        self._bound(written, made=once)

    # -- the caps -----------------------------------------------------------------------

    def _bound(self, keep: Path, made: bool) -> None:
        """Over `max_sessions` files: evict down to 90% of it, so that an eviction (one
        listing with a stat per file) comes once per tenth of the cap's new sessions;
        `keep`, just written, stays. `made`: the call made a new session file. The folder
        is listed again every tenth of the cap's calls (other processes write it too)."""
        now = time.time()
        with self._lock:
            self._drain()
            self._unlisted += 1
            if self._count is None or self._unlisted >= max(1, self.max_sessions // 10):
                try:
                    names = os.listdir(self.folder)
                except FileNotFoundError:
                    return
                self._count = sum(name.endswith(".json") for name in names)
                self._count -= len(self._backlogged)
                self._unlisted = 0
            elif made:
                self._count += 1
            if self._count > self.max_sessions or now - self._swept > SWEEP_SECONDS:
                live = self._prune(now, self.max_sessions - self.max_sessions // 10, str(keep))
                self._count, self._unlisted = len(live), 0

    def _scan(self, now: float) -> list[Entry]:
        """The session files, from the folder's listing (one stat each, no read), less
        those waiting to be removed."""
        entries = []
        try:
            listing = os.scandir(self.folder)
        except FileNotFoundError:
            return []
        with listing:
            for item in listing:
                name = item.name
                try:
                    if name.endswith(".tmp"):
                        if now - item.stat().st_mtime > STALE_TMP_SECONDS:
                            os.unlink(item.path)
                        continue
                    session_id = name.split(".", 1)[0]
                    if len(session_id) != 36 or not name.endswith(".json"):
                        continue  # not a session's name (they are UUIDs)
                    if item.path in self._backlogged:
                        continue
                    stat = item.stat()
                except OSError:  # gone meanwhile
                    continue
                entries.append(
                    Entry(
                        session_id,
                        item.path,
                        stat.st_mtime,
                        stat.st_mtime_ns,
                        stat.st_size,
                        name.endswith(ONCE),
                    )
                )
        return entries

    def _prune(self, now: float, target: int, keep: str | None = None) -> list[Entry]:
        """Remove expired sessions, and the least recently active beyond `target` (one-off
        sessions first); the live ones, most recent first. Called under the lock."""
        live, doomed = [], []
        for entry in self._scan(now):
            (doomed if now - entry.mtime > self.expire_seconds else live).append(entry)
        if len(live) > target:
            order = sorted(live, key=lambda e: (not e.once, e.mtime))  # evicted first first
            victims = [e for e in order if e.path != keep][: len(live) - target]
            gone = {e.path for e in victims}
            live = [e for e in live if e.path not in gone]
            doomed += victims
        for entry in doomed:
            self._backlog.append(entry.path)
            self._backlogged.add(entry.path)
        self._drain()
        for path in self._summaries.keys() - {e.path for e in live}:
            del self._summaries[path]
        self._swept = now
        live.sort(key=lambda e: (e.mtime, e.session_id), reverse=True)
        return live

    def _drain(self) -> None:
        """Remove files of the backlog: all of a call's own surplus, and of thousands
        (an old folder) what DRAIN_SECONDS allow; the rest at the next calls. Called
        under the lock."""
        started = time.monotonic()
        removed = 0
        while self._backlog:
            if removed >= ALWAYS_REMOVED and (
                time.monotonic() - started > DRAIN_SECONDS
                or deadline.remaining(float("inf")) < SPARE_SECONDS
            ):
                break
            path = self._backlog.popleft()
            if path in self._backlogged:  # not written again since
                self._backlogged.discard(path)
                _unlink(path)
                removed += 1

    # -- list_sessions --------------------------------------------------------------------

    def live(self) -> list[Entry]:
        """The live sessions, most recent first (at most `max_sessions`); expired and
        surplus ones are removed on the way."""
        with self._lock:
            live = self._prune(time.time(), self.max_sessions)
            self._count, self._unlisted = len(live), 0
            return live

    def load(self, entry: Entry) -> Session | None:
        """The session of an entry (None when it is gone or damaged)."""
        try:
            with open(entry.path, encoding="utf-8") as handle:
                return Session(**json.load(handle))
        except FileNotFoundError:
            return None
        except (ValueError, TypeError):
            _unlink(entry.path)
            return None

    def summaries(self, entries: list[Entry]) -> list[Summary]:
        """Each entry's summary; a file is read only when it changed since the last call."""
        found = []
        for entry in entries:
            with self._lock:
                known = self._summaries.get(entry.path)
            if known is not None and known[:2] == (entry.mtime_ns, entry.size):
                found.append(known[2])
                continue
            session = self.load(entry)
            if session is None:
                continue
            summary = Summary(session.session_id, session.created_at, len(session.queries))
            with self._lock:
                self._summaries[entry.path] = (entry.mtime_ns, entry.size, summary)
            found.append(summary)
        return found

    def all(self) -> list[Session]:
        """Live sessions, most recent first (every file read: for small folders and tests)."""
        return [s for s in map(self.load, self.live()) if s is not None]


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
