"""The PostgreSQL schema: a catalog record per file, a row per page (text stored, words
as a `tsvector`), a row per visual element, and the vocabulary with page counts.

Every table but the vocabulary is keyed by the document (`path` first in its primary
key): the distribution key, so Citus can shard the tables by document unchanged
(`create_distributed_table('pdfindex_pages', 'path')`, and the vocabulary, sources and
meta tables as reference tables).

Words are what `pdfindex.text.words.words` says: casefolded `\\w+` runs, tokenised here in
Python and handed to PostgreSQL as a `tsvector` literal, with positions: what its `simple`
configuration would hold if its parser split words as pdfindex does. A `tsvector` keeps
at most 256 positions of a word, positions up to 16,383 and words up to 2,047 bytes; a
page past those limits is marked `lossy` (1: some positions dropped, 2: some words
dropped) and stays a candidate of every query that could need what was dropped, so exact
search still equals the brute-force scan.
"""

from __future__ import annotations

from typing import Any

from pdfindex.engine.postgres import grams
from pdfindex.errors import ConfigError
from pdfindex.text.stopwords import ENGLISH_FUNCTION_WORDS
from pdfindex.text.words import is_cjk

K1, B = 1.2, 0.75  # BM25's, as Tantivy's and Lucene's defaults
PAIRED = ENGLISH_FUNCTION_WORDS  # two of these side by side are also one lexeme (pair)

FORMAT_VERSION = 13  # 3: BM25 in SQL; 4: tsvectors in the row; 5: tf ranked once; 6: sources;
# 7: narrow term vectors for counting, impact lists for top pages (pdfindex.engine.postgres.topk);
# 8: pairs of function words (page_vector); 9: lists for stems of less common words;
# 10: per-document postings (pdfindex.engine.postgres.postings), pages numbered (pid);
# 11: each Chinese or Japanese character a word (pdfindex.text.words.words), and two side by
# side a pair, as two function words are; 12: the 5 characters around each space of a page's
# plain form beside its trigrams (pdfindex.engine.postgres.grams.bridges); 13: a page's pairs
# of neighbours of which one is a function word, in their own column (`pairs`, page_pairs)
MAX_LEXEME_BYTES = 2047
MAX_POSITIONS = 256  # of one word on one page
MAX_POSITION = 16383
MAX_VECTOR_BYTES = 900_000  # of the 1 MB a tsvector may hold
STEM_TEXT_CHARS = 100_000  # of a page's text, stemmed for ranking natural-language queries
SCHEMA_LOCK = 0x70646669_0001  # advisory lock: creating or replacing the tables
WRITER_LOCK = 0x70646669_0002  # advisory lock: the one writer of the unnamed source
LIST_PAGES = 1000  # a word (or stem) on this many pages or more gets an impact list
LIST_KEEP = 128  # pages an impact list keeps at least (trimmed back to it past twice as many)
# The commit's functions (meta 'lists'): 2, new lists made by the writer from the postings
# (lists.py); a database of before gets them at the next open with write access.
LISTS_VERSION = 2
LIST_FUNCTIONS = (
    "CREATE FUNCTION pdfindex_update_lists()",
    "CREATE FUNCTION pdfindex_count_words()",
)
FUNCTIONS = (
    "pdfindex_bm25(float8, float8)",
    "pdfindex_count_words()",
    "pdfindex_impact(float8, float8, float8)",
    "pdfindex_update_lists()",
    'pdfindex_new_list("char", text, float8, integer)',
    grams.FUNCTION,
)
TABLES = (
    grams.GRAM_TABLE,
    "pdfindex_postings",
    "pdfindex_impacts",
    "pdfindex_lists",
    "pdfindex_terms",
    "pdfindex_sources",
    "pdfindex_elements",
    "pdfindex_pages",
    "pdfindex_files",
    "pdfindex_words",
    "pdfindex_meta",
)

