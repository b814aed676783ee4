"""The Tantivy schema: one document per page, one catalog record per file, one document
per visual element, in one index so a file's parts change in one commit.

Words are what `pdfindex.text.words.words` says: the text is case-folded in Python (Unicode
casefold, so 'Straße' and 'STRASSE' meet) and split by Tantivy's regex tokenizer into runs
of `\\w` (each Chinese or Japanese character on its own: `RUST_WORD_PATTERN`), with no stop
words and no length limit. A second field holds the same words by their
English (Snowball) stems, for ranking natural-language queries only (pdfindex.query.Stem).
"""

from __future__ import annotations

import re
import time
from itertools import pairwise
from pathlib import Path
from typing import NamedTuple

import tantivy

from pdfindex.engine.formats import (
    LOCK_WAIT,
    locked_out,
    record_format,
    stored_format,
    try_exclusive,
)
from pdfindex.text.substrings import GRAM
from pdfindex.text.words import RUST_WORD_PATTERN, is_cjk

# 2: page text under extract/text.py's TEXT_VERSION 2 (LF, re-attached accents); 3: path
# and slug stored; 4: the stemmed field; 5: catalog records stored together, with their
# pages' line counts (a regex reads only the pages it can match); 6: each Chinese or
# Japanese character a word (pdfindex.text.words.RUST_WORD_PATTERN); 7: the page's character
# trigrams (pdfindex.text.substrings), for exact search; 8: adjacent word pairs, for phrases;
# 9: each file's place in path order (pdfindex.engine.tantivy.places); 10: the heads of
# each page's words, to count a short prefix's pages; 11: every page field as
# space-separated terms (JOIN inside pairs and chunks) for Tantivy's whitespace tokenizer.
# An older index is started empty and refilled from the extraction cache.
FORMAT_VERSION = 11
FORMAT_FILE = "pdfindex-format.json"
TOKENIZER = "pdfindex_words"  # elements' captions and text: cut by Tantivy
CUT_TOKENIZER = "pdfindex_cut"  # a page's words, cut in Python (word_fields)
STEM_TOKENIZER = "pdfindex_stems"  # the same words, stemmed
GRAM_TOKENIZER = "pdfindex_grams"
GRAM_FIELD = "grams"  # the page's plain form cut in character n-grams: exact search only
# The same plain form cut in consecutive chunks of GRAM characters, with positions: a phrase
# of a piece's chunks (pdfindex.engine.tantivy.pieces) finds the pages holding the piece.
CHUNK_FIELD = "chunks"
CHUNK_TOKENIZER = "pdfindex_chunks"
ORDER_FIELD = "order"  # "<path>\0<page>": candidates come in (path, page) order from it
# The same order as an integer (pdfindex.engine.tantivy.places), on pages and catalog
# records: ordering by it is cheap; ORDER_FIELD is for an index where a file has no place.
PLACE_FIELD = "place"
# Two adjacent words as one term ("of the") where one of them is short (SHORT characters
# or fewer, as the commonest words are in the languages of the corpus; a Chinese or Japanese
# character is one): a phrase then reads the pages holding its pairs, not the positions of
# two of the commonest words on every page holding both. Pairs of two longer words are left
# out (with them: +20 MB on a 54 MB index of 12,000 pages, +12 MB without, for phrases that
# are fast anyway), and so are positions: a longer phrase is confirmed on the content
# field's, on those pages only.
PAIR_FIELD = "pairs"
PAIR_TOKENIZER = "pdfindex_pairs"
SHORT = 3
PAIRED = {"content": PAIR_FIELD}  # a field whose pairs are indexed -> where
# The first 1, 2 and 3 characters of each word of the page, once each, one term each: the
# pages a prefix of HEAD characters or fewer matches are one term's (`con*`: 0.9 ms to
# count from its 1,735 words at 48,000 pages, 0.12 from `con`; +3% of the index).
HEAD_FIELD = "heads"
HEAD = 3
WRITER_LOCK = ".tantivy-writer.lock"  # Tantivy's own: held, no writer can start
PAGE, FILE, ELEMENT = "page", "file", "element"  # the `kind` of a document
STEM_FIELD = "stem"  # the page's words by their English (Snowball) stems: ranking only
# The same words, stemmed: what the stemmed field holds, and how a query's word is looked
# up there (pdfindex.query.Stem).
WORDS = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(RUST_WORD_PATTERN)).build()
STEMMER = (
    tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(RUST_WORD_PATTERN))
    .filter(tantivy.Filter.stemmer("english"))
    .build()
)


