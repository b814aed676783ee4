"""How many pages the library holds and how many words they have, as running totals in
`pdfindex_meta` (`pages`, `length`), kept by each commit (issue 30).

BM25 needs the number of pages and their mean length. Counted from `pdfindex_pages` (a
scan of every page row, whose `tsvector`s are in the row) that read 1.3 GB at 47,970
pages and would read about 20 GB at a million, after every commit, before the first
search could be ranked. A commit of this writer adds what it added less what it removed
and notes the generation it did so at (`stats_generation`); a commit that did not (a
pdfindex of before, on another host; a writer that cleared the library) leaves the
totals behind the generation, and readers and the next writer count the pages instead.
"""

from __future__ import annotations

from typing import Any

KEYS = ("pages", "length", "stats_generation")


def totals(meta: dict[str, int]) -> tuple[int | None, int | None]:
    """(pages, words) from the meta rows when the last commit kept them, else (None, None)."""
    if "stats_generation" not in meta or meta["stats_generation"] != meta.get("generation"):
        return None, None
    return int(meta["pages"]), int(meta["length"])


def keep(connection: Any, generation: int, pages: int, length: int, recount: bool) -> None:
    """The totals moved by this commit's `pages` and `length` (added less removed), in the
    writer's transaction, after its generation bump (whose row lock orders the writers);
    counted from every page when the totals were not kept at the generation before (or
    `recount`: the library was cleared)."""
    meta = dict(
        connection.execute(
            "SELECT key, value FROM pdfindex_meta WHERE key = ANY(%s)", (list(KEYS),)
        ).fetchall()
    )
    if not recount and meta.get("stats_generation") == generation - 1:
        pages, length = int(meta["pages"]) + pages, int(meta["length"]) + length
    else:
        pages, length = connection.execute(
            "SELECT count(*), coalesce(sum(length), 0) FROM pdfindex_pages"
        ).fetchone()
    with connection.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO pdfindex_meta VALUES (%s, %s)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [("pages", int(pages)), ("length", int(length)), ("stats_generation", generation)],
        )
