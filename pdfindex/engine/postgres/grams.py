"""Exact search without reading pages (issue 30): each page's character trigrams
(pdfindex.text.substrings) as a `tsvector` in `pdfindex_grams`, GIN-indexed, so the pages
that may hold a query's pieces are found from the index alone.

Why trigrams as lexemes rather than pg_trgm: `LIKE '%piece%'` over a pg_trgm index
rechecks every candidate row (its stored text decompressed and scanned), thousands of rows
for a common string; an AND of plain lexemes over a `tsvector` GIN index needs no
recheck, and exact search confirms each page from its text anyway. The trigrams are cut
here, in Python, from the same plain form as the other engines' (`plain_form`: Python's
casefold, not the database collation's `lower`), so PostgreSQL needs no extension.

The table is added to a database of format 11 at open (`migrate`), filled from the pages
it holds; a database where that cannot be done (read-only, a replica not yet migrated)
is searched as before, by reading pages, and says so once in the log.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from pdfindex.text.substrings import GRAM, grams, plain_form

GRAM_TABLE = "pdfindex_grams"
MAX_VECTOR_BYTES = 900_000  # of the 1 MB a tsvector may hold; past it: NULL, always a candidate
MAX_LEXEME_BYTES = 2047  # of one tsvector lexeme
MAX_QUERY_GRAMS = 64  # a long query's first pieces' grams narrow enough
BRIDGE_SIDE = 2  # characters each side of a space in a bridge (bridges)
_SPECIAL = re.compile(r"['\\]")  # what a tsvector literal escapes
FILL_BATCH = 500  # pages read, cut and copied at a time by the migration
CREATE = (
    # The narrow heap (vectors in TOAST past 128 bytes) keeps a GIN scan's row visits cheap;
    # `slug` here so that a search in one document needs no join with the pages.
    f'CREATE TABLE {GRAM_TABLE} (path text COLLATE "C" NOT NULL, page integer NOT NULL,'
    " slug text NOT NULL, grams tsvector, PRIMARY KEY (path, page))"
    " WITH (toast_tuple_target = 128)",
    f"ALTER TABLE {GRAM_TABLE} ALTER COLUMN grams SET COMPRESSION lz4",
    # Rows follow the pages whoever writes them: a page written without its trigrams (by
    # a pdfindex of before this table, on another host) gets NULL, a candidate of every
    # exact query, and a page deleted takes its row along. This writer copies a file's
    # trigrams before its pages, so its rows stand (ON CONFLICT DO NOTHING).
    "CREATE FUNCTION pdfindex_grams_follow() RETURNS trigger LANGUAGE plpgsql AS $$"
    " BEGIN"
    "  IF TG_OP = 'INSERT' THEN"
    f"   INSERT INTO {GRAM_TABLE} SELECT path, page, slug, NULL FROM added"
    "    ON CONFLICT DO NOTHING;"
    "  ELSE"
    f"   DELETE FROM {GRAM_TABLE} g USING gone o WHERE g.path = o.path AND g.page = o.page;"
    "  END IF;"
    "  RETURN NULL;"
    " END $$",
    "CREATE TRIGGER pdfindex_grams_added AFTER INSERT ON pdfindex_pages"
    " REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION pdfindex_grams_follow()",
    "CREATE TRIGGER pdfindex_grams_gone AFTER DELETE ON pdfindex_pages"
    " REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION pdfindex_grams_follow()",
)
FUNCTION = "pdfindex_grams_follow()"
INDEXES = (
    f"CREATE INDEX pdfindex_grams_grams ON {GRAM_TABLE} USING gin (grams)",
    f"CREATE INDEX pdfindex_grams_whole ON {GRAM_TABLE} (path) WHERE grams IS NULL",
)


def _quoted(lexeme: str) -> str:
    """A lexeme as a `tsvector`/`tsquery` literal quotes it."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def document(slug: str) -> str:
    """The lexeme naming a page's document among its trigrams: longer than a trigram, so
    never one. A search in one document ANDs it in the GIN index (an index on `slug`
    instead made the planner read each of the document's vectors: 14 ms for none). A
    name too long for a lexeme (2,047 bytes) is named by its hash."""
    name = f"doc:{slug}"
    if len(name.encode("utf-8")) > MAX_LEXEME_BYTES:
        name = "doc#" + hashlib.sha256(slug.encode("utf-8")).hexdigest()
    return name