# English Snowball stems without a stop-word list: what the embedded engines' stemmed
# field holds, for pdfindex.query.Stem.
STEM_SETUP = (
    "CREATE TEXT SEARCH DICTIONARY pdfindex_stem (TEMPLATE = snowball, Language = english)",
    "CREATE TEXT SEARCH CONFIGURATION pdfindex_stems (COPY = english)",
    "ALTER TEXT SEARCH CONFIGURATION pdfindex_stems ALTER MAPPING REPLACE english_stem "
    "WITH pdfindex_stem",
)
CREATE = (
    "CREATE TABLE pdfindex_meta (key text PRIMARY KEY, value bigint NOT NULL)",
    'CREATE TABLE pdfindex_files (path text COLLATE "C" PRIMARY KEY, slug text NOT NULL, '
    "record jsonb NOT NULL)",
    "CREATE INDEX pdfindex_files_slug ON pdfindex_files (slug)",
    "CREATE TABLE pdfindex_pages ("
    ' path text COLLATE "C" NOT NULL, page integer NOT NULL, slug text NOT NULL,'
    " text text NOT NULL, words tsvector NOT NULL, length integer NOT NULL,"
    " lossy smallint NOT NULL, pairs tsvector NOT NULL,"
    " pid bigint GENERATED ALWAYS AS IDENTITY,"
    " stems tsvector GENERATED ALWAYS AS"
    f" (to_tsvector('pdfindex_stems'::regconfig, left(text, {STEM_TEXT_CHARS}))) STORED,"
    " PRIMARY KEY (path, page))",
    # Words and stems kept in the row (compressed), the text moved out first: ranking
    # reads a page's tsvectors several times, and a TOAST fetch each time cost 3x.
    "ALTER TABLE pdfindex_pages ALTER COLUMN words SET STORAGE MAIN,"
    " ALTER COLUMN stems SET STORAGE MAIN, ALTER COLUMN words SET COMPRESSION lz4,"
    " ALTER COLUMN stems SET COMPRESSION lz4",
    "CREATE INDEX pdfindex_pages_words ON pdfindex_pages USING gin (words)",
    "CREATE INDEX pdfindex_pages_stems ON pdfindex_pages USING gin (stems)",
    # A page's pairs of neighbours of which one is a function word (page_pairs), without
    # positions: what narrows a phrase's candidates before their positions are read.
    "CREATE INDEX pdfindex_pages_pairs ON pdfindex_pages USING gin (pairs)",
    "CREATE INDEX pdfindex_pages_slug ON pdfindex_pages (slug, page)",
    "CREATE INDEX pdfindex_pages_lossy ON pdfindex_pages (path) WHERE lossy > 0",
    "CREATE INDEX pdfindex_pages_pid ON pdfindex_pages (pid)",
    # Per document, each word (kind 'w') and stem ('s') with its pages: (pid, frequency,
    # length) of each, packed (POSTING): a query's rows are read in one statement and
    # ranked by pdfindex.engine.postgres.postings, not row by row in SQL. (path, kind,
    # lexeme) is unique as written (POSTINGS), without a primary key: its index would
    # repeat the path in each of 4 million rows at 48,000 pages (340 MB); by path alone
    # the index is deduplicated to a few MB, and still serves the deletes by path.
    'CREATE TABLE pdfindex_postings (path text COLLATE "C" NOT NULL, kind "char" NOT NULL,'
    ' lexeme text COLLATE "C" NOT NULL, data bytea NOT NULL)',
    "ALTER TABLE pdfindex_postings ALTER COLUMN data SET COMPRESSION lz4",
    "CREATE INDEX pdfindex_postings_path ON pdfindex_postings (path)",
    "CREATE INDEX pdfindex_postings_lexeme ON pdfindex_postings (kind, lexeme)",
    # The same words and stems without positions, moved out of the row (TOAST past 128
    # bytes): counting the pages of a common word reads this narrow heap, not the pages'
    # rows (`the` on 30,000 of 48,000 pages: 7 ms against 125 ms). Phrases need positions.
    'CREATE TABLE pdfindex_terms (path text COLLATE "C" NOT NULL, page integer NOT NULL,'
    " words tsvector NOT NULL, stems tsvector NOT NULL, PRIMARY KEY (path, page))"
    " WITH (toast_tuple_target = 128)",
    "CREATE INDEX pdfindex_terms_words ON pdfindex_terms USING gin (words)",
    "CREATE INDEX pdfindex_terms_stems ON pdfindex_terms USING gin (stems)",
    "CREATE TABLE pdfindex_elements ("
    ' path text COLLATE "C" NOT NULL, n integer NOT NULL, slug text NOT NULL,'
    " kind text NOT NULL, page integer NOT NULL, record jsonb NOT NULL,"
    " caption tsvector NOT NULL, context tsvector NOT NULL, PRIMARY KEY (path, n))",
    "CREATE INDEX pdfindex_elements_slug ON pdfindex_elements (slug)",
    # BM25's term-frequency part: tf * (k1 + 1) / (tf + norm), norm from the page length,
    # written with `tf` once: PostgreSQL inlines the function, and would rank twice.
    "CREATE OR REPLACE FUNCTION pdfindex_bm25(tf float8, norm float8) RETURNS float8"
    " LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURN 2.2 - 2.2 * norm / (tf + norm)",
    # BM25's term-frequency part over k1 + 1 (0 to 1), with the page length against the
    # mean length `mean`: what orders an impact list.
    "CREATE FUNCTION pdfindex_impact(tf float8, length float8, mean float8) RETURNS float8"
    f" LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURN tf / (tf + {K1 * (1 - B)!r} +"
    f" {K1 * B!r} * length / mean)",
    # Impact lists (pdfindex.engine.postgres.topk): for each word or stem (kind 'w' or
    # 's') on LIST_PAGES pages or more, its pages of highest impact; every page of the
    # lexeme whose impact is above `theta` is in the list, so a page outside it scores
    # at most theta (its impact computed with `mean`, the mean page length of then).
    # `entries` -1: a stem found on fewer pages, no list.
    'CREATE TABLE pdfindex_lists (kind "char" NOT NULL, lexeme text COLLATE "C" NOT NULL,'
    " theta float8 NOT NULL, mean float8 NOT NULL, entries integer NOT NULL,"
    " PRIMARY KEY (kind, lexeme))",
    'CREATE TABLE pdfindex_impacts (path text COLLATE "C" NOT NULL, page integer NOT NULL,'
    ' kind "char" NOT NULL, lexeme text COLLATE "C" NOT NULL, impact float8 NOT NULL,'
    " PRIMARY KEY (path, page, kind, lexeme))",
    "CREATE INDEX pdfindex_impacts_list ON pdfindex_impacts (kind, lexeme, impact DESC)",
    # A new list: the `keep` best pages of the lexeme (all found from the GIN index);
    # theta is the best of the others.
    'CREATE FUNCTION pdfindex_new_list(k "char", lex text, mean float8, keep integer)'
    " RETURNS void LANGUAGE plpgsql AS $$"
    " DECLARE q tsquery := quote_literal(lex)::tsquery; n integer; beyond float8;"
    " BEGIN"
    '  CREATE TEMPORARY TABLE IF NOT EXISTS pdfindex_listing (path text COLLATE "C",'
    "   page integer, impact float8) ON COMMIT DROP;"
    "  TRUNCATE pdfindex_listing;"
    "  IF k = 'w' THEN"
    "   INSERT INTO pdfindex_listing SELECT path, page,"
    "    pdfindex_impact(10 * ts_rank_cd(words, q, 0), length, mean)"
    "    FROM pdfindex_pages WHERE words @@ q ORDER BY 3 DESC, 1, 2 LIMIT keep + 1;"
    "  ELSE"
    "   INSERT INTO pdfindex_listing SELECT path, page,"
    "    pdfindex_impact(10 * ts_rank_cd(stems, q, 0), length, mean)"
    "    FROM pdfindex_pages WHERE stems @@ q ORDER BY 3 DESC, 1, 2 LIMIT keep + 1;"
    "  END IF;"
    "  GET DIAGNOSTICS n = ROW_COUNT;"
    "  IF n > keep THEN"
    "   SELECT impact INTO beyond FROM pdfindex_listing ORDER BY impact LIMIT 1;"
    "   DELETE FROM pdfindex_listing WHERE ctid = (SELECT ctid FROM pdfindex_listing"
    "    ORDER BY impact, path DESC, page DESC LIMIT 1);"
    "  END IF;"
    "  INSERT INTO pdfindex_impacts SELECT path, page, k, lex, impact FROM pdfindex_listing;"
    "  INSERT INTO pdfindex_lists VALUES (k, lex, coalesce(beyond, 0), mean, least(n, keep));"
    " END $$",
    # At commit: the pages added (pg_temp.pdfindex_added) join the lists they beat;
    # lists past twice LIST_KEEP pages keep their LIST_KEEP best and raise theta to what
    # they dropped. New lists (words now on LIST_PAGES pages, and their stems) are made
    # by the writer next, from the postings (lists.build_new).
    "CREATE FUNCTION pdfindex_update_lists() RETURNS void LANGUAGE plpgsql AS $$"
    " DECLARE"
    "  keep integer := (SELECT value FROM pdfindex_meta WHERE key = 'list_keep');"
    "  r record; dropped float8;"
    # A page's term frequency as a list's impacts read it: `10 * ts_rank_cd` of n
    # occurrences (a float4, a little off n), as pdfindex_new_list and lists.py rank.
    "  freq float8[] := ARRAY(SELECT 10 * ts_rank_cd(('a:' || (SELECT string_agg(i::text,"
    f"   ',') FROM generate_series(1, n) AS i))::tsvector, 'a'::tsquery, 0)"
    f"   FROM generate_series(1, {MAX_POSITIONS}) AS n ORDER BY n);"
    " BEGIN"
    "  IF EXISTS (SELECT 1 FROM pdfindex_lists WHERE entries >= 0) THEN"  # a first build: none
    "  WITH added AS (SELECT DISTINCT path FROM pg_temp.pdfindex_added),"
    "  joined AS (INSERT INTO pdfindex_impacts"
    "   SELECT p.path, p.page, l.kind, l.lexeme, i.impact"
    "   FROM added a JOIN pdfindex_pages p ON p.path = a.path"
    "   CROSS JOIN LATERAL (SELECT 'w'::\"char\" AS kind, lexeme, positions FROM unnest(p.words)"
    "    UNION ALL SELECT 's', lexeme, positions FROM unnest(p.stems)) u"
    "   JOIN pdfindex_lists l ON l.kind = u.kind AND l.lexeme = u.lexeme AND l.entries >= 0"
    "   CROSS JOIN LATERAL (SELECT pdfindex_impact(freq[least(greatest("
    f"    cardinality(u.positions), 1), {MAX_POSITIONS})], p.length, l.mean) AS impact) i"
    "   WHERE i.impact > l.theta RETURNING kind, lexeme)"
    "  UPDATE pdfindex_lists l SET entries = l.entries + j.n"
    "   FROM (SELECT kind, lexeme, count(*) AS n FROM joined GROUP BY kind, lexeme) j"
    "   WHERE l.kind = j.kind AND l.lexeme = j.lexeme;"
    "  END IF;"
    "  FOR r IN SELECT kind, lexeme FROM pdfindex_lists WHERE entries > 2 * keep LOOP"
    "   WITH gone AS (DELETE FROM pdfindex_impacts i USING (SELECT path, page"
    "    FROM pdfindex_impacts WHERE kind = r.kind AND lexeme = r.lexeme"
    "    ORDER BY impact DESC, path, page OFFSET keep) d"
    "    WHERE i.kind = r.kind AND i.lexeme = r.lexeme AND i.path = d.path"
    "    AND i.page = d.page RETURNING i.impact)"
    "   SELECT max(impact) INTO dropped FROM gone;"
    "   UPDATE pdfindex_lists SET theta = greatest(theta, coalesce(dropped, 0)),"
    "    entries = (SELECT count(*) FROM pdfindex_impacts WHERE kind = r.kind"
    "    AND lexeme = r.lexeme) WHERE kind = r.kind AND lexeme = r.lexeme;"
    "  END LOOP;"
    " END $$",
    # The index's words and on how many pages each is: typo and prefix expansion, idf.
    'CREATE TABLE pdfindex_words (word text COLLATE "C" PRIMARY KEY, pages integer NOT NULL)',
    # Which folder on which host feeds each source ('' the unnamed one): a second folder
    # writing the same source would delete what it does not hold, so it is refused.
    "CREATE TABLE pdfindex_sources (source text PRIMARY KEY, host text NOT NULL,"
    " folder text NOT NULL, since timestamptz NOT NULL DEFAULT now())",
    # The vocabulary's counts move at commit, in word order, under the generation row's
    # lock: writers of different sources run at once, and counting as they went (a row
    # lock per word, held to commit, taken in any order) would deadlock them. A writer
    # collects its changes in a temporary table (COUNTED); the commit's generation bump
    # applies them here.
    "CREATE FUNCTION pdfindex_count_words() RETURNS trigger LANGUAGE plpgsql AS $$"
    " BEGIN"
    "  IF to_regclass('pg_temp.pdfindex_counted') IS NOT NULL THEN"
    "   INSERT INTO pdfindex_words AS w (word, pages)"
    "    SELECT word, sum(n) FROM pg_temp.pdfindex_counted GROUP BY word"
    "    HAVING sum(n) <> 0 ORDER BY word"
    "    ON CONFLICT (word) DO UPDATE SET pages = w.pages + excluded.pages;"
    "   DELETE FROM pdfindex_words w USING (SELECT DISTINCT word FROM"
    "    pg_temp.pdfindex_counted) c WHERE w.word = c.word AND w.pages <= 0;"
    "  END IF;"
    "  IF to_regclass('pg_temp.pdfindex_added') IS NOT NULL THEN"
    "   PERFORM pdfindex_update_lists();"
    "   TRUNCATE pg_temp.pdfindex_added;"
    "  END IF;"
    "  RETURN NEW;"
    " END $$",
    "CREATE TRIGGER pdfindex_count_words BEFORE UPDATE ON pdfindex_meta FOR EACH ROW"
    " WHEN (NEW.key = 'generation') EXECUTE FUNCTION pdfindex_count_words()",
)
# A file's postings, from its pages' words and stems: each page's pid, the lexeme's
# positions (what ts_rank_cd counts) and the page length, big-endian (postings.POSTING),
# in page order. Pairs are posted too: pairs of CJK characters (`~安 定`) for questions in
# Chinese and Japanese (postings.lexemes), pairs of function words (`~of the`) since
# `posted_pairs` (meta) for their impact lists (lists.py; before it, phrases only). They
# are staged until the commit, which writes them in word order (STAGED_POSTINGS).
POSTED_PAIR = "ascii(substr(u.lexeme, 2, 1)) >= 12288"  # code point, in a UTF8 database
POSTINGS = tuple(
    "INSERT INTO pdfindex_staged (path, kind, lexeme, data)"
    f" SELECT p.path, '{kind}', u.lexeme, string_agg(int8send(p.pid)"
    " || int4send(greatest(cardinality(u.positions), 1)) || int4send(p.length), ''::bytea"
    f" ORDER BY p.page) FROM pdfindex_pages p, unnest(p.{column}) u"
    " WHERE p.path = %s GROUP BY p.path, u.lexeme"
    for kind, column in (("w", "words"), ("s", "stems"))
)
STEM_POSTINGS = POSTINGS[1]  # the writer packs the words' itself (writer._post_words)


