"""`pdfindex search` as a whole process starts fast: it loads what a search uses and
nothing of indexing, extraction, the MCP and web servers, or the page workers. The real
CLI in a fresh interpreter over a real index; what it loaded is read from sys.modules
(no timing: the machine's load would make one flaky)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from pdfindex import memory
from pdfindex.api import PdfIndex
from pdfindex.cli import main
from tests import pdfgen
from tests.conftest import ENGINE, make_settings

# Neither pdfindex's packages nor the libraries that only indexing, serving, rendering or
# a word no page holds need (rapidfuzz: suggestions; ctypes: trimming a lasting heap).
NOT_LOADED = (
    "pdfindex.indexer",
    "pdfindex.extract",
    "pdfindex.workers",
    "pdfindex.names",
    "pdfindex.search.exact",
    "pdfindex.server",
    "pdfindex.tools",
    "pdfindex.web",
    "pdfindex.semantic",
    "pdfindex.logs",
    "pypdfium2",
    "pdfminer",
    "PIL",
    "mcp",
    "starlette",
    "uvicorn",
    "watchdog",
    "numpy",
    "onnxruntime",
    "rapidfuzz",
    "multiprocessing",
    "ctypes",
    "tomllib",  # the root has no pdfindex.toml
    "logging",  # nothing to log in a search (the whoosh library loads it itself)
)


def not_loaded() -> tuple[str, ...]:
    """NOT_LOADED but what the engine of this pass loads itself."""
    return NOT_LOADED if ENGINE["name"] == "tantivy" else NOT_LOADED[:-1]


RUN = """
import json, sys
from pdfindex.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
unbuilt = [
    name for name, command in main.commands.items()
    if any(not hasattr(p, "opts") for p in command._params)
]
print(json.dumps({"code": code, "modules": sorted(sys.modules), "unbuilt": unbuilt}),
      file=sys.stderr)
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("startup")
    pdfgen.write_pdf(root / "files" / "layout.pdf", ["Page margins", "Hyphenation rules"])
    pdfgen.write_pdf(root / "files" / "floats.pdf", ["Floats keep their order"])
    index = PdfIndex(make_settings(root))
    index.reindex()
    index.close()
    yield root


def search(root: Path, *args: str) -> dict[str, object]:
    """`pdfindex search ARGS` in a fresh interpreter: exit code, every module it
    loaded, the commands whose setting flags were never built."""
    argv = ["search", *args, "--root", str(root), "--engine", ENGINE["name"]]
    done = subprocess.run(
        [sys.executable, "-c", RUN, *argv], capture_output=True, text=True, timeout=120
    )
    report: dict[str, object] = json.loads(done.stderr.strip().splitlines()[-1])
    report["stdout"] = done.stdout
    return report


def loaded(modules: object, names: tuple[str, ...]) -> list[str]:
    assert isinstance(modules, list)
    return sorted(m for m in modules if m.split(".")[0] in names or m.startswith(names))


def test_a_search_loads_nothing_of_indexing_serving_or_extraction(root: Path) -> None:
    report = search(root, "hyphenation")
    assert report["code"] == 0
    assert "layout.pdf  page 2" in str(report["stdout"])  # it did search
    assert loaded(report["modules"], not_loaded()) == []
    # Only the command that ran (and the group) built its setting flags.
    assert set(report["unbuilt"]) == set(main.commands) - {"search"}  # type: ignore[arg-type]


def test_a_word_no_page_holds_loads_the_suggestions_only(root: Path) -> None:
    """The typo path is the one to load rapidfuzz, and it still finds its correction."""
    report = search(root, "hyphenatoin")
    assert report["code"] == 0
    assert "layout.pdf  page 2" in str(report["stdout"])  # searched as "hyphenation"
    assert "rapidfuzz" in loaded(report["modules"], ("rapidfuzz",))
    others = tuple(name for name in not_loaded() if name != "rapidfuzz")
    assert loaded(report["modules"], others) == []


def test_one_shot_commands_leave_memory_trimming_on_in_process(root: Path) -> None:
    """search skips trimming the heap (its process ends), but a process that runs the
    CLI in-process (tests, scripts) gets it back when the command ends."""
    assert memory._trim
    runner = CliRunner()
    result = runner.invoke(
        main, ["search", "hyphenation", "--root", str(root), "--engine", ENGINE["name"]]
    )
    assert result.exit_code == 0, result.output
    assert memory._trim


def test_the_start_up_benchmark_times_a_search_and_its_imports(root: Path, tmp_path: Path) -> None:
    """`python -m benchmarks.cli_startup` on a real root, once: a row per command with
    its CPU time, and the search's import table."""
    if ENGINE["name"] != "tantivy":
        pytest.skip("it times the default engine's CLI: one pass is enough")
    out = tmp_path / "startup.md"
    repo = Path(__file__).resolve().parents[1]
    args = ["--runs", "1", "--query", "hyphenation", "--top", "3", "--out", str(out)]
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.cli_startup", str(root), *args, "--tree", f"a={repo}"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=repo,
    )
    assert done.returncode == 0, done.stderr
    rows = {line.split("|")[1].strip(): line for line in out.read_text().splitlines()[4:7]}
    assert set(rows) == {"`python -c pass`", "`pdfindex --help`", "`pdfindex search hyphenation`"}
    cpu = float(rows["`pdfindex search hyphenation`"].split("|")[-2])
    assert cpu > 0
    table = out.read_text().partition("Imports of the first search")[2]
    assert len([line for line in table.splitlines() if line.startswith("| `")]) == 3  # --top
