"""The Whoosh schema: one document per page, one catalog record per file, one document
per visual element, all in one index so a file's parts change in one commit."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from whoosh.analysis import Filter, RegexTokenizer
from whoosh.fields import ID, NUMERIC, STORED, TEXT, Schema

from pdfindex.engine.formats import (
    LOCK_WAIT,
    locked_out,
    record_format,
    stored_format,
    try_exclusive,
)
from pdfindex.engine.whoosh.storage import MappedStorage

FORMAT_VERSION = 6
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
    """Words are runs of \\w (as `pdfindex.query.words`); no stop words, no minimum
    length (so "state of the art" stays a phrase)."""
    return RegexTokenizer(r"\w+") | CasefoldFilter()


def make_schema() -> Schema:
    return Schema(
        kind=ID(),
        path=ID(stored=True, sortable=True),
        slug=ID(stored=True, sortable=True),
        page=NUMERIC(int, stored=True, sortable=True),  # signed=False breaks NumericRange
        content=TEXT(analyzer=page_analyzer(), phrase=True),
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
    if current is not None and current != FORMAT_VERSION:
        return _OLDER
    try:
        ix = MappedStorage(str(whoosh_dir)).open_index()
        if _fields(ix.schema) != _fields(make_schema()):
            return _OLDER if current is None else "its fields are not this version's"
        with ix.reader() as reader:
            for leaf, _offset in reader.leaf_readers():  # every segment file, once
                leaf.doc_frequency("kind", FILE)
                if leaf.doc_count_all():
                    leaf.stored_fields(0)
    except Exception as exc:  # a damaged table of contents or segment raises anything
        text = str(exc).strip().splitlines()
        return f"unreadable: {(text[0] if text else type(exc).__name__)[:300]}"
    if current is None:
        record_format(folder / FORMAT_FILE, FORMAT_VERSION)
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