def posted_pair(lexeme: str) -> bool:
    """A pair lexeme posted by every version of the writer (POSTED_PAIR): two CJK
    characters."""
    return lexeme.startswith("~") and len(lexeme) > 1 and ord(lexeme[1]) >= 12288


# A writer's postings until its commit, which writes them in word order: a word's rows
# then lie together, and a question reads a few heap pages per word instead of one per
# document (its rows at 48,000 pages: 27 -> 7 ms).
STAGED = (
    "CREATE TEMPORARY TABLE IF NOT EXISTS pdfindex_staged"
    " (LIKE pdfindex_postings INCLUDING COMPRESSION) ON COMMIT DROP"
)
STAGED_POSTINGS = (
    "INSERT INTO pdfindex_postings SELECT * FROM pdfindex_staged ORDER BY kind, lexeme"
)
# A writer's vocabulary changes and added files until its commit (pdfindex_count_words).
COUNTED = (
    "CREATE TEMPORARY TABLE IF NOT EXISTS pdfindex_counted"
    ' (word text COLLATE "C" NOT NULL, n integer NOT NULL) ON COMMIT DROP'
)
ADDED = 'CREATE TEMPORARY TABLE IF NOT EXISTS pdfindex_added (path text COLLATE "C") ON COMMIT DROP'


