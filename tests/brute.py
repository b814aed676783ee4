"""An independent, slow, obviously-correct reference of the exact-match rules.

It walks the casefolded text position by position with explicit recursion, instead of
compiling a regex, so the property tests compare two different implementations.
"""

from __future__ import annotations

import unicodedata
from functools import cache

HYPHENS = "-\u00ad\u2010"


def fold_with_origin(text: str) -> tuple[str, list[int]]:
    chars: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        for folded in char.casefold():
            chars.append(folded)
            origin.append(index)
    return "".join(chars), origin


def query_items(query: str) -> list[str | None]:
    """Query characters, with None standing for a whitespace run."""
    items: list[str | None] = []
    for char in unicodedata.normalize("NFKC", query).strip().casefold():
        if char.isspace():
            if items and items[-1] is not None:
                items.append(None)
        else:
            items.append(char)
    return items


def _cjk(char: str) -> bool:
    """Chinese or Japanese, by code point: symbols and kana (U+3000-U+30FF), kana
    extensions, the unified and compatibility ideographs, half-width katakana, and the
    planes beyond."""
    point = ord(char)
    return (
        0x3000 <= point <= 0x30FF
        or 0x31F0 <= point <= 0x31FF
        or 0x3400 <= point <= 0x4DBF
        or 0x4E00 <= point <= 0x9FFF
        or 0xF900 <= point <= 0xFAFF
        or 0xFF65 <= point <= 0xFF9F
        or 0x20000 <= point <= 0x3FFFF
    )


def _after_line_break(text: str, position: int) -> list[int]:
    """Ends of `[ \\t]*` + one line break + any whitespace, starting at `position`."""
    j = position
    while j < len(text) and text[j] in " \t":
        j += 1
    if j < len(text) and text[j] == "\r" and j + 1 < len(text) and text[j + 1] == "\n":
        j += 2
    elif j < len(text) and text[j] in "\r\n":
        j += 1
    else:
        return []
    ends = [j]
    while j < len(text) and text[j].isspace():
        j += 1
        ends.append(j)
    return ends


def brute_force(text: str, query: str) -> list[tuple[int, set[int]]]:
    """(start, possible ends) in original offsets for every start position that matches."""
    folded, origin = fold_with_origin(text)
    items = query_items(query)
    n = len(folded)

    @cache
    def ends_from(position: int, item: int) -> frozenset[int]:
        if item == len(items):
            return frozenset([position])
        wanted = items[item]
        found: set[int] = set()
        if wanted is None:
            j = position
            while j < n and folded[j].isspace():
                j += 1
                found |= ends_from(j, item + 1)
            return frozenset(found)
        starts = [position]
        previous = items[item - 1] if item > 0 else None
        if previous is not None and position < n and folded[position] in HYPHENS:
            starts += _after_line_break(folded, position + 1)
        if previous is not None and _cjk(previous) and _cjk(wanted):
            starts += _after_line_break(folded, position)  # a line end inside a CJK word
        for p in starts:
            if p < n and folded[p] == wanted:
                nexts = [p + 1]
                if wanted == "-":
                    nexts += _after_line_break(folded, p + 1)
                for q in nexts:
                    found |= ends_from(q, item + 1)
        return frozenset(found)

    results = []
    for start in range(n):
        ends = ends_from(start, 0)
        if ends:
            original_ends = {origin[e - 1] + 1 for e in ends if e > start}
            results.append((origin[start], original_ends))
    return results
