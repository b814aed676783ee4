"""Models users already have (issue 27, item 5): `semantic_model` = a fastembed model name,
loaded by the real fastembed from its cache; `rerank_model`, a fastembed cross-encoder
re-ordering the best pages; a model that is not there is one clear line.

Offline and real: the caches are laid out by tests/fastembedcache.py from the bundled
MiniLM (and a tiny ONNX cross-encoder whose score is known), HF_HUB_OFFLINE set, so
fastembed never reaches for the network. What a real bge or ms-marco model ranks is not
tested here: no such weights can be had offline."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pdfindex.api import PdfIndex
from pdfindex.errors import ConfigError
from pdfindex.search.understand import understand
from pdfindex.tools import catalog, passages
from pdfindex.tools.sessions import SessionStore
from tests import fastembedcache, pdfgen
from tests.conftest import make_settings
from tests.test_semantic import PAGES, QUESTION, write_corpus

pytest.importorskip("fastembed")
pytest.importorskip("onnx")

from pdfindex.semantic.model import Model, providers  # noqa: E402  (the extra is there)

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
BGE = "BAAI/bge-small-en-v1.5"
RERANKER = "Xenova/ms-marco-MiniLM-L-6-v2"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty fastembed cache of this test's own; no download is ever tried."""
    folder = tmp_path / "fastembed_cache"
    folder.mkdir()
    monkeypatch.setenv("FASTEMBED_CACHE_PATH", str(folder))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    yield folder


def test_a_fastembed_minilm_embeds_as_the_bundled_model(tmp_path: Path, cache: Path) -> None:
    """all-MiniLM-L6-v2 through fastembed (the bundled weights in its cache) gives the
    bundled model's vectors, pages and question alike; the store keys them by its name."""
    fastembedcache.minilm(cache)
    write_corpus(tmp_path / "files")
    index = PdfIndex(make_settings(tmp_path, semantic=True, semantic_model=MINILM))
    try:
        index.reindex()
        semantic = index.semantic
        assert semantic is not None
        assert semantic.model_id == "fastembed-sentence-transformers--all-MiniLM-L6-v2"
        assert semantic.run() == 6
        model, bundled = semantic.model, Model()
        assert type(model).__name__ == "Embedder"
        texts = [page for pages in PAGES.values() for page in pages] + [QUESTION]
        cosines = (model.embed(texts) * bundled.embed(texts)).sum(axis=1)
        assert cosines.min() > 0.999, cosines
        assert float(model.embed_query(QUESTION) @ bundled.embed_query(QUESTION)) > 0.999
        long_page = " ".join(texts) * 20
        assert model.passages(long_page, 2) == bundled.passages(long_page, 2)
        answer = catalog.search_documents(index, QUESTION, limit=2)
        lines = answer.splitlines()
        assert lines[lines.index("[1] TEXT: Page 1") + 1] == "  Document: car", answer
        assert f"Ranking: hybrid (bm25 + {MINILM}, 6 of 6 pages embedded)" in answer
        assert semantic.status()["device"] == providers()[0]
    finally:
        index.close()


def test_bge_small_loads_from_the_cache_and_switching_models_embeds_again(
    tmp_path: Path, cache: Path
) -> None:
    """`semantic_model = "BAAI/bge-small-en-v1.5"` in pdfindex.toml loads through
    fastembed when the model is in its cache (here the MiniLM weights in bge's slot):
    `pdfindex reindex` embeds every page with it, beside the bundled model's vectors."""
    fastembedcache.minilm(cache, BGE)
    write_corpus(tmp_path / "files")
    toml = tmp_path / "pdfindex.toml"
    toml.write_text("semantic = true\nelements = false\n")
    bundled = cli(tmp_path, "reindex")
    assert "semantic: 6 of 6 pages embedded (all-MiniLM-L6-v2)" in bundled.stdout, bundled
    toml.write_text(f'semantic = true\nelements = false\nsemantic_model = "{BGE}"\n')
    switched = cli(tmp_path, "reindex")
    assert switched.returncode == 0, switched.stderr
    assert f"semantic: 6 of 6 pages embedded ({BGE})" in switched.stdout
    index = PdfIndex(make_settings(tmp_path, semantic=True, semantic_model=BGE))
    try:
        semantic = index.semantic
        assert semantic is not None
        assert semantic.plan().pending == []  # every page has its bge vectors
        assert semantic.embedded == 6
        keys = semantic.cache.keys("")
        assert len({key.split("/")[0] for key in keys}) == 2  # each model its own keys
        saved = sorted(p.name for p in (tmp_path / "index" / "semantic").glob("*.json"))
        assert saved == ["all-minilm-l6-v2-int8.json", "fastembed-BAAI--bge-small-en-v1.5.json"]
    finally:
        index.close()


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real CLI in a child process, with this test's environment (cache, offline)."""
    command = [sys.executable, "-m", "pdfindex", *args, "--root", str(root), "--workers", "1"]
    return subprocess.run(command, capture_output=True, text=True, env=dict(os.environ))


