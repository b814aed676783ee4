"""The Whoosh schema: one document per page, one catalog record per file, one document
per visual element, all in one index so a file's parts change in one commit."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from whoosh import index
from whoosh.analysis import Filter, RegexTokenizer
from whoosh.fields import ID, NUMERIC, STORED, TEXT, Schema

from pdfindex.engine.formats import record_format, stored_format
from pdfindex.engine.whoosh.storage import MappedStorage

FORMAT_VERSION = 6
FORMAT_FILE = "pdfindex-format.json"
PAGE, FILE, ELEMENT = "page", "file", "element"  # the `kind` of a document


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


def open_or_create(folder: Path) -> Any:
    """The Whoosh index in `folder`/whoosh; a missing one, or one of an older format, is
    started empty (the extraction cache keeps the text, so a rebuild parses nothing)."""
    whoosh_dir = folder / "whoosh"
    format_file = folder / FORMAT_FILE
    current = stored_format(format_file)
    if current == FORMAT_VERSION and index.exists_in(whoosh_dir):
        return MappedStorage(str(whoosh_dir)).open_index()
    if whoosh_dir.exists():
        shutil.rmtree(whoosh_dir)
    whoosh_dir.mkdir(parents=True)
    ix = MappedStorage(str(whoosh_dir)).create_index(make_schema())
    record_format(format_file, FORMAT_VERSION)
    return ix
