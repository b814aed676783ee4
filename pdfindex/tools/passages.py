"""Seed 002's tools: process_document, query_documents, list_sessions.

Passages are a few sentences of a page, cut on the fly from the best BM25 pages. The
answer is written from them by a language model when the server hands query_documents a
writer (the client's model through MCP sampling, or `llm_url`: `answers.py`), with
citations [n] numbering `sources`; else it quotes the best sentence of the top passages
with their citations.
"""

from __future__ import annotations

import re
import time
import uuid
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from pdfindex.api import PdfIndex
from pdfindex.errors import AnswerNotWritten, PathOutsideFiles, PdfIndexError, SessionNotFound
from pdfindex.extract.adapters import adapter_name_for, supported_extensions
from pdfindex.models import FileStatus
from pdfindex.names import NAMING
from pdfindex.query import Node, Or, Term, any_of
from pdfindex.ranking import CLEAR_ANSWER, by_meaning, coverage, rank
from pdfindex.search import understand as understanding
from pdfindex.text.stopwords import STOP_WORDS
from pdfindex.text.words import query_words, words
from pdfindex.tools import answers
from pdfindex.tools import topic as topics
from pdfindex.tools.answers import Writer
from pdfindex.tools.budget import fit, items_budget
from pdfindex.tools.catalog import human_size
from pdfindex.tools.imported import import_file
from pdfindex.tools.names import resolve_file
from pdfindex.tools.outcomes import error
from pdfindex.tools.results import (
    ListSessionsResult,
    ProcessDocumentResult,
    QueryDocumentsResult,
)
from pdfindex.tools.sessions import MAX_PAGE_SIZE, PAGE_SIZE, SessionStore

SENTENCES_PER_CHUNK = 3
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=。)\s*")
# A follow-up's passages from documents off its topic (`topic.py`) count this much: those
# of a document the topic's earlier answers cited, and those of any other.
CITED_WEIGHT = 0.8
OFF_TOPIC_WEIGHT = 0.5
EARLIER_QUERY_WEIGHT = 0.3
ACTIVE_SECONDS = 3600  # a session used within the last hour counts as active


def iso(timestamp: float | None) -> str | None:
    """Unix seconds as ISO 8601 (UTC), as seed 002 gives its times."""
    if not timestamp:
        return None
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


INSIDE = "a file inside the files folder or one of the folders setting's folders"


def outside(index: PdfIndex, exc: PathOutsideFiles) -> str:
    """Why a file outside every folder is not indexed, naming the settings that allow it."""
    s = index.settings
    folders = ", ".join([str(s.files_dir), *(str(f) for f in index.folders.values())])
    return (
        f"{exc}. It is outside every indexed folder ({folders}): add its folder to the "
        '`folders` setting (folders = ["/its/folder"] in pdfindex.toml, --folder, or '
        "PDFINDEX_FOLDERS) to index it where it is, or set import_outside = true to copy "
        "the file into the files folder's imported/ and index it there."
    )


def process_document(
    index: PdfIndex, index_now: Any, file_path: str, file_name: str | None = None
) -> ProcessDocumentResult:
    """Index one file now and describe it: a file inside the files folder or one of
    `folders` where it is; one outside them is refused, or with `import_outside` copied
    into the files folder's `imported/` first. `file_name` becomes its title."""
    started = time.monotonic()
    wrong = {"parameter": "file_path", "received": file_path}
    try:
        real, rel = resolve_file(index, file_path)
    except PathOutsideFiles as exc:
        if not index.settings.import_outside:
            return error("ValidationError", outside(index, exc), wrong | {"expected": INSIDE})
        try:
            real, rel = import_file(index, file_path)
        except PdfIndexError as why:
            expected = "a regular file of a type pdfindex reads, at most import_mb"
            return error("ValidationError", str(why), wrong | {"expected": expected})
    except PdfIndexError as exc:
        return error(
            "FileNotFoundError",
            str(exc),
            wrong | {"expected": "a file in the files folder: " + NAMING},
        )
    if not real.is_file():
        return error(
            "FileNotFoundError",
            f"{rel} is no longer in the files folder",
            wrong | {"expected": "a file in the files folder"},
        )
    hidden = next((part for part in rel.split("/") if part.startswith(".")), None)
    if hidden is not None:  # the scan skips these, so it would never be indexed
        return error(
            "ValidationError",
            f"{rel} is hidden ({hidden!r} starts with '.'): hidden files and folders are "
            "not indexed; rename it without the leading dot to index it",
            wrong | {"expected": "a file whose name and folders do not start with '.'"},
        )
    if adapter_name_for(rel, index.settings.extractor) is None:
        readable_types = ", ".join(supported_extensions())
        return error(
            "UnsupportedFormatError",
            f"supported formats: {readable_types}",
            wrong | {"expected": f"one of {readable_types}"},
        )
    if file_name and file_name.strip():
        index.indexer.titles.set(rel, file_name)  # kept by every reindex
    index_now()
    record = index.engine.record(rel)
    if record is None:
        return error("ProcessingError", f"{rel} could not be indexed yet; retry shortly")
    if record.status != FileStatus.OK:
        kind = "ProcessingTimeoutError" if "timeout" in (record.error or "") else "ProcessingError"
        return error(kind, f"{rel}: {record.status}: {record.error}")
    return {
        "status": "success",
        "document_id": record.slug,
        "file_name": file_name or rel.rsplit("/", 1)[-1],
        "processing_stages": record.stages,
        "metadata": {
            "page_count": record.pages,
            "processing_time": round(time.monotonic() - started, 3),
            "file_size": human_size(record.size),
            "language": record.language,
        },
        "message": f"{rel} is indexed: {record.pages} pages searchable as '{record.slug}'",
    }


