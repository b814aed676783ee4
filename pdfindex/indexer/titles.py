"""Titles given to documents by `process_document(file_name=...)`, kept beside the index
(`titles.json` in the index folder) so that every reindex, a full one included, gives the
record that title again; a file's own title (PDF metadata, first line) is used otherwise."""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path

log = logging.getLogger(__name__)
MAX_TITLE = 300  # as records.title_of keeps


class Titles:
    """{library path: title}, read once and rewritten whole (atomically) on each change."""

    def __init__(self, index_dir: Path) -> None:
        self.file = index_dir / "titles.json"
        self._lock = threading.Lock()
        self._titles: dict[str, str] | None = None
        self._mtime: float | None = None

    def _load(self) -> dict[str, str]:
        """The titles as the file holds them now (another process may have written it)."""
        try:
            mtime = self.file.stat().st_mtime
        except OSError:
            return {}
        if self._titles is None or mtime != self._mtime:
            try:
                data = json.loads(self.file.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                log.warning("cannot read %s: %s", self.file, exc)
                data = {}
            self._titles = (
                {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}
            )
            self._mtime = mtime
        return self._titles

    def get(self, path: str) -> str | None:
        with self._lock:
            return self._load().get(path)

    def set(self, path: str, title: str) -> None:
        title = " ".join(title.split())[:MAX_TITLE]
        with self._lock:
            titles = dict(self._load())
            if not title or titles.get(path) == title:
                return
            titles[path] = title
            temporary = self.file.with_suffix(".tmp")
            temporary.write_text(json.dumps(titles, ensure_ascii=False, indent=0), "utf-8")
            os.replace(temporary, self.file)
            self._titles, self._mtime = titles, self.file.stat().st_mtime
