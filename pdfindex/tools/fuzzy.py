"""Seed 001's fuzzy_search, from the index, line by line, in three ways of matching.

- `fzf` (the default, and what the seed does when interactive: rga's lines piped into
  fzf): the query is fzf's extended search, lines ranked by fzf's score (`fzf.py`,
  `linesearch.py`).
- `regex` (what the seed does in batch mode, `interactive: false`: rga with the query as
  its pattern): lines matching a regular expression, smart case, in library order. With
  `match: "auto"` a query written as a regex (`hyphen.*pattern`: `.*`, `\\`, brackets,
  `+`, `?`, or `a|b` inside a word) runs as one too, since fzf would look for its
  punctuation literally.
- `words` (typo-tolerant words, pdfindex's earlier rule): each query word matches index
  terms within a few edits (by word length); pages must hold every word (in some
  spelling); each line holding any of them is a match, ranked by how many query words it
  holds and how many exactly.

Over stdio there is no terminal for fzf, so the answer is always a batch (`mode`) and
names the matching that ran (`matching`).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from rapidfuzz.distance import OSA

from pdfindex.api import PdfIndex
from pdfindex.engine import PageCandidates
from pdfindex.errors import InvalidQuery, PdfIndexError, SourceUnreachable
from pdfindex.extract.adapters import adapter_name_for
from pdfindex.names import lookup
from pdfindex.text.words import is_cjk, max_edits, normalize_query, words, words_regex
from pdfindex.tools import linesearch
from pdfindex.tools.budget import fit, items_budget
from pdfindex.tools.files import normalize_types
from pdfindex.tools.names import resolve_scope
from pdfindex.tools.results import FuzzySearchResult

BATCH_NOTE = (
    "interactive fuzzy finding needs a terminal, which an MCP stdio session does not have: "
    "results are returned in batch mode"
)
OVERVIEW_LINES = 3
MAX_SPELLINGS = 64  # spellings searched per query word (a long word may have hundreds)
SHOWN_WORDS = 20  # query words whose spellings the answer lists
_NEWLINE = re.compile("\n")


MATCHINGS = ("auto", "fzf", "regex", "words")
_REGEX_SYNTAX = re.compile(r"\.[*+?]|\\|[\[\](){}+?*]|[^\s|]\|[^\s|]")


def matching_for(match: str, query: str | None, interactive: bool) -> str:
    """The matching that runs: `match` when given; under "auto", the seed's: regex in
    batch mode (interactive false), else fzf, unless the query is written as a regex."""
    if match not in MATCHINGS:
        raise InvalidQuery(f"match must be one of {', '.join(MATCHINGS)}, got {match!r}")
    if match != "auto":
        return match
    if not interactive or (query and _REGEX_SYNTAX.search(query)):
        return "regex"
    return "fzf"


@dataclass
class _Match:
    words_found: int
    exact_words: int
    file: str
    page: int
    line_number: int
    content: str
    line_in_page: int = 0
    score: int | None = None


def _line_match(line: linesearch.Line, preview: bool, score: int | None = None) -> _Match:
    number = line.line_in_page - 1
    content = "\n".join(line.lines[max(0, number - 1) : number + 2]) if preview else line.content
    return _Match(0, 0, line.file, line.page, line.line_number, content, line.line_in_page, score)


def fuzzy_search(
    index: PdfIndex,
    query: str | None = None,
    path: str = ".",
    file_types: list[str] | None = None,
    interactive: bool = True,
    preview: bool = True,
    max_results: int = 50,
    offset: int = 0,
    match: str = "auto",
) -> FuzzySearchResult:
    scope = _scope(index, path)
    types = normalize_types(file_types)
    matching = matching_for(match, query, interactive)
    result: dict[str, Any] = {"mode": "batch", "matching": matching}
    notes = [BATCH_NOTE] if interactive else []
    unread = sorted(t for t in types or () if t not in index.reads())
    if unread:  # the other types are still searched
        notes.append(
            f"file_types {', '.join(unread)}: pdfindex reads no such files "
            f"(it reads: {', '.join(index.reads())})"
        )
    keep = offset + max_results  # the lines kept of all that match, best first
    scan: linesearch.Scan | None = None
    if query is None or not query.strip():
        matches = _overview(index, scope, types)
        total = len(matches)
    elif matching == "fzf":
        found, total, scan = linesearch.fzf_lines(
            index, query, scope, lambda p: _wanted(p, types), keep
        )
        matches = [_line_match(line, preview, score) for score, line in found]
    elif matching == "regex":
        found_lines, total, scan = linesearch.regex_lines(
            index, query, scope, lambda p: _wanted(p, types), keep
        )
        matches = [_line_match(line, preview) for line in found_lines]
    else:
        searched: dict[str, list[str]] = {}
        matches, total, scan = _search(
            index, normalize_query(query), scope, types, preview, searched, keep
        )
        result["spellings"] = dict(list(searched.items())[:SHOWN_WORDS])
        cut = [w for w, found in searched.items() if len(found) == MAX_SPELLINGS]
        if cut:
            notes.append(
                f"{', '.join(cut)}: only the {MAX_SPELLINGS} closest spellings were searched"
            )
    if scan is not None and scan.stopped:
        result["partial"] = True
        notes.append(
            f"the time limit ran short: only the first {scan.pages:,} pages (in path order) "
            "were searched, and total_matches counts their lines; narrow the search (a "
            "path, file_types) or raise request_timeout to search them all"
        )
    if notes:
        result["note"] = "; ".join(notes)
    engine, custom = index.settings.extractor, index.settings.custom_adapters
    rows = [
        {
            "file": m.file,
            "page": m.page,
            "line_number": m.line_number,
            "content": m.content,
            "adapter": adapter_name_for(m.file, engine, custom),
            **({"line_in_page": m.line_in_page} if m.line_in_page else {}),
            **({"score": m.score} if m.score is not None else {}),
        }
        for m in matches[offset : offset + max_results]
    ]
    kept, truncated = fit(rows, items_budget(index.settings.max_response_chars))
    result.update(matches=kept, total_matches=total)
    if truncated or offset + len(kept) < total:
        result["next_offset"] = offset + len(kept)
    if truncated:
        result["truncated"] = True
    return result


def _scope(index: PdfIndex, path: str) -> str | None:
    """None for the whole folder, 'a/b.pdf' for a file (by any of its names), 'a/' for
    a sub-folder. Another source's file or folder is taken from the index, so its text
    is searched even where its folder is not reachable."""
    if path.strip("/") in index.scope().others:  # another source, as a whole
        return path.strip("/") + "/"
    try:
        real, rel = resolve_scope(index, path)
    except SourceUnreachable:
        record = lookup(index, path)
        return record.path if record else index.library_path(path).rstrip("/") + "/"
    if rel == ".":
        return None
    if real.is_file():
        why = index.not_read(rel)
        if why is not None:  # nothing of it is indexed, ever: say why, not "no match"
            raise PdfIndexError(why)
        return rel
    return rel.rstrip("/") + "/"


def _wanted(path: str, types: set[str] | None) -> bool:
    return types is None or PurePosixPath(path).suffix.lower() in types


def closest(word: str, spellings: list[str]) -> list[str]:
    """At most MAX_SPELLINGS of the spellings, the fewest edits from `word` first."""
    if len(spellings) <= MAX_SPELLINGS:
        return spellings
    ranked = sorted(spellings, key=lambda s: (OSA.distance(word, s), s))
    return sorted(ranked[:MAX_SPELLINGS])


def _search(
    index: PdfIndex,
    query: str,
    scope: str | None,
    types: set[str] | None,
    preview: bool,
    searched: dict[str, list[str]],
    keep: int,
) -> tuple[list[_Match], int, linesearch.Scan]:
    """The `keep` best lines holding the query's words in any spelling within their typo
    allowance, how many lines hold them, and how far the scan got; `searched` receives
    the spellings looked for, per query word."""
    query_words = list(dict.fromkeys(words(query)))
    if not query_words:
        raise InvalidQuery("query has no letters or digits to match")
    spellings = [closest(w, index.engine.similar_terms(w, max_edits(w))) for w in query_words]
    searched.update(zip(query_words, spellings, strict=True))
    if not all(spellings):
        return [], 0, linesearch.Scan()  # some word occurs nowhere, in any spelling
    found = index.engine.candidates(any_of=spellings, path=scope)
    # One pass of one regex over each casefolded page finds every spelling of every word;
    # casefolding never adds or removes a line break, so line numbers carry over.
    alternatives = [
        f"(?P<w{n}>{'|'.join(re.escape(w) for w in sorted(group, key=len, reverse=True))})"
        for n, group in enumerate(spellings)
    ]
    cjk = [is_cjk(w) for w in query_words]
    pattern = re.compile(
        words_regex(
            [a for a, c in zip(alternatives, cjk, strict=True) if not c],
            [a for a, c in zip(alternatives, cjk, strict=True) if c],
        )
    )
    best: linesearch.Best[_Match] = linesearch.Best(keep)
    numbering = linesearch.Numbering(index)
    scan = linesearch.Scan()
    for ref, text in linesearch.pages(found, lambda path: _wanted(path, types), scan):
        folded = text.casefold()
        breaks = [m.start() for m in _NEWLINE.finditer(folded)]
        per_line: dict[int, tuple[set[int], set[int]]] = {}
        for hit in pattern.finditer(folded):
            word = int(hit.lastgroup[1:])  # type: ignore[index]
            found_words, exact_words = per_line.setdefault(
                bisect.bisect_right(breaks, hit.start()), (set(), set())
            )
            found_words.add(word)
            if hit.group() == query_words[word]:
                exact_words.add(word)
        if not per_line:
            continue
        lines = [line.rstrip("\r") for line in text.split("\n")]
        first = numbering.first_line(ref.path, ref.page)
        for index_, (found_words, exact_words) in per_line.items():
            line_number = first + index_ + 1  # through the whole file, as rga counts
            key = (-len(found_words), -len(exact_words), ref.path, ref.page, line_number)
            if not best.admits(key):
                continue
            content = (
                "\n".join(lines[max(0, index_ - 1) : index_ + 2]) if preview else lines[index_]
            )
            found_line = _Match(
                len(found_words),
                len(exact_words),
                ref.path,
                ref.page,
                line_number,
                content,
                index_ + 1,
            )
            best.add(key, found_line)
    return best.ranked(), best.total, scan


def _overview(index: PdfIndex, scope: str | None, types: set[str] | None) -> list[_Match]:
    """Without a query: the first lines of each document, as fzf shows before typing."""
    found: PageCandidates = index.engine.candidates(path=scope)
    matches = []
    for ref in found.refs:
        if ref.page != 1 or not _wanted(ref.path, types):
            continue
        lines = [
            (n, line) for n, line in enumerate(found.text(ref).splitlines(), 1) if line.strip()
        ]
        for number, line in lines[:OVERVIEW_LINES]:
            matches.append(_Match(0, 0, ref.path, 1, number, line))
    found.finished()
    return matches
