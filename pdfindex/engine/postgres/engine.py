"""The PostgreSQL engine: the index in a database that any number of pdfindex processes,
on any hosts, read at once (from a streaming replica too: `read_url`); one writer at a time
(an advisory lock), each commit one transaction (pdfindex.engine.Engine)."""

from __future__ import annotations

import functools
import logging
import math
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

from pdfindex import query as pq
from pdfindex.config import without_password
from pdfindex.engine import RankedPages, candidate_nodes
from pdfindex.engine.postgres.compiler import (
    EVERYTHING,
    NOTHING,
    Compiler,
    bm25_idf,
    positional,
    stem_literals,
)
from pdfindex.engine.postgres.connection import REFUSALS, connect, refused, unreadable
from pdfindex.engine.postgres.postings import FREQUENCIES, Key, Scorer, lexemes
from pdfindex.engine.postgres.schema import (
    FORMAT_VERSION,
    K1,
    MAX_POSITIONS,
    TABLES,
    WRITER_LOCK,
    B,
    create_or_check,
    pairs_of,
)
from pdfindex.engine.postgres.topk import Plan, Planner, stems_of
from pdfindex.engine.postgres.writer import PostgresWriter
from pdfindex.engine.vocabulary import CatalogCache, GenerationCache, Vocabulary, within
from pdfindex.errors import ConfigError, IndexLocked, IndexWriteError
from pdfindex.models import FileRecord, PageHit, PageRef

PREFIX_TERMS_MARKED = 200  # expansions of a prefix that snippets mark
TEXT_BATCH = 64  # candidate pages whose texts are read in one query
EXPANSIONS_KEPT = 256  # typos' vocabulary words remembered (per generation)
FIRST_SCORED = 100  # candidates of highest bound scored first (_best_candidates)
REPLAY_WAIT = 30.0  # seconds a writer waits for the read replica to replay the last commit
REPLAY_POLL = 0.005  # seconds between two looks at the replica's generation
TABLES_MADE = f"creating the pdfindex tables (format {FORMAT_VERSION})"
ANALYZE_PAGES = 1000  # pages added by one commit past which it is followed by ANALYZE
log = logging.getLogger(__name__)


