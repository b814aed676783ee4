"""Character n-grams for exact search: what the index keeps of a page so that a substring
query finds its candidate pages without reading any (issue 30).

Page and query meet in one *plain form*: casefolded, each hyphen that ends a line removed
with its line break (`architec-\\nture` is `architecture`), a line break between two
Chinese or Japanese characters removed, each whitespace run one space. Exact search's
rules (pdfindex.search.textmatch) let the text differ from the query only by such breaks
inside the match and by the width of its whitespace, so a page whose text matches a query
holds each of the query's *pieces* in its plain form: the query's runs cut at hyphens and
at whitespace next to a hyphen or a CJK character (where a break may vanish or differ).
Each piece's overlapping n-grams are then index words a matching page must have: the
candidates are a superset of the matches, and a string that no page has costs a lookup.
"""

from __future__ import annotations

import re
from functools import cache

from pdfindex.text.index import HYPHENS, LINE_BREAK
from pdfindex.text.words import CJK_CLASS, normalize_query

GRAM = 3  # characters of an n-gram: 2 narrow too little, 4 triple the distinct grams
_SPACE = re.compile(r"\s+")


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The hyphen break, the CJK break, where a query is cut (hyphens, and whitespace,
    with any hyphens, next to a hyphen or CJK) and any CJK character: compiled on first
    use, as the CJK ranges cost every process that only searches ~5 ms."""
    hyphen_break = re.compile(f"[{HYPHENS}]{LINE_BREAK}")
    cjk_break = re.compile(f"(?<=[{CJK_CLASS}])[{HYPHENS}]?{LINE_BREAK}(?=[{CJK_CLASS}])")
    cut = re.compile(
        rf"[{HYPHENS}\s]*[{HYPHENS}][{HYPHENS}\s]*"
        rf"|(?<=[{CJK_CLASS}])\s+|\s+(?=[{CJK_CLASS}])"
    )
    return hyphen_break, cjk_break, cut, re.compile(f"[{CJK_CLASS}]")


def plain_form(text: str) -> str:
    """A page's text as its n-grams are taken: see the module docstring."""
    hyphen_break, cjk_break, _, any_cjk = _patterns()
    folded = text.lower() if text.isascii() else text.casefold()
    joined = hyphen_break.sub("", folded)
    if not joined.isascii() and any_cjk.search(joined):  # a lookbehind tried everywhere
        joined = cjk_break.sub("", joined)
    return _one_space(joined)


def _one_space(text: str) -> str:
    r"""`_SPACE.sub(" ", text)`, at less than half its cost (1.8 -> 0.7 s at 48k pages):
    str.split's whitespace is `\s` (the same on every code point), the ends put back."""
    spaced = " ".join(text.split())
    if text[:1].isspace():
        spaced = " " + spaced
    if text[-1:].isspace() and spaced != " ":
        spaced += " "
    return spaced


def query_pieces(query: str) -> list[str]:
    """The pieces of an exact query that every matching page's plain form contains,
    longest first; those shorter than a gram narrow nothing and are left out."""
    folded = normalize_query(query).casefold()
    pieces = {_SPACE.sub(" ", p).strip() for p in _patterns()[2].split(folded)}
    return sorted((p for p in pieces if len(p) >= GRAM), key=lambda p: (-len(p), p))


def grams(piece: str) -> list[str]:
    """A piece's distinct n-grams, as the index's n-gram tokenizer cuts them."""
    return sorted({piece[i : i + GRAM] for i in range(len(piece) - GRAM + 1)})
