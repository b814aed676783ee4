"""The word rules every part of pdfindex shares: a word is a run of letters and digits,
case-folded (so `e.g.` is the words e and g), each Chinese or Japanese character a word
of its own (so a run of them is a phrase). The engines tokenise page text with the same
split (WORD_PATTERN, RUST_WORD_PATTERN), the query parser and search read queries with
it, so a word in a query is a word in the index.
"""

from __future__ import annotations

import re
import unicodedata

from pdfindex.errors import InvalidQuery, QueryTooLarge

MAX_QUERY_CHARS = 2000
# Chinese and Japanese write no spaces between words: each of their characters (Han, kana,
# the CJK symbols that are letters, like 々) is an index word on its own, as in Lucene's
# standard tokenizer, so a word inside a run of text is found. A run of them in a query is
# a phrase of its characters; in natural language, its overlapping pairs (search.understand).
# Hangul stays in words: Korean puts spaces between them.
CJK_RANGES = (
    ("\u3000", "\u30ff"),  # CJK symbols (々 〆 〇), hiragana, katakana
    ("\u31f0", "\u31ff"),  # katakana phonetic extensions
    ("\u3400", "\u4dbf"),  # CJK extension A
    ("\u4e00", "\u9fff"),  # CJK unified ideographs
    ("\uf900", "\ufaff"),  # compatibility ideographs
    ("\uff65", "\uff9f"),  # half-width katakana
    ("\U00020000", "\U0003ffff"),  # extensions B and later
)
CJK_CLASS = "".join(f"{low}-{high}" for low, high in CJK_RANGES)
# A run of word characters but CJK ones, or one word character (then a CJK one).
_WORD = re.compile(rf"[^\W{CJK_CLASS}]+|\w")
# is_cjk's ranges as code points: compiling them as a regex class cost every process ~3 ms
_CJK_CODES = tuple((ord(low), ord(high)) for low, high in CJK_RANGES)
# The same split for the engines' own tokenizers: Tantivy's (Rust's regex crate) reads the
# ranges as \x{…}; Whoosh's uses WORD_PATTERN as it is.
WORD_PATTERN = _WORD.pattern
RUST_WORD_PATTERN = "[^\\W{}]+|\\w".format(
    "".join(f"\\x{{{ord(low):x}}}-\\x{{{ord(high):x}}}" for low, high in CJK_RANGES)
)


# On ASCII text (str.isascii() is free) the same split as _WORD, a third faster, over the
# text lowered at once (for ASCII, casefolding): most pages of most libraries.
_ASCII_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """Casefolded \\w runs (a CJK character on its own): the words of a text as the index
    sees them."""
    if text.isascii():
        return _ASCII_WORD.findall(text.lower())
    return [w.casefold() for w in _WORD.findall(text)]


def word_spans(text: str) -> list[tuple[str, int, int]]:
    """words() with where each stands in `text`: (word, start, end), for finding a
    phrase in page text as phrase search does."""
    if text.isascii():
        return [(m.group(), m.start(), m.end()) for m in _ASCII_WORD.finditer(text.lower())]
    return [(m.group().casefold(), m.start(), m.end()) for m in _WORD.finditer(text)]


def is_cjk(word: str) -> bool:
    """Whether a word is Chinese or Japanese: one character, or a run of them as
    query_words gives it."""
    if not word:
        return False
    code = ord(word[0])
    return any(low <= code <= high for low, high in _CJK_CODES)


def words_regex(plain: list[str], cjk: list[str]) -> str:
    """A regex finding index words in casefolded text, given as regex alternatives: the
    `plain` ones whole (no word character either side), the `cjk` ones anywhere, their
    neighbours being letters too. One boundary test around all the plain ones: a test per
    alternative made a snippet of 200 prefix words 30 times slower."""
    parts = [r"(?<!\w)(?:" + "|".join(plain) + r")(?!\w)"] if plain else []
    return "|".join(parts + cjk)


def query_words(text: str) -> list[str]:
    """The words of a natural-language query: words() but each run of CJK characters as
    its overlapping pairs (a lone one as itself), the usual unit of Chinese and Japanese
    retrieval: "安定版" is "安定", "定版", each a phrase (search.understand.word)."""
    return [
        word for group in cjk_runs(text) for word in (_pairs(group) if is_cjk(group[0]) else group)
    ]


def _pairs(run: list[str]) -> list[str]:
    return ["".join(run[i : i + 2]) for i in range(max(1, len(run) - 1))]


def cjk_runs(text: str) -> list[list[str]]:
    """The query text's words, those of a CJK run (characters side by side) together."""
    groups: list[list[str]] = []
    end = -1
    for match in _WORD.finditer(text):
        word = match.group().casefold()
        joined = groups and is_cjk(word) and is_cjk(groups[-1][-1]) and match.start() == end
        if joined:
            groups[-1].append(word)
        else:
            groups.append([word])
        end = match.end()
    return groups


def word_set(texts: list[str]) -> set[str]:
    """The distinct words of `texts` as words() gives them: each casefolded once, not
    once per occurrence (a page holds each word about three times)."""
    found: set[str] = set()
    for text in texts:
        if text.isascii():
            found.update(_ASCII_WORD.findall(text.lower()))
        else:
            found.update(w.casefold() for w in set(_WORD.findall(text)))
    return found


def stem_candidates(texts: list[str], stems: set[str]) -> list[str]:
    """The words of `texts` that may have one of these English stems: those starting as
    the stem does but for its last letter (family -> famili, loading -> load), so an
    engine stems a few words to mark in a snippet, not every word of its hits."""
    starts = sorted({stem[:-1] or stem for stem in stems}, key=len, reverse=True)
    if not starts:
        return []
    # No \\b before: a regex starting with letters skips through a page in C, one starting
    # with a test tries every position (twice the time); a word's start is checked after.
    pattern = re.compile(r"(?:" + "|".join(map(re.escape, starts)) + r")\w*")
    found = set()
    for text in texts:
        folded = text.casefold()
        found.update(
            m.group()
            for m in pattern.finditer(folded)
            if (at := m.start()) == 0 or not folded[at - 1].isalnum() and folded[at - 1] != "_"
        )
    return sorted(found)


def normalize_query(query: str) -> str:
    """NFKC (as extraction leaves page text: `ﬁ` is `fi`) and trimmed; empty or over-long
    queries are refused."""
    if not isinstance(query, str):
        raise InvalidQuery("query must be a string")
    text = unicodedata.normalize("NFKC", query).strip()
    if not text:
        raise InvalidQuery("query is empty: give at least one non-space character")
    if len(text) > MAX_QUERY_CHARS:
        raise QueryTooLarge(f"query has {len(text)} characters; the limit is {MAX_QUERY_CHARS}")
    return text


def max_edits(word: str) -> int:
    """Typos tolerated in a word: none up to 3 letters, one up to 7, then two."""
    return 0 if len(word) <= 3 else 1 if len(word) <= 7 else 2
