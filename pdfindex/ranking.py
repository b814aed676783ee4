"""One ranking for every front: `pdfindex search`, search_documents, query_documents
(and the web page) rank a query here, so the same question finds the same pages.

- The query is understood once (`pdfindex.search.understand`): a question or a list of
  words ranks as natural language (BM25 over its content words and their stems, pages
  holding more of them first; hybrid when the semantic extra is on); explicit syntax
  ("phrases", AND / OR / NOT, word~2, prefix*) keeps its meaning.
- Did you mean: every word of a natural-language query that no page holds gets the
  index's nearest words (fewest edits, then most pages); one of 5 letters or more is
  replaced by the nearest that looks like its typo (a letter left out, added or swapped with its
  neighbour, not changed in place: "baking" is no typo of "making") and is on at least
  0.1% of the pages, and the corrected query is ranked instead, saying so. Explicit
  syntax is neither weighed nor rewritten.
- Confidence: how much of the query the first page holds, each word weighted by its
  rarity (IDF), from 0 to 1, halved when a word of the query is on no page at all: a
  question about something the library lacks scores low whatever BM25 says of its
  common words. Below CLEAR_ANSWER (chosen on the labelled questions:
  `benchmarks/honesty.py`, README "Honest answers"), no page clearly answers it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pdfindex.models import PageHit
from pdfindex.query import Or, Stem, Term
from pdfindex.search.ranked import ranked_pages
from pdfindex.search.understand import content_words, is_natural, understand
from pdfindex.text.words import is_cjk, max_edits, normalize_query, words

if TYPE_CHECKING:
    from pdfindex.api import PdfIndex

CLEAR_ANSWER = 0.4  # confidence at or above which the first page answers (README)
ABSENT_FACTOR = 0.5  # confidence kept when a word of the query is on no page at all
SUGGESTIONS = 3  # nearest index words offered for a word no page holds
CORRECTED_LENGTH = 5  # a word no page holds is replaced only from this many letters on
CORRECTION_SHARE = 0.001  # ... by a word on at least this share of the pages (or 1)


@dataclass
class Ranking:
    """Ranked pages and what the ranking did to get them."""

    total: int
    hits: list[PageHit]
    terms: set[str]  # the index words the query stood for (for marking passages)
    method: str  # "bm25", or the hybrid's label
    query: str  # what was ranked: the query, or its correction
    corrected: dict[str, str] = field(default_factory=dict)  # word -> the word ranked instead
    suggestions: dict[str, list[str]] = field(default_factory=dict)  # words no page holds
    absent: list[str] = field(default_factory=list)  # the query's words no page holds
    confidence: float = 0.0  # the first page's share of the query's weight (0-1)
    weights: dict[str, tuple[int, float]] = field(default_factory=dict)  # word -> pages, IDF

    @property
    def clear(self) -> bool:
        """Whether the first page clearly answers the query. A page the hybrid found by
        meaning may share no word with it, and explicit syntax has no words to weigh: the
        word share says nothing of those."""
        if by_meaning(self.method) or not self.weights:  # by meaning, or nothing to weigh
            return bool(self.hits)
        return bool(self.hits) and self.confidence >= CLEAR_ANSWER


def by_meaning(method: str) -> bool:
    """Whether a ranking (its label) let the hybrid find pages by meaning; BM25 re-ranked
    by a cross-encoder still found them by their words."""
    return method.startswith("hybrid")


def rank(
    index: PdfIndex,
    query: str,
    limit: int,
    slug: str | None = None,
    pages: tuple[int, int] | None = None,
    snippets: bool = True,
) -> Ranking:
    """The best `limit` pages for `query` (in one document, within a page range), the
    query corrected when a word of it is in no page, and the first page's confidence."""
    text = normalize_query(query)
    if not library_pages(index):  # nothing indexed: nothing to count or correct
        (total, hits, terms), method = _ranked(index, text, limit, slug, pages, snippets)
        return Ranking(total, hits, terms, method, text)
    weights = word_weights(index, text)
    unknown = [w for w, (pages_holding, _) in weights.items() if pages_holding == 0]
    suggestions = {w: nearest(index, w) for w in unknown}
    suggestions = {w: found for w, found in suggestions.items() if found}
    corrected: dict[str, str] = {}
    if is_natural(text):
        floor = max(1, int(CORRECTION_SHARE * library_pages(index)))
        for word, found in suggestions.items():
            likely = [(w, n) for w, n in found if _typo_of(word, w) and n >= floor]
            if likely and len(word) >= CORRECTED_LENGTH:
                corrected[word] = likely[0][0]
    suggestions = {w: [s for s, _ in found] for w, found in suggestions.items()}
    if corrected:
        text = _replace_words(normalize_query(query), corrected)
        weights = word_weights(index, text)
    ranked = _ranked(index, text, limit, slug, pages, snippets)
    (total, hits, terms), method = ranked
    first = hits[0].text if hits else ""
    confidence = coverage(weights, first)
    return Ranking(
        total, hits, terms, method, text, corrected, suggestions, unknown, confidence, weights
    )