def page_grams(text: str, slug: str) -> str | None:
    """The `tsvector` literal of a page's trigrams (of its plain form) and its document;
    None when too large for a `tsvector` (the page is then a candidate of every query)."""
    plain = plain_form(text)
    # grams() (GRAM is 3), unsorted: zip and join are a third faster than slicing
    found = set(map("".join, zip(plain, plain[1:], plain[2:], strict=False)))
    # Only the trigrams over a quote or backslash need escaping (80% of the corpus's pages
    # hold one; escaping every trigram of those took most of the cutting time).
    dirty = set()
    for special in _SPECIAL.finditer(plain):
        at = special.start()
        dirty.update(plain[i : i + GRAM] for i in range(max(at - GRAM + 1, 0), at + 1))
    dirty &= found  # the windows past the end are not trigrams
    clean = found - dirty if dirty else found
    literal = "'" + "' '".join(clean) + "'" if clean else ""
    if dirty:
        literal = (
            " ".join([literal, *map(_quoted, dirty)]) if literal else " ".join(map(_quoted, dirty))
        )
    spans = bridges(plain)
    dirty_spans = {span for span in spans if _SPECIAL.search(span)}
    clean_spans = spans - dirty_spans if dirty_spans else spans
    extra = [("'" + "' '".join(clean_spans) + "'") if clean_spans else ""]
    extra += [_quoted(span) for span in dirty_spans]
    literal = " ".join(part for part in (literal, *extra, _quoted(document(slug))) if part)
    return None if len(literal.encode("utf-8")) > MAX_VECTOR_BYTES else literal


def bridges(plain: str) -> set[str]:
    """The BRIDGE characters centred on each space of a plain form (`ge ma` of `page
    margins`): a query piece with a space holds them where it holds that space with two
    characters each side, and most pages holding a piece's trigrams apart lack them
    (`page margins` at 47,970 pages: 400 pages hold its trigrams, 48 its bridge too, 7 the
    string). About 175 a page beside 660 trigrams (+34% of the vectors); ~75 µs a page."""
    found = set()
    at, last = plain.find(" ", BRIDGE_SIDE), len(plain) - BRIDGE_SIDE - 1
    while 0 <= at <= last:
        found.add(plain[at - BRIDGE_SIDE : at + BRIDGE_SIDE + 1])
        at = plain.find(" ", at + 1)
    return found


def query_grams(pieces: list[str], slug: str | None = None) -> str | None:
    """The `tsquery` of pieces' bridges and trigrams (and of the document `slug`), all
    required; None when the pieces have none."""
    wanted: list[str] = []
    for piece in pieces:  # longest first (query_pieces); bridges first: they narrow most
        wanted += [g for g in sorted(bridges(piece)) if g not in wanted]
    for piece in pieces:
        wanted += [g for g in grams(piece) if g not in wanted]
    if not wanted:
        return None
    wanted = wanted[:MAX_QUERY_GRAMS] + ([document(slug)] if slug is not None else [])
    return " & ".join(_quoted(g) for g in wanted)


def exists(connection: Any) -> bool:
    row = connection.execute("SELECT to_regclass(%s) IS NOT NULL", (GRAM_TABLE,)).fetchone()
    return bool(row[0])


def create(connection: Any) -> None:
    """The empty table and its indexes (a new database)."""
    for statement in CREATE + INDEXES:
        connection.execute(statement)


def migrate(connection: Any) -> int:
    """The table added to a database that has pages but no trigrams, filled from the
    pages it holds, in the caller's transaction; how many pages were cut."""
    for statement in CREATE:
        connection.execute(statement)
    done = 0
    with connection.cursor(name="pdfindex_grams_fill") as pages:
        pages.itersize = FILL_BATCH
        pages.execute("SELECT path, page, slug, text FROM pdfindex_pages")
        with connection.cursor() as cursor:
            while batch := pages.fetchmany(FILL_BATCH):
                with cursor.copy(f"COPY {GRAM_TABLE} (path, page, slug, grams) FROM STDIN") as copy:
                    for path, page, slug, text in batch:
                        copy.write_row((path, page, slug, page_grams(text, slug)))
                done += len(batch)
    for statement in INDEXES:
        connection.execute(statement)
    connection.execute(f"ANALYZE {GRAM_TABLE}")
    return done