def stem(word: str) -> str:
    """A word's English stem, as the stemmed field holds it."""
    found = STEMMER.analyze(word)
    return found[0] if found else word


# Joins a pair's two words into one term, and stands for a space inside a chunk: no word
# and no plain form holds it (plain_form makes every whitespace run one space), and
# Tantivy's whitespace tokenizer (ASCII whitespace) keeps it inside a term. A page's words
# are cut once, in Python (content_words), and every page field is written as
# space-separated terms: Tantivy's regex tokenizers took most of its indexing time. At
# 48k pages, regex against whitespace: content 6.6 / 1.8 s of CPU, stem 7.0 / 2.8, pairs
# 8.5 / 4.9, heads 1.9 / 0.6, chunks 8.5 / 3.0 (+2.0 to cut them in Python).
JOIN = "\x1f"
_ASCII_WORD = re.compile(r"\w+")
_NOT_ASCII = re.compile(r"[^\x00-\x7f]")
# Characters outside ASCII on which Python's \w and Rust's agree (letters but Chinese and
# Japanese, most punctuation), found once each: a page of only these is cut by Python.
_AGREED: dict[str, bool] = {}


def content_words(text: str) -> list[str]:
    r"""The words of casefolded `text` as the content field's tokenizer cuts them. Python's
    `\w+` cuts a page of ASCII and most other pages the same way and faster (5.4 -> 3.2 s
    at 48k pages); a page holding a character on which the two regex engines differ
    (combining marks, which Rust counts as word characters) or a Chinese or Japanese one
    (a word of its own) is cut by Tantivy's own analyzer."""
    if not text.isascii():
        for char in set(_NOT_ASCII.findall(text)):  # half the time of set(text)
            if not _agreed(char):
                return WORDS.analyze(text)
    return _ASCII_WORD.findall(text)


def _agreed(char: str) -> bool:
    found = _AGREED.get(char)
    if found is None:
        python = _ASCII_WORD.fullmatch(char) is not None
        found = _AGREED[char] = python == (WORDS.analyze(char) == [char]) and not is_cjk(char)
    return found


class WordFields(NamedTuple):
    """What the content (and stem), pair and head fields hold of a page, each as
    space-separated terms for the whitespace tokenizer."""

    words: str
    pairs: str
    heads: str


def word_fields(text: str) -> WordFields:
    """The word fields of casefolded `text`, from one cut of its words (content_words):
    its words, its indexed pairs of adjacent words (indexed_pair) and its words' heads."""
    found = content_words(text)
    pairs = [f"{a}{JOIN}{b}" for a, b in pairwise(found) if len(a) <= SHORT or len(b) <= SHORT]
    heads = {word[:HEAD] for word in set(found)}
    for length in range(HEAD - 1, 0, -1):  # shorter heads from the longer ones: fewer cuts
        heads.update([head[:length] for head in heads])
    return WordFields(" ".join(found), " ".join(pairs), " ".join(heads))


def indexed_pair(first: str, second: str) -> str | None:
    """Two adjacent words as the pair field holds them ("of" JOIN "the"); None if it holds
    no such pair (neither word is short)."""
    if len(first) <= SHORT or len(second) <= SHORT:
        return f"{first}{JOIN}{second}"
    return None


