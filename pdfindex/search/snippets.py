"""Snippets: the part of a page a hit shows, with the words the query matched marked
**like this**. One rule for every front (the CLI, search_documents, hybrid ranking):

- a phrase query's snippet is cut around an occurrence of the phrase, found with the
  words of `pdfindex.text.words` as phrase search finds it, and marks it whole;
- otherwise the snippet is the window holding the most distinct query words, then the
  most occurrences of them, the first such window on the page.

Both are one sweep over the page's matches (sorted by start, then by end), so a word
found 40,000 times on a page costs 40,000 steps, not 40,000².
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from functools import lru_cache
from typing import NamedTuple

from pdfindex.query import Node, Phrase, leaves
from pdfindex.text.index import BREAK_IN_WORD, index_word_spans, is_word_char, joinable
from pdfindex.text.words import CJK_CLASS, is_cjk, words_regex

WIDTH = 240  # characters a snippet shows
LEAD = 40  # of which before the first match of the window, for context
EDGE = 15  # characters a snippet may lose at either end to be cut between words


class Unit(NamedTuple):
    """One match on the page: where it stands in the flattened text, and what it counts
    as (a term's casefolded word, or a phrase's words as a tuple)."""

    start: int
    end: int
    key: Hashable


# A Unit made without its generated __new__ (a Python call: 0.51 µs, this 0.23): a page
# of `the` makes 70.
_unit = tuple.__new__


def phrases_of(tree: Node) -> list[Phrase]:
    """The phrases a snippet should show whole: the positive ones of two words or more."""
    return [leaf for leaf in leaves(tree) if isinstance(leaf, Phrase) and len(leaf.words) > 1]


def marked_terms(tree: Node, terms: set[str]) -> set[str]:
    """The terms a snippet marks: for a query of phrases only, none of their words where
    one stands alone (`"of the"` marked every "of" and "the" in view, and finding them
    cost half its snippets); the phrases are marked where they stand."""
    phrases = phrases_of(tree)
    if not phrases or len(phrases) != len(leaves(tree)):
        return terms
    return terms - {word for phrase in phrases for word in phrase.words}


def snippet(
    text: str,
    terms: set[str],
    phrases: Sequence[Phrase] = (),
    width: int = WIDTH,
    max_terms: int = 200,
) -> str:
    """About `width` characters of the page (whitespace runs as one space) around the
    best window of matches (module docstring), each term and phrase occurrence in it
    marked **like this**; `…` says the page goes on."""
    flat = flattened(text)
    cased = _casefolded(flat)
    placed = phrase_units(text, phrases, cased)
    folded = flat.lower() if cased is None else cased
    units = term_units(flat, terms, max_terms, folded) + placed  # the terms' in order
    if not units:
        return flat[:width] + ("…" if len(flat) > width else "")
    if placed:
        units.sort(key=lambda u: (u.start, u.end))
    reach = max(width - LEAD, *(u.end - u.start for u in units))
    anchor = units[best_window(units, reach)].start
    start = max(0, min(anchor - LEAD, len(flat) - width))
    end = min(len(flat), max(start + width, anchor + reach))
    if start:  # cut between words where one ends near the edge
        space = flat.find(" ", start, min(anchor, start + EDGE))
        start = space + 1 if space >= 0 else start
    shown = [(u.start, u.end) for u in units if u.start >= start and u.end <= end]
    if end < len(flat):
        space = flat.rfind(" ", max([end - EDGE] + [e for _, e in shown]), end)
        end = space if space >= 0 else end
    out, cursor = [], start
    for s, e in merged(shown):
        out += [flat[cursor:s], "**", flat[s:e], "**"]
        cursor = e
    out.append(flat[cursor:end])
    return ("…" if start else "") + "".join(out) + ("…" if end < len(flat) else "")


def flattened(text: str) -> str:
    """The page with its whitespace runs as one space and its ends trimmed, as
    `" ".join(text.split())` gives it (34 µs a page of 2,500 characters): most pages
    hold no whitespace but single spaces and newlines, so their newlines are replaced
    (15 µs with the check)."""
    if _single_spaced(text):
        return text.replace("\n", " ").strip(" ")
    return " ".join(text.split())


def _single_spaced(text: str) -> bool:
    """Whether every whitespace of `text` is a lone space or newline: then flattening it
    moves nothing but its start. Any other whitespace is not printable."""
    spaced = text.replace("\n", " ")
    return "  " not in spaced and spaced.isprintable()


def term_units(
    flat: str, terms: set[str], max_terms: int = 200, folded: str | None = None
) -> list[Unit]:
    """Every whole-word occurrence of the terms (casefolded as the index sees them; a CJK
    term anywhere), in order; the `max_terms` longest terms only (a prefix's expansions).
    `folded`: the text casefolded, or lowered where that changes its length (rare: ß), so
    that places in it are places in `flat`."""
    wanted = tuple(sorted(terms, key=len, reverse=True)[:max_terms])
    if not wanted:
        return []
    if folded is None:
        cased = _casefolded(flat)
        folded = flat.lower() if cased is None else cased
    lead = _shared_lead(wanted)
    if lead is not None:  # a prefix's words: the page's words that start as they do
        members = set(wanted)
        return [
            _unit(Unit, (start, m.end(), word))
            for m in lead.finditer(folded)
            if (word := m.group()) in members
            and ((start := m.start()) == 0 or not is_word_char(folded[start - 1]))
        ]
    pattern, ended, whole = _terms_pattern(wanted)
    if ended is None or whole:
        found = (ended or pattern).finditer(folded)
        return [_unit(Unit, (m.start(), m.end(), m.group())) for m in found]
    # Terms of word characters only: found without the test before them (which made the
    # search of a page 10 times slower), an occurrence that ends a longer word then left
    # out; no other term can start inside it, as one of its letters precedes.
    return [
        _unit(Unit, (start, m.end(), m.group()))
        for m in ended.finditer(folded)
        if (start := m.start()) == 0 or not is_word_char(folded[start - 1])
    ]


def _casefolded(flat: str) -> str | None:
    """The text casefolded as the index folds words; None where that changes its length
    (rare: ß). An ASCII page is lowered: the same, in a quarter less time."""
    if flat.isascii():
        return flat.lower()
    folded = flat.casefold()
    return folded if len(folded) == len(flat) else None


@lru_cache(maxsize=64)
def _terms_pattern(
    wanted: tuple[str, ...],
) -> tuple[re.Pattern[str], re.Pattern[str] | None, bool]:
    """The regex of term_units, built once for the hits of one query (200 prefix words
    escaped and classed cost each hit ~1 ms); and, when every term is a run of word
    characters and none is CJK, the same without the test before them. When they are
    also of one length, that test comes after them instead, a lookbehind of fixed width
    (a regex starting with letters skips through a page in C), and the third value says
    the second regex finds whole words only."""
    plain = [re.escape(w) for w in wanted if not is_cjk(w)]
    pattern = re.compile(words_regex(plain, [re.escape(w) for w in wanted if is_cjk(w)]))
    if len(plain) < len(wanted) or not all(_ONLY_WORD.fullmatch(w) for w in wanted):
        return pattern, None, False
    alternatives = "|".join(plain)
    if len({len(w) for w in wanted}) == 1:
        width = len(wanted[0])
        return pattern, re.compile(rf"(?:{alternatives})(?!\w)(?<!\w.{{{width}}})", re.S), True
    if any(len(w) <= SHORT_TERM for w in wanted):  # `in`, `i`: the ends of many words
        return pattern, None, False
    return pattern, re.compile(r"(?:" + alternatives + r")(?!\w)"), False


@lru_cache(maxsize=64)
def _shared_lead(wanted: tuple[str, ...]) -> re.Pattern[str] | None:
    """For many terms of word characters that start alike (a prefix's 200 words), the
    regex of a word starting so: each match that is one of the terms is where the
    alternation of them all would have matched (the whole \\w run from there), and the
    one regex skips through a page in C (`th*`'s ten snippets at 48,000 pages: 1.55 ->
    1.04 ms). None otherwise."""
    if len(wanted) < SHARED_LEAD_TERMS or not all(_ONLY_WORD.fullmatch(w) for w in wanted):
        return None
    if any(is_cjk(w) for w in wanted):
        return None
    lead = os.path.commonprefix(wanted)
    return re.compile(re.escape(lead) + r"\w*") if len(lead) >= SHARED_LEAD else None


_ONLY_WORD = re.compile(r"\w+")
SHARED_LEAD_TERMS = 8  # fewer terms are as fast as an alternation
SHARED_LEAD = 2  # characters the terms share at least
SHORT_TERM = 2  # terms this short end so many longer words that the test before is cheaper


def phrase_units(text: str, phrases: Sequence[Phrase], cased_flat: str | None = None) -> list[Unit]:
    """Every occurrence of each phrase in the page's words as phrase search sees them
    (a word hyphenated at a line end whole), placed in the text with its whitespace runs
    flattened: its words side by side (slop 1), or in order with at most `slop - 1`
    other words between them, the shortest from each first word. `cased_flat`: that
    flattened text casefolded (_casefolded), where side-by-side words are looked for
    directly when no word is hyphenated at a line end (most pages), a third of the time
    of placing what is found in the page."""
    adjacent = [phrase for phrase in phrases if phrase.slop <= 1]
    if not adjacent:
        return _scanned(text, phrases)
    sloppy = _scanned(text, [phrase for phrase in phrases if phrase.slop > 1])
    if cased_flat is not None and next(joinable(text), None) is None:
        return [
            _unit(Unit, (start, end, phrase.words))
            for phrase in adjacent
            for start, end in _occurrences(phrase.words, cased_flat)
        ] + sloppy
    located = _joined(text)
    if located is None:
        return _scanned(text, phrases)
    folded, place = located
    found = [
        _unit(Unit, (place(start), place(end - 1) + 1, phrase.words))
        for phrase in adjacent
        for start, end in _occurrences(phrase.words, folded)
    ]
    return found + sloppy


def _occurrences(words: tuple[str, ...], folded: str) -> Iterator[tuple[int, int]]:
    """Where the phrase's words stand side by side in casefolded text, as words
    (pdfindex.text.words: a CJK character is a word wherever it stands), every
    occurrence, overlapping ones too. The words with any non-word characters between
    them are looked for first (a regex starting with a word's letters skips most of a
    page in C; the whole one tests every position), then each place is checked whole."""
    whole, bare = _phrase_pattern(words)
    found = bare.search(folded)
    while found is not None:
        at = found.start()
        match = whole.match(folded, at)
        if match is not None:
            yield at, match.end()
        found = bare.search(folded, at + 1)


@lru_cache(maxsize=64)
def _phrase_pattern(words: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The regex of a phrase's occurrence at a place (its words as words), and the same
    without the word boundaries."""
    tokens = [
        re.escape(word) if is_cjk(word) else rf"{_NOT_AFTER}{re.escape(word)}{_NOT_BEFORE}"
        for word in words
    ]
    bare = r"\W*".join(re.escape(word) for word in words)
    return re.compile(r"\W*".join(tokens)), re.compile(bare)


_WORD_BUT_CJK = rf"[^\W{CJK_CLASS}]"
_NOT_AFTER = rf"(?<!{_WORD_BUT_CJK})"
_NOT_BEFORE = rf"(?!{_WORD_BUT_CJK})"
_LONG_SPACE = re.compile(r"\s{2,}")


def _joined(text: str) -> tuple[str, Callable[[int], int]] | None:
    """The page with its line-end hyphenated words joined as the index joins them,
    casefolded, and where a character of it stands in the flattened page; None when
    casefolding changes its length (ß): then the words are scanned one by one."""
    pieces, removed, cuts, done = [], [0], [0], 0
    for match in joinable(text):
        parts = BREAK_IN_WORD.split(match.group())
        pieces += [text[done : match.start()], *parts]
        at = match.start() - removed[-1]
        for part, gap in zip(parts, BREAK_IN_WORD.findall(match.group()), strict=False):
            at += len(part)
            cuts.append(at)
            removed.append(removed[-1] + len(gap))
        done = match.end()
    joined = "".join([*pieces, text[done:]]) if pieces else text
    folded = joined.casefold()
    if len(folded) != len(joined):
        return None
    flat = _flattened(text)

    def place(index: int) -> int:
        return flat(index + removed[bisect_right(cuts, index) - 1])

    return folded, place


def _scanned(text: str, phrases: Sequence[Phrase]) -> list[Unit]:
    """phrase_units by the page's word list: phrases with words between, and pages whose
    casefolding changes their length."""
    if not phrases:
        return []
    spans = index_word_spans(text)
    flat = _flattened(text)
    found: list[Unit] = []
    for phrase in phrases:
        first, rest = phrase.words[0], phrase.words[1:]
        for i, (word, start, _) in enumerate(spans):
            if word == first:
                end = _phrase_end(spans, i, rest, phrase.slop - 1)
                if end is not None:
                    found.append(Unit(flat(start), flat(end - 1) + 1, phrase.words))
    return found


def _flattened(text: str) -> Callable[[int], int]:
    """Where a non-space character of `text` stands once its whitespace runs are one
    space and its ends trimmed (" ".join(text.split())): only runs of two or more move
    what follows them."""
    lead = len(text) - len(text.lstrip())
    if _single_spaced(text):  # the regex tried every place of the page (~75 µs)
        return lambda index: index - lead
    ends, shifts = [lead], [lead]
    for run in _LONG_SPACE.finditer(text, lead):
        ends.append(run.end())
        shifts.append(shifts[-1] + run.end() - run.start() - 1)

    def position(index: int) -> int:
        return index - shifts[bisect_right(ends, index) - 1]

    return position


def _phrase_end(
    spans: list[tuple[str, int, int]], at: int, rest: tuple[str, ...], spare: int
) -> int | None:
    """Where the phrase starting at word `at` ends, taking each next word as early as it
    comes with at most `spare` words skipped in all; None when it does not go on."""
    for want in rest:
        step = 1
        while at + step < len(spans) and spans[at + step][0] != want and step <= spare:
            step += 1
        if at + step >= len(spans) or spans[at + step][0] != want:
            return None
        spare -= step - 1
        at += step
    return spans[at][2]


def best_window(units: Sequence[Unit], reach: int) -> int:
    """The index of the unit starting the best window [its start, start + reach): a
    window holds the units wholly inside it; when there are phrase occurrences, only a
    window starting at one counts (the snippet is cut around the phrase); the best holds
    the most distinct keys, then the most units; the first such. Units are sorted by
    start, none longer than `reach`. One sweep: each unit enters the window once (by its
    end) and leaves once (by its start)."""
    if not units:
        return 0
    starts, ends, names = (list(column) for column in zip(*units, strict=True))
    ordered = ends == sorted(ends)  # no phrase spans
    if ordered and len(set(names)) == 1:  # one key: the first window of the most units
        held_at = [bisect_right(ends, start + reach) - i for i, start in enumerate(starts)]
        return held_at.index(max(held_at))
    anchors = [isinstance(key, tuple) for key in names]  # phrase occurrences
    if not any(anchors):
        anchors = [True] * len(units)
    by_end = range(len(units)) if ordered else sorted(range(len(units)), key=ends.__getitem__)
    inside = [False] * len(units)
    counts: dict[Hashable, int] = {}
    held = entered = 0
    best, most, most_held = 0, -1, -1
    for i, start in enumerate(starts):
        if i and inside[i - 1]:  # the unit before this one starts before the window
            inside[i - 1] = False
            gone = names[i - 1]
            counts[gone] -= 1
            if not counts[gone]:
                del counts[gone]
            held -= 1
        while entered < len(units) and ends[by_end[entered]] <= start + reach:
            j = by_end[entered]
            entered += 1
            if j >= i:  # a unit before the window never comes back
                inside[j] = True
                counts[names[j]] = counts.get(names[j], 0) + 1
                held += 1
        distinct = len(counts)
        if anchors[i] and (distinct > most or (distinct == most and held > most_held)):
            best, most, most_held = i, distinct, held
    return best


def merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans that overlap or touch as one mark: a phrase and its words, CJK pairs
    (安定|定版)."""
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out
