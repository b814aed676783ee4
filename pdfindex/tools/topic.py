"""What a query_documents follow-up is about: the session's topic.

A follow-up ("Which options does it take?") rarely repeats its subject; the session's
earlier turn named it. So a question that names no other document continues the topic:
the document the previous answer cited first is searched on its own as well, other
documents' passages count less, and the topic's earlier questions lend their key words
at a lower weight. A question that names another document, and finds it first on its
own ("And how does the geometry package set margins?"), switches topic: it is ranked
on its own, and opens a topic of its own. A document is named by a word of its file
name or title that few documents share (`document_names`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pdfindex.text.stopwords import FUNCTION_WORDS
from pdfindex.text.words import query_words

if TYPE_CHECKING:
    from pdfindex.api import PdfIndex
    from pdfindex.models import FileRecord
    from pdfindex.tools.sessions import Session

FOCUS_DOCUMENTS = 1  # documents of the previous answer that a follow-up searches
EARLIER_TURNS = 3  # earlier questions whose key words a follow-up carries
# A word of file names names the documents that hold it when at most this share of the
# library's (or 3) hold it ("metapost" of a few, not "latex"); a word of titles, only
# when one document's title holds it ("language" is in every babel manual's title).
FILE_NAME_SHARE = 0.1
AMONG_FIRST = 3  # a switch: a named document among the question's first documents alone
_NAME_PART = re.compile(r"[^\W\d_]{3,}")
NAMES = "topic.names"  # PdfIndex.lagging's key of document_names

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Topic:
    """How a question stands to its session."""

    state: str  # "new" (first question), "continued" or "switched"
    documents: tuple[str, ...]  # slugs searched on their own and boosted
    earlier: tuple[str, ...]  # earlier questions whose key words join the query
    cited: frozenset[str]  # what the topic's earlier answers cited
    named: tuple[str, ...]  # slugs the question names


def of(index: PdfIndex, session: Session, query: str, alone: list[str]) -> Topic:
    """The topic of `query` in `session`; `alone` holds the documents of the question's
    own best pages (ranked alone), best first. The question switches topic when one of
    its first AMONG_FIRST documents is one it names and the previous answer did not
    cite: a name alone could be a common word ("options" is also a package's name).
    Naming a document the previous answer cited makes it the topic's document."""
    names = index.lagging(NAMES, document_names)  # a new file's name: a moment late
    named = tuple(dict.fromkeys(s for w in query_words(query) for s in names.get(w, ())))
    if not session.queries:
        return Topic("new", (), (), frozenset(), named)
    last = session.queries[-1].get("cited", [])
    first = list(dict.fromkeys(alone))[:AMONG_FIRST]
    if any(slug in named and slug not in last for slug in first):
        return Topic("switched", (), (), frozenset(), named)
    focus = [slug for slug in named if slug in last] or last  # named again: that one
    turns = since_switch(session.queries)[-EARLIER_TURNS:]
    earlier = tuple(q["query"] for q in turns)
    cited = frozenset(slug for q in turns for slug in q.get("cited", []))
    return Topic("continued", tuple(focus[:FOCUS_DOCUMENTS]), earlier, cited, named)


def warm(index: PdfIndex) -> None:
    """Find the document names ahead of the first question (a serving process, once its
    start-up scan is done); a failure leaves them to that question."""
    try:
        index.lagging(NAMES, document_names)
    except Exception:  # the index closed meanwhile: the first question finds them
        log.debug("finding the document names failed", exc_info=True)


def since_switch(queries: list[dict]) -> list[dict]:
    """The session's queries of its current topic: from the last one that opened it."""
    start = max((n for n, q in enumerate(queries) if q.get("topic") == "switched"), default=0)
    return queries[start:]


def document_names(records: Iterable[FileRecord]) -> dict[str, tuple[str, ...]]:
    """Word -> the slugs it names: a word of their file names that few documents' file
    names hold, or a word of one document's title only; never a function word. One pass
    over the records, which the engine decodes one at a time."""
    in_names: dict[str, set[str]] = {}
    in_titles: dict[str, set[str]] = {}
    count = 0
    for record in records:
        count += 1
        if record.slug:
            stem = record.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
            for holders, text in ((in_names, stem), (in_titles, record.title or "")):
                for part in _NAME_PART.findall(text.replace("_", " ").lower()):
                    holders.setdefault(part, set()).add(record.slug)
    most = max(3, int(FILE_NAME_SHARE * count))
    names = {w: s for w, s in in_titles.items() if len(s) == 1}
    names |= {w: s for w, s in in_names.items() if len(s) <= most}
    return {w: tuple(sorted(s)) for w, s in names.items() if w not in _FUNCTION_WORDS}


_FUNCTION_WORDS = frozenset().union(*FUNCTION_WORDS.values())
