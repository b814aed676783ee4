"""What the index tokenises for a page, and the line-end hyphenation rule it shares with
exact search (pdfindex.search.textmatch): a word hyphenated at a line end
(`architec-\\nture`) is the unbroken word.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from pdfindex.text.words import word_spans

HYPHENS = "-\u00ad\u2010"
LINE_BREAK = r"[ \t]*(?:\r\n|\r|\n)\s*"
# (?<!\w): a match starts at a word's start only, so a 200,000-letter word costs one pass
JOINABLE = re.compile(rf"(?<!\w)\w+(?:[{HYPHENS}]{LINE_BREAK}\w+)+")
BREAK_IN_WORD = re.compile(rf"[{HYPHENS}]{LINE_BREAK}")
_MAX_JOIN_PARTS = 8


def joinable(text: str) -> Iterator[re.Match[str]]:
    """JOINABLE's matches in `text`, as its finditer gives them, found from the line-end
    hyphens: a search for those passes over a page in C, where JOINABLE tests every
    position (a third of a phrase snippet's time). Each match starts at the word right
    before one of them, which no match before it holds."""
    done = 0
    for hyphen in BREAK_IN_WORD.finditer(text):
        if hyphen.start() < done:  # joined already, with the word before it
            continue
        start = hyphen.start()
        while start > done and is_word_char(text[start - 1]):
            start -= 1
        if start == hyphen.start():  # no word before the hyphen
            continue
        found = JOINABLE.match(text, start)
        if found is not None:
            done = found.end()
            yield found


def is_word_char(char: str) -> bool:
    """The regex \\w of one character."""
    return char.isalnum() or char == "_"


def index_text(page_text: str) -> str:
    """What gets tokenised for a page: words split by line-end hyphens are re-joined in
    place (so phrases see `architecture`), and their parts and partial joins (runs of 2..8
    parts) are appended, so term narrowing never drops a page the text scan would match."""
    extras: list[str] = []

    def join(match: re.Match[str]) -> str:
        parts = BREAK_IN_WORD.split(match.group())
        extras.extend(parts)
        for first in range(len(parts)):
            for last in range(first + 2, min(len(parts), first + _MAX_JOIN_PARTS) + 1):
                if (first, last) != (0, len(parts)):
                    extras.append("".join(parts[first:last]))
        return "".join(parts)

    pieces, done = [], 0
    for match in joinable(page_text):
        pieces += [page_text[done : match.start()], join(match)]
        done = match.end()
    if not pieces:
        return page_text
    return "".join([*pieces, page_text[done:]]) + "\n" + " ".join(extras)


def index_word_spans(page_text: str) -> list[tuple[str, int, int]]:
    """The page's words in the order index_text gives them to phrase search, with where
    each stands in `page_text`: a word hyphenated at a line end is one word over its
    parts (`architec-\\nture` is architecture), so a snippet finds the phrases the index
    matched."""
    if not any(hyphen in page_text for hyphen in HYPHENS):  # most pages: nothing to join
        return word_spans(page_text)
    spans: list[tuple[str, int, int]] = []
    done = 0
    for match in joinable(page_text):
        spans += _shifted(page_text[done : match.start()], done)
        joined = "".join(BREAK_IN_WORD.split(match.group()))
        spans += [(w, match.start(), match.end()) for w, _, _ in word_spans(joined)]
        done = match.end()
    return spans + _shifted(page_text[done:], done)


def _shifted(part: str, offset: int) -> list[tuple[str, int, int]]:
    return [(w, offset + s, offset + e) for w, s, e in word_spans(part)]
