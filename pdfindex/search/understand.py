"""Query understanding, in one place for every ranked search (search_documents,
query_documents, search_visual_elements, `pdfindex search`).

A query with no explicit syntax (`"…"`, AND / OR / NOT, `~`, `*`, `^`, parentheses) is
natural language: a question or a list of words. Its punctuation is text (a question's
`?` is no wildcard), the function words of its language are dropped ("how do I … the"
make long, wordy pages win and cost postings), and the remaining words are ranked by
BM25, on the exact words and their English stems, with a coordination bonus: pages
holding more of the words rank higher. A query of function words only ("to be or not to
be") keeps them all. Explicit syntax keeps its meaning exactly (`pdfindex.query.parse`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from pdfindex.errors import InvalidQuery, QueryTooLarge
from pdfindex.query import And, Node, Or, Stem, Term, any_of, parse, run_nodes
from pdfindex.text.stopwords import FUNCTION_WORDS
from pdfindex.text.words import cjk_runs, is_cjk, normalize_query, query_words

# What makes a query explicit syntax rather than natural language.
_SYNTAX = re.compile(r'["()~*^]|(?<!\S)(?:AND|OR|NOT)(?!\S)')

COORD = 1.5  # what each query word a page holds adds to its BM25 score (tuned, README)
STEM_WEIGHT = 0.5  # a word's stem ranks at this weight next to the word itself (tuned)
# A query starting with one of these is a question, with or without its '?'.
QUESTION_WORDS = frozenset(
    "how what which why where when who whom whose can could should would is are does do did".split()
)
SENTENCE_FUNCTION_WORDS = 3  # function words that make a query without '?' a sentence
# False gives the ranking as it was before (every word of the query, any counting, no
# coordination): the "before" column of benchmarks/relevance.py, never set in service.
ENABLED = True


def is_natural(text: str) -> bool:
    """No explicit syntax: quotes, parentheses, ~, *, ^, or an upper-case operator."""
    return _SYNTAX.search(text) is None


def function_words(found: list[str]) -> frozenset[str]:
    """The function words of the query's language (pdfindex.text.stopwords): English,
    unless another language has more of its function words among the query's words."""
    best = FUNCTION_WORDS["en"]
    hits = sum(w in best for w in found)
    for table in FUNCTION_WORDS.values():
        count = sum(w in table for w in found)
        if count > hits:
            best, hits = table, count
    return best


def content_words(text: str) -> list[str]:
    """The query's words without its function words, each once, in order; all of them
    when it has nothing else."""
    found = list(dict.fromkeys(query_words(text)))
    stop = function_words(found)
    return [w for w in found if w not in stop] or found


def understand(text: str, coord: float = COORD, stem: float = STEM_WEIGHT) -> Node:
    """The ranked tree of a user's query: natural language as above, explicit syntax as
    `parse` reads it with any word counting. Syntax that does not parse (a question's
    lone `"` or `(`) is read as natural language: the tools answer agents' questions."""
    text = normalize_query(text)
    if ENABLED and is_natural(text):
        return _natural(text, coord, stem)
    try:
        return parse(text, any_word=True)
    except QueryTooLarge:
        raise  # a bound is refused by name, whatever the query's syntax
    except InvalidQuery:
        if not ENABLED:
            raise
        return _natural(text, coord, stem)


def _natural(text: str, coord: float, stem: float) -> Node:
    found = content_words(text)
    return natural(found, coord=coord, stem=stem if is_sentence(text, found) else 0.0)


def is_sentence(text: str, found: list[str]) -> bool:
    """A question or a sentence, not a list of keywords: it ends with '?', starts with a
    question word ("how to …"), or has SENTENCE_FUNCTION_WORDS function words. Only
    sentences rank with stems (and hybrid), which cost keyword lists first-page hits; a
    list holding a function word or two ("resize box to width") stays a list (README
    "Ranking")."""
    said = query_words(text)
    if text.rstrip().endswith("?") or (said and said[0] in QUESTION_WORDS):
        return True
    return len(set(said)) - len(found) >= SENTENCE_FUNCTION_WORDS


def word(text: str, stem: float = STEM_WEIGHT) -> Node:
    """One query word: the word itself, or (`stem` > 0) also its stem at that weight; CJK
    characters (a pair from query_words, a run from required_words) are the phrase of
    them, with no stem."""
    if is_cjk(text):
        nodes = run_nodes(list(text))
        return nodes[0] if len(nodes) == 1 else And(tuple(nodes))
    return Or((Term(text), Stem(text, stem))) if stem else Term(text)


def natural(
    found: list[str], boost: float = 1.0, coord: float = COORD, stem: float = STEM_WEIGHT
) -> Node:
    """Any of the words (and their stems), BM25 with a coordination bonus."""
    if not found:
        return any_of([])  # raises InvalidQuery: nothing to search for
    if len(found) == 1:
        only = word(found[0], stem)
        return replace(only, boost=boost) if boost != 1.0 else only
    return Or(tuple(word(w, stem) for w in found), boost=boost, coord=coord)


def required_words(text: str) -> list[str]:
    """What `all_words` requires, as a person reads it: the content words, each run of
    CJK characters whole (not its pairs)."""
    found = [w for w in content_words(text) if not is_cjk(w)]
    runs = ["".join(run) for run in cjk_runs(normalize_query(text)) if is_cjk(run[0])]
    return found + list(dict.fromkeys(runs))


def all_words(text: str) -> Node:
    """The CLI's first try: explicit syntax as `parse` reads it (juxtaposed parts all
    required); natural language as its content words, each required (itself or a word of
    its stem), and each run of CJK characters as the phrase of them."""
    text = normalize_query(text)
    if not ENABLED or not is_natural(text):
        return parse(text)
    found = required_words(text)
    if not found:
        return any_of([])  # raises InvalidQuery: nothing to search for
    stem = STEM_WEIGHT if is_sentence(text, found) else 0.0
    parts = tuple(word(w, stem) for w in found)
    return And(parts) if len(parts) > 1 else parts[0]