def _chunks(text: str) -> list[str]:
    """SENTENCES_PER_CHUNK sentences at a time, cut from the text as it is (a Japanese
    sentence after 。 follows with no space, an English one after one space)."""
    flat = " ".join(text.split())
    starts = sorted({0, *(m.end() for m in _SENTENCE_END.finditer(flat))} - {len(flat)})
    bounds = [*starts[::SENTENCES_PER_CHUNK], len(flat)]
    chunks = (flat[a:b].strip() for a, b in zip(bounds, bounds[1:], strict=False))
    return [chunk for chunk in chunks if chunk]


def _content_words(text: str) -> set[str]:
    return {w for w in words(text) if w not in STOP_WORDS and len(w) > 1}


def _passage_words(text: str) -> set[str]:
    """The words of a passage that may meet the question's."""
    return set(query_words(text)) if understanding.ENABLED else _content_words(text)


def _question(query: str, earlier_queries: list[str]) -> tuple[Node, set[str]]:
    """The ranked tree of a question (`pdfindex.search.understand`), the words of the last
    few questions of the session added at a lower weight; and the words a passage should
    hold."""
    if not understanding.ENABLED:  # the ranking as it was (benchmarks/relevance.py)
        wanted = _content_words(query) or set(words(query))
        earlier = set().union(*(_content_words(q) for q in earlier_queries)) - wanted
        terms = [Term(w) for w in sorted(wanted)]
        terms += [Term(w, boost=EARLIER_QUERY_WEIGHT) for w in sorted(earlier)]
        return any_of(terms), wanted
    tree = understanding.understand(query)
    wanted = set(understanding.content_words(query))
    earlier = {w for q in earlier_queries for w in understanding.content_words(q)} - wanted
    if not earlier:
        return tree, wanted
    weight = EARLIER_QUERY_WEIGHT
    later = tuple(replace(understanding.word(w, stem=0.0), boost=weight) for w in sorted(earlier))
    return Or((tree, *later)), wanted


