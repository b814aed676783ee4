"""The PostgreSQL engine: the index in a database shared by any number of pdfindex
processes on any hosts (psycopg 3, `pip install -e '.[postgres]'`); the only package that
imports psycopg."""

from __future__ import annotations

import os
from pathlib import Path

from pdfindex.engine.postgres.engine import PostgresEngine


def open_index(
    folder: Path, writer_memory_mb: int = 0, database_url: str = "", read_url: str = ""
) -> PostgresEngine:
    """The index in the database at `database_url` (its tables created if missing);
    `folder` keeps only the extraction cache and what else is local to a host, and
    `writer_memory_mb` is PostgreSQL's business (its own settings). Without a URL, the
    environment's PDFINDEX_DATABASE_URL (as settings would read it) is used; reads go to
    `read_url` (a streaming replica) when given, else PDFINDEX_READ_URL's, else the same."""
    url = database_url or os.environ.get("PDFINDEX_DATABASE_URL", "")
    return PostgresEngine(folder, url, read_url or None)


__all__ = ["PostgresEngine", "open_index"]
