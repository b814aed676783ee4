"""The CLI through click's runner, against real PDFs and a real index."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from pdfindex.api import PdfIndex
from pdfindex.cli import main
from tests import pdfgen
from tests.conftest import make_settings

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    files = tmp_path / "files"
    files.mkdir()
    pdfgen.write_pdf(
        files / "guide.pdf", ["The transformer architecture\nexplained.", "Second page"]
    )
    pdfgen.write_pdf(files / "notes.pdf", ["Quick brown fox. State of the art."])
    pdfgen.write_corrupt_pdf(files / "broken.pdf")
    return tmp_path


def run(root: Path, *args: str) -> click.testing.Result:
    return CliRunner().invoke(main, ["--root", str(root), "--workers", "2", *args])


def test_reindex_prints_a_summary_line(root: Path) -> None:
    result = run(root, "reindex")
    assert result.exit_code == 0, result.output
    assert re.search(r"added 2, updated 0, moved 0, removed 0, failed 1; 3 pages", result.stdout)
    assert "broken.pdf" in result.stderr
    again = run(root, "reindex", "--json")
    assert json.loads(again.stdout)["unchanged"] == 3
    full = json.loads(run(root, "reindex", "--full", "--json").stdout)
    assert full["parsed"] == 1 and full["from_cache"] == 2  # only the failed file is retried


def test_options_after_the_command_name(root: Path) -> None:
    result = CliRunner().invoke(main, ["reindex", "--root", str(root)])
    assert result.exit_code == 0 and "added 2" in result.stdout


def test_stats_text_and_json(root: Path) -> None:
    run(root, "reindex")
    info = json.loads(run(root, "stats", "--json").stdout)
    assert info["documents"] == 3 and info["pages"] == 3
    assert info["by_status"]["failed"] == 1
    assert info["problems"][0]["path"] == "broken.pdf"
    text = run(root, "stats").stdout
    assert "documents:   3" in text and "broken.pdf" in text


def test_search_kinds_and_exit_codes(root: Path) -> None:
    run(root, "reindex")
    phrase = run(root, "search", '"state of the art"', "--json")
    assert phrase.exit_code == 0
    hits = json.loads(phrase.stdout)["hits"]
    assert [(h["path"], h["page"]) for h in hits] == [("notes.pdf", 1)]
    assert "**" in hits[0]["snippet"]
    assert run(root, "search", "tranformer~1").exit_code == 0
    assert "guide.pdf  page 1" in run(root, "search", "archi*").stdout
    assert run(root, "search", "fox AND NOT transformer").exit_code == 0
    none = run(root, "search", "zebra")
    assert none.exit_code == 1 and "0 of 0 pages" in none.stdout
    only = json.loads(run(root, "search", "page OR fox", "--doc", "guide", "--json").stdout)
    assert {h["path"] for h in only["hits"]} == {"guide.pdf"}
    exact = run(root, "search", "architecture explained", "--exact", "--json")
    (match,) = json.loads(exact.stdout)["matches"]
    assert (match["path"], match["page"]) == ("guide.pdf", 1)
    missing = run(root, "search", "architecture zebra", "--exact")
    assert missing.exit_code == 1 and "no exact occurrence" in missing.stderr


def test_extract_prints_pages(root: Path) -> None:
    run(root, "reindex")
    result = run(root, "extract", "guide", "--pages", "2")
    assert (
        result.exit_code == 0
        and "Second page" in result.stdout
        and "transformer" not in result.stdout
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", "   "], "query is empty"),
        (["search", "x" * 2001], "limit is 2000"),
        (["search", "fox", "--limit", "0"], "limit must be"),
        (["search", "fox", "--doc", "nope"], "no indexed document"),
        (["search", "fox", "--doc", "../../etc/passwd"], "outside the files folder"),
        (["extract", "guide", "--pages", "9"], "pages 1-2"),
        (["--files-dir", "/nonexistent/folder", "reindex"], "does not exist"),
        (["--timeout", "-1", "reindex"], "must be positive"),
    ],
)
def test_errors_are_one_line_and_exit_2(root: Path, args: list[str], message: str) -> None:
    run(root, "reindex")
    result = run(root, *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_locked_index_is_reported_clearly(root: Path) -> None:
    run(root, "reindex")
    (root / "files" / "new.pdf").write_bytes((root / "files" / "notes.pdf").read_bytes())
    index = PdfIndex(make_settings(root))
    with index.engine.writer(timeout=1):
        result = CliRunner().invoke(
            main, ["--root", str(root), "reindex"], env={"PDFINDEX_LOCK_TIMEOUT": "0.2"}
        )
    index.close()
    assert result.exit_code == 2 and "another pdfindex process is writing" in result.stderr


def test_environment_and_toml_configuration(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = root / "elsewhere"
    other.mkdir()
    pdfgen.write_pdf(other / "x.pdf", ["configured folder"])
    (root / "pdfindex.toml").write_text('files_dir = "elsewhere"\n')
    assert "added 1" in run(root, "reindex").stdout
    monkeypatch.setenv("PDFINDEX_FILES_DIR", str(root / "files"))
    assert "added 2" in run(root, "reindex").stdout  # env beats the toml file


def test_every_command_has_help_and_a_readme_section() -> None:
    readme = README.read_text()
    for name in main.commands:
        result = CliRunner().invoke(main, [name, "--help"])
        assert result.exit_code == 0 and "Example" in result.stdout, name
        assert f"pdfindex {name}" in readme, name
