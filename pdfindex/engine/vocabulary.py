"""What engines share: a per-generation cache (a vocabulary, a mask, a file map, the
catalog is read once per commit) and typo expansion over a vocabulary with rapidfuzz."""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from pdfindex.memory import release_freed_memory
from pdfindex.models import FileRecord


class GenerationCache:
    """One value per index generation, computed once under a lock (searchers of several
    threads share it)."""

    def __init__(self, compute: Callable[[Any], Any]) -> None:
        self._compute = compute
        self._lock = threading.Lock()
        self._generation = -2
        self._value: Any = None

    def get(self, source: Any, generation: int) -> Any:
        """The value for `generation`, computed from `source` (a reader or searcher of
        that generation) when it is not cached yet."""
        with self._lock:
            if self._generation != generation or generation < 0:
                self._value = None
                self._value = self._compute(source)
                self._generation = generation
                # Reading a vocabulary took ~50 MB for 400,000 words: a serving process
                # would keep the freed heap as its size until it exits.
                release_freed_memory()
            return self._value


class CatalogCache:
    """The catalog records, decoded afresh on each call and kept by no one: at 40,000
    files the decoded records took ~200 MB, which a serving process kept for as long as
    no commit came. Callers that need every record (stats, listings) derive what they
    need and drop the records (PdfIndex.per_generation keeps the derived value); the
    common paths read a record per path or slug (Engine.record, record_by_slug,
    records_starting). The indexer changes the records it reads before writing them:
    each call's are its own."""

    def __init__(self, read: Callable[[Any], dict[str, FileRecord]]) -> None:
        self._read = read

    def get(self, source: Any, generation: int) -> dict[str, FileRecord]:
        """path -> record, read from `source` (`generation` is kept for the engines'
        callers: what a commit changes is read the next time)."""
        return self._read(source)

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Around the writer (kept for the engines; every caller gets records of its own)."""
        yield


def within(vocabulary: list[str], word: str, maxdist: int) -> list[str]:
    """Words of `vocabulary` within `maxdist` edits of `word` (a transposition is one
    edit, as in Whoosh). rapidfuzz takes ~4 ms where Whoosh's automaton walk
    (`terms_within`, pure Python) takes ~400 ms on 36,000 words, with the same answer."""
    from rapidfuzz import process  # loads at the first fuzzy word, not with the engine
    from rapidfuzz.distance import OSA

    found = process.extract(word, vocabulary, scorer=OSA.distance, score_cutoff=maxdist, limit=None)
    return sorted(match for match, _distance, _index in found)


class Vocabulary:
    """An index's words kept compactly: one newline-joined string per word length, ASCII
    words apart (a string takes the width of its widest character: one Greek word made
    all words of its length 2 bytes a letter). 5 MB for the 400,000 words of 48,000
    pages, where a list of them holds ~80 MB; searched only at the lengths a word with
    `maxdist` typos can have."""

    def __init__(self, words: Iterable[str]) -> None:
        groups: dict[tuple[int, bool], list[str]] = defaultdict(list)
        for word in words:
            groups[len(word), word.isascii()].append(word)
        self._groups = {key: "\n".join(group) for key, group in groups.items()}

    def within(self, word: str, maxdist: int) -> list[str]:
        """Words within `maxdist` edits of `word` (an edit changes the length by one at
        most, so other lengths cannot match)."""
        found: list[str] = []
        for length in range(max(1, len(word) - maxdist), len(word) + maxdist + 1):
            for ascii_only in (True, False):
                group = self._groups.get((length, ascii_only))
                if group:
                    found += within(group.split("\n"), word, maxdist)
        return sorted(found)
