"""The Whoosh schema: one document per page, one catalog record per file, one document
per visual element, all in one index so a file's parts change in one commit."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from whoosh.analysis import Filter, RegexTokenizer, StemFilter
from whoosh.fields import ID, NUMERIC, STORED, TEXT, Schema
from whoosh.index import LockError
from whoosh.lang import stemmer_for_language

from pdfindex.engine.formats import (
    LOCK_WAIT,
    locked_out,
    record_format,
    stored_format,
    try_exclusive,
)
from pdfindex.engine.whoosh.storage import MappedStorage
from pdfindex.text.words import WORD_PATTERN

# 7: the stemmed field. An index of format 6 gets the field added when opened (pages it
# already holds rank without stems until their file is indexed again); older ones are
# started empty and refilled from the extraction cache.
FORMAT_VERSION = 7
STEM_FIELD = "stem"  # the page's words by their English (Snowball) stems: ranking only
FORMAT_FILE = "pdfindex-format.json"
PAGE, FILE, ELEMENT = "page", "file", "element"  # the `kind` of a document
WRITER_LOCK = "MAIN_WRITELOCK"  # Whoosh's own: held, no writer can start


class CasefoldFilter(Filter):
    """Unicode casefold (not just lower()): 'Straße' and 'STRASSE' meet as 'strasse'."""

    def __call__(self, tokens: Iterator[Any]) -> Iterator[Any]:
        for token in tokens:
            token.text = token.text.casefold()
            yield token


# Whoosh pickles the schema, analyzer classes by module path, into each index. Indexes of
# format 6 were written when this class lived in `pdfindex.store`: that name stays
# resolvable so they open without a rebuild.
sys.modules.setdefault("pdfindex.store", sys.modules[__name__])


def page_analyzer() -> Any:
    """Words are runs of \\w, each Chinese or Japanese character on its own (as
    `pdfindex.text.words.words`); no stop words, no minimum length (so "state of the art" stays
    a phrase). Whoosh keeps the analyzer in the index: one written before CJK characters
    were split keeps making runs of them one word (`splits_cjk`)."""
    return RegexTokenizer(WORD_PATTERN) | CasefoldFilter()


def splits_cjk(schema: Schema) -> bool:
    """Whether the index's own analyzer makes each CJK character a word."""
    expression = getattr(schema["content"].analyzer.items[0], "expression", None)
    return getattr(expression, "pattern", None) == WORD_PATTERN


def stem_analyzer() -> Any:
    """The page's words stemmed as `stem` stems a query's word."""
    return page_analyzer() | StemFilter(lang="en")


stem = stemmer_for_language("en")  # a word -> its English (Snowball) stem


def stem_field() -> TEXT:
    return TEXT(analyzer=stem_analyzer(), phrase=False)  # ranks words, never phrases


def make_schema() -> Schema:
    return Schema(
        kind=ID(),
        path=ID(stored=True, sortable=True),
        slug=ID(stored=True, sortable=True),
        page=NUMERIC(int, stored=True, sortable=True),  # signed=False breaks NumericRange
        content=TEXT(analyzer=page_analyzer(), phrase=True),
        stem=stem_field(),
        text=STORED(),
        record=STORED(),
        # Visual elements have fields of their own, so page queries (content, slug) never
        # see them; `path` is shared, so removing a file removes its elements too.
        eslug=ID(),
        etype=ID(),
        ecaption=TEXT(analyzer=page_analyzer(), field_boost=2.0),  # label and caption
        etext=TEXT(analyzer=page_analyzer()),  # type and the text around it
    )


