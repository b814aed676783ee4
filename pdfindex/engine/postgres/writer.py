"""The postgres engine's writer: a file's parts added, replaced and removed in the
writer's one transaction, the vocabulary's page counts and the impact lists moved with
them (at commit: see schema.pdfindex_count_words)."""

from __future__ import annotations

import struct
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from pdfindex.engine.postgres import grams
from pdfindex.engine.postgres.schema import (
    ADDED,
    COUNTED,
    STAGED,
    STAGED_POSTINGS,
    STEM_POSTINGS,
    page_pairs,
    page_positions,
    plain_vector,
)
from pdfindex.models import ElementRecord, FileRecord
from pdfindex.text.words import words as index_words

SORT_MEMORY = "256MB"  # work_mem of the commit's sort of the staged postings
PID, LENGTH = struct.Struct(">q"), struct.Struct(">i")  # a posting's parts (postings.POSTING)


class PostgresWriter:
    """Adds, replaces and removes a file's parts in the writer's transaction; `changed`
    tells the engine to commit."""

    def __init__(self, connection: psycopg.Connection[Any]) -> None:
        self._connection = connection
        self.changed = False
        self._counting = False
        self.pages_added = 0  # a large commit is followed by ANALYZE (engine.writer)
        self.pages_delta = 0  # pages and words added less removed (stats.keep)
        self.length_delta = 0
        self._staged: set[str] = set()  # paths whose postings wait for the commit (finish)
        # Pages added per lexeme, counted here from the vectors written (no query per
        # file: 40,000 files at a million pages), handed to the vocabulary at finish.
        self._added: Counter[str] = Counter()
        self._grams = grams.exists(connection)  # a database not yet given the table: none

    def will_add(self, paths: Iterable[str]) -> None:
        """Nothing to plan: pages are read in path order from the pages table's key."""

    def commit_so_far(self) -> bool:
        return False  # its postings are merged and the replica waited for as it closes

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> psycopg.Cursor[Any]:
        return self._connection.execute(sql, params)  # type: ignore[arg-type]

    def add_file(self, record: FileRecord, pages: list[str], index_text: list[str]) -> None:
        self.changed = True
        cursor = self._connection.cursor()
        pages = [text.replace("\x00", "\ufffd") for text in pages]  # text holds no NUL
        if self._grams:  # before the pages: their trigger adds NULL rows for pages without
            with cursor.copy(
                f"COPY {grams.GRAM_TABLE} (path, page, slug, grams) FROM STDIN"
            ) as copy:
                for number, text in enumerate(pages, 1):
                    copy.write_row(
                        (record.path, number, record.slug, grams.page_grams(text, record.slug))
                    )
        columns = "path, page, slug, text, words, length, lossy, pairs"
        vectors: list[tuple[dict[str, list[int]], int]] = []
        with cursor.copy(f"COPY pdfindex_pages ({columns}) FROM STDIN") as copy:
            for number, (text, indexed) in enumerate(zip(pages, index_text, strict=True), 1):
                words = index_words(indexed)
                positions, lossy = page_positions(words)
                pairs, too_many = page_pairs(words)
                if too_many:  # a phrase's candidates then include the page (schema)
                    lossy = max(lossy, 1)
                self._added.update(positions.keys())
                vectors.append((positions, len(words)))
                self.length_delta += len(words)
                # \w+ words hold no quote, backslash or space: each is a literal as it is.
                vector = " ".join(f"'{w}':{','.join(map(str, p))}" for w, p in positions.items())
                row = (record.path, number, record.slug, text, vector, len(words), lossy, pairs)
                copy.write_row(row)
        self.pages_added += len(pages)
        self.pages_delta += len(pages)
        # The narrow copy for counting, and the file noted for the impact lists (commit).
        self._execute(
            "INSERT INTO pdfindex_terms SELECT path, page, strip(words), strip(stems)"
            " FROM pdfindex_pages WHERE path = %s",
            (record.path,),
        )
        if not self._staged:  # the first file staged (again) in this transaction
            self._execute(STAGED)
        self._staged.add(record.path)
        self._post_words(record.path, vectors)
        self._execute(STEM_POSTINGS, (record.path,))
        self._execute(ADDED)
        self._execute("INSERT INTO pdfindex_added VALUES (%s)", (record.path,))
        self._put_record(record)

    def _post_words(self, path: str, vectors: list[tuple[dict[str, list[int]], int]]) -> None:
        """A file's word postings (schema.POSTINGS' for words), packed here from the
        vectors just written: the server grouped them in 18 of a 12,000-page build's 112 s.
        Only the pages' pids are read back."""
        pids = dict(self._execute("SELECT page, pid FROM pdfindex_pages WHERE path = %s", (path,)))
        posted: dict[str, list[bytes]] = {}
        for number, (positions, length) in enumerate(vectors, 1):
            pid, size = PID.pack(pids[number]), LENGTH.pack(length)
            for lexeme, kept in positions.items():
                entry = pid + LENGTH.pack(len(kept)) + size
                found = posted.get(lexeme)
                if found is None:
                    posted[lexeme] = [entry]
                else:
                    found.append(entry)
        with self._connection.cursor().copy(
            "COPY pdfindex_staged (path, kind, lexeme, data) FROM STDIN"
        ) as copy:
            for lexeme, entries in posted.items():
                copy.write_row((path, "w", lexeme, b"".join(entries)))

    def _count(self, path: str, sign: int) -> None:
        """The words of `path`'s pages, one per page they are on, added to (+1) or taken
        from (-1) the vocabulary's counts when this transaction commits."""
        self._counted()
        self._execute(
            "INSERT INTO pdfindex_counted (word, n)"
            " SELECT lexeme, %s * count(*) FROM pdfindex_pages, unnest(words)"
            " WHERE path = %s GROUP BY lexeme",
            (sign, path),
        )

    def _counted(self) -> None:
        """The transaction's table of count changes (schema.COUNTED), made once."""
        if not self._counting:
            self._execute(COUNTED)
            self._counting = True

    def replace_file(self, record: FileRecord, pages: list[str], index_text: list[str]) -> None:
        self.remove_file(record.path)
        self.add_file(record, pages, index_text)

    def remove_file(self, path: str) -> None:
        self.changed = True
        self._count(path, -1)
        pages, length = self._execute(
            "SELECT count(*), coalesce(sum(length), 0) FROM pdfindex_pages WHERE path = %s",
            (path,),
        ).fetchone()  # type: ignore[misc]
        self.pages_delta -= int(pages)
        self.length_delta -= int(length)
        for table in (
            "pdfindex_postings",
            "pdfindex_impacts",
            "pdfindex_terms",
            "pdfindex_pages",
            "pdfindex_elements",
            "pdfindex_files",
        ):
            self._execute(f"DELETE FROM {table} WHERE path = %s", (path,))
        if path in self._staged:  # added earlier in this transaction (a scan of the table)
            self._execute("DELETE FROM pdfindex_staged WHERE path = %s", (path,))
            self._staged.discard(path)

    def finish(self) -> None:
        """Before the commit: the staged postings written, in word order, and the pages
        added per word handed to the vocabulary's count changes."""
        if self._staged:  # the table goes at commit (ON COMMIT DROP)
            # Sorted in memory up to this much, past the default 4 MB (a 200,000-page
            # commit's 2 GB of rows sorted on disk in runs of 4 MB took minutes).
            self._execute(f"SET LOCAL work_mem = '{SORT_MEMORY}'")
            self._execute(STAGED_POSTINGS)
        if self._added:
            self._counted()
            with self._connection.cursor().copy(
                "COPY pdfindex_counted (word, n) FROM STDIN"
            ) as copy:
                for word, n in self._added.items():
                    copy.write_row((word, n))
            self._added.clear()

    def replace_record(self, record: FileRecord) -> None:
        self.changed = True
        self._put_record(record)

    def _put_record(self, record: FileRecord) -> None:
        self._execute(
            "INSERT INTO pdfindex_files (path, slug, record) VALUES (%s, %s, %s)"
            " ON CONFLICT (path) DO UPDATE SET slug = excluded.slug, record = excluded.record",
            (record.path, record.slug, _json(record.to_dict())),
        )

    def add_elements(self, record: FileRecord, elements: list[ElementRecord]) -> None:
        self.changed = True
        first = self._execute(
            "SELECT coalesce(max(n), 0) FROM pdfindex_elements WHERE path = %s", (record.path,)
        ).fetchone()[0]  # type: ignore[index]
        rows = []
        for n, element in enumerate(elements, start=first + 1):
            stored: ElementRecord = {**element, "slug": record.slug, "path": record.path}
            caption = plain_vector(index_words(f"{element['label']}\n{element['caption']}"))
            context = plain_vector(index_words(f"{element['kind']}\n{element['context']}"))
            rows.append(
                (
                    record.path,
                    n,
                    record.slug,
                    element["kind"],
                    element["page"],
                    _json(stored),
                    caption,
                    context,
                )
            )
        if rows:
            self._connection.cursor().executemany(
                "INSERT INTO pdfindex_elements (path, n, slug, kind, page, record, caption,"
                " context) VALUES (%s, %s, %s, %s, %s, %s, %s::tsvector, %s::tsvector)",
                rows,
            )

    def set_elements(self, record: FileRecord, elements: list[ElementRecord]) -> None:
        self.changed = True
        self._execute("DELETE FROM pdfindex_elements WHERE path = %s", (record.path,))
        self.add_elements(record, elements)
        self.replace_record(record)

    def claim_source(
        self, source: str, host: str, folder: str, take_over: bool = False
    ) -> tuple[str, str] | None:
        """Record that `folder` on `host` feeds `source`; when another folder does, its
        (host, folder) instead, unless `take_over`. Under the source's writer lock."""
        row = self._execute(
            "SELECT host, folder FROM pdfindex_sources WHERE source = %s", (source,)
        ).fetchone()
        if row is not None and tuple(row) == (host, folder):
            return None
        if row is not None and not take_over:
            return row[0], row[1]
        self._execute(
            "INSERT INTO pdfindex_sources (source, host, folder) VALUES (%s, %s, %s)"
            " ON CONFLICT (source) DO UPDATE SET host = excluded.host,"
            " folder = excluded.folder, since = now()",
            (source, host, folder),
        )
        self.changed = True
        return None

    def forget_source(self, source: str) -> None:
        """`source` no longer fed by any folder (its records are gone or renamed)."""
        self._execute("DELETE FROM pdfindex_sources WHERE source = %s", (source,))
        self.changed = True


def _json(value: Any) -> Jsonb:
    return Jsonb(value)
