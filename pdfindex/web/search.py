"""What the search page shows: a query in one of the CLI's modes, narrowed by document,
folder or element type, ranked by the one ranking of every front (`pdfindex.ranking`),
and the library's status. Plain records: the HTML and the JSON are made from them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from pdfindex.api import PdfIndex
from pdfindex.elements.detect import ELEMENT_TYPES
from pdfindex.errors import InvalidQuery
from pdfindex.models import FileRecord, FileStatus
from pdfindex.query import parse
from pdfindex.ranking import notes, rank
from pdfindex.search.ranked import ranked_elements
from pdfindex.search.understand import is_natural
from pdfindex.tools.highlight import EXACT, MODES, RANKED, ranked_query
from pdfindex.tools.names import find_document

LIMIT = 20  # results on one page
FOLDER_DEPTH = 500  # pages ranked before a folder filter keeps those inside it
GALLERY = 60  # elements shown without a query


@dataclass(frozen=True)
class Params:
    """What the URL asks for (`/?q=&mode=&doc=&folder=&kind=`): a deep link is a search."""

    q: str = ""
    mode: str = RANKED
    doc: str = ""
    folder: str = ""
    kind: str = ""
    limit: int = LIMIT

    @classmethod
    def of(cls, query: Any) -> Params:
        """From a query string's mapping; an unknown mode or kind is refused."""
        mode = (query.get("mode") or RANKED).strip().lower()
        kind = (query.get("kind") or "").strip().lower()
        if mode not in MODES:
            raise InvalidQuery(f"mode must be one of {', '.join(MODES)}")
        if kind and kind not in ELEMENT_TYPES:
            raise InvalidQuery(f"kind must be one of {', '.join(ELEMENT_TYPES)}")
        try:
            limit = int(query.get("limit") or LIMIT)
        except ValueError:
            raise InvalidQuery("limit must be a number") from None
        if not 1 <= limit <= 100:
            raise InvalidQuery("limit must be from 1 to 100")
        return cls(
            (query.get("q") or "").strip(),
            mode,
            (query.get("doc") or "").strip(),
            (query.get("folder") or "").strip().strip("/"),
            kind,
            limit,
        )


@dataclass
class Result:
    """One page found: where it is and the passage that matched (marks as **x**)."""

    slug: str
    path: str
    title: str
    page: int
    pages: int
    score: float | None
    snippet: str


@dataclass
class ElementResult:
    """One figure, table or equation found: its crop is `/element/slug/page/label.png`."""

    slug: str
    title: str
    kind: str
    label: str
    page: int
    caption: str
    score: float | None