def create_or_check(connection: Any) -> None:
    """The tables, created when missing; of an older format, dropped and created empty
    (PdfIndex refills them from the extraction cache); of a newer one, ConfigError. Under
    an advisory lock, so two processes opening a new database never create them at once.
    The trigram table, added to format 11 without a new format, may still be missing
    then: `add_grams`."""
    with connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        found = connection.execute(
            "SELECT value FROM pdfindex_meta WHERE key = 'format'"
            if _exists(connection, "pdfindex_meta")
            else "SELECT NULL WHERE false"
        ).fetchone()
        if found is not None and found[0] == FORMAT_VERSION:
            return
        if found is not None and found[0] > FORMAT_VERSION:
            # Another host's newer pdfindex wrote it: refilling it here would drop every
            # source's pages for this host's cache alone.
            raise ConfigError(
                f"the database holds pdfindex tables of format {found[0]}, newer than this "
                f"pdfindex's ({FORMAT_VERSION}): upgrade pdfindex on this host "
                "(nothing in the database was changed)"
            )
        for table in TABLES:
            connection.execute(f"DROP TABLE IF EXISTS {table}")
        for function in FUNCTIONS:
            connection.execute(f"DROP FUNCTION IF EXISTS {function}")
        if not connection.execute(
            "SELECT 1 FROM pg_ts_config WHERE cfgname = 'pdfindex_stems'"
        ).fetchone():
            for statement in STEM_SETUP:
                connection.execute(statement)
        for statement in CREATE:
            connection.execute(statement)
        grams.create(connection)
        connection.execute(
            "INSERT INTO pdfindex_meta VALUES ('format', %s), ('generation', 0),"
            " ('list_pages', %s), ('list_keep', %s), ('lists', %s), ('posted_pairs', 1)",
            (FORMAT_VERSION, LIST_PAGES, LIST_KEEP, LISTS_VERSION),
        )


