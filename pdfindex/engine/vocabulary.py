"""What engines share: a per-generation cache (a vocabulary, a mask, a file map, the
catalog is read once per commit) and typo expansion over a vocabulary: its character
pairs narrow the words, rapidfuzz measures the edits."""

from __future__ import annotations

import threading
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import groupby, pairwise
from typing import Any

from pdfindex.memory import answers_once, release_freed_memory
from pdfindex.models import FileRecord


class GenerationCache:
    """One value per index generation, computed once under a lock (searchers of several
    threads share it)."""

    def __init__(self, compute: Callable[[Any], Any]) -> None:
        self._compute = compute
        self._lock = threading.Lock()
        self._held: tuple[int, Any] = (-2, None)  # generation, value: read in one step
        self._building = False  # a thread computes the value (ready)
        self._starting = threading.Lock()  # sets _building; `get` holds _lock to compute

    def get(self, source: Any, generation: int) -> Any:
        """The value for `generation`, computed from `source` (a reader or searcher of
        that generation) when it is not cached yet."""
        with self._lock:
            if self._held[0] != generation or generation < 0:
                self._held = (-2, None)
                self._held = (generation, self._compute(source))
                # Reading a vocabulary took ~50 MB for 400,000 words: a serving process
                # would keep the freed heap as its size until it exits.
                release_freed_memory()
            return self._held[1]

    def ready(self, source: Any, generation: int) -> Any | None:
        """The value for `generation` if it is computed, else None; a process that goes
        on answering (not `pdfindex.memory.answers_once`) then computes it in a thread,
        one generation at a time, so that no answer waits for it."""
        held_generation, value = self._held
        if held_generation == generation and generation >= 0:
            return value
        if generation < 0 or answers_once():
            return None
        with self._starting:
            if self._building:
                return None
            self._building = True
        threading.Thread(
            target=self._build, args=(source, generation), name="pdfindex-vocabulary", daemon=True
        ).start()
        return None

    def _build(self, source: Any, generation: int) -> None:
        try:
            self.get(source, generation)
        except Exception:  # the index closed or changed meanwhile: the next call tries again
            import logging  # a search that only reads loads no logging

            logging.getLogger(__name__).debug("computing in the background failed", exc_info=True)
        finally:
            self._building = False


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
    """An index's words, to find a typo's words in.

    Kept as one UTF-8 string, the words sorted by length, so that the words of the
    lengths a typo's words can have are one slice (4 MB for the 358,043 words of 48,000
    pages, where a list of them takes ~80 MB). Comparing the typo with each of them took
    `hypenaton~2` 13 ms there. A process that goes on answering (or `narrowed`) also
    keeps the character pairs of each word: a word within `maxdist` edits of another
    shares all but 3 per edit of its distinct pairs (a substitution or a deletion breaks
    two, an adjacent transposition three; each end of a word is a character), so only the
    words holding enough of the typo's pairs are compared: 172 words, ~1 ms (+19 MB of
    numpy arrays, built in ~0.4 s; numpy takes 85 ms to load, more than a one-shot
    search's one typo gains). A word too short for its pairs to narrow (`teh~2`) is
    compared with every word of a near length either way."""

    def __init__(self, words: Iterable[str], narrowed: bool | None = None) -> None:
        kept = sorted((word for word in words if word and "\n" not in word), key=len)
        self._count = len(kept)
        pieces = []
        self._lengths: list[int] = []  # of the words, each length once, increasing
        self._offsets: list[int] = []  # of the newline before each length's first word
        size = 0
        for length, group in groupby(kept, key=len):
            piece = ("\n" + "\n".join(group)).encode()
            self._lengths.append(length)
            self._offsets.append(size)
            pieces.append(piece)
            size += len(piece)
        del kept
        self._offsets.append(size)  # the final newline
        self._utf8 = b"".join(pieces) + b"\n"
        del pieces
        narrowed = not answers_once() if narrowed is None else narrowed
        self._pairs = WordPairs(self._utf8, self._count) if narrowed and self._count else None

    def __len__(self) -> int:
        return self._count

    def within(self, word: str, maxdist: int) -> list[str]:
        """The words within `maxdist` edits of `word`."""
        low = bisect_left(self._lengths, len(word) - maxdist)
        high = bisect_right(self._lengths, len(word) + maxdist)
        if low == high:
            return []
        if self._pairs is not None:
            near = self._pairs.near(word, maxdist, len(word) - maxdist, len(word) + maxdist)
            if near is not None:
                return within(near, word, maxdist)
        found = self._utf8[self._offsets[low] + 1 : self._offsets[high]].decode()
        return within(found.split("\n"), word, maxdist)