def chunked(plain: str) -> str:
    """What the chunk field holds of a plain form: its consecutive GRAM-character chunks
    (chunk_term), space-separated, a short end left out. Written by numpy as rows of
    GRAM code units and a space: a regex's findall and join took 4 times as long (2.0 ->
    0.5 s at 48k pages)."""
    import numpy as np  # here: a process that only searches does not load it

    text = plain.replace(" ", JOIN)
    rows = len(text) // GRAM
    if not rows:
        return ""
    ascii_only = text.isascii()
    encoding, unit = ("ascii", np.uint8) if ascii_only else ("utf-32-le", np.uint32)
    units = np.frombuffer(text.encode(encoding), dtype=unit, count=rows * GRAM)
    spaced = np.full((rows, GRAM + 1), ord(" "), dtype=unit)
    spaced[:, :GRAM] = units.reshape(rows, GRAM)
    return spaced.tobytes()[: -spaced.itemsize].decode(encoding)


def chunk_term(chunk: str) -> str:
    """A chunk of a plain form as the chunk field holds it."""
    return chunk.replace(" ", JOIN)


def make_schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    raw = {"tokenizer_name": "raw", "index_option": "basic"}
    builder.add_text_field("key", **raw)  # "<kind>:<path>": deletes a file's parts by kind
    builder.add_text_field("kind", **raw)
    # Stored too: a ranked hit reads its path and slug from the page it fetches anyway,
    # not from the catalog (reading 1,892 records cost a new process's first query 50 ms).
    builder.add_text_field("path", stored=True, **raw)
    builder.add_text_field("slug", stored=True, **raw)
    builder.add_integer_field("file", indexed=True, fast=True)  # path_id(path): fast field
    builder.add_integer_field("page", stored=True, indexed=True, fast=True)
    builder.add_text_field("content", tokenizer_name=CUT_TOKENIZER, index_option="position")
    # No positions: it ranks words, never phrases.
    builder.add_text_field(STEM_FIELD, tokenizer_name=STEM_TOKENIZER, index_option="freq")
    # Which pages hold an n-gram, not how often or where: exact search narrows by it and
    # reads the page to confirm, so positions would only grow the index.
    builder.add_text_field(GRAM_FIELD, tokenizer_name=GRAM_TOKENIZER, index_option="basic")
    builder.add_text_field(CHUNK_FIELD, tokenizer_name=CHUNK_TOKENIZER, index_option="position")
    builder.add_text_field(PAIR_FIELD, tokenizer_name=PAIR_TOKENIZER, index_option="freq")
    builder.add_text_field(HEAD_FIELD, tokenizer_name=PAIR_TOKENIZER, index_option="basic")
    builder.add_text_field(ORDER_FIELD, tokenizer_name="raw", fast=True, index_option="basic")
    builder.add_integer_field(PLACE_FIELD, indexed=True, fast=True)
    builder.add_bytes_field("text", stored=True)  # the page text as extracted (UTF-8)
    builder.add_bytes_field("record", stored=True)  # catalog record or element, as JSON
    builder.add_text_field("etype", **raw)
    builder.add_text_field("ecaption", tokenizer_name=TOKENIZER, index_option="position")
    builder.add_text_field("etext", tokenizer_name=TOKENIZER, index_option="position")
    return builder.build()


def order_key(path: str, page: int) -> str:
    """Sorts as (path, page) does: UTF-8 bytes sort as code points, and NUL before all."""
    return f"{path}\0{page:07d}"


def path_id(path: str) -> int:
    """A stable signed 64-bit id of a path, kept as a fast field: candidates read it in
    bulk, where Tantivy cannot read text fast fields."""
    import hashlib  # here: loading OpenSSL's hashes cost every process ~2 ms

    return int.from_bytes(
        hashlib.blake2b(path.encode(), digest_size=8).digest(), "big", signed=True
    )


class Opened(NamedTuple):
    """An open index, its schema, and why it was started empty (None: it was not, or
    there was nothing to keep)."""

    index: tantivy.Index
    schema: tantivy.Schema
    recovered: str | None