def upgrade_lists(connection: Any) -> bool:
    """The commit's functions of LISTS_VERSION given to a database of before them (new
    lists made by the writer from the postings, lists.py), under the schema lock; nothing
    else changes. Whether it was upgraded now."""
    if _lists_version(connection) >= LISTS_VERSION:
        return False
    with connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        if _lists_version(connection) >= LISTS_VERSION:
            return False
        for statement in CREATE:
            if statement.startswith(LIST_FUNCTIONS):
                connection.execute(statement.replace("CREATE", "CREATE OR REPLACE", 1))
        connection.execute(
            "INSERT INTO pdfindex_meta VALUES ('lists', %s)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (LISTS_VERSION,),
        )
    return True


def _lists_version(connection: Any) -> int:
    row = connection.execute("SELECT value FROM pdfindex_meta WHERE key = 'lists'").fetchone()
    return int(row[0]) if row else 1


def add_grams(connection: Any) -> int | None:
    """The trigram table added to a database of the current format that lacks it, filled
    from its pages (grams.migrate), under the schema lock; how many pages were cut, None
    when another process had added it meanwhile."""
    with connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        if grams.exists(connection):
            return None
        return grams.migrate(connection)


def _exists(connection: Any, table: str) -> bool:
    return connection.execute("SELECT to_regclass(%s) IS NOT NULL", (table,)).fetchone()[0]