def _ranked(
    index: PdfIndex,
    text: str,
    limit: int,
    slug: str | None,
    pages: tuple[int, int] | None,
    snippets: bool,
) -> tuple[tuple[int, list[PageHit], set[str]], str]:
    tree = understand(text)
    if pages is not None:  # a page range: BM25 (similarity is not kept per range)
        return ranked_pages(index.engine, tree, limit, slug, pages, snippets), "bm25"
    return index.ranked(text, tree, limit, slug=slug, snippets=snippets)


def word_weights(index: PdfIndex, text: str) -> dict[str, tuple[int, float]]:
    """Each content word of a natural-language query -> (pages holding it or a word of
    its stem, its IDF); none for explicit syntax, whose words are not all wanted."""
    if not is_natural(text):
        return {}
    pages = max(1, library_pages(index))
    weights = {}
    for word in content_words(text):
        if is_cjk(word):
            continue
        holding = pages_holding(index, word)
        weights[word] = (holding, math.log(1 + pages / (1 + holding)))
    return weights


def library_pages(index: PdfIndex) -> int:
    """The pages of the library (as `stats` counts them), once per index generation,
    without reading the catalog: `PdfIndex.pages`."""
    return index.pages()


def pages_holding(index: PdfIndex, word: str) -> int:
    """Pages holding `word` or a word of its stem (keep: keeping)."""
    tree = Or((Term(word), Stem(word)))
    return ranked_pages(index.engine, tree, 1, snippets=False).total


def coverage(weights: dict[str, tuple[int, float]], text: str) -> float:
    """The share of the query's weight that `text` holds (a word counts when the text
    holds it or a word starting as it does but for its last two letters: margins,
    margin), halved when a word of the query is on no page of the library."""
    total = sum(idf for _, idf in weights.values())
    if not total or not text:
        return 0.0
    held = set(words(text))
    found = sum(idf for w, (_, idf) in weights.items() if w in held or _stem_held(w, held))
    absent = any(pages == 0 for pages, _ in weights.values())
    return round(found / total * (ABSENT_FACTOR if absent else 1.0), 3)


def _stem_held(word: str, held: set[str]) -> bool:
    """Whether a word of `held` starts as `word` does but for its last two letters (at
    least four kept): margins, margin; change, changed."""
    start = word[: max(4, len(word) - 2)]
    return any(w.startswith(start) for w in held)


def nearest(index: PdfIndex, word: str) -> list[tuple[str, int]]:
    """The index words closest to `word`, with the pages holding each: fewest edits
    first, then those on most pages."""
    from rapidfuzz.distance import OSA  # only for a word no page holds: not at start

    allowed = max_edits(word)
    if not allowed:
        return []
    found = index.engine.similar_terms(word, allowed)
    counted = [(w, ranked_pages(index.engine, Term(w), 1, snippets=False).total) for w in found]
    counted.sort(key=lambda wc: (OSA.distance(word, wc[0]), -wc[1], wc[0]))
    return [(w, n) for w, n in counted if n][:SUGGESTIONS]


def _typo_of(typed: str, word: str) -> bool:
    """Whether `typed` looks like a typo of `word` rather than another word: a letter
    left out, added or swapped with its neighbour. Letters changed in place, with the
    length kept, turn one word into another too often (baking, making; docker, dicker)."""
    from rapidfuzz.distance import OSA, Levenshtein

    if len(typed) != len(word):
        return True
    return OSA.distance(typed, word) < Levenshtein.distance(typed, word)  # a transposition


def _replace_words(text: str, corrected: dict[str, str]) -> str:
    """`text` with each corrected word replaced wherever it stands as a whole word, in
    any case."""
    for wrong, right in corrected.items():
        pattern = re.compile(rf"(?<!\w){re.escape(wrong)}(?!\w)", re.IGNORECASE)
        text = pattern.sub(right.replace("\\", "\\\\"), text)
    return text


def notes(found: Ranking) -> list[str]:
    """What a reader should know before the pages, in every front's words: the
    correction searched, the words no page holds, and that no page clearly answers."""
    said = []
    if found.corrected:
        typed = ", ".join(found.corrected)
        said.append(f"No page holds {typed}: showing results for {found.query!r}.")
    for word in (w for w in found.absent if w not in found.corrected):
        near = found.suggestions.get(word)
        hint = f"; did you mean {' or '.join(near)}?" if near else "."
        said.append(f"No page holds {word!r}{hint}")
    if found.hits and not found.clear:
        said.append(
            f"No page clearly answers this (confidence {found.confidence:.2f}, clear from "
            f"{CLEAR_ANSWER}); the closest pages:"
        )
    return said
