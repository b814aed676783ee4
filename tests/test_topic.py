"""query_documents sessions keep their topic (issue 27): a follow-up that does not name
its subject is answered from the document the conversation is about; a question that
names another document switches topic. Real PDFs, the real index, the SDK client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pdfindex.models import FileRecord, FileStatus
from pdfindex.tools import topic as topics
from tests import pdfgen
from tests.conftest import make_settings
from tests.mcpclient import InMemory, open_app

# Three small manuals. Alone, "Which options does it take?" finds the options manual
# (every page of it is about options); after a question about the trace package, the
# trace manual's page on its one option is the answer.
TRACE = [
    "The trace package\nThe trace package helps to debug macros: it turns tracing on for a part "
    "of a document only, with traceon and traceoff.",
    "Tracing in detail\nWhile tracing, every macro expansion is written to the log file.",
    "Package options\nThe package takes one option, logonly, which writes the trace to the log "
    "file and not to the terminal.",
]
KEYOPTS = [
    "The keyopts manual\nOptions, options and more options: keyopts declares options with keys.",
    "Declaring options\nEach option takes a value; options without a value take the default.",
    "Processing options\nOptions are processed in the order given; unknown options raise an error.",
]
MARGINS = [
    "The margins package\nThe margins package sets the page margins: left, right, top, bottom.",
    "Setting margins\nGive the margins as options, for example left=2cm; the text width follows.",
]


def write_manuals(root: Path) -> Path:
    files = root / "files"
    pdfgen.write_pdf(files / "trace.pdf", TRACE, title="The trace package")
    pdfgen.write_pdf(files / "keyopts.pdf", KEYOPTS, title="The keyopts manual")
    pdfgen.write_pdf(files / "margins.pdf", MARGINS, title="The margins package")
    return root


@pytest.fixture
def client(tmp_path: Path) -> Iterator[InMemory]:
    with open_app(make_settings(write_manuals(tmp_path))) as app:
        yield InMemory(app)


def ask(client: InMemory, query: str, session_id: str | None = None) -> dict[str, Any]:
    arguments: dict[str, Any] = {"query": query, "top_k": 3}
    if session_id:
        arguments["session_id"] = session_id
    answer = client.call("query_documents", **arguments).structured_content
    assert answer["status"] == "success", answer
    return answer


def first_source(answer: dict[str, Any]) -> tuple[str, int]:
    meta = answer["sources"][0]["metadata"]
    return meta["document_id"], meta["page"]


def test_a_follow_up_is_answered_from_the_conversation_s_document(client: InMemory) -> None:
    alone = ask(client, "Which options does it take?")
    opened = ask(client, "What does the trace package do?")
    follow_up = ask(client, "Which options does it take?", opened["session_id"])
    assert first_source(alone)[0] == "keyopts"  # without the conversation: the wrong manual
    assert first_source(opened)[0] == "trace"
    assert first_source(follow_up) == ("trace", 3)
    topic = follow_up["query_metadata"]["topic"]
    assert topic["state"] == "continued"
    assert topic["documents"][0] == "trace"  # the previous answer's first document
    assert follow_up["query_metadata"]["earlier_queries_used"] == 1


def test_a_question_naming_another_document_switches_topic(client: InMemory) -> None:
    opened = ask(client, "What does the trace package do?")
    cited = {s["metadata"]["document_id"] for s in opened["sources"]}
    switched = ask(client, "How does keyopts process unknown keys?", opened["session_id"])
    meta = switched["query_metadata"]
    assert "keyopts" not in cited
    assert first_source(switched)[0] == "keyopts"
    assert meta["topic"] == {"state": "switched", "documents": []}
    assert meta["earlier_queries_used"] == 0
    # ... and the next follow-up is about the new topic only
    then = ask(client, "Do the options take a value?", opened["session_id"])
    assert then["query_metadata"]["topic"] == {"state": "continued", "documents": ["keyopts"]}
    assert then["query_metadata"]["earlier_queries_used"] == 1
    assert first_source(then) == ("keyopts", 2)


def test_naming_a_cited_document_makes_it_the_topic(client: InMemory) -> None:
    opened = ask(client, "What does the trace package do?")
    cited = [s["metadata"]["document_id"] for s in opened["sources"]]
    again = ask(client, "And the margins package, which options?", opened["session_id"])
    assert cited[0] == "trace"
    assert "margins" in cited  # "package": a weaker source of the first answer
    assert again["query_metadata"]["topic"] == {"state": "continued", "documents": ["margins"]}
    assert first_source(again)[0] == "margins"


def test_names_are_file_name_words_few_share_and_one_title_s_words() -> None:
    """ "latex" (every file name) names nothing; "metapost" (a few) names its files; a
    title's word names its document only when no other title holds it; never "how"."""
    catalog = {
        f"{stem}.pdf": FileRecord(
            f"{stem}.pdf", stem, title, 1, 1, 0.0, "", FileStatus.OK, None, 0.0, "pdfium"
        )
        for stem, title in [
            *(
                (f"latex_pkg{n}_manual", f"How to use pkg{n}: the language guide")
                for n in range(30)
            ),
            ("metapost_mpman", "A user's manual for MetaPost"),
            ("metapost_mpboxes", "Boxes in MetaPost"),
            ("latex_trace", "The trace package, by Frank Mittelbach"),
        ]
    }
    names = topics.document_names(catalog.values())
    assert "latex" not in names
    assert names["metapost"] == ("metapost_mpboxes", "metapost_mpman")
    assert names["mittelbach"] == ("latex_trace",)
    assert "language" not in names  # in thirty titles
    assert "how" not in names


def test_the_first_question_has_no_topic(client: InMemory) -> None:
    answer = ask(client, "What does the trace package do?")
    assert answer["query_metadata"]["topic"] == {"state": "new", "documents": []}


def test_the_topic_survives_a_restart(tmp_path: Path) -> None:
    """The session's cited documents are on disk, in their ranked order."""
    root = write_manuals(tmp_path)
    with open_app(make_settings(root)) as app:
        opened = ask(InMemory(app), "What does the trace package do?")
    with open_app(make_settings(root)) as again:
        follow_up = ask(InMemory(again), "Which options does it take?", opened["session_id"])
    assert first_source(follow_up) == ("trace", 3)