def pair(first: str, second: str) -> str:
    """The lexeme of two function words side by side: `~of the` (no query word starts
    with `~`, so prefixes and typos never meet one)."""
    return f"~{first} {second}"


def pairs_with(first: str, second: str) -> bool:
    """Whether these two words side by side are also one lexeme: two function words
    (`"of the"`), or two Chinese or Japanese characters (a natural-language query's unit:
    pdfindex.text.words.query_words), so their phrase is counted and ranked from the index
    instead of from the positions of every page holding both."""
    return (first in PAIRED and second in PAIRED) or (is_cjk(first) and is_cjk(second))


def pairs_of(words: tuple[str, ...]) -> list[str]:
    """The pair lexemes a page holding these words side by side holds."""
    neighbours = zip(words, words[1:], strict=False)
    return [pair(a, b) for a, b in neighbours if pairs_with(a, b)]


def is_paired(words: tuple[str, ...]) -> bool:
    """Whether a phrase of these words is one pair lexeme."""
    return len(words) == 2 and pairs_with(*words)


def page_vector(words: list[str], pairs: bool = True) -> tuple[str, int]:
    """The `tsvector` literal of a page's words with their positions, and how lossy it
    is (0: all there; 1: some positions dropped; 2: some words dropped). With `pairs`,
    two function words side by side are one more lexeme at the first one's position
    (`~of the`): a phrase of them is then one lexeme, counted and ranked from the
    index, where `'of' <-> 'the'` reads the positions of 17,500 of 48,000 pages."""
    positions, lossy = page_positions(words, pairs)
    # \w+ words hold no quote, backslash or space: each is a literal as it is.
    literal = " ".join(f"'{w}':{','.join(map(str, p))}" for w, p in positions.items())
    return literal, lossy


