"""The PostgreSQL engine: the index in a database that any number of pdfindex processes,
on any hosts, read at once (from a streaming replica too: `read_url`); one writer at a time
(an advisory lock), each commit one transaction (pdfindex.engine.Engine)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg

from pdfindex import query as pq
from pdfindex.config.masking import without_password
from pdfindex.engine import RankedPages, candidate_nodes
from pdfindex.engine.postgres import stats
from pdfindex.engine.postgres.candidates import (
    FIRST_CANDIDATES,
    MORE_CANDIDATES,
    PostgresCandidates,
)
from pdfindex.engine.postgres.compiler import EVERYTHING, NOTHING, Compiler
from pdfindex.engine.postgres.connection import REFUSALS, connect, refused, unreadable
from pdfindex.engine.postgres.grams import GRAM_TABLE, query_grams
from pdfindex.engine.postgres.lists import build_new
from pdfindex.engine.postgres.ranking import Ranker, Ranking, like_prefix
from pdfindex.engine.postgres.schema import (
    FORMAT_VERSION,
    TABLES,
    WRITER_LOCK,
    add_grams,
    create_or_check,
    upgrade_lists,
)
from pdfindex.engine.postgres.writer import PostgresWriter
from pdfindex.engine.vocabulary import CatalogCache, GenerationCache, Vocabulary
from pdfindex.errors import ConfigError, IndexLocked, IndexWriteError
from pdfindex.models import ElementRecord, FileRecord, PageRef

EXPANSIONS_KEPT = 256  # typos' vocabulary words remembered (per generation)
REPLAY_WAIT = 30.0  # seconds a writer waits for the read replica to replay the last commit
REPLAY_POLL = 0.005  # seconds between two looks at the replica's generation
TABLES_MADE = f"creating the pdfindex tables (format {FORMAT_VERSION})"
ANALYZE_PAGES = 1000  # pages added by one commit past which it is followed by ANALYZE
log = logging.getLogger(__name__)


RECORDS_AT_ONCE = 2000  # catalog records a loop over all of them reads in one query


class PostgresEngine:
    """The index in the database at `url`; reads go to `read_url` (a streaming replica
    of it) when set, and see the last commit it has replayed; writes go to `url`."""

    name = "postgres"
    splits_cjk = True
    recovered: str | None = None  # the database keeps itself consistent
    shared = True  # several files folders may feed it, each a source (indexer.sources)
    use_postings = True  # False: words and stems ranked in SQL too (tests of the lists)

    def __init__(self, folder: Path, url: str, read_url: str = "") -> None:
        if not url:
            raise ConfigError(
                "the postgres engine needs database_url (PDFINDEX_DATABASE_URL, or "
                "database_url in pdfindex.toml), e.g. postgresql://user@host/pdfindex"
            )
        self.folder = folder
        self.url = url
        self.where = without_password(url)
        self.read_url = read_url or url
        self.replica = self.read_url != url
        self.read_where = (
            f"read replica {without_password(self.read_url)}" if self.replica else self.where
        )
        self._lock = threading.Lock()  # one query at a time on the reading connection
        self._connection = self._connect(self.read_url, autocommit=True)
        if self.replica:
            self._check_replica()
        else:
            self._create_or_check(self._connection)
            self._add_grams(self._connection)
            self._upgrade_lists(self._connection)
        self._grams_seen = False  # the trigram table, once seen, stays (grams)
        self._said_no_grams = False
        self._vocabulary = GenerationCache(
            lambda _: Vocabulary(
                w for (w,) in self._rows("SELECT word FROM pdfindex_words WHERE word !~ '^~'")
            )
        )
        self._stats = GenerationCache(lambda _: self._page_stats())
        self._catalog = CatalogCache(lambda _: self._read_catalog())
        self._expansions: dict[tuple[int, str, int], list[str]] = {}
        self._ranker = Ranker(self._rows, self.similar_terms)

    # -- the connection ----------------------------------------------------------------

    def _connect(self, url: str, autocommit: bool) -> psycopg.Connection[Any]:
        """A connection to `url`; a failure said without the password (connection)."""
        where = self.read_where if url == self.read_url else self.where
        return connect(url, _database(where), autocommit)

    def _create_or_check(self, connection: psycopg.Connection[Any]) -> None:
        """schema.create_or_check; a database that refuses to create the tables says
        why (the user's privileges, a read-only database)."""
        failed = None
        try:
            create_or_check(connection)
        except REFUSALS as exc:
            failed = refused(exc, connection, _database(self.where), TABLES_MADE, False)
        if failed is not None:
            raise failed

    def _rows(
        self, sql: str, params: Sequence[Any] = (), indexed: bool = False, binary: bool = False
    ) -> list[tuple[Any, ...]]:
        """Rows of one statement on the reading connection: reconnected once if the
        server dropped it (and on the next call while it is down); a statement a replica
        cancelled while replaying a conflicting change is run once more. `indexed`: the
        statement reads pdfindex_terms through its indexes only; the planner, which does
        not see that a sequential scan reads every page's vectors from TOAST, chose one
        for an OR of rare words (96 ms against 1 ms). `binary`: results in binary (bytea
        as it is, not hex text)."""
        with self._lock:
            for attempt in (1, 2):
                if self._connection.closed:
                    self._connection = self._connect(self.read_url, autocommit=True)
                try:
                    if not indexed:
                        return self._connection.execute(sql, params, binary=binary).fetchall()  # type: ignore[arg-type]
                    with self._connection.transaction():
                        self._connection.execute("SET LOCAL enable_seqscan = off")
                        return self._connection.execute(sql, params).fetchall()  # type: ignore[arg-type]
                except psycopg.errors.SerializationFailure:  # a hot standby's recovery conflict
                    if attempt == 2 or not self.replica:
                        raise
                except psycopg.errors.InsufficientPrivilege as exc:  # no SELECT: one line
                    raise unreadable(exc, self._connection, _database(self.read_where)) from None
                except psycopg.OperationalError:
                    if attempt == 2 or not self._connection.closed:
                        raise
        raise AssertionError("unreachable")

    def _add_grams(self, connection: psycopg.Connection[Any]) -> None:
        """The trigram table (grams) added to a database of before it, filled from its
        pages; a database that refuses (read-only, no CREATE privilege) is searched by
        reading pages instead (candidates says so once)."""
        try:
            added = add_grams(connection)
        except psycopg.Error as exc:
            log.warning("could not add the trigram table to the %s: %s", self.where, exc)
            return
        if added is not None:
            log.info("added the trigrams of %d pages to the %s", added, self.where)

    def _upgrade_lists(self, connection: psycopg.Connection[Any]) -> None:
        """The commit's functions of now (schema.upgrade_lists) given to a database of
        before them; one that refuses keeps the old ones, which still work (slower)."""
        try:
            if upgrade_lists(connection):
                log.info("upgraded the impact lists' functions of the %s", self.where)
        except psycopg.Error as exc:
            log.warning("could not upgrade the functions of the %s: %s", self.where, exc)

    def _has_grams(self) -> bool:
        """Whether the database read has the trigram table; looked at until it has."""
        if self._grams_seen:
            return True
        found = bool(self._rows("SELECT to_regclass(%s) IS NOT NULL", (GRAM_TABLE,))[0][0])
        if not found and not self._said_no_grams:
            self._said_no_grams = True
            log.warning(
                "the %s has no trigram table (%s): exact search reads every page that its "
                "whole words leave; open it once with write access to add the table",
                self.read_where,
                GRAM_TABLE,
            )
        self._grams_seen = found
        return found

    def _check_replica(self) -> None:
        """The replica's tables are of this format; when they are not, the primary makes
        them (a standby is read-only) and the replica is given time to replay that."""
        found = self._format_seen()
        if (
            found == FORMAT_VERSION
            and self._rows("SELECT to_regclass(%s) IS NOT NULL", (GRAM_TABLE,))[0][0]
        ):
            return
        with self._connect(self.url, autocommit=True) as primary:
            self._create_or_check(primary)
            self._add_grams(primary)
            self._upgrade_lists(primary)
        if not self._wait_for(lambda: self._format_seen() == FORMAT_VERSION):
            found = self._format_seen()
            raise ConfigError(
                f"the {self.read_where} holds no pdfindex tables of format {FORMAT_VERSION} "
                f"(found {found}) although the database {self.where} does: read_url must "
                "be a streaming replica (hot standby) of database_url"
            )

    def _format_seen(self) -> int | None:
        """The format of the tables the reading connection sees (None: no tables)."""
        if not self._rows("SELECT to_regclass('pdfindex_meta') IS NOT NULL")[0][0]:
            return None
        rows = self._rows("SELECT value FROM pdfindex_meta WHERE key = 'format'")
        return int(rows[0][0]) if rows else None

    def _wait_replayed(self, generation: int) -> bool:
        """Whether the replica has replayed the primary's commit of `generation` (waited
        for up to REPLAY_WAIT seconds; at once without a replica)."""
        return not self.replica or self._wait_for(lambda: self._generation() >= generation)

    def _wait_for(self, replayed: Callable[[], bool]) -> bool:
        """Whether `replayed` turned true on the replica within REPLAY_WAIT seconds."""
        deadline = time.monotonic() + REPLAY_WAIT
        while True:
            try:
                if replayed():
                    return True
            except psycopg.errors.UndefinedTable:  # the tables' creation not replayed yet
                pass
            if time.monotonic() >= deadline:
                return False
            time.sleep(REPLAY_POLL)

    def _generation(self) -> int:
        rows = self._rows("SELECT value FROM pdfindex_meta WHERE key = 'generation'")
        return int(rows[0][0]) if rows else -1

    def _page_stats(self) -> tuple[int, float, int]:
        """Pages, and their mean length in words: BM25's N and average length; and from
        how many pages on a word has an impact list (schema). From the writers' running
        totals (stats.py) when the last commit kept them, else counted from every page."""
        meta = dict(self._rows("SELECT key, value FROM pdfindex_meta"))
        count, total = stats.totals(meta)
        if count is None:
            count, total = self._rows("SELECT count(*), sum(length) FROM pdfindex_pages")[0]
        count, total = int(count), int(total or 0)
        return count, total / count if count else 0.0, int(meta["list_pages"])

    # -- the catalog -------------------------------------------------------------------

    def generation(self) -> int:
        return self._generation()

    def catalog(self) -> dict[str, FileRecord]:
        return self._catalog.get(None, self._generation())  # decoded once per commit

    def _read_catalog(self) -> dict[str, FileRecord]:
        rows = self._rows("SELECT record FROM pdfindex_files")
        return {r["path"]: FileRecord(**r) for (r,) in rows}

    def records(self) -> Iterator[FileRecord]:
        """Every record in path order, RECORDS_AT_ONCE at a time: the whole catalog
        fetched and decoded at once took a serving process 95 MB at a million pages."""
        after: str | None = None
        while True:
            rows = self._rows(
                "SELECT path, record FROM pdfindex_files"
                + (" WHERE path > %s" if after is not None else "")
                + " ORDER BY path LIMIT %s",
                ([after] if after is not None else []) + [RECORDS_AT_ONCE],
            )
            for _path, record in rows:
                yield FileRecord(**record)
            if len(rows) < RECORDS_AT_ONCE:
                return
            after = rows[-1][0]

    def record(self, path: str) -> FileRecord | None:
        rows = self._rows("SELECT record FROM pdfindex_files WHERE path = %s", (path,))
        return FileRecord(**rows[0][0]) if rows else None

    def records_starting(self, prefix: str) -> list[FileRecord]:
        rows = self._rows(
            "SELECT record FROM pdfindex_files WHERE path LIKE %s ORDER BY path",  # "C": by index
            (like_prefix(prefix),),
        )
        return [FileRecord(**r) for (r,) in rows]

    def record_by_slug(self, slug: str) -> FileRecord | None:
        rows = self._rows(
            "SELECT record FROM pdfindex_files WHERE slug = %s ORDER BY path LIMIT 1", (slug,)
        )
        return FileRecord(**rows[0][0]) if rows else None

    # -- pages -------------------------------------------------------------------------

    def page_texts(self, slug: str) -> list[str]:
        rows = self._rows(
            "SELECT text FROM pdfindex_pages WHERE slug = %s ORDER BY path, page", (slug,)
        )
        return [text for (text,) in rows]

    def candidates(
        self,
        slug: str | None = None,
        terms: list[str] | None = None,
        prefixes: list[str] | None = None,
        any_of: list[list[str]] | None = None,
        path: str | None = None,
        phrases: list[list[str]] | None = None,
        pieces: list[str] | None = None,
    ) -> PostgresCandidates:
        nodes = candidate_nodes(terms, prefixes, any_of, phrases)
        conditions: list[str] = []
        params: list[Any] = []
        # The pieces' trigrams (grams): a page without them cannot match; a page whose
        # trigrams were too many for a tsvector (NULL) stays a candidate.
        by_grams = query_grams(pieces, slug) if pieces and self._has_grams() else None
        table = "pdfindex_pages"
        if by_grams is not None and not any_of:
            # The words, prefixes and phrases come from the same query as the pieces:
            # they narrow little more, and a common one costs a scan of its pages on
            # pdfindex_pages (`Note that`'s prefix `that`: 65 -> 540 ms at 48,000 pages).
            nodes = []
        if by_grams is not None:
            on_grams = "(grams @@ %s::tsquery OR grams IS NULL)"
            if nodes:
                on_grams = f"(path, page) IN (SELECT path, page FROM {GRAM_TABLE} WHERE {on_grams})"
            else:  # the narrow trigram table alone: no page row read
                table = GRAM_TABLE
            conditions.append(on_grams)
            params.append(by_grams)
        if nodes:
            compiler = Compiler(self.similar_terms)
            tree = pq.And(tuple(nodes))
            exact, relaxed = compiler.tsquery(tree), compiler.tsquery(tree, relaxed=True)
            # A lossy page (see schema) is a candidate whenever what was cut could matter.
            conditions.append(
                "("
                + _on_words(exact, params)
                + " OR (lossy > 0 AND (lossy = 2 OR "
                + _on_words(relaxed, params)
                + ")))"
            )
        if slug is not None:
            conditions.append("slug = %s")
            params.append(slug)
        if path and path.endswith("/"):
            conditions.append("path LIKE %s")
            params.append(like_prefix(path))
        elif path:
            conditions.append("path = %s")
            params.append(path)
        where = " AND ".join(conditions) or "true"
        select = f"SELECT path, slug, page FROM {table} WHERE {where}"
        if table != GRAM_TABLE and (slug is not None or nodes):
            rows = self._rows(f"{select} ORDER BY path, page", params)
            return PostgresCandidates(self.texts, [PageRef(*row) for row in rows])
        # Exact search stops at its limit, mostly within the first candidates: the rest
        # are read if it gets that far (`Note that`, 5,880 candidates: 50 -> 27 ms); and
        # a reader of every page of the library (or a folder) reads them as it goes.
        rows = self._rows(f"{select} ORDER BY path, page LIMIT %s", [*params, FIRST_CANDIDATES])

        def rest(after: PageRef) -> list[PageRef]:
            later = self._rows(
                f"{select} AND (path, page) > (%s, %s) ORDER BY path, page LIMIT %s",
                [*params, after.path, after.page, MORE_CANDIDATES],
            )
            return [PageRef(*row) for row in later]

        more = rest if len(rows) == FIRST_CANDIDATES else None
        return PostgresCandidates(self.texts, [PageRef(*row) for row in rows], more)

    def texts(self, keys: list[tuple[str, int]]) -> dict[tuple[str, int], str]:
        """Page texts by (slug, page)."""
        if not keys:
            return {}
        rows = self._rows(
            "SELECT p.slug, p.page, p.text FROM pdfindex_pages p "
            "JOIN unnest(%s::text[], %s::int[]) AS k(slug, page) "
            "ON p.slug = k.slug AND p.page = k.page",
            ([s for s, _ in keys], [n for _, n in keys]),
        )
        return {(slug, page): text for slug, page, text in rows}

    def ranked(
        self,
        query: pq.Node,
        limit: int,
        slug: str | None = None,
        pages: tuple[int, int] | None = None,
    ) -> RankedPages:
        return self.ranking(query, limit, slug, pages).pages

    def ranking(
        self,
        query: pq.Node,
        limit: int,
        slug: str | None = None,
        pages: tuple[int, int] | None = None,
    ) -> Ranking:
        """`ranked`, and which way its pages were found (ranking.Ranker.rank)."""
        stats = self._stats.get(None, self._generation())
        return self._ranker.rank(query, limit, stats, slug, pages, self.use_postings)

    # -- elements ----------------------------------------------------------------------

    def elements(self, slug: str) -> list[ElementRecord]:
        rows = self._rows("SELECT record FROM pdfindex_elements WHERE slug = %s", (slug,))
        return sorted((r for (r,) in rows), key=lambda e: (e["page"], e["bbox"][1], e["label"]))

    def search_elements(
        self,
        query: pq.Node,
        limit: int,
        kind: str | None = None,
        slug: str | None = None,
        captions_only: bool = False,
    ) -> tuple[int, list[tuple[ElementRecord, float]]]:
        columns = {"caption": 2.0} if captions_only else {"caption": 2.0, "context": 1.0}
        scorer = Compiler(self.similar_terms)  # no page length: k1 saturates, b = 0
        score = scorer.score(query, columns)
        matcher = Compiler(self.similar_terms)
        searched = "caption" if captions_only else "(caption || context)"
        conditions = [matcher.match(query, searched)]
        params: list[Any] = [*scorer.params, *matcher.params]
        if kind:
            conditions.append("kind = %s")
            params.append(kind)
        if slug:
            conditions.append("slug = %s")
            params.append(slug)
        params.append(limit)
        rows = self._rows(
            f"SELECT record, {score} AS score, count(*) OVER () FROM pdfindex_elements"
            f" WHERE {' AND '.join(conditions)} ORDER BY score DESC, path, n LIMIT %s",
            params,
        )
        total = int(rows[0][2]) if rows else 0
        return total, [(record, float(score)) for record, score, _ in rows]

    # -- vocabulary --------------------------------------------------------------------

    def similar_terms(self, word: str, maxdist: int) -> list[str]:
        if maxdist == 0:
            rows = self._rows("SELECT word FROM pdfindex_words WHERE word = %s", (word,))
            return [word] if rows else []
        generation = self._generation()
        vocabulary: Vocabulary = self._vocabulary.get(None, generation)
        # One ranked search expands a typo for its match, score, idf, plan and marks:
        # the 400,000-word vocabulary is searched once (11 ms), not each time.
        key = (generation, word, maxdist)
        if key not in self._expansions:
            if len(self._expansions) >= EXPANSIONS_KEPT:
                self._expansions.clear()
            self._expansions[key] = vocabulary.within(word, maxdist)
        return self._expansions[key]

    def prefix_is_narrow(self, prefix: str, most: int = 8) -> bool:
        rows = self._rows(
            "SELECT count(*) FROM (SELECT 1 FROM pdfindex_words WHERE word LIKE %s LIMIT %s) w",
            (like_prefix(prefix), most + 1),
        )
        return int(rows[0][0]) <= most

    # -- writing and upkeep ------------------------------------------------------------

    @contextmanager
    def writer(self, timeout: float, clear: bool = False) -> Iterator[PostgresWriter]:
        with self._catalog.writing(), self._write(timeout, clear) as wrapped:
            yield wrapped

    @contextmanager
    def _write(self, timeout: float, clear: bool) -> Iterator[PostgresWriter]:
        """The one writer. With a read replica, it first waits for the replica to
        replay the last commit (the indexer reads the catalog there once it holds the
        lock), and after its commit for the replica to replay it too, so this process
        reads its own writes."""
        connection = self._connect(self.url, autocommit=False)
        try:
            self._lock_writer(connection, timeout)
            if not self._wait_replayed(_generation_of(connection)):
                raise IndexWriteError(
                    f"the {self.read_where} has not replayed the last commit of the "
                    f"database {self.where} in {REPLAY_WAIT:g} s (is it streaming?): the "
                    "indexer reads what is indexed from it, so it does not write meanwhile"
                )
            wrapped = PostgresWriter(connection)
            if clear:
                for table in (
                    "pdfindex_postings",
                    "pdfindex_impacts",
                    "pdfindex_lists",
                    "pdfindex_terms",
                    "pdfindex_elements",
                    "pdfindex_pages",
                    "pdfindex_files",
                    "pdfindex_words",
                ):
                    connection.execute(f"DELETE FROM {table}")  # readers see the old rows
                # Every page is written again, by this writer: pairs posted (lists.py).
                connection.execute(
                    "INSERT INTO pdfindex_meta VALUES ('posted_pairs', 1)"
                    " ON CONFLICT (key) DO UPDATE SET value = 1"
                )
                wrapped.changed = True
            yield wrapped
            if wrapped.changed:
                wrapped.finish()
                generation = connection.execute(
                    "UPDATE pdfindex_meta SET value = value + 1 WHERE key = 'generation'"
                    " RETURNING value"
                ).fetchone()[0]  # type: ignore[index]
                stats.keep(connection, generation, wrapped.pages_delta, wrapped.length_delta, clear)
                build_new(connection)  # under the generation row's lock, as the trigger
                connection.commit()
                if clear or wrapped.pages_added >= ANALYZE_PAGES:
                    # Many rows new: until autovacuum comes by (a minute or more), the
                    # planner would plan with the old statistics (search_pdf at 48,000
                    # pages: 14 -> 49 ms). ANALYZE takes ~3 s at 48,000 pages.
                    try:
                        connection.execute(f"ANALYZE {', '.join(TABLES)}")
                        connection.commit()
                    except psycopg.Error as exc:  # committed all the same: searches work
                        connection.rollback()
                        log.warning(
                            "ANALYZE after a large commit failed (%s): plans may be slow "
                            "until autovacuum analyzes the tables",
                            exc,
                        )
                if not self._wait_replayed(generation):
                    log.warning(
                        "the %s has not replayed commit %s in %g s: readers see it once it has",
                        self.read_where,
                        generation,
                        REPLAY_WAIT,
                    )
            else:
                connection.rollback()
        except BaseException as exc:
            _discard(connection)
            failed = refused(exc, connection, _database(self.where))
            if failed is not None:  # one line naming the privilege or setting
                raise failed from None
            if isinstance(exc, psycopg.OperationalError):
                raise IndexWriteError(
                    f"writing the index in the database {self.where} failed: {exc}; nothing of "
                    "this commit was kept"
                ) from exc
            raise
        finally:
            connection.close()  # the transaction's advisory lock goes with it

    def _lock_writer(self, connection: psycopg.Connection[Any], timeout: float) -> None:
        """The writer's advisory lock, one per source (`use_source`): writers of different
        sources run at once. Held until the transaction ends (a killed writer's connection
        drops, and the lock with it); another holder is waited for."""
        deadline = time.monotonic() + timeout
        lock, key = (
            ("pg_try_advisory_xact_lock(hashtextextended(%s, 0))", f"pdfindex writer {self.source}")
            if self.source
            else ("pg_try_advisory_xact_lock(%s)", WRITER_LOCK)
        )
        while not connection.execute(f"SELECT {lock}", (key,)).fetchone()[0]:  # type: ignore[index]
            if time.monotonic() >= deadline:
                of = f"source '{self.source}' of " if self.source else ""
                raise IndexLocked(
                    f"another pdfindex process is writing {of}the index in the database "
                    f"{self.where} (waited {timeout:g} s); try again when it has finished"
                )
            time.sleep(0.05)

    def size_bytes(self) -> int:
        rows = self._rows(
            "SELECT coalesce(sum(pg_total_relation_size(to_regclass(t))), 0) "
            "FROM unnest(%s::text[]) AS t",
            (list(TABLES),),
        )
        return int(rows[0][0])

    def indexed_pages(self) -> int:
        return self._page_stats()[0]

    def segment_count(self) -> int:
        return 1  # one set of tables; PostgreSQL has no segments to merge

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    # -- sources: several folders feeding one library (pdfindex.indexer.sources) --------

    source = ""  # whose writer lock this process takes ("" the unnamed source's)

    def use_source(self, source: str) -> None:
        """Write as `source`: its own writer lock, so other sources write meanwhile."""
        self.source = source

    def sources(self) -> dict[str, tuple[str, str]]:
        """Each source of the library: (host, folder) of the folder feeding it."""
        rows = self._rows("SELECT source, host, folder FROM pdfindex_sources")
        return {source: (host, folder) for source, host, folder in rows}


def _database(where: str) -> str:
    """'database postgresql://…' or 'read replica postgresql://…', as messages say it."""
    return where if where.startswith("read replica") else f"database {where}"


def _generation_of(connection: psycopg.Connection[Any]) -> int:
    """The generation (commits so far) `connection` sees in pdfindex_meta."""
    row = connection.execute("SELECT value FROM pdfindex_meta WHERE key = 'generation'").fetchone()
    return int(row[0]) if row else -1


def _discard(connection: psycopg.Connection[Any]) -> None:
    try:
        connection.rollback()
    except Exception:  # the connection may be broken too: the failure itself is what to show
        pass


def _on_words(tsquery: str, params: list[Any]) -> str:
    if tsquery in (NOTHING, EVERYTHING):
        return "false" if tsquery == NOTHING else "true"
    params.append(tsquery)
    return "(words @@ %s::tsquery)"
