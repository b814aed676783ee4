"""One naming rule for every front (CLI, tools, web): a document is its path under the
files folder (`a/b.pdf`), that path without extension (`a/b` for `a/b.pdf` or `a/b.md`)
or its slug (`a_b`); an unknown name gets the closest known ones, and a document whose
text could not be read says why, in one wording.

It works on the library it is given (a `PdfIndex`: its engine's records, its
`library_path`, which refuses any path outside the files folder, and its per-generation
cache), so the CLI and the tools cannot resolve one name two ways.
"""

from __future__ import annotations

import difflib
import heapq
from collections.abc import Callable, Iterable
from itertools import chain
from pathlib import PurePosixPath
from typing import Protocol, TypeVar

from rapidfuzz import fuzz, process

from pdfindex.models import FileRecord, FileStatus
from pdfindex.paths import base_slug

SUGGESTIONS = 5  # the closest names an unknown one gets
CUTOFF = 0.5  # difflib's ratio, 0-1: below this a name is not "close"
NAMING = "a path ('a/b.pdf'), the path without extension ('a/b') or a slug ('a_b')"

T = TypeVar("T")


class Records(Protocol):
    """What the resolver reads of an engine."""

    def record(self, path: str) -> FileRecord | None: ...

    def record_by_slug(self, slug: str) -> FileRecord | None: ...

    def records_starting(self, prefix: str) -> list[FileRecord]: ...


class Library(Protocol):
    """What the resolver reads of a library (PdfIndex)."""

    @property
    def engine(self) -> Records: ...

    def library_path(self, user_path: str) -> str: ...

    def per_generation(
        self, key: str, derive: Callable[[dict[str, FileRecord]], T], one_by_one: bool = False
    ) -> T: ...


def lookup(library: Library, key: str) -> FileRecord | None:
    """The indexed document named `key` by path, path without extension (`.pdf` first,
    then any extension) or slug; None when there is none. Raises PathOutsideFiles for a
    path outside the files folder, before anything is read."""
    rel = library.library_path(key)
    engine = library.engine
    if rel != ".":
        for candidate in (rel, rel + ".pdf"):
            record = engine.record(candidate)
            if record is not None:
                return record
    slugs = [key.lower()] + ([base_slug(rel), base_slug(key)] if rel != "." else [])
    for slug in dict.fromkeys(slugs):  # base_slug: `notes` for notes.txt
        record = engine.record_by_slug(slug)
        if record is not None:
            return record
    if rel != "." and not PurePosixPath(rel).suffix:  # 'a/b' for 'a/b.md': the first by path
        # Read by prefix, not from a table of every record's stem: at 40,000 files that
        # table cost the catalog decoded whole (seconds, ~200 MB) after every commit.
        return next((r for r in engine.records_starting(rel + ".") if stem(r.path) == rel), None)
    return None


def stem(path: str) -> str:
    """`path` without its extension, as str(PurePosixPath(path).with_suffix("")) gives
    it, five times as fast: it runs for every record once a generation (0.4 s instead
    of 2 s at 250,000 records)."""
    name = path.rpartition("/")[2]
    dot = name.rfind(".")
    return path[: len(path) - len(name) + dot] if 0 < dot < len(name) - 1 else path


def closest(library: Library, name: str, most: int = SUGGESTIONS) -> list[FileRecord]:
    """The indexed documents whose path, path without extension or slug is nearest to
    `name` (difflib's ratio), then those holding it; best first, at most `most`. The
    spellings are gathered once per index generation."""
    key = name.strip().lower().removesuffix(".pdf")
    spellings, listed = library.per_generation("names.spellings", _spellings, one_by_one=True)
    near = close_matches(key, listed, n=most * 3, cutoff=CUTOFF)
    holding = (s for s in listed if key and key in s)  # a part of the name
    found: dict[str, FileRecord] = {}
    for spelling in chain(near, holding):
        path = spellings[spelling]
        record = found.get(path) or library.engine.record(path)
        if record is not None:  # None: removed since the spellings were gathered
            found.setdefault(path, record)
        if len(found) >= most:
            break
    return list(found.values())


def _spellings(records: Iterable[FileRecord]) -> tuple[dict[str, str], list[str]]:
    """Each document's path, path without extension and slug, lowercased -> its path
    (the first to use it), and those spellings as a list. Paths, not records: at a
    million pages (39,513 files) the records kept took a serving process 130 MB."""
    spellings: dict[str, str] = {}
    for record in records:
        for spelling in (record.path, stem(record.path), record.slug):
            spellings.setdefault(spelling.lower(), record.path)
    return spellings, list(spellings)


def close_matches(word: str, possibilities: list[str], n: int, cutoff: float) -> list[str]:
    """difflib.get_close_matches(word, possibilities, n, cutoff), the same list, with
    difflib's ratio (Python, ~0.1 ms a name) worked out only for the likeliest names:
    it counts the characters of matching blocks, which form a common subsequence, so it
    is never above rapidfuzz's Indel ratio (the longest common subsequence's, in C),
    and the names are tried from the highest of that bound down until it is below the
    n-th best ratio found."""
    if n <= 0 or not 0.0 <= cutoff <= 1.0:  # difflib's own errors
        return difflib.get_close_matches(word, possibilities, n, cutoff)
    floor = max(0.0, cutoff * 100 - 1e-6)  # the margin keeps float rounding out of it
    bounds = process.extract(word, possibilities, scorer=fuzz.ratio, score_cutoff=floor, limit=None)
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    best: list[tuple[float, str]] = []  # the n best (ratio, name), least first
    for name, bound, _index in bounds:  # highest bound first
        if len(best) == n and bound / 100 + 1e-9 < best[0][0]:
            break  # no name after this one can reach the n best
        matcher.set_seq1(name)
        ratio = matcher.ratio()
        if ratio >= cutoff:
            (heapq.heappush if len(best) < n else heapq.heappushpop)(best, (ratio, name))
    return [name for _ratio, name in heapq.nlargest(n, best)]


def unsupported(path: str, reads: Iterable[str]) -> str:
    """Why a file is not read: its type, and the types that are (`reads`: the adapter
    registry's extensions, custom adapters' included). The catalog record of such a file
    holds this as its error; a file not listed yet gets it from the tools at once."""
    suffix = PurePosixPath(path).suffix.lower()
    kind = f"a {suffix} file" if suffix else "a file without an extension"
    return f"{path} is {kind}; pdfindex reads: {', '.join(reads)}"


def unreadable(record: FileRecord, empty: bool = False) -> str | None:
    """Why the text of `record` cannot be had: a type no adapter reads, encrypted, or
    failed when indexed (and, with `empty`, no text layer: nothing to search); None when
    it can. The one wording every front uses."""
    if record.status == FileStatus.UNSUPPORTED:
        return record.error or unsupported(record.path, ())
    where = f"'{record.slug}' ({record.path})"
    if record.status == FileStatus.ENCRYPTED:
        return f"{where} is encrypted: {record.error or 'a password is needed'}"
    if record.status == FileStatus.EMPTY:
        return f"{where} has no text layer ({record.error or 'no text'})" if empty else None
    if record.status != FileStatus.OK:
        return f"{where} could not be read when indexed ({record.status}): {record.error}"
    return None
