"""Shared fixtures: real PDFs generated once per session, settings in temporary folders;
every test runs without the developer's PDFINDEX_* settings and fails if it leaks a thread."""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pdfindex.api import PdfIndex
from pdfindex.config import SETTINGS, Settings, load_settings
from pdfindex.engine import engines
from tests import pdfgen, pgserver

HYPHEN_TEXT = ("The transformer", "architecture", 8)  # -> "architec-" / "ture"
ENV_PREFIX = "PDFINDEX_"
ENGINE = {"name": SETTINGS["engine"].default}  # the engine this pass of the suite runs on
THREAD_GRACE = 10.0  # seconds a thread may take to finish after the test that started it


def _drop_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in os.environ if n.startswith(ENV_PREFIX)]:
        monkeypatch.delenv(name)


@pytest.fixture(scope="session", autouse=True)
def _no_settings_from_the_environment() -> Iterator[None]:
    """Session and module fixtures (built before any function fixture) never read the
    developer's PDFINDEX_* settings either; they are back once the session ends."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        _drop_settings(monkeypatch)
        yield


# The postgres pass runs only these modules: those whose outcome depends on the engine
# (a full third pass would take CI past its time budget; the others test code above the
# engine, which the embedded passes cover).
POSTGRES_MODULES = {
    "test_cjk.py",
    "test_formats.py",  # every format through the postgres engine too
    "test_index.py",
    "test_incremental.py",
    "test_tools.py",
    "test_visual.py",
    "test_postgres.py",
    "test_postgres_grams.py",
    "test_sources.py",
    "test_folders.py",  # several folders as sources of one library
    "test_ranking.py",  # word counts, corrections and confidence from each engine
}
# the postgres engine's own tests
POSTGRES_ONLY = {"test_postgres.py", "test_postgres_grams.py", "test_sources.py"}
POSTGRES: dict[str, pgserver.PgServer | None] = {"server": None}  # the postgres pass's
DATABASES: dict[Path, str] = {}  # project root -> its database (postgres pass)


# Run in the default engine's pass only (CI's time budget): modules that do not depend on
# the engine (text functions, conversion, the README, the import contract, the benchmark
# harness), and slow tests whose engine part other tests cover (a full disk while the text
# cache is written, and under serve; the SIGKILL loop, which benchmarks.reliability runs on
# every embedded engine).
ONE_PASS = {
    "test_exact_grams.py",  # Tantivy's n-gram fields, opened by name
    "test_phrase_pairs.py",  # Tantivy's pair field, opened by name
    "test_tantivy_queries.py",  # Tantivy's compiled queries, opened by name
    "test_typo_words.py",  # the vocabulary, and Tantivy's typos, opened by name
    "test_places.py",  # Tantivy's places, opened by name
    "test_a_refill_from_the_cache_commits_every_so_many_pages",  # Tantivy's segments
    "test_budget_fit.py",  # answer sizes, before any engine
    "test_textmatch.py",
    "test_text.py",
    "test_glyphs.py",  # extraction, and exact search of the stored text
    "test_convert.py",
    "test_architecture.py",
    "test_hostile_regex.py",  # the pattern check is before any engine is asked
    "test_slow_files.py",  # the extraction pool and its budgets, whatever the engine
    "test_memory_caps.py",
    "test_readme.py",
    "test_cli_terminal.py",  # the terminal's width, whatever the engine
    "test_resident.py",  # the CLI handing a search over, whatever the engine
    "test_web_page.py",  # the page in a browser: above the tools, whatever the engine
    "test_benchmarks_smoke.py",
    "test_million.py",  # benchmarks.million on tantivy, whatever the pass's engine
    "test_semantic.py",  # the embeddings and their fusion do not depend on the engine
    "test_titles.py",  # a title is chosen from the extraction, before any engine
    "test_fastembed.py",  # nor do the models from fastembed's cache and the re-ranking
    "test_postgres_replica.py",  # its own primary and standby, whatever the pass's engine
    "test_db_errors.py",  # its own server, whatever the pass's engine
    "test_web_mcp.py",  # HTTP and stdio compared on one engine: the transport, not the engine
    "test_web_security.py",  # Host, Origin, token, rate limit: before any engine is asked
    "test_a_full_disk_under_serve_is_one_line_in_the_status_and_the_log",
    "test_sigkill_loop_during_reindex_ends_equal_to_a_fresh_build",
    # A format's or archive's guards, and a custom program's limits, act before any engine:
    "test_a_zip_bomb_docx_is_refused_before_it_is_unpacked",
    "test_xml_entities_are_never_expanded_nor_fetched",
    "test_a_row_of_a_million_repeated_cells_stays_small",
    "test_parts_are_cut_between_paragraphs",
    "test_a_hostile_archive_fails_clearly_within_its_budget",
    "test_no_shell_sees_the_arguments_or_a_file_name",
    "test_a_program_past_its_limits_fails_its_file_only",
    "test_a_wrong_declaration_is_a_clear_config_error",
    "test_custom_adapters_come_from_pdfindex_toml_only",
    "test_an_unreachable_llm_url_falls_back_with_why",
}


def _one_pass_only(item: pytest.Item, params: dict[str, object]) -> bool:
    name = getattr(item, "originalname", item.name)
    return item.path.name in ONE_PASS or name in ONE_PASS or params.get("filled_by") == "text cache"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The postgres pass: only POSTGRES_MODULES; POSTGRES_ONLY: only in that pass;
    ONE_PASS: only in the default engine's pass."""
    kept, dropped = [], []
    for item in items:
        callspec = getattr(item, "callspec", None)
        params = callspec.params if callspec is not None else {}
        engine = params.get("index_engine", SETTINGS["engine"].default)
        postgres = engine == "postgres"
        in_list = item.path.name in POSTGRES_MODULES
        if postgres != in_list and (postgres or item.path.name in POSTGRES_ONLY):
            dropped.append(item)
        elif engine != SETTINGS["engine"].default and _one_pass_only(item, params):
            dropped.append(item)
        else:
            kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture(scope="session", autouse=True, params=engines())