class PostgresEngine:
    """The index in the database at `url`; reads go to `read_url` (a streaming replica
    of it) when set, and see the last commit it has replayed; writes go to `url`."""

    name = "postgres"
    splits_cjk = True
    recovered: str | None = None  # the database keeps itself consistent
    # How the last ranked search found its top pages: "postings" (a query of words and
    # stems: pdfindex.engine.postgres.postings), "lists" (the impact lists,
    # pdfindex.engine.postgres.topk), "full" (every matching page scored in SQL) or
    # "constant" (a broad prefix alone: its first pages).
    last_ranking = ""
    use_postings = True  # False: words and stems ranked in SQL too (tests of the lists)
    last_scored = (0, 0)  # candidates scored, of the candidates, by the last listed search

    def __init__(self, folder: Path, url: str, read_url: str | None = None) -> None:
        if not url:
            raise ConfigError(
                "the postgres engine needs database_url (PDFINDEX_DATABASE_URL, or "
                "database_url in pdfindex.toml), e.g. postgresql://user@host/pdfindex"
            )
        if read_url is None:  # as settings would read it
            read_url = os.environ.get("PDFINDEX_READ_URL", "")
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
        self._vocabulary = GenerationCache(
            lambda _: Vocabulary(
                w for (w,) in self._rows("SELECT word FROM pdfindex_words WHERE word !~ '^~'")
            )
        )
        self._stats = GenerationCache(lambda _: self._page_stats())
        self._catalog = CatalogCache(lambda _: self._read_catalog())
        self._expansions: dict[tuple[int, str, int], list[str]] = {}

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

    def _check_replica(self) -> None:
        """The replica's tables are of this format; when they are not, the primary makes
        them (a standby is read-only) and the replica is given time to replay that."""
        found = self._format_seen()
        if found == FORMAT_VERSION:
            return
        with self._connect(self.url, autocommit=True) as primary:
            self._create_or_check(primary)
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
        how many pages on a word has an impact list (schema)."""
        count, mean, listed = self._rows(
            "SELECT count(*), avg(length), (SELECT value FROM pdfindex_meta"
            " WHERE key = 'list_pages') FROM pdfindex_pages"
        )[0]
        return int(count), float(mean or 0.0), int(listed)

    # -- the catalog -------------------------------------------------------------------

    def generation(self) -> int:
        return self._generation()

    def catalog(self) -> dict[str, FileRecord]:
        return self._catalog.get(None, self._generation())  # decoded once per commit

    def _read_catalog(self) -> dict[str, FileRecord]:
        rows = self._rows("SELECT record FROM pdfindex_files")
        return {r["path"]: FileRecord(**r) for (r,) in rows}

    def record(self, path: str) -> FileRecord | None:
        rows = self._rows("SELECT record FROM pdfindex_files WHERE path = %s", (path,))
        return FileRecord(**rows[0][0]) if rows else None

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
    ) -> PostgresCandidates:
        nodes = candidate_nodes(terms, prefixes, any_of, phrases)
        conditions: list[str] = []
        params: list[Any] = []
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
            params.append(_like_prefix(path))
        elif path:
            conditions.append("path = %s")
            params.append(path)
        where = " AND ".join(conditions) or "true"
        rows = self._rows(
            f"SELECT path, slug, page FROM pdfindex_pages WHERE {where} ORDER BY path, page",
            params,
        )
        return PostgresCandidates(self, [PageRef(*row) for row in rows])

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
        count, mean, listed = self._stats.get(None, self._generation())
        document_frequency = self._document_frequency(query)

        def idf(word: str) -> float:
            return bm25_idf(count, document_frequency.get(word, 0))

        prefix_pages = functools.cache(self._prefix_pages)
        prefixes = {leaf.text for leaf in pq.leaves(query) if isinstance(leaf, pq.Prefix)}
        constant = {  # broad prefixes (Compiler.constant): their idf
            p: bm25_idf(count, min(count, prefix_pages(p)))
            for p in prefixes
            if prefix_pages(p) > 2 * listed
        }
        if isinstance(query, pq.Prefix) and query.text in constant and not slug and not pages:
            return self._first_pages(query, limit, query.boost * constant[query.text])
        stems = stems_of(self._rows, query)
        norm_parts = (K1 * (1 - B), K1 * B / max(mean, 1.0))
        if self.use_postings and not slug and not pages:
            keys = lexemes(query, stems)
            if keys is not None:
                found = self._from_postings(
                    query, keys, Scorer(idf, self._frequencies, norm_parts, stems), limit
                )
                if found is not None:
                    self.last_ranking = "postings"
                    return found
        stemmed = stem_literals(stems)
        # In float8, as postings.Scorer computes it: the same scores either way.
        norm = f"{norm_parts[0]!r}::float8 + {norm_parts[1]!r}::float8 * length"

        def scoring() -> Compiler:  # a Compiler per SQL form: each keeps its parameters
            return Compiler(
                self.similar_terms,
                idf,
                lambda prefix: bm25_idf(count, min(count, prefix_pages(prefix))),
                stems=True,
                norm=norm,
                stemmed=stemmed,
                several={word: found for word, found in stems.items() if len(found) > 1},
                constant=frozenset(constant),
            )

        matcher = Compiler(self.similar_terms, stems=True, stemmed=stemmed)
        match = matcher.match(query, "words")
        phrases = positional(query)
        loose, loose_params = "", []
        if phrases:
            # Pages whose positions were cut (schema): their phrases as words anywhere.
            relaxed = matcher.tsquery(query, relaxed=True)
            before = len(matcher.params)
            loose = f" OR (lossy = 1 AND {matcher.condition('words', relaxed)})"
            loose_params = matcher.params[before:]
            match = f"({match}{loose})"
        conditions = [match]
        params: list[Any] = list(matcher.params)  # the conditions' (`where`)
        if slug:
            conditions.append("slug = %s")
            params.append(slug)
        if pages:
            conditions.append("page BETWEEN %s AND %s")
            params += [pages[0], pages[1]]
        where = " AND ".join(conditions)
        if not slug and not pages:
            scorer = scoring()  # its idf weighs the candidates' bounds (Planner) and scores
            planner = Planner(
                self._rows,
                document_frequency,
                idf,
                prefix_pages,
                self.similar_terms,
                self._count_terms,
                mean,
                stems,
                scorer.leaf_idf,
                rare=2 * listed,
                constant=constant,
            )
            plan = planner.plan(query)
            if plan is not None:
                # Few candidates: each leaf's frequency read once (tf), by the score and
                # by whether the candidate matches.
                score, matched, lateral = scorer.page_score(query)

                def scored(candidates: list[tuple[str, int]]) -> list[tuple[Any, ...]]:
                    return self._rows(
                        "WITH candidates AS (SELECT * FROM unnest(%s::text[], %s::int[])"
                        " AS c(path, page)), scored AS MATERIALIZED ("
                        f" SELECT p.path, p.page, {score} AS score FROM candidates c"
                        " JOIN pdfindex_pages p ON p.path = c.path AND p.page = c.page"
                        f" CROSS JOIN LATERAL (SELECT {lateral} OFFSET 0) tf"
                        f" WHERE {matched}{loose}),"
                        " top AS (SELECT path, page, score FROM scored"
                        " ORDER BY score DESC, path, page LIMIT %s)"
                        " SELECT t.path, p.slug, t.page, t.score, p.text FROM top t"
                        " JOIN pdfindex_pages p ON p.path = t.path AND p.page = t.page"
                        " ORDER BY t.score DESC, t.path, t.page",
                        [
                            [path for path, _ in candidates],
                            [page for _, page in candidates],
                            *scorer.params,
                            *loose_params,
                            limit,
                        ],
                        indexed=True,
                    )

                rows = self._best_candidates(plan, scored, limit)
                if rows is not None:
                    total = (
                        int(
                            self._rows(
                                f"SELECT count(*) FROM pdfindex_pages WHERE {where}",
                                params,
                            )[0][0]
                        )
                        if phrases
                        else self._count_terms(*self._on_terms(query, stemmed))
                    )
                    self.last_ranking = "lists"
                    hits = [
                        PageHit(path, s, n, float(sc), "", text) for path, s, n, sc, text in rows
                    ]
                    return RankedPages(total, hits, self._marked_terms(query, hits))
        self.last_ranking = "full"
        # Every match: a LATERAL subquery per row cost more than it saved (the 10-word
        # question ORed, 36,282 pages: 470 -> 780 ms).
        inline = scoring()
        inline_score = inline.score(query, {"words": 1.0})
        rows = self._rows(
            # Scored first, apart (MATERIALIZED): the count's window then holds (path,
            # page, score) rows, not whole pages with their tsvectors, which spilled to
            # disk past work_mem (390 of 620 ms for `the` at 48,000 pages).
            "WITH scored AS MATERIALIZED ("
            f" SELECT path, page, {inline_score} AS score FROM pdfindex_pages WHERE {where}),"
            " hits AS (SELECT path, page, score, count(*) OVER () AS total FROM scored"
            " ORDER BY score DESC, path, page LIMIT %s)"
            " SELECT h.path, p.slug, h.page, h.score, p.text, h.total FROM hits h"
            " JOIN pdfindex_pages p ON p.path = h.path AND p.page = h.page"
            " ORDER BY h.score DESC, h.path, h.page",
            [*inline.params, *params, limit],
        )
        hits = [PageHit(path, s, page, float(sc), "", text) for path, s, page, sc, text, _ in rows]
        total = int(rows[0][5]) if rows else 0
        return RankedPages(total, hits, self._marked_terms(query, hits))

    def _from_postings(
        self, query: pq.Node, keys: list[Key], scorer: Scorer, limit: int
    ) -> RankedPages | None:
        """The top `limit` pages of a query of words and stems, scored from the postings
        of `keys` (pdfindex.engine.postgres.postings). None when a writer's commits kept
        removing the best pages between reading the postings and the pages (the engine
        then ranks in SQL, in one statement)."""
        for _ in range(3):
            rows = self._rows(
                "SELECT kind, lexeme, string_agg(data, ''::bytea) FROM pdfindex_postings"
                ' WHERE (kind, lexeme) IN (SELECT * FROM unnest(%s::"char"[], %s::text[]))'
                " GROUP BY kind, lexeme",
                ([kind for kind, _ in keys], [word for _, word in keys]),
                binary=True,
            )
            ranked = scorer.rank(query, {(kind, word): data for kind, word, data in rows})
            pids, scores = ranked.best(limit)
            hits = self._best_pages(pids.tolist(), scores.tolist(), limit)
            if hits is None:  # removed since: read again
                continue
            return RankedPages(len(ranked.scores), hits, self._marked_terms(query, hits))
        return None

    def _best_pages(self, pids: list[int], scores: list[float], limit: int) -> list[PageHit] | None:
        """The `limit` best of `pids` with their texts, ties broken by path and page as
        SQL's ORDER BY; None when one of them is no longer in the index. Beyond `limit`
        (ties: copies of one file may tie by the thousand) only the kept pages' texts are
        read."""
        text = "text" if len(pids) <= limit else "''"
        pages = self._rows(
            f"SELECT pid, path, slug, page, {text} FROM pdfindex_pages WHERE pid = ANY(%s)",
            (pids,),
        )
        if len(pages) < len(pids):
            return None
        score = dict(zip(pids, scores, strict=True))
        pages = sorted(pages, key=lambda row: (-score[row[0]], row[1], row[3]))[:limit]
        if len(pids) > limit:
            texts = dict(
                self._rows(
                    "SELECT pid, text FROM pdfindex_pages WHERE pid = ANY(%s)",
                    ([row[0] for row in pages],),
                )
            )
            if len(texts) < len(pages):
                return None
            pages = [(pid, path, slug, page, texts[pid]) for pid, path, slug, page, _ in pages]
        return [
            PageHit(path, slug, page, score[pid], "", text) for pid, path, slug, page, text in pages
        ]

    @functools.cached_property
    def _frequencies(self) -> np.ndarray:
        """`10 * ts_rank_cd` of a word found n times (index n), as the server computes it."""
        found = np.zeros(MAX_POSITIONS + 1)
        for n, value in self._rows(FREQUENCIES):
            found[n] = value
        return found

    def _best_candidates(
        self,
        plan: Plan,
        scored: Callable[[list[tuple[str, int]]], list[tuple[Any, ...]]],
        limit: int,
    ) -> list[tuple[Any, ...]] | None:
        """The top `limit` of the plan's candidates, scoring few of them: those of highest
        upper bound first (a rare leaf's pages each gain at most its idf times BM25's
        most, a list's at most its impact), then every one whose bound reaches the tenth
        score found. None when that top is not the top of every page (`plan.exact`).
        A question's rare words hold thousands of pages, most with one of its words:
        their bounds fall below pages holding several."""
        bounded = self._rows(
            f"SELECT path, page, sum(ub) AS ub FROM ({plan.sql}) u(path, page, ub)"
            " GROUP BY path, page ORDER BY ub DESC, path, page",
            plan.params,
            indexed=True,
        )
        first = bounded[:FIRST_SCORED]
        rows = scored([(path, page) for path, page, _ in first])
        scores = [float(row[3]) for row in rows]
        self.last_scored = (len(first), len(bounded))
        if len(bounded) <= FIRST_SCORED:  # every candidate scored
            return rows if plan.exact(scores, limit) else None
        rest = plan.bound + float(bounded[FIRST_SCORED][2])  # the most an unscored one scores
        if plan.exact(scores, limit) and scores[limit - 1] > rest * (1 + 1e-9) + 1e-12:
            return rows
        # Every candidate whose bound reaches the tenth score so far (all, without one).
        floor = scores[limit - 1] * (1 - 1e-9) - 1e-12 if len(scores) >= limit else -math.inf
        more = [(path, page) for path, page, ub in bounded if plan.bound + ub >= floor]
        rows = scored(more)
        self.last_scored = (len(first) + len(more), len(bounded))
        return rows if plan.exact([float(row[3]) for row in rows], limit) else None

    def _first_pages(self, query: pq.Prefix, limit: int, score: float) -> RankedPages:
        """A broad prefix alone: every page it is on scores the same (Compiler.constant),
        so its top pages are its first ones, in the order ties are broken."""
        literal = Compiler(self.similar_terms).leaf(query)
        rows = self._rows(
            "SELECT t.path, p.slug, t.page, p.text FROM (SELECT path, page"
            " FROM pdfindex_terms WHERE words @@ %s::tsquery ORDER BY path, page LIMIT %s) t"
            " JOIN pdfindex_pages p ON p.path = t.path AND p.page = t.page"
            " ORDER BY t.path, t.page",
            [literal, limit],
            indexed=True,
        )
        self.last_ranking = "constant"
        hits = [PageHit(path, slug, page, score, "", text) for path, slug, page, text in rows]
        total = self._count_terms("words @@ %s::tsquery", [literal])
        return RankedPages(total, hits, self._marked_terms(query, hits))

    def _on_terms(self, query: pq.Node, stemmed: dict[str, str]) -> tuple[str, list[Any]]:
        """What `query` matches, as a condition on the narrow pdfindex_terms (no phrase:
        its vectors hold no positions)."""
        matcher = Compiler(self.similar_terms, stems=True, stemmed=stemmed)
        return matcher.match(query, "words"), matcher.params

    def _count_terms(self, condition: str, params: list[Any], most: int = 0) -> int:
        """Pages meeting `condition` on pdfindex_terms (`most`: counted up to that many),
        from its GIN indexes and narrow heap."""
        rows = f"SELECT 1 FROM pdfindex_terms WHERE {condition}" + (
            f" LIMIT {int(most)}" if most else ""
        )
        found = self._rows(f"SELECT count(*) FROM ({rows}) AS r", params, indexed=True)
        return int(found[0][0]) if found else 0

    def _document_frequency(self, node: pq.Node) -> dict[str, int]:
        """Pages holding each word of the query (its typos' words too)."""
        wanted: set[str] = set()
        for leaf in pq.leaves(node):
            if isinstance(leaf, pq.Term | pq.Stem):
                wanted.add(leaf.text)
            elif isinstance(leaf, pq.Phrase):
                wanted.update(leaf.words)
                wanted.update(pairs_of(leaf.words))
            elif isinstance(leaf, pq.Fuzzy):
                wanted.update(self.similar_terms(leaf.text, leaf.distance))
        if not wanted:
            return {}
        rows = self._rows(
            "SELECT word, pages FROM pdfindex_words WHERE word = ANY(%s)", (sorted(wanted),)
        )
        return dict(rows)  # type: ignore[arg-type]

    def _prefix_pages(self, prefix: str) -> int:
        """The pages of the words starting with `prefix`, summed (a page with two of
        them counts twice): the prefix's idf, and how broad it is."""
        rows = self._rows(
            "SELECT coalesce(sum(pages), 0) FROM pdfindex_words WHERE word LIKE %s",
            (_like_prefix(prefix),),
        )
        return int(rows[0][0])

    def _marked_terms(self, node: pq.Node, hits: list[PageHit]) -> set[str]:
        """The index words the query stands for, for snippets to mark; a typo's and a
        stem's are looked for in the hits' own words."""
        terms: set[str] = set()
        hit_words = sorted(pq.word_set([hit.text for hit in hits]))
        stems = [leaf.text for leaf in pq.leaves(node) if isinstance(leaf, pq.Stem)]
        if stems and hit_words:
            rows = self._rows(
                "SELECT w FROM unnest(%s::text[]) AS w WHERE to_tsvector('pdfindex_stems', w)"
                " @@ (SELECT string_agg(plainto_tsquery('pdfindex_stems', s)::text, ' | ')"
                " FROM unnest(%s::text[]) AS s)::tsquery",
                (hit_words, stems),
            )
            terms.update(w for (w,) in rows)
        for leaf in pq.leaves(node):
            if isinstance(leaf, pq.Term | pq.Stem):
                terms.add(leaf.text)
            elif isinstance(leaf, pq.Phrase):
                terms.update(leaf.words)
            elif isinstance(leaf, pq.Prefix):
                rows = self._rows(
                    "SELECT word FROM pdfindex_words WHERE word LIKE %s ORDER BY word LIMIT %s",
                    (_like_prefix(leaf.text), PREFIX_TERMS_MARKED),
                )
                terms.update(w for (w,) in rows)
            else:
                terms.update(within(hit_words, leaf.text, leaf.distance))
        return terms

    # -- elements ----------------------------------------------------------------------

    def elements(self, slug: str) -> list[dict[str, Any]]:
        rows = self._rows("SELECT record FROM pdfindex_elements WHERE slug = %s", (slug,))
        return sorted((r for (r,) in rows), key=lambda e: (e["page"], e["bbox"][1], e["label"]))

    def search_elements(
        self,
        query: pq.Node,
        limit: int,
        kind: str | None = None,
        slug: str | None = None,
        captions_only: bool = False,
    ) -> tuple[int, list[tuple[dict[str, Any], float]]]:
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
            (_like_prefix(prefix), most + 1),
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
                wrapped.changed = True
            yield wrapped
            if wrapped.changed:
                wrapped.finish()
                generation = connection.execute(
                    "UPDATE pdfindex_meta SET value = value + 1 WHERE key = 'generation'"
                    " RETURNING value"
                ).fetchone()[0]  # type: ignore[index]
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


def _like_prefix(prefix: str) -> str:
    """A LIKE pattern for text starting with `prefix` (its % and _ taken literally)."""
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"


class PostgresCandidates:
    """Candidate pages, their texts read on demand a batch at a time. Texts are read
    after the query that found the pages: a page removed by a commit in between reads
    as empty text."""

    def __init__(self, engine: PostgresEngine, refs: list[PageRef]) -> None:
        self._engine = engine
        self.refs = refs
        self._position = {(ref.slug, ref.page): n for n, ref in enumerate(refs)}
        self._texts: dict[tuple[str, int], str | None] = {}

    def text(self, ref: PageRef) -> str:
        key = (ref.slug, ref.page)
        if key not in self._texts:
            start = self._position.get(key, 0)
            batch = [(r.slug, r.page) for r in self.refs[start : start + TEXT_BATCH]]
            batch = [k for k in batch if k not in self._texts] or [key]
            found = self._engine.texts(batch)
            for k in batch:
                self._texts[k] = found.get(k)
        return self._texts.get(key) or ""

    def page_text(self, slug: str, page: int) -> str | None:
        key = (slug, page)
        if key not in self._texts:
            self._texts[key] = self._engine.texts([key]).get(key)
        return self._texts[key]
