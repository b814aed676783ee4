"""The index words every match of a regular expression must hold, so a regex search reads
only the pages that have them instead of every page of a document.

A run of ASCII letters and digits that every match contains is a whole index word when
a non-word character must stand on both of its sides, and the start of one when only on
its left (the index splits text into casefolded \\w+ words). Anything this module is not
sure of (alternatives, optional parts, groups it cannot see into, syntax of the `regex`
package that Python's own parser reads differently) gives no word: the search then reads
every page, as before. Knows nothing of the index.
"""

from __future__ import annotations

import re
from typing import Any

try:  # Python 3.11+ names it _parser; sre_parse is its old name
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_parse  # type: ignore[no-redef]

# Marks of a pattern that looks at line boundaries or around itself (anchors, inline
# groups: lookarounds, flags): such a pattern is searched line by line, and gives no words.
LINE_MARKS = ("(?", "^", "$", "\\A", "\\Z", "\\z", "\\G")
_QUANTIFIER = re.compile(r"\{[0-9,]*\}")
_WORD_CHAR = re.compile(r"[A-Za-z0-9_]")
_NONWORD_CATEGORIES = {sre_parse.CATEGORY_SPACE}
_WORD, _BOUNDARY, _UNKNOWN = "word", "boundary", "unknown"


def required_words(pattern: str) -> tuple[list[str], list[str]]:
    """(whole words, word starts), casefolded, that every match of `pattern` holds: its
    page holds each as an index word, or an index word starting with it."""
    if not _plain(pattern):
        return [], []
    try:
        parsed = sre_parse.parse(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        return [], []
    items = [_UNKNOWN, *_items(list(parsed)), _UNKNOWN]
    words: set[str] = set()
    starts: set[str] = set()
    run: list[str] = []
    before = _UNKNOWN
    for item in items:
        if len(item) == 1:  # a word character
            run.append(item)
            continue
        if run:
            text = "".join(run).casefold()
            if before == _BOUNDARY and item == _BOUNDARY:
                words.add(text)
            elif before == _BOUNDARY:
                starts.add(text)
            run = []
        before = item
    return sorted(words), sorted(starts - words)


def required_pieces(pattern: str) -> list[str]:
    """Strings of ASCII words and single spaces, casefolded, whose plain form
    (pdfindex.text.substrings) every match's page holds: `node\\s+distance` holds
    `node distance`, as whitespace runs are one space there. An engine with n-grams reads
    only the pages holding them; only pieces with a space are given (the others are
    words, required_words's). Cut at anything else, and empty where required_words is."""
    if not _plain(pattern):
        return []
    try:
        parsed = sre_parse.parse(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        return []
    pieces, run = [], ""
    for op, value in [*parsed, (None, None)]:
        if op is sre_parse.LITERAL and _WORD_CHAR.fullmatch(chr(value)):
            run += chr(value).casefold()
            continue
        if run and run[-1] != " " and _spaces(op, value):
            run += " "
            continue
        if run and run[-1] == " " and _spaces(op, value):
            continue
        pieces.append(run.strip())
        run = ""
    return [piece for piece in pieces if " " in piece]


def _spaces(op: Any, value: Any) -> bool:
    """Whether an item matches one or more whitespace characters and nothing else."""
    if op is sre_parse.LITERAL:
        return chr(value) in " \t\n"
    if op is sre_parse.IN:
        return all(
            (kind is sre_parse.CATEGORY and member in _NONWORD_CATEGORIES)
            or (kind is sre_parse.LITERAL and chr(member) in " \t\n")
            for kind, member in value
        )
    if op in (sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT) and value[0] >= 1:
        inner = list(value[2])
        return len(inner) == 1 and _spaces(*inner[0])
    return False


def looks_around(pattern: str) -> bool:
    """Whether `pattern` holds one of LINE_MARKS."""
    return any(mark in pattern for mark in LINE_MARKS)


def _plain(pattern: str) -> bool:
    """Whether Python's parser reads `pattern` as the `regex` package (VERSION1) does:
    no nested sets or set operations, no {…} but counted repeats (`{e<=1}` is fuzzy
    matching there), no inline groups or anchors (search_in_file reads those per line)."""
    if looks_around(pattern):
        return False
    if any(op in pattern for op in ("&&", "||", "~~", "--")):
        return False
    in_class = escaped = False
    for position, char in enumerate(pattern):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            if in_class:
                return False  # a nested set in VERSION1
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "{" and not _QUANTIFIER.match(pattern, position):
            return False
    return True


def _items(sequence: list[tuple[Any, Any]]) -> list[str]:
    """The pattern as a sequence of: one ASCII word character (a literal), `boundary`
    (something that matches only non-word characters, at least one), or `unknown`."""
    out: list[str] = []
    for op, value in sequence:
        if op is sre_parse.LITERAL:
            char = chr(value)
            if _WORD_CHAR.fullmatch(char):
                out.append(char)
            elif char.isascii():
                out.append(_BOUNDARY)
            else:
                out.append(_UNKNOWN)
        elif op is sre_parse.SUBPATTERN and value[1] == value[2] == 0:
            out += _items(list(value[3]))  # (…) with no flags: its items in place
        elif op is sre_parse.IN:
            out.append(_BOUNDARY if _nonword_set(value) else _UNKNOWN)
        elif op in (sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT) and value[0] >= 1:
            inner = _items(list(value[2]))
            out.append(_BOUNDARY if inner == [_BOUNDARY] else _UNKNOWN)
        else:
            out.append(_UNKNOWN)
    return out


def _nonword_set(members: list[tuple[Any, Any]]) -> bool:
    """Whether a [...] set (or \\s) matches only ASCII non-word characters or
    whitespace: never a letter, digit or underscore."""
    for op, value in members:
        if op is sre_parse.LITERAL:
            char = chr(value)
            if not char.isascii() or _WORD_CHAR.fullmatch(char):
                return False
        elif op is sre_parse.CATEGORY:
            if value not in _NONWORD_CATEGORIES:
                return False
        else:  # NEGATE, RANGE, …
            return False
    return True
