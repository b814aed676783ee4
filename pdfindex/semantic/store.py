"""Where embeddings live, under `<index>/semantic/`.

- `vectors.sqlite`: the cache, one row per page text and model (key: model id, passages
  per page, sha256 of the page text), its passage vectors as float16. Like the extraction
  cache it is never emptied by a rebuild: a rename, a copy or `reindex --full` embeds
  nothing again. Each batch is its own transaction, so a kill loses at most one batch.
- `<model id>.npy` + `<model id>.json`: the vectors of the current pages (float16 rows,
  one per passage, memory-mappable) and which page each row belongs to, with the content
  hash of each document they were made from: a reader drops the rows of a document that
  left or changed since, so a search never shows a page that is not in the index.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

_SCHEMA = "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, rows BLOB NOT NULL)"


class VectorCache:
    """Passage vectors by page key, in SQLite (safe with several processes and threads:
    each call opens its own connection)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "vectors.sqlite"
        db = self._connect()
        try:
            db.execute("PRAGMA journal_mode=WAL")
            with db:
                db.execute(_SCHEMA)
        finally:
            db.close()

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30.0)

    def keys(self, prefix: str) -> set[str]:
        """Every key starting with `prefix` (one model's)."""
        db = self._connect()
        try:
            rows = db.execute(
                "SELECT key FROM vectors WHERE key >= ? AND key < ?", (prefix, prefix + "\uffff")
            )
            return {key for (key,) in rows}
        finally:
            db.close()

    def get_many(self, keys: Iterable[str], dim: int) -> dict[str, np.ndarray]:
        """The rows stored for each of `keys` that is there (float16, shape (n, dim))."""
        found: dict[str, np.ndarray] = {}
        wanted = list(dict.fromkeys(keys))
        db = self._connect()
        try:
            for start in range(0, len(wanted), 500):
                part = wanted[start : start + 500]
                marks = ",".join("?" * len(part))
                for key, blob in db.execute(
                    f"SELECT key, rows FROM vectors WHERE key IN ({marks})", part
                ):
                    found[key] = np.frombuffer(blob, dtype=np.float16).reshape(-1, dim)
        finally:
            db.close()
        return found

    def put_many(self, items: list[tuple[str, np.ndarray]]) -> None:
        """Store a batch in one transaction."""
        db = self._connect()
        try:
            with db:
                db.executemany(
                    "INSERT OR REPLACE INTO vectors (key, rows) VALUES (?, ?)",
                    [(key, rows.astype(np.float16).tobytes()) for key, rows in items],
                )
        finally:
            db.close()

    def size_bytes(self) -> int:
        return sum(
            p.stat().st_size for p in self.path.parent.glob("vectors.sqlite*") if p.is_file()
        )


@dataclass
class Vectors:
    """The current pages' passage vectors: `matrix` rows grouped by page (`starts[i]` is
    the first row of page `pages[i]`), float32 in memory for fast products."""

    matrix: np.ndarray
    starts: np.ndarray
    pages: list[tuple[str, str, int]]  # (path, slug, page)
    docs: dict[str, tuple]  # slug -> (path, sha256 the rows were made from, blank pages)

    @classmethod
    def empty(cls, dim: int) -> Vectors:
        return cls(np.zeros((0, dim), np.float32), np.zeros(0, np.int64), [], {})

    def page_scores(self, query: np.ndarray, first_only: bool = False) -> np.ndarray:
        """Each page's best passage cosine with the query vector (`first_only`: its first
        passage's, what one passage per page would give)."""
        if not self.pages:
            return np.zeros(0, np.float32)
        if first_only:
            return self.matrix[self.starts] @ query
        return np.maximum.reduceat(self.matrix @ query, self.starts)

    def without(self, stale: set[str]) -> Vectors:
        """These vectors minus the pages of the documents `stale` (left or changed)."""
        if not stale:
            return self
        keep = [i for i, (_, slug, _) in enumerate(self.pages) if slug not in stale]
        ends = np.append(self.starts[1:], len(self.matrix))
        rows = np.concatenate(
            [np.arange(self.starts[i], ends[i]) for i in keep] or [np.zeros(0, np.int64)]
        )
        sizes = ends[keep] - self.starts[keep]
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]) if keep else np.zeros(0, np.int64)
        docs = {s: d for s, d in self.docs.items() if s not in stale}
        pages = [self.pages[i] for i in keep]
        return Vectors(self.matrix[rows], starts.astype(np.int64), pages, docs)


def save(folder: Path, model_id: str, vectors: Vectors) -> None:
    """Write the current vectors (the .npy first, then the .json naming it: a reader never
    sees one without the other)."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".npy")
    with os.fdopen(fd, "wb") as handle:
        np.save(handle, vectors.matrix.astype(np.float16))
    name = f"{model_id}-{os.path.basename(tmp)[3:-4]}.npy"
    os.replace(tmp, folder / name)
    meta = {
        "matrix": name,
        "starts": vectors.starts.tolist(),
        "pages": vectors.pages,
        "docs": vectors.docs,
    }
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(meta, handle)
    old = _meta(folder, model_id)
    os.replace(tmp, folder / f"{model_id}.json")
    if old and old.get("matrix") != name:
        (folder / old["matrix"]).unlink(missing_ok=True)


def load(folder: Path, model_id: str) -> Vectors | None:
    """The vectors last saved for this model, or None."""
    meta = _meta(folder, model_id)
    if not meta:
        return None
    try:
        matrix = np.load(folder / meta["matrix"], mmap_mode="r")
    except (OSError, ValueError):
        return None
    return Vectors(
        np.asarray(matrix, dtype=np.float32),
        np.asarray(meta["starts"], dtype=np.int64),
        [tuple(p) for p in meta["pages"]],
        {slug: tuple(d) for slug, d in meta["docs"].items()},
    )


def saved_at(folder: Path, model_id: str) -> float:
    """When the vectors were last saved (0 when never)."""
    try:
        return (folder / f"{model_id}.json").stat().st_mtime
    except OSError:
        return 0.0


def _meta(folder: Path, model_id: str) -> dict | None:
    try:
        return json.loads((folder / f"{model_id}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