def query_documents(
    index: PdfIndex,
    sessions: SessionStore,
    query: str,
    session_id: str | None = None,
    top_k: int = 5,
    writer: Writer | None = None,
) -> QueryDocumentsResult:
    """The best passages for `query` as `sources`, and an answer: written from them by
    `writer` (a language model) when given and it can, else quoted from them."""
    started = time.monotonic()
    if not 1 <= len(query.strip()) <= 2000:
        return error(
            "ValidationError",
            "query must have 1 to 2,000 characters",
            {"parameter": "query", "expected": "1-2000 characters", "received": len(query)},
        )
    if not 1 <= top_k <= 20:
        return error(
            "ValidationError",
            "top_k must be from 1 to 20",
            {"parameter": "top_k", "expected": "1-20", "received": top_k},
        )
    try:
        session = sessions.get(str(uuid.UUID(session_id))) if session_id else sessions.new()
    except ValueError:
        return error(
            "ValidationError",
            f"session_id {session_id!r} is not a UUID",
            {"parameter": "session_id", "expected": "a UUID", "received": session_id},
        )
    except SessionNotFound as exc:
        return error(
            "SessionNotFoundError",
            str(exc),
            {"parameter": "session_id", "expected": "a live session", "received": session_id},
        )
    if index.pages() == 0:  # counted by the engine, not from every record
        return error("EmptyCorpusError", "no documents are indexed: add PDFs to the files folder")
    try:
        found = rank(index, query, top_k * 4, snippets=False)  # as every front ranks
        asked, hits, terms, ranking = found.query, found.hits, found.terms, found.method
        _, wanted = _question(asked, [])
        topic = topics.of(index, session, asked, [hit.slug for hit in hits])
        if topic.earlier:  # a follow-up: ranked again with the session's words and documents
            tree, _ = _question(asked, list(topic.earlier))
            (_, hits, _), ranking = index.ranked(asked, tree, top_k * 4, snippets=False)
            hits = _with_topic(index, asked, tree, hits, topic.documents, top_k * 2)
    except PdfIndexError as exc:
        return error("ValidationError", str(exc))
    # A passage's share of the question's words: its other forms count (loaded, loading)
    marked = wanted | terms if understanding.ENABLED else wanted
    weights = _weights(topic)
    best = max((h.score for h in hits), default=1.0) or 1.0
    passages = []
    for hit in hits:
        page_score = min(hit.score / best, 1.0)
        weight = weights(hit.slug)
        for number, chunk in enumerate(_chunks(hit.text)):
            overlap = min(1.0, len(_passage_words(chunk) & marked) / max(1, len(wanted)))
            if overlap or by_meaning(ranking):  # hybrid: a page found by meaning counts
                passages.append((weight * (0.5 * page_score + 0.5 * overlap), hit, number, chunk))
    passages.sort(key=lambda p: -p[0])
    top = passages[:top_k]
    titles = _titles(index, {hit.slug for _score, hit, _number, _chunk in top})
    sources = [
        {
            "content": chunk,
            "metadata": {
                "document_id": hit.slug,
                "title": titles.get(hit.slug, hit.slug),
                "page": hit.page,
                "relevance_score": coverage(found.weights, chunk),
                "chunk_index": number,
            },
        }
        for score, hit, number, chunk in top
    ]
    clear = bool(top) and (
        by_meaning(ranking)
        or not found.weights
        or coverage(found.weights, top[0][1].text) >= CLEAR_ANSWER
    )  # found by meaning, or explicit syntax: no word share to judge by
    written = _written(query, top, titles, writer, index.settings.max_response_chars)
    elapsed = time.monotonic() - started
    cited = list(dict.fromkeys(hit.slug for _, hit, _, _ in top))
    sessions.record(session, query, cited, elapsed, topic.state)
    metadata: dict[str, Any] = {"answer_written_by": written[3]}
    if written[4]:
        metadata["note"] = written[4]
    return {
        "status": "success",
        "session_id": session.session_id,
        "query": query,
        "answer": written[0] or _answer(top, marked, clear),
        "sources": sources,
        "query_metadata": {
            "processing_time": round(elapsed, 3),
            "llm_model": written[1] or EXTRACTIVE,
            "total_tokens": written[2],
            "retrieval": (
                "BM25 over page passages: the question's words without function words, "
                "their stems, pages holding more of them first"
                if understanding.ENABLED
                else "BM25 over page passages"
            )
            + ("" if ranking == "bm25" else f"; pages ranked {ranking}"),
            "earlier_queries_used": len(topic.earlier),
            "confidence": found.confidence,
            "clear_answer": clear,
            **({"searched": asked, "corrected": found.corrected} if found.corrected else {}),
            "topic": {"state": topic.state, "documents": list(topic.documents)},
            **metadata,
        },
    }


def _weights(topic: topics.Topic) -> Any:
    """slug -> the weight of its passages: 1 for all in a new topic; in a continued one,
    less for documents off the topic."""
    if topic.state != "continued":
        return lambda slug: 1.0
    focus, cited = set(topic.documents), topic.cited

    def weight(slug: str) -> float:
        if slug in focus:
            return 1.0
        return CITED_WEIGHT if slug in cited else OFF_TOPIC_WEIGHT

    return weight


def _with_topic(
    index: PdfIndex, query: str, tree: Node, hits: list[Any], focus: tuple[str, ...], most: int
) -> list[Any]:
    """`hits` and the best `most` pages of each topic document for the same tree: a
    follow-up's answer may rank low in the library but high in the document it is about."""
    if not focus:
        return hits
    seen = {(h.slug, h.page) for h in hits}
    merged = list(hits)
    for slug in focus:
        (_, found, _), _ = index.ranked(query, tree, most, slug=slug, snippets=False)
        merged += [h for h in found if (h.slug, h.page) not in seen]
        seen.update((h.slug, h.page) for h in found)
    return merged


EXTRACTIVE = "none (extractive answer: quoted passages, no language model)"