def open_or_create(folder: Path, timeout: float = LOCK_WAIT) -> Opened:
    """The Tantivy index in `folder`/tantivy, checked; missing, of another format or
    damaged: started empty (the extraction cache keeps the text, so a rebuild parses
    nothing), under the writer's lock, so that two processes never create it at once
    and no writer is mid-commit when a damaged one is wiped."""
    directory = folder / "tantivy"
    schema = make_schema()
    deadline = time.monotonic() + timeout
    while True:
        found = _open_checked(directory, schema)
        if not isinstance(found, str):
            index, problem = found, None
            break
        with try_exclusive(directory / WRITER_LOCK) as locked:
            if locked:
                found = _open_checked(directory, schema)  # now no writer changes it
                problem = found if isinstance(found, str) else None
                index = _create(directory, schema) if isinstance(found, str) else found
                break
        if time.monotonic() >= deadline:
            raise locked_out(folder, timeout)
        time.sleep(0.05)
    index.register_tokenizer(TOKENIZER, WORDS)
    terms = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()
    index.register_tokenizer(CUT_TOKENIZER, terms)
    index.register_tokenizer(PAIR_TOKENIZER, terms)
    stems = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace())
    index.register_tokenizer(
        STEM_TOKENIZER, stems.filter(tantivy.Filter.stemmer("english")).build()
    )
    grams = tantivy.Tokenizer.ngram(min_gram=GRAM, max_gram=GRAM, prefix_only=False)
    index.register_tokenizer(GRAM_TOKENIZER, tantivy.TextAnalyzerBuilder(grams).build())
    index.register_tokenizer(CHUNK_TOKENIZER, terms)  # chunked(): cut in Python
    # An index of an older format is refilled at open too (PdfIndex), as a damaged one:
    # a search right after an upgrade must not find an empty index.
    recovered = problem if problem not in (None, _MISSING) else None
    return Opened(index, schema, recovered)


def _create(directory: Path, schema: tantivy.Schema) -> tantivy.Index:
    """A new empty index in place of whatever `directory` held (the lock file stays)."""
    for child in directory.iterdir():
        if child.is_file() and child.name != WRITER_LOCK:
            child.unlink()
    index = tantivy.Index(schema, path=str(directory))
    record_format(directory / FORMAT_FILE, FORMAT_VERSION)
    return index


_MISSING = "missing"
_OLDER = "of an older format"


def _open_checked(directory: Path, schema: tantivy.Schema) -> tantivy.Index | str:
    """The index in `directory`, or what is wrong with it. One that only lacks its format
    file but has this format's schema and reads well is kept (its format file is
    written back), never wiped."""
    if not (directory / "meta.json").exists():
        segments = directory.is_dir() and any(directory.glob("*.store"))
        return "its meta.json is missing" if segments else _MISSING
    current = stored_format(directory / FORMAT_FILE)
    if current is not None and current != FORMAT_VERSION:
        return _OLDER
    try:
        index = tantivy.Index.open(str(directory))
        if index.schema != schema:
            return _OLDER if current is None else "its schema is not this version's"
        _read_each_segment(index)
    except BaseException as exc:  # Rust panics (pyo3 PanicException) are BaseExceptions
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return f"unreadable: {_first_line(exc)}"
    if current is None:
        record_format(directory / FORMAT_FILE, FORMAT_VERSION)
    return index


def _read_each_segment(index: tantivy.Index) -> None:
    """Reads every segment once (terms, fast fields, a stored document): opening maps the
    files and reads their footers, but a garbled doc store block shows only when read,
    mid-query. 0.2 ms on a 47,970-page index of 5 segments."""
    searcher = index.searcher()
    searcher.doc_freq("kind", FILE)
    first = [tantivy.DocAddress(ordinal, 0) for ordinal in range(searcher.num_segments)]
    searcher.fast_field_values("file", first)
    searcher.fast_field_values("page", first)
    for address in first:
        searcher.doc(address)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]