@pytest.mark.parametrize(
    ("model", "says"),
    [
        (
            "BAAI/bge-base-en-v1.5",
            "semantic_model = 'BAAI/bge-base-en-v1.5' is not in fastembed's cache {cache} "
            "(HF_HUB_OFFLINE is set): on a machine with network access run python -c",
        ),
        ("nobody/nothing", "no folder of that name under the root, nor a model fastembed"),
    ],
)
def test_a_missing_model_is_one_clear_line(
    tmp_path: Path, cache: Path, model: str, says: str
) -> None:
    """A model fastembed knows but its cache lacks (and that cannot be downloaded), or a
    name it does not know: one line on stderr, no traceback, no fastembed log."""
    write_corpus(tmp_path / "files")
    (tmp_path / "pdfindex.toml").write_text(f'semantic = true\nsemantic_model = "{model}"\n')
    run = cli(tmp_path, "reindex")
    assert run.returncode != 0
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert says.format(cache=cache) in lines[0]
    if "cache" in says:
        assert "FASTEMBED_CACHE_PATH" in lines[0]


def test_without_fastembed_a_model_name_names_the_extra(tmp_path: Path, cache: Path) -> None:
    fastembedcache.minilm(cache, BGE)
    write_corpus(tmp_path / "files")
    (tmp_path / "pdfindex.toml").write_text(f'semantic = true\nsemantic_model = "{BGE}"\n')
    code = (
        "import sys\nsys.modules['fastembed'] = None  # as if the extra were not installed\n"
        "from pdfindex.cli import main\n"
        f"main(['reindex', '--root', {str(tmp_path)!r}])\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode != 0
    last = run.stderr.strip().splitlines()[-1]
    assert last.endswith("needs fastembed (fastembed): pip install -e '.[fastembed]'"), run.stderr


def test_the_bundled_model_never_imports_fastembed(tmp_path: Path) -> None:
    """fastembed (a second or more to import) loads only for a model named in its terms."""
    write_corpus(tmp_path / "files")
    code = (
        "import sys\n"
        "from pdfindex.api import PdfIndex\n"
        "from pdfindex.config import load_settings\n"
        "from pdfindex.tools import catalog\n"
        f"index = PdfIndex(load_settings({{'semantic': True, 'elements': False}}, "
        f"root={str(tmp_path)!r}))\n"
        "index.reindex()\nindex.semantic.run()\n"
        f"print(catalog.search_documents(index, {QUESTION!r}).splitlines()[-1])\n"
        "print('fastembed' in sys.modules, 'loguru' in sys.modules)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    lines = run.stdout.strip().splitlines()
    assert lines[0].startswith("Ranking: hybrid (bm25 + all-MiniLM-L6-v2"), run.stdout + run.stderr
    assert lines[-1] == "False False", run.stdout + run.stderr


# -- re-ranking ---------------------------------------------------------------------

# Each page is about changing tyres; BM25 prefers the ones that say "tyre" most, the
# counting cross-encoder those that say "wheel" most: the orders differ.
TYRES = {
    "a.pdf": ["How to change a tyre: tyre, tyre, tyre, tyre. Loosen the nuts first."],
    "b.pdf": ["Change a tyre on a wheel; the wheel turns, the wheel is balanced."],
    "c.pdf": ["Check each tyre and tyre valve, change it, then look at the wheel."],
    "d.pdf": ["Change the tyre: the wheel, the wheel, the wheel, the wheel and its spare wheel."],
}
BY_WHEELS = ["d", "b", "c", "a"]  # 5, 3, 1 and 0 wheels
TYRE_QUESTION = "How do I change a tyre?"


@pytest.fixture
def reranking(tmp_path: Path, cache: Path) -> Iterator[PdfIndex]:
    fastembedcache.counting_cross_encoder(cache, "wheel")
    for name, pages in TYRES.items():
        pdfgen.write_pdf(tmp_path / "files" / name, pages)
    index = PdfIndex(make_settings(tmp_path, elements=False, rerank_model=RERANKER))
    index.reindex()
    try:
        yield index
    finally:
        index.close()


def documents(answer: str) -> list[str]:
    return [line.split(": ")[1] for line in answer.splitlines() if "  Document: " in line]


def test_the_cross_encoder_orders_bm25s_best_pages(reranking: PdfIndex) -> None:
    """search_documents and query_documents: BM25's pages in the cross-encoder's order
    (here: most "wheel" first), each scored by it; the answer says so."""
    plain = PdfIndex(make_settings(reranking.settings.root, elements=False))  # no rerank_model
    try:
        bm25 = catalog.search_documents(plain, TYRE_QUESTION)
    finally:
        plain.close()
    assert documents(bm25)[0] == "a"
    assert bm25.endswith("Ranking: bm25")
    answer = catalog.search_documents(reranking, TYRE_QUESTION)
    assert documents(answer) == BY_WHEELS, answer
    assert "  Score: 0.99" in answer.split("[2]")[0]  # 5 wheels: the logistic of 5
    assert answer.endswith(f"Ranking: bm25, reranked by {RERANKER} (best 30)")
    sessions = SessionStore(reranking.settings.root / "sessions")
    asked = passages.query_documents(reranking, sessions, TYRE_QUESTION, top_k=2)
    assert asked["sources"][0]["metadata"]["document_id"] == "d"
    assert asked["query_metadata"]["retrieval"].endswith(f"reranked by {RERANKER} (best 30)")


def test_explicit_syntax_keeps_bm25s_order(reranking: PdfIndex) -> None:
    """A prefix (explicit syntax) keeps BM25's order: "tyre" counts, not "wheel"."""
    answer = catalog.search_documents(reranking, "tyr*")
    assert documents(answer)[0] == "a"
    assert answer.endswith("Ranking: bm25")


def test_rerank_follows_the_hybrid_ranking(tmp_path: Path, cache: Path) -> None:
    """With `semantic` on too, the hybrid's best pages are re-ordered; the label names
    both. Only the first DEPTH pages are re-scored."""
    from pdfindex.semantic import rerank

    fastembedcache.counting_cross_encoder(cache, "wheel")
    for name, pages in TYRES.items():
        pdfgen.write_pdf(tmp_path / "files" / name, pages)
    settings = make_settings(tmp_path, elements=False, semantic=True, rerank_model=RERANKER)
    index = PdfIndex(settings)
    try:
        index.reindex()
        assert index.semantic is not None
        index.semantic.run()
        answer = catalog.search_documents(index, TYRE_QUESTION)
        assert documents(answer) == BY_WHEELS, answer
        assert answer.splitlines()[-1].startswith("Ranking: hybrid (bm25 + all-MiniLM-L6-v2")
        assert answer.endswith(f"pages embedded), reranked by {RERANKER} (best 30)")
        assert rerank.DEPTH == 30
        rerank.DEPTH = 2  # the two best hybrid pages only: the rest keep their order
        try:
            (_, hits, _), _ = index.ranked(TYRE_QUESTION, understand(TYRE_QUESTION), 4)
        finally:
            rerank.DEPTH = 30
        assert [hit.score for hit in hits[2:]] == [0.0, 0.0]
        assert hits[0].score >= hits[1].score >= 0.5  # scored by the cross-encoder
    finally:
        index.close()


def test_a_missing_rerank_model_is_one_clear_error(tmp_path: Path, cache: Path) -> None:
    """Its model loads at the first question: a missing one is the same ConfigError at
    each, without trying again."""
    write_corpus(tmp_path / "files")
    index = PdfIndex(make_settings(tmp_path, elements=False, rerank_model=RERANKER))
    try:
        index.reindex()
        for _ in range(2):
            with pytest.raises(ConfigError, match=f"rerank_model = '{RERANKER}' is not in"):
                catalog.search_documents(index, TYRE_QUESTION)
        assert catalog.search_documents(index, '"tyre pressure"').endswith("Ranking: bm25")
    finally:
        index.close()


def test_models_run_on_the_best_provider() -> None:
    """CUDA first where onnxruntime-gpu has it, the CPU always last; the model runs on
    the first, and the library status says which."""
    order = providers()
    assert order[-1] == "CPUExecutionProvider"
    assert order[0] == "CUDAExecutionProvider" or len(order) == 1
    assert Model().device == order[0]
