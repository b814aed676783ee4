"""New impact lists at commit, from the postings (issue 30: a build that scales).

A word or stem that reaches `list_pages` pages gets an impact list (topk.py): its
`list_keep` pages of highest impact, and `theta`, the highest impact of the others. The
trigger of before built each list in SQL from every page holding the lexeme (a GIN scan,
each page's `tsvector` decompressed and ranked): at 47,970 pages its 3,900 lists read
about 3.3 million page rows, 23 of the 32 minutes of a build at load 11, and a library
of copies crosses the threshold with more words, each on more pages, at each size.

Here the writer builds them after the generation bump (so under its row lock, as the
trigger did), from `pdfindex_postings`: each document's (pid, frequency, length) of the
lexeme, 16 bytes a page, read in binary and ranked with numpy: the same impact
(`pdfindex_impact` over the server's `10 * ts_rank_cd` of the frequency), the best
`list_keep` kept by impact, then pid. Only the lexemes whose counts this commit moved are
looked at: the work follows the pages added. Pairs of function words (`~of the`) are
posted only in databases whose every page was written since they are
(`meta.posted_pairs`); elsewhere their lists are still made from the pages
(`pdfindex_new_list`).

Which page of equal impact a list keeps at its last place does not matter: every page
outside a list has an impact of at most theta, which is all topk.py relies on.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import numpy as np

from pdfindex.engine.postgres import stats
from pdfindex.engine.postgres.postings import FREQUENCIES, POSTING
from pdfindex.engine.postgres.schema import K1, MAX_POSITIONS, B, posted_pair

Key = tuple[str, str]
BATCH_ROWS = 20_000  # postings rows fetched at a time

# Words (and pairs) this commit counted that are now on `least` pages without a list.
NEW_WORDS = (
    "SELECT w.word FROM pdfindex_words w WHERE w.word IN"
    " (SELECT word FROM pg_temp.pdfindex_counted) AND w.pages >= %s AND NOT EXISTS"
    " (SELECT 1 FROM pdfindex_lists l WHERE l.kind = 'w' AND l.lexeme = w.word)"
    " ORDER BY w.word"
)
# Stems without a list (nor a note that they are short) of the words this commit
# counted on a quarter of `least` pages or more: the stems of new lists' words always,
# the others when their words' pages add up to `least` (an estimate: a page may hold
# several of them; the postings then count exactly).
NEW_STEMS = (
    "SELECT t.lexeme, bool_or(w.pages >= %(least)s), sum(w.pages)"
    " FROM pdfindex_words w, unnest(to_tsvector('pdfindex_stems', w.word)) t"
    " WHERE w.word IN (SELECT word FROM pg_temp.pdfindex_counted)"
    " AND w.pages >= %(least)s / 4 AND w.word !~ '^~' AND NOT EXISTS"
    " (SELECT 1 FROM pdfindex_lists l WHERE l.kind = 's' AND l.lexeme = t.lexeme)"
    " GROUP BY t.lexeme ORDER BY t.lexeme"
)
POSTINGS_OF = (
    "SELECT p.kind, p.lexeme, p.data FROM pdfindex_postings p"
    ' JOIN unnest(%s::"char"[], %s::text[]) AS k(kind, lexeme)'
    " ON p.kind = k.kind AND p.lexeme = k.lexeme ORDER BY p.kind, p.lexeme"
)


def is_posted(kind: str, lexeme: str, pairs_posted: bool) -> bool:
    """Whether `pdfindex_postings` holds every page of this lexeme."""
    return kind == "s" or not lexeme.startswith("~") or pairs_posted or posted_pair(lexeme)


def build_new(connection: Any) -> int:
    """The lists this commit's counts call for, made in the writer's transaction after
    the generation bump (pg_temp.pdfindex_counted still holds the words it counted);
    how many lists were made."""
    if not _exists(connection, "pg_temp.pdfindex_counted"):
        return 0
    meta = dict(connection.execute("SELECT key, value FROM pdfindex_meta").fetchall())
    least, keep = int(meta["list_pages"]), int(meta["list_keep"])
    pairs_posted = bool(meta.get("posted_pairs", 0))
    words = [row[0] for row in connection.execute(NEW_WORDS, (least,)).fetchall()]
    stems = connection.execute(NEW_STEMS, {"least": least}).fetchall()
    wanted: list[Key] = [("w", word) for word in words]
    wanted += [("s", stem) for stem, always, total in stems if always or total >= least]
    if not wanted:
        return 0
    always = {("w", word) for word in words} | {("s", s) for s, a, _ in stems if a}
    count, total = stats.totals(meta)
    if count is None:
        count, total = connection.execute(
            "SELECT count(*), coalesce(sum(length), 0) FROM pdfindex_pages"
        ).fetchone()
    mean = max(int(total) / int(count), 1.0) if count else 1.0
    posted = [key for key in wanted if is_posted(*key, pairs_posted)]
    frequency = _frequencies(connection)
    lists: list[tuple[str, str, float, float, int]] = []
    impacts: list[tuple[int, str, str, float]] = []
    for (kind, lexeme), data in _postings(connection, posted):
        found = np.frombuffer(data, POSTING)
        if (kind, lexeme) not in always and len(found) < least:
            lists.append((kind, lexeme, 0.0, mean, -1))  # a stem short of it: noted
            continue
        theta, best = top(found, frequency, mean, keep)
        lists.append((kind, lexeme, theta, mean, len(best)))
        impacts += [(int(pid), kind, lexeme, float(impact)) for pid, impact in best]
    seen = {(kind, lexeme) for kind, lexeme, *_ in lists}
    for kind, lexeme in posted:  # no postings at all (its pages were lossy): noted short
        if (kind, lexeme) not in seen and (kind, lexeme) not in always:
            lists.append((kind, lexeme, 0.0, mean, -1))
    _write(connection, lists, impacts)
    for kind, lexeme in wanted:
        if (kind, lexeme) not in seen and (kind, lexeme) in always:  # from the pages
            connection.execute(
                "SELECT pdfindex_new_list(%s, %s, %s, %s)", (kind, lexeme, mean, keep)
            )
    return len(wanted)


def top(
    found: np.ndarray, frequency: np.ndarray, mean: float, keep: int
) -> tuple[float, list[tuple[int, float]]]:
    """theta and the (pid, impact) of the `keep` best pages of one lexeme's postings, as
    pdfindex_impact computes an impact (the same float8 operations in the same order)."""
    tf = frequency[np.minimum(found["tf"].astype(np.int64), MAX_POSITIONS)]
    length = found["length"].astype(np.float64)
    impact = tf / (tf + K1 * (1 - B) + K1 * B * length / mean)
    pids = found["pid"].astype(np.int64)
    order = np.lexsort((pids, -impact))[: keep + 1]
    theta = 0.0
    if len(order) > keep:
        theta = float(impact[order[keep]])
        order = order[:keep]
    return theta, [(int(pids[i]), float(impact[i])) for i in order]


def _postings(connection: Any, keys: list[Key]) -> Iterator[tuple[Key, bytes]]:
    """Each lexeme's postings (every document's rows joined), in binary, a batch of
    lexemes at a time."""
    batch = 256
    for start in range(0, len(keys), batch):
        chunk = keys[start : start + batch]
        parts: dict[Key, list[bytes]] = defaultdict(list)
        with connection.cursor(binary=True) as cursor:
            cursor.execute(POSTINGS_OF, ([k for k, _ in chunk], [w for _, w in chunk]))
            while rows := cursor.fetchmany(BATCH_ROWS):
                for kind, lexeme, data in rows:
                    parts[(kind, lexeme)].append(bytes(data))
        for key in chunk:
            if key in parts:
                yield key, b"".join(parts[key])


def _frequencies(connection: Any) -> np.ndarray:
    """`10 * ts_rank_cd` of a lexeme found n times (index n), as the server computes it."""
    found = np.zeros(MAX_POSITIONS + 1)
    for n, value in connection.execute(FREQUENCIES).fetchall():
        found[n] = value
    return found


def _write(
    connection: Any,
    lists: list[tuple[str, str, float, float, int]],
    impacts: list[tuple[int, str, str, float]],
) -> None:
    """The lists' rows, and their pages' impacts (by pid: their path and page joined)."""
    cursor = connection.cursor()
    cursor.execute(
        'CREATE TEMPORARY TABLE IF NOT EXISTS pdfindex_listed (pid bigint, kind "char",'
        ' lexeme text COLLATE "C", impact float8) ON COMMIT DROP'
    )
    cursor.execute("TRUNCATE pdfindex_listed")
    with cursor.copy("COPY pdfindex_listed (pid, kind, lexeme, impact) FROM STDIN") as copy:
        for row in impacts:
            copy.write_row(row)
    cursor.execute(
        "INSERT INTO pdfindex_impacts SELECT p.path, p.page, l.kind, l.lexeme, l.impact"
        " FROM pdfindex_listed l JOIN pdfindex_pages p ON p.pid = l.pid"
    )
    with cursor.copy("COPY pdfindex_lists (kind, lexeme, theta, mean, entries) FROM STDIN") as copy:
        for row in lists:
            copy.write_row(row)


def _exists(connection: Any, table: str) -> bool:
    return bool(connection.execute("SELECT to_regclass(%s) IS NOT NULL", (table,)).fetchone()[0])