def page_positions(words: list[str], pairs: bool = True) -> tuple[dict[str, list[int]], int]:
    """Each lexeme of a page's `tsvector` (page_vector) with its positions, and how lossy
    it is: the writer counts the vocabulary from these (no query per file)."""
    positions: dict[str, list[int]] = {}
    lossy = 0
    items = enumerate(words, start=1)
    if pairs:
        items = _with_pairs(words)  # type: ignore[assignment]
    for number, word in items:
        # 4 bytes a character at most: only a long word can be too long.
        if len(word) * 4 > MAX_LEXEME_BYTES and len(word.encode("utf-8")) > MAX_LEXEME_BYTES:
            lossy = 2
            continue
        kept = positions.setdefault(word, [])
        if number > MAX_POSITION or len(kept) >= MAX_POSITIONS:
            lossy = max(lossy, 1)
            if not kept:
                kept.append(MAX_POSITION)
            continue
        kept.append(number)
    size = sum(len(w.encode("utf-8")) + 2 * len(p) + 8 for w, p in positions.items())
    if size > MAX_VECTOR_BYTES:
        return {}, 2
    return positions, lossy


def _with_pairs(words: list[str]) -> list[tuple[int, str]]:
    """(position, lexeme) of each word, and of each pair (`pairs_with`) after it. Each
    distinct word's kind is found once (1: a function word, 2: Chinese or Japanese, 0:
    neither; no word is both): two side by side pair when their kinds are the same and
    not 0, which is `pairs_with` (asked per neighbour it took a third of a page's time)."""
    found: list[tuple[int, str]] = []
    kinds: dict[str, int] = {}
    previous, previous_kind = "", 0
    for number, word in enumerate(words, start=1):
        found.append((number, word))
        kind = kinds.get(word)
        if kind is None:
            cjk = not word.isascii() and is_cjk(word)
            kind = kinds[word] = 1 if word in PAIRED else 2 if cjk else 0
        if kind and kind == previous_kind:
            found.append((number - 1, pair(previous, word)))
        previous, previous_kind = word, kind
    return found


def neighbours_with(first: str, second: str) -> bool:
    """Whether these two words side by side are in a page's `pairs` column: one is a
    function word and the other is not (two are one lexeme of `words`, pairs_with)."""
    return (first in PAIRED) != (second in PAIRED)


def neighbours_of(words: tuple[str, ...]) -> list[str]:
    """The lexemes of `pairs` a page holding these words side by side holds."""
    neighbours = zip(words, words[1:], strict=False)
    return [pair(a, b) for a, b in neighbours if neighbours_with(a, b)]


def page_pairs(words: list[str]) -> tuple[str, bool]:
    """The `pairs` column of a page (a `tsvector` literal, no positions): each distinct
    pair of neighbours of which one is a function word (`~name of`), and whether there
    were too many to keep (it is then empty, and the page lossy). With them the pages a
    phrase of common words is checked on are the few holding all its pairs (`"the name of
    the"` at 48,000 pages: 991 instead of 4,463), and a phrase of two such words is
    decided by its pair alone. A pair of a word too long for a lexeme is left out: the
    word is not in `words` either (page_positions)."""
    function = [w in PAIRED for w in words]
    found = {
        f"~{a} {b}"
        for a, b, x, y in zip(words, words[1:], function, function[1:], strict=False)
        if x != y
    }
    if max(map(len, found), default=0) * 4 > MAX_LEXEME_BYTES:  # 4 bytes a character at most
        found = {p for p in found if len(p.encode("utf-8")) <= MAX_LEXEME_BYTES}
    size = sum(len(p) + 8 for p in found)
    if size * 4 > MAX_VECTOR_BYTES and sum(len(p.encode("utf-8")) + 8 for p in found) > (
        MAX_VECTOR_BYTES
    ):
        return "", True
    return " ".join(f"'{p}'" for p in found), False


def plain_vector(words: list[str]) -> str:
    """A `tsvector` literal of words (element captions and context): page_vector's,
    whatever it had to drop (elements are ranked, never matched exactly)."""
    return page_vector(words, pairs=False)[0]