def open_or_create(folder: Path, timeout: float = LOCK_WAIT) -> Any:
    """The Whoosh index in `folder`/whoosh, checked; missing, of an older format or
    damaged: started empty (the extraction cache keeps the text, so a rebuild parses
    nothing), under the writer's lock, so that two processes never create it at once and
    no writer is mid-commit when a damaged one is wiped. Why a damaged one was started
    empty is set as the index's `pdfindex_recovered` (None: it was not)."""
    whoosh_dir = folder / "whoosh"
    deadline = time.monotonic() + timeout
    while True:
        found = _open_checked(folder)
        if not isinstance(found, str):
            ix, problem = found, None
            break
        with try_exclusive(whoosh_dir / WRITER_LOCK) as locked:
            if locked:
                found = _open_checked(folder)  # now no writer changes it
                problem = found if isinstance(found, str) else None
                ix = _create(folder) if isinstance(found, str) else found
                break
        if time.monotonic() >= deadline:
            raise locked_out(folder, timeout)
        time.sleep(0.05)
    ix.pdfindex_recovered = problem if problem not in (None, _MISSING, _OLDER) else None
    return ix


_MISSING = "missing"
_OLDER = "of an older format"


def _open_checked(folder: Path) -> Any:
    """The index in `folder`/whoosh, or what is wrong with it (a str). One that only
    lacks its format file but has this format's fields and reads well is kept (its
    format file is written back), never wiped."""
    whoosh_dir = folder / "whoosh"
    if not any(whoosh_dir.glob("_MAIN_*.toc")):
        segments = any(whoosh_dir.glob("*.seg"))
        return "its table of contents is missing" if segments else _MISSING
    current = stored_format(folder / FORMAT_FILE)
    if current not in (None, FORMAT_VERSION, WITHOUT_STEMS):
        return _OLDER
    try:
        ix = MappedStorage(str(whoosh_dir)).open_index()
        if current in (None, WITHOUT_STEMS) and _fields(ix.schema) == _fields(_unstemmed()):
            ix = _add_stems(ix)
        if _fields(ix.schema) != _fields(make_schema()):
            return _OLDER if current is None else "its fields are not this version's"
        with ix.reader() as reader:
            for leaf, _offset in reader.leaf_readers():  # every segment file, once
                leaf.doc_frequency("kind", FILE)
                if leaf.doc_count_all():
                    leaf.stored_fields(0)
    except LockError as exc:  # adding the stemmed field waited for a writer in vain
        raise locked_out(folder, LOCK_WAIT) from exc
    except Exception as exc:  # a damaged table of contents or segment raises anything
        text = str(exc).strip().splitlines()
        return f"unreadable: {(text[0] if text else type(exc).__name__)[:300]}"
    if current != FORMAT_VERSION:
        record_format(folder / FORMAT_FILE, FORMAT_VERSION)
    return ix


WITHOUT_STEMS = 6  # the format before the stemmed field


def _unstemmed() -> Schema:
    schema = make_schema()
    schema.remove(STEM_FIELD)
    return schema


def _add_stems(ix: Any) -> Any:
    """A format-6 index with the stemmed field added, in place (the pages it holds keep
    ranking by their words: their stems come when their file is indexed again). Only
    once another process's writer, if any, has finished."""
    writer = ix.writer(timeout=LOCK_WAIT)  # LockError: another writer kept at it
    writer.add_field(STEM_FIELD, stem_field())
    writer.commit()
    return ix


def _fields(schema: Schema) -> list[tuple[str, str]]:
    """Field names and kinds (Whoosh fields with analyzers do not compare equal)."""
    return [(name, type(field).__name__) for name, field in schema.items()]


def _create(folder: Path) -> Any:
    """A new empty index in place of whatever `folder`/whoosh held (the lock file stays)."""
    whoosh_dir = folder / "whoosh"
    whoosh_dir.mkdir(parents=True, exist_ok=True)
    for child in whoosh_dir.iterdir():
        if child.is_dir():
            shutil.rmtree(child)
        elif child.name != WRITER_LOCK:
            child.unlink()
    ix = MappedStorage(str(whoosh_dir)).create_index(make_schema())
    record_format(folder / FORMAT_FILE, FORMAT_VERSION)
    return ix
