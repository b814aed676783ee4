"""Exact-match semantics shared by every exact search (seed 000's `search_pdf`).

A query matches the stored text case-insensitively (Unicode casefold, query NFKC);
whitespace in the query matches any whitespace run, line breaks included; a line-end
hyphenation in the text (`architec-\\nture`) matches the unbroken word; a hyphen in the
query also matches a hyphen followed by a line break; between two Chinese or Japanese
characters of the query, a line break in the text is ignored too (written without spaces,
their lines end inside words with no hyphen). Every start position counts, so
overlapping occurrences are all found. Knows nothing of the index.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from pdfindex.text.index import HYPHENS, LINE_BREAK
from pdfindex.text.words import is_cjk, normalize_query, words

_HYPHEN_CHARS = tuple(HYPHENS)
_HYPHEN_BREAK = f"(?:[{HYPHENS}]{LINE_BREAK})?"
_CJK_BREAK = f"(?:[{HYPHENS}]?{LINE_BREAK})?"  # between two CJK characters
_ASCII_WORD = re.compile(r"[A-Za-z0-9_]+")
_LAST_ASCII_WORD = re.compile(r"(?<!\w)[A-Za-z0-9_]+\Z")


def fold(text: str) -> tuple[str, list[int] | None]:
    """Casefolded text and a map from folded to original offsets (None = identical).

    casefold() maps each character to one or more; equal lengths mean one-to-one. An
    ASCII text folds as lower() does, which is twice as fast.
    """
    if text.isascii():
        return text.lower(), None
    folded = text.casefold()
    if len(folded) == len(text):
        return folded, None
    # Walk only the characters that do not fold to one (ß -> ss): a page has a few among
    # thousands, and a loop over every character cost more than the search itself.
    expanding = "".join(c for c in set(text) if len(c.casefold()) != 1)
    offsets: list[int] = []
    done = 0
    for found in re.finditer(f"[{re.escape(expanding)}]", text):
        index = found.start()
        offsets.extend(range(done, index))
        offsets.extend([index] * len(text[index].casefold()))
        done = index + 1
    offsets.extend(range(done, len(text) + 1))
    return folded, offsets


def to_original(offsets: list[int] | None, start: int, end: int) -> tuple[int, int]:
    """Map a folded span back to the original text (covering whole expanded characters)."""
    if offsets is None:
        return start, end
    return offsets[start], (offsets[end - 1] + 1 if end > start else offsets[start])


@lru_cache(maxsize=256)
def compile_query(query: str) -> re.Pattern[str]:
    """The regex, over casefolded text, that implements the rules above."""
    folded = normalize_query(query).casefold()
    parts: list[str] = []
    previous = ""
    for char in folded:
        if char.isspace():
            if previous:
                parts.append(r"\s+")
            previous = ""
            continue
        if previous:
            parts.append(_CJK_BREAK if is_cjk(previous) and is_cjk(char) else _HYPHEN_BREAK)
        parts.append(re.escape(char))
        if char == "-":
            parts.append(f"(?:{LINE_BREAK})?")
        previous = char
    return re.compile("".join(parts))


def find_spans(pattern: re.Pattern[str], folded_text: str) -> Iterator[tuple[int, int]]:
    """Every (start, end) in folded text, overlapping ones included, in order."""
    position = 0
    while (match := pattern.search(folded_text, position)) is not None:
        yield match.start(), match.end()
        position = match.start() + 1


def required_terms(query: str) -> list[str]:
    """Whole words every matching page must hold as index terms.

    Only ASCII words with ASCII space or punctuation on both sides inside the query are
    safe: a word at either end of the query may be a fragment of a longer word.
    """
    text = normalize_query(query)
    terms = []
    for match in _ASCII_WORD.finditer(text):
        start, end = match.span()
        if start == 0 or end == len(text):
            continue
        before, after = text[start - 1], text[end]
        if _is_boundary(before) and _is_boundary(after):
            terms.append(match.group().casefold())
    return sorted(set(terms))


def required_cjk_words(query: str) -> list[str]:
    """The query's Chinese and Japanese characters: every matching page holds each as an
    index word, where the index makes each of them a word (`Engine.splits_cjk`)."""
    return sorted({w for w in words(normalize_query(query)) if is_cjk(w)})


def required_phrases(query: str) -> list[list[str]]:
    """Runs of whole words (as in required_terms) with only whitespace between them: on a
    matching page they are adjacent index tokens, so a phrase lookup may narrow."""
    text = normalize_query(query)
    runs: list[list[str]] = []
    current: list[str] = []
    previous_end = -1
    for match in _ASCII_WORD.finditer(text):
        start, end = match.span()
        # A word next to a hyphen may be half of a word hyphenated at a line end in the
        # page, which the index holds re-joined: it stays a required term, not a phrase word.
        glued = text[:start].rstrip().endswith(_HYPHEN_CHARS) or text[end:].lstrip().startswith(
            _HYPHEN_CHARS
        )
        complete = (
            0 < start
            and end < len(text)
            and _is_boundary(text[start - 1])
            and _is_boundary(text[end])
            and not glued
        )
        gap = text[previous_end:start] if previous_end >= 0 else ""
        if complete and current and gap and gap.isspace():
            current.append(match.group().casefold())
        else:
            if len(current) > 1:
                runs.append(current)
            current = [match.group().casefold()] if complete else []
        previous_end = end
    if len(current) > 1:
        runs.append(current)
    return runs


def required_prefixes(query: str, min_length: int = 3) -> list[str]:
    """A word every matching page holds a term starting with: the query's last word, when
    it has a space or punctuation before it (it may be cut short at its end only)."""
    text = normalize_query(query)
    match = _LAST_ASCII_WORD.search(text)
    if match is None or match.start() == 0 or len(match.group()) < min_length:
        return []
    return [match.group().casefold()] if _is_boundary(text[match.start() - 1]) else []


def _is_boundary(char: str) -> bool:
    return char.isascii() and not (char.isalnum() or char == "_")