class WordPairs:
    """For each character pair, the words holding it (Vocabulary: numpy arrays over the
    words of one UTF-8 string, newline before each and after the last)."""

    def __init__(self, utf8: bytes, count: int) -> None:
        import numpy as np  # loads with the first narrowed vocabulary, not with the engine

        self._utf8 = utf8
        self._count = count
        self._owner_bits = max(MIN_OWNER_BITS, count.bit_length())
        points = np.frombuffer(utf8.decode().encode("utf-32-le"), dtype=np.uint32)
        breaks = points == NEWLINE
        ends = np.flatnonzero(breaks)  # the newline before each word, and after the last
        self._lengths = np.diff(ends) - 1  # in characters, not decreasing
        utf8_sizes = (1 + (points >= 0x80) + (points >= 0x800) + (points >= 0x10000)).astype(
            np.uint8
        )
        self._starts = (np.cumsum(utf8_sizes, dtype=np.int64) - utf8_sizes)[ends]
        del utf8_sizes, ends
        # Pair (i, i+1) belongs to the word whose characters, or newline before, hold i;
        # keyed with its word in one integer, so that one sort groups a pair's words.
        keys = points[:-1].astype(np.uint64)
        keys <<= np.uint64(21)  # a code point has 21 bits
        keys |= points[1:]
        del points
        keys = _folded(keys, self._owner_bits)
        keys <<= np.uint64(self._owner_bits)
        keys |= np.cumsum(breaks[:-1], dtype=np.uint32) - np.uint32(1)
        del breaks
        keys.sort()
        keys = keys[np.append(True, keys[1:] != keys[:-1])[: len(keys)]]  # once per word
        self._owners = (keys & np.uint64((1 << self._owner_bits) - 1)).astype(np.int32)
        keys >>= np.uint64(self._owner_bits)
        first = np.append(True, keys[1:] != keys[:-1])[: len(keys)]
        self._pair_starts = np.append(np.flatnonzero(first), len(keys))
        self._pairs = keys[first]
        self._distinct = np.bincount(self._owners, minlength=count).astype(np.int32)

    def near(self, word: str, maxdist: int, shortest: int, longest: int) -> list[str] | None:
        """The words of `shortest` to `longest` characters holding enough of `word`'s
        pairs to be within `maxdist` edits of it; None if too few pairs to narrow."""
        import numpy as np

        framed = f"\n{word}\n"
        pairs = {_key(a, b, self._owner_bits) for a, b in pairwise(framed)}
        least = len(pairs) - PAIRS_AN_EDIT_BREAKS * maxdist  # pairs a match shares, at least
        if least <= 0:
            return None
        low, high = (int(i) for i in np.searchsorted(self._lengths, [shortest, longest + 1]))
        keys = np.array(sorted(pairs), dtype=np.uint64)
        at = np.minimum(np.searchsorted(self._pairs, keys), len(self._pairs) - 1)
        lists = [
            self._owners[self._pair_starts[i] : self._pair_starts[i + 1]]
            for i in at[self._pairs[at] == keys]
        ]
        if not lists or low == high:
            return []
        holders = np.concatenate(lists)
        holders = holders[(holders >= low) & (holders < high)] - low
        shared = np.bincount(holders, minlength=high - low)
        # Either word is the other within the edits: each shares all but 3 an edit of its own.
        theirs = self._distinct[low:high] - PAIRS_AN_EDIT_BREAKS * maxdist
        near = np.flatnonzero((shared >= least) & (shared >= theirs)) + low
        return [self._word(i) for i in near]

    def _word(self, i: int) -> str:
        return self._utf8[int(self._starts[i]) + 1 : int(self._starts[i + 1])].decode()


NEWLINE = 10
PAIRS_AN_EDIT_BREAKS = 3  # an adjacent transposition: xaby -> xbay breaks xa, ab, by
MIN_OWNER_BITS = 22  # 4 million words; the pair's two characters take the other 42 bits


def _key(first: str, second: str, owner_bits: int) -> int:
    """A pair of characters as Vocabulary keys it."""
    return int(_folded((ord(first) << 21) | ord(second), owner_bits))


def _folded(pairs: Any, owner_bits: int) -> Any:
    """Pairs (an int or a numpy uint64 array) in the 64 - `owner_bits` bits left beside
    a word's number. Past 4 million words two pairs may share a key: a word then counts
    a pair it lacks, so more words are compared, never fewer."""
    bits = 64 - owner_bits
    if bits >= 42:
        return pairs
    return (pairs ^ (pairs >> bits)) & ((1 << bits) - 1)