def index_engine(request: pytest.FixtureRequest) -> Iterator[str]:
    """The whole suite runs once per index engine. pytest runs every test of one engine,
    then every test of the next; module fixtures are built anew for each, and read the
    engine through make_settings (or PDFINDEX_ENGINE, for the CLI and `serve`). The
    postgres pass starts a throwaway PostgreSQL (tests/pgserver.py), or skips."""
    ENGINE["name"] = request.param
    if request.param == "postgres":
        try:
            POSTGRES["server"] = pgserver.start_server()
        except pgserver.Unavailable as exc:
            ENGINE["name"] = SETTINGS["engine"].default
            pytest.skip(f"PostgreSQL cannot be started here: {exc}")
    yield request.param
    if POSTGRES["server"] is not None:
        POSTGRES["server"].stop()
        POSTGRES["server"] = None
        DATABASES.clear()
    ENGINE["name"] = SETTINGS["engine"].default


def database_for(root: Path) -> str:
    """The database of a project root in the postgres pass (one per root, made on first
    use), else ''."""
    server = POSTGRES["server"]
    if ENGINE["name"] != "postgres" or server is None:
        return ""
    if root not in DATABASES:
        DATABASES[root] = server.new_database()
    return DATABASES[root]


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Tests never read PDFINDEX_* settings (set by the developer or left by an earlier
    test) nor their current folder; PDFINDEX_ENGINE names this pass's engine (and in the
    postgres pass PDFINDEX_DATABASE_URL the test's own database, also make_settings's for
    tmp_path, dropped after the test)."""
    _drop_settings(monkeypatch)
    monkeypatch.delenv("COLUMNS", raising=False)  # the CLI fits its output to it
    monkeypatch.setenv(f"{ENV_PREFIX}ENGINE", ENGINE["name"])
    monkeypatch.chdir(tmp_path)
    url = database_for(tmp_path)
    if url:
        monkeypatch.setenv(f"{ENV_PREFIX}DATABASE_URL", url)
    yield
    server = POSTGRES["server"]
    if url and server is not None:
        DATABASES.pop(tmp_path, None)
        server.drop_database(url)


@pytest.fixture(autouse=True)
def _no_leaked_threads() -> Iterator[None]:
    """Fail a test that leaves a thread running: one alive after the test (and its
    function fixtures) that was not alive when it started.

    Set up after every session and module fixture (pytest builds wider scopes first), so
    their long-lived threads (a module's open AppContext: writer and watcher) count as
    already there. A thread that is stopping gets THREAD_GRACE seconds: `join` waits on the
    thread's own lock, no polling. pytest-timeout's timer (method "thread") is started
    before and cancelled after this fixture, and AnyIO's worker threads stop once their
    `anyio.run` returns: both need nothing special.
    """
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + THREAD_GRACE
    for thread in [t for t in threading.enumerate() if t not in before]:
        thread.join(max(0.0, deadline - time.monotonic()))
    leaked = [t for t in threading.enumerate() if t not in before]
    assert not leaked, f"threads left running: {leaked}"


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder of every kind of PDF the engine must handle."""
    folder = tmp_path_factory.mktemp("corpus")
    pdfgen.write_pdf(
        folder / "multi.pdf",
        [
            "First page about transformer\narchitecture and attention.",
            "Second page: the quick brown fox.\nState of the art results.",
            "Third page mentions c++ and e.g. 3.14 and naïve café in Zürich.",
        ],
        title="Multi Page Test",
        author="Tester",
    )
    pdfgen.write_pdf(folder / "unicode.pdf", ["ﬁnancial ﬂow at the Straße\nΣίσυφος ελληνικά"])
    pdfgen.write_hyphenated_pdf(
        folder / "hyphen.pdf", "The transformer", "architecture", 8, "is explained here."
    )
    pdfgen.write_encrypted_pdf(folder / "open-encrypted.pdf", ["secret but open"], user_password="")
    pdfgen.write_encrypted_pdf(folder / "locked.pdf", ["locked text"], user_password="pw123")
    pdfgen.write_corrupt_pdf(folder / "corrupt.pdf")
    pdfgen.write_image_only_pdf(folder / "scan.pdf")  # read by OCR
    pdfgen.write_pdf(folder / "blank.pdf", [""])  # nothing to read: stays empty
    (folder / "sub").mkdir()
    pdfgen.write_pdf(folder / "sub" / "nested doc.pdf", ["Nested document in a sub-folder."])
    pdfgen.write_large_pdf(folder / "large.pdf", 320)
    return folder


def make_settings(root: Path, **overrides: object) -> Settings:
    (root / "files").mkdir(parents=True, exist_ok=True)
    values = {"workers": 2, "timeout": 60.0, "lock_timeout": 2.0, "engine": ENGINE["name"]}
    values["database_url"] = database_for(root) or None  # the postgres pass
    values.update(overrides)
    return load_settings(values, root=root)


@pytest.fixture
def files_root(tmp_path: Path, corpus: Path) -> Path:
    """A project root whose files/ holds a copy of the corpus."""
    shutil.copytree(corpus, tmp_path / "files")
    return tmp_path


@pytest.fixture(scope="module")
def indexed(
    tmp_path_factory: pytest.TempPathFactory, corpus: Path, index_engine: str
) -> Iterator[PdfIndex]:
    """A built index over the corpus, shared by read-only tests of a module."""
    root = tmp_path_factory.mktemp("root")
    shutil.copytree(corpus, root / "files")
    index = PdfIndex(make_settings(root))
    index.reindex()
    yield index
    index.close()
