"""query_documents sessions: previous queries and cited documents, kept as JSON files in
the index folder so a restart keeps them; sessions idle longer than a week expire."""

from __future__ import annotations

import json
import os
import tempfile
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pdfindex.errors import SessionNotFound

EXPIRE_SECONDS = 7 * 24 * 3600
KEEP_QUERIES = 20


@dataclass
class Session:
    session_id: str
    created_at: float
    last_activity: float
    queries: list[dict] = field(default_factory=list)  # {query, at, cited, seconds}

    def cited(self) -> set[str]:
        return {slug for q in self.queries for slug in q.get("cited", [])}

    def average_time(self) -> float | None:
        """Mean seconds of the queries that recorded their time (older ones did not)."""
        times = [q["seconds"] for q in self.queries if "seconds" in q]
        return round(sum(times) / len(times), 3) if times else None


class SessionStore:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _file(self, session_id: str) -> Path:
        return self.folder / f"{uuid.UUID(session_id)}.json"  # only UUIDs become names

    def new(self) -> Session:
        now = time.time()
        return Session(str(uuid.uuid4()), now, now)

    def get(self, session_id: str) -> Session:
        try:
            data = json.loads(self._file(session_id).read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError) as exc:
            raise SessionNotFound(
                f"session {session_id} is unknown or expired; omit session_id to start one"
            ) from exc
        session = Session(**data)
        if time.time() - session.last_activity > EXPIRE_SECONDS:
            self._file(session_id).unlink(missing_ok=True)
            raise SessionNotFound(f"session {session_id} expired; omit session_id to start one")
        return session

    def record(
        self, session: Session, query: str, cited: list[str], seconds: float | None = None
    ) -> None:
        session.last_activity = time.time()
        entry = {"query": query, "at": session.last_activity, "cited": cited}
        if seconds is not None:
            entry["seconds"] = round(seconds, 3)
        session.queries.append(entry)
        session.queries = session.queries[-KEEP_QUERIES:]
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(asdict(session), handle)
        os.replace(tmp, self._file(session.session_id))

    def all(self) -> list[Session]:
        """Live sessions, most recent first; expired ones are removed on the way."""
        sessions = []
        for file in self.folder.glob("*.json") if self.folder.exists() else []:
            try:
                sessions.append(self.get(file.stem))
            except (SessionNotFound, TypeError):
                continue
        return sorted(sessions, key=lambda s: s.last_activity, reverse=True)