def _written(
    query: str,
    top: list[tuple[float, Any, int, str]],
    titles: dict[str, str],
    writer: Writer | None,
    max_chars: int,
) -> tuple[str, str, int, str, str]:
    """(answer, model, tokens, written by, note) from `writer` over the numbered passages;
    ('', '', 0, 'extractive', why) when there is none or it fails (the caller quotes).
    A citation naming no passage is dropped, and the note says so."""
    if writer is None:
        return "", "", 0, "extractive", ""
    if not top:
        return "", "", 0, "extractive", "no passage matched: no model was asked"
    rows = [(hit.slug, titles.get(hit.slug, hit.slug), hit.page, chunk) for _, hit, _, chunk in top]
    asked = answers.prompt(query, rows, max_chars // answers.PROMPT_SHARE)
    try:
        written = writer.write(asked)
    except AnswerNotWritten as exc:
        return "", "", 0, "extractive", f"extractive answer: {writer.via} did not write one: {exc}"
    text, dropped = answers.checked_citations(written.text, asked.passages)
    note = ""
    if dropped:
        numbers = ", ".join(f"[{n}]" for n in dropped)
        note = f"citations {numbers} named no passage (there are {asked.passages}): dropped"
    elif not answers.cited(text):
        note = "the answer cites no passage"
    return text, written.model, written.tokens, writer.via, note


def _answer(top: list[tuple[float, Any, int, str]], wanted: set[str], clear: bool) -> str:
    """The best sentence of each of the top passages, quoted, with its citation; said
    to be only the closest when no page clearly answers (`pdfindex.ranking`)."""
    if not top:
        return "No passage in the library matches this query."
    lines = [] if clear else ["No page clearly answers this; the closest passages:"]
    for _, hit, _, chunk in top[:3]:
        sentences = _SENTENCE_END.split(chunk)
        sentence = max(sentences, key=lambda s: len(_passage_words(s) & wanted))
        lines.append(f'"{sentence.strip()}" [{hit.slug}, p. {hit.page}]')
    return "\n".join(lines)


def list_sessions(
    sessions: SessionStore, budget: int, page: int = 1, page_size: int = PAGE_SIZE
) -> ListSessionsResult:
    """Seed 002's inventory, most recent first, a page at a time (`page`, 1-based, of
    `page_size` sessions); cut to `budget` characters. Only the page's session files are
    read (and, for the statistics, those changed since the last call)."""
    if page < 1 or not 1 <= page_size <= MAX_PAGE_SIZE:
        return error(
            "ValidationError",
            f"page must be 1 or more and page_size from 1 to {MAX_PAGE_SIZE}",
            {
                "parameter": "page" if page < 1 else "page_size",
                "expected": "1 or more" if page < 1 else f"1-{MAX_PAGE_SIZE}",
                "received": page if page < 1 else page_size,
            },
        )
    alive = sessions.live()
    now = time.time()
    chunk = alive[(page - 1) * page_size : page * page_size]
    shown = [s for s in map(sessions.load, chunk) if s is not None]
    rows = [
        {
            "session_id": s.session_id,
            "created_at": iso(s.created_at),
            "last_active_at": iso(s.last_activity),
            "message_count": len(s.queries),
            "document_scope": sorted(s.cited()),
            "metadata": {
                "user_context": "",
                "total_queries": len(s.queries),
                "avg_response_time": s.average_time(),
            },
            "query_count": len(s.queries),
            "recent_queries": [q["query"] for q in s.queries[-3:]],
        }
        for s in shown
    ]
    summaries = sessions.summaries(alive)
    oldest = min(summaries, key=lambda s: s.created_at, default=None)
    busiest = max(summaries, key=lambda s: s.queries, default=None)
    pages = max(1, -(-len(alive) // page_size))
    kept, truncated = fit(rows, items_budget(budget))
    result: dict[str, Any] = {
        "status": "success",
        "sessions": kept,
        "total_count": len(alive),
        "active_sessions": sum(now - e.mtime <= ACTIVE_SECONDS for e in alive),
        "statistics": {
            "oldest_session": oldest.session_id if oldest else None,
            "most_active_session": busiest.session_id if busiest else None,
            "total_queries": sum(s.queries for s in summaries),
        },
        "total_sessions": len(alive),
        "pagination": {
            "page": page,
            "page_size": page_size,
            "total": len(alive),
            "pages": pages,
            "has_next": page < pages,
        },
    }
    if truncated:
        result.update(
            truncated=True,
            note=f"{len(rows) - len(kept)} older sessions of this page left out: "
            "ask for a smaller page_size",
        )
    return result


def _titles(index: PdfIndex, slugs: set[str]) -> dict[str, str]:
    """The titles of the cited documents, one record each (not the whole catalog)."""
    found = {}
    for slug in slugs:
        record = index.engine.record_by_slug(slug)
        if record is not None:
            found[slug] = record.title
    return found
