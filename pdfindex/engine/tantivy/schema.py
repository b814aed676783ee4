"""The Tantivy schema: one document per page, one catalog record per file, one document
per visual element, in one index so a file's parts change in one commit.

Words are what `pdfindex.query.words` says: the text is case-folded in Python (Unicode
casefold, so 'Straße' and 'STRASSE' meet) and split on `\\w+` by Tantivy's regex tokenizer,
with no stop words and no length limit.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import tantivy

from pdfindex.engine.formats import record_format, stored_format

# 2: page text under extract/text.py's TEXT_VERSION 2 (LF, re-attached accents); 3: path
# and slug stored. An older index is started empty and refilled from the extraction cache.
FORMAT_VERSION = 3
FORMAT_FILE = "pdfindex-format.json"
TOKENIZER = "pdfindex_words"
PAGE, FILE, ELEMENT = "page", "file", "element"  # the `kind` of a document


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
    builder.add_text_field("content", tokenizer_name=TOKENIZER, index_option="position")
    builder.add_bytes_field("text", stored=True)  # the page text as extracted (UTF-8)
    builder.add_bytes_field("record", stored=True)  # catalog record or element, as JSON
    builder.add_text_field("etype", **raw)
    builder.add_text_field("ecaption", tokenizer_name=TOKENIZER, index_option="position")
    builder.add_text_field("etext", tokenizer_name=TOKENIZER, index_option="position")
    return builder.build()


def path_id(path: str) -> int:
    """A stable signed 64-bit id of a path, kept as a fast field: candidates read it in
    bulk, where Tantivy cannot read text fast fields."""
    return int.from_bytes(
        hashlib.blake2b(path.encode(), digest_size=8).digest(), "big", signed=True
    )


def open_or_create(folder: Path) -> tuple[tantivy.Index, tantivy.Schema]:
    """The Tantivy index in `folder`/tantivy; missing or of another format: started empty
    (the extraction cache keeps the text, so a rebuild parses nothing)."""
    directory = folder / "tantivy"
    format_file = directory / FORMAT_FILE
    current = stored_format(format_file)
    schema = make_schema()
    if current == FORMAT_VERSION and tantivy.Index.exists(str(directory)):
        index = tantivy.Index.open(str(directory))
    else:
        if directory.exists():
            for child in directory.iterdir():
                if child.is_file():
                    child.unlink()
        directory.mkdir(parents=True, exist_ok=True)
        index = tantivy.Index(schema, path=str(directory))
        record_format(format_file, FORMAT_VERSION)
    analyzer = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(r"\w+")).build()
    index.register_tokenizer(TOKENIZER, analyzer)
    return index, schema
