"""Exact search through Tantivy's n-gram fields equals a brute-force scan, on every path the
candidates take: phrases of chunks from the start (few pages hold the n-grams), pages read
in order as they come, and the switch from the one to the other part-way (issue 30)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pdfindex.config import index_settings
from pdfindex.engine import open_engine
from pdfindex.engine.tantivy import candidates
from pdfindex.engine.tantivy.schema import FORMAT_VERSION
from pdfindex.models import FileRecord
from pdfindex.search.exact import exact_search
from pdfindex.text.index import index_text
from tests.brute import brute_force

WORDS = ["note", "that", "the", "page", "margins", "bounding", "box", "e-mail", "日本", "語"]
BREAKS = [" ", " ", " ", "\n", "-\n", "  \t", " \n "]


def page(rng: random.Random) -> str:
    return "".join(rng.choice(WORDS) + rng.choice(BREAKS) for _ in range(rng.randint(0, 40)))


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, list[list[str]]]:
    rng = random.Random(30)
    docs = [[page(rng) for _ in range(rng.randint(1, 12))] for _ in range(30)]
    folder: Path = tmp_path_factory.mktemp("grams")
    engine = open_engine(index_settings(folder, "tantivy"))
    with engine.writer(timeout=1) as writer:
        for n, pages in enumerate(docs):
            record = FileRecord(
                f"d{n:02d}.pdf", f"d{n:02d}", "t", len(pages), 1, 0.0, "0", "ok", None, 0.0, "x"
            )
            writer.add_file(record, pages, [index_text(p) for p in pages])
    return engine, docs


QUERIES = [
    "note that",
    "Note That the",
    "page margins",
    "bounding box",
    "margins bounding",
    "e-mail",
    "email",
    "mail note",
    "that the page",
    "日本語",
    "日本 語",
    "the the the the",
    "absent words here",
    "ote tha",
]


@pytest.mark.parametrize(
    "mode", ["phrases first", "in order", "switch part-way", "many by their rarest n-gram"]
)
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=st.sampled_from(QUERIES), limit=st.sampled_from([1, 3, 10, 1000]))
def test_exact_equals_brute_force_on_each_candidate_path(
    library: tuple[object, list[list[str]]],
    mode: str,
    query: str,
    limit: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine, docs = library
    up_to, after = {"phrases first": (10**9, 10**9), "in order": (0, 10**9)}.get(mode, (0, 5))
    if mode == "many by their rarest n-gram":  # not counted: taken as many, switching
        up_to, after = 10**9, 5
        monkeypatch.setattr(candidates, "COUNTED_UP_TO", 0)
    monkeypatch.setattr(candidates, "PHRASES_UP_TO", up_to)
    monkeypatch.setattr(candidates, "SWITCH_AFTER", after)
    monkeypatch.setattr(candidates, "FIRST_BATCH", 2)
    expected = [
        (f"d{n:02d}.pdf", p, s)
        for n, pages in enumerate(docs)
        for p, text in enumerate(pages, 1)
        for s, _ in brute_force(text, query)
    ]
    matches, more = exact_search(engine, query, limit=limit, context_length=0)  # type: ignore[arg-type]
    assert [(m.path, m.page, m.start) for m in matches] == expected[:limit]
    assert more == (len(expected) > limit)


def test_an_index_of_the_format_before_the_n_grams_is_refilled_when_opened(
    tmp_path: Path,
) -> None:
    """A search right after the upgrade answers from the extraction cache, not from an
    index started empty."""
    from pdfindex.api import PdfIndex
    from tests import pdfgen
    from tests.conftest import make_settings

    pdfgen.write_pdf(tmp_path / "files" / "a.pdf", ["the bounding box of a node", "other"])
    index = PdfIndex(make_settings(tmp_path, engine="tantivy"))
    index.reindex()
    index.close()
    (tmp_path / "index" / "tantivy" / "pdfindex-format.json").write_text('{"format": 6}')
    index = PdfIndex(make_settings(tmp_path, engine="tantivy"))
    try:
        assert index.search("bounding")[0] == 1
        assert len(index.exact("bounding box")[0]) == 1
        written = (tmp_path / "index" / "tantivy" / "pdfindex-format.json").read_text()
        assert f'"format": {FORMAT_VERSION}' in written
    finally:
        index.close()
