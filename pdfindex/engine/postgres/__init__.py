"""The PostgreSQL engine: the index in a database shared by any number of pdfindex
processes on any hosts (psycopg 3, `pip install -e '.[postgres]'`); the only package that
imports psycopg."""

from __future__ import annotations

from pdfindex.config import Settings
from pdfindex.engine.postgres.engine import PostgresEngine


def open_index(settings: Settings) -> PostgresEngine:
    """The index in the database at `settings.database_url` (its tables created if
    missing), read from `settings.read_url` (a streaming replica) when set; the index
    folder keeps only the extraction cache and what else is local to a host, and the
    writer's memory is PostgreSQL's business (its own settings)."""
    return PostgresEngine(settings.index_dir, settings.database_url, settings.read_url)


__all__ = ["PostgresEngine", "open_index"]