@dataclass
class Results:
    """A search's answer: the pages (or elements), how many there were, and the notes
    the ranking has for a reader (showing results for…, did you mean…, unclear)."""

    params: Params
    total: int = 0
    results: list[Result] = field(default_factory=list)
    elements: list[ElementResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    method: str = ""
    more: bool = False

    def as_json(self) -> dict[str, Any]:
        from dataclasses import asdict

        return asdict(self)


def search(index: PdfIndex, params: Params) -> Results:
    """The search a page's URL names."""
    found = Results(params)
    slug = find_document(index, params.doc).slug if params.doc else None
    if params.kind:
        return _elements(index, params, slug, found)
    if not params.q:
        return found
    if params.mode == EXACT:
        return _exact(index, params, slug, found)
    query = ranked_query(params.q, params.mode)
    if not is_natural(query):
        parse(query, any_word=True)  # wrong syntax: said in one line, as the CLI says it
    depth = FOLDER_DEPTH if params.folder else params.limit
    ranking = rank(index, query, depth, slug)
    hits = [h for h in ranking.hits if in_folder(h.path, params.folder)]
    found.total = ranking.total if not params.folder else len(hits)
    found.notes, found.method = notes(ranking), ranking.method
    records = catalog(index)
    for hit in hits[: params.limit]:
        record = records.get(hit.path)
        title = record.title if record else hit.path
        pages = record.pages if record else hit.page
        found.results.append(
            Result(hit.slug, hit.path, title, hit.page, pages, hit.score, hit.snippet)
        )
    return found


def _exact(index: PdfIndex, params: Params, slug: str | None, found: Results) -> Results:
    depth = FOLDER_DEPTH if params.folder else params.limit
    matches, more = index.exact(params.q, document=slug, limit=depth)
    matches = [m for m in matches if in_folder(m.path, params.folder)]
    records = catalog(index)
    for match in matches[: params.limit]:
        record = records.get(match.path)
        title = record.title if record else match.path
        pages = record.pages if record else match.page
        context = match.context
        start = -1 if "**" in context else context.casefold().find(params.q.casefold())
        if start >= 0:  # the occurrence marked, as a ranked snippet marks its words
            end = start + len(params.q)
            context = f"{context[:start]}**{context[start:end]}**{context[end:]}"
        found.results.append(
            Result(match.slug, match.path, title, match.page, pages, None, context)
        )
    found.total, found.more = len(matches), more or len(matches) > params.limit
    return found


def _elements(index: PdfIndex, params: Params, slug: str | None, found: Results) -> Results:
    """Figures, tables or equations: ranked for a query, else every one (in a folder)."""
    if params.q:
        total, hits = ranked_elements(index.engine, params.q, FOLDER_DEPTH, params.kind, slug)
        hits, found.method = index.rank_elements(params.q, hits, FOLDER_DEPTH)
        scored = [(e, s) for e, s in hits]
    else:
        slugs = [slug] if slug else [r.slug for r in documents(index)]
        scored = []
        for each in slugs:
            scored += [(e, None) for e in index.engine.elements(each) if e["kind"] == params.kind]
            if len(scored) >= FOLDER_DEPTH:
                break
        total = len(scored)
    by_slug = {r.slug: r for r in catalog(index).values()}
    kept = []
    for element, score in scored:
        record = by_slug.get(element["slug"])
        if record is None or not in_folder(record.path, params.folder):
            continue
        kept.append(
            ElementResult(
                record.slug,
                record.title,
                element["kind"],
                element["label"],
                element["page"],
                " ".join(str(element.get("caption", "")).split()),
                score,
            )
        )
    found.total = total if not params.folder else len(kept)
    found.elements = kept[: params.limit if params.q else GALLERY]
    return found


def in_folder(path: str, folder: str) -> bool:
    """Whether a library path is inside `folder` ("" holds everything)."""
    return not folder or path.startswith(folder + "/")


def catalog(index: PdfIndex) -> dict[str, FileRecord]:
    """Every indexed file by path, once per index generation."""
    return index.per_generation("web.catalog", lambda records: dict(records))


def documents(index: PdfIndex) -> list[FileRecord]:
    """The documents the filters offer: those indexed, by path."""
    return sorted(
        (r for r in catalog(index).values() if r.status in (FileStatus.OK, FileStatus.EMPTY)),
        key=lambda r: r.path,
    )


def folders(index: PdfIndex) -> list[str]:
    """Every folder holding a document, as a path from the library's top."""
    found: set[str] = set()
    for record in catalog(index).values():
        for parent in PurePosixPath(record.path).parents:
            if str(parent) != ".":
                found.add(str(parent))
    return sorted(found)


def status(index: PdfIndex) -> dict[str, Any]:
    """The library in a few figures, and what the live updater is doing now. Cheap (the
    figures are counted once per index generation): /events asks twice a second."""
    files, indexed, pages = index.per_generation("web.status", _figures)
    doing = index.indexing()
    text = f"{indexed} of {files} files searchable, {pages} pages"
    return {
        "indexed": indexed,
        "files": files,
        "pages": pages,
        "indexing": doing,
        "text": text + (f"; {doing}" if doing else ""),
    }


def _figures(records: dict[str, FileRecord]) -> tuple[int, int, int]:
    """(files listed, files searchable, pages searchable) of the catalog."""
    readable = [r for r in records.values() if r.status in (FileStatus.OK, FileStatus.EMPTY)]
    searchable = sum(1 for r in readable if r.status == FileStatus.OK)
    return len(records), searchable, sum(r.pages for r in readable)
