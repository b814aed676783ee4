"""The CLI through click's runner, against real PDFs and a real index."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from pdfindex.api import PdfIndex
from pdfindex.cli import main
from pdfindex.config import EVERY_COMMAND, SETTINGS
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
    assert full["parsed"] == 1
    assert full["from_cache"] == 2


def test_options_after_the_command_name(root: Path) -> None:
    result = CliRunner().invoke(main, ["reindex", "--root", str(root)])
    assert result.exit_code == 0
    assert "added 2" in result.stdout


def test_stats_text_and_json(root: Path) -> None:
    run(root, "reindex")
    info = json.loads(run(root, "stats", "--json").stdout)
    assert info["documents"] == 3
    assert info["pages"] == 3
    assert info["by_status"]["failed"] == 1
    assert info["problems"][0]["path"] == "broken.pdf"
    text = run(root, "stats").stdout
    assert "documents:   3" in text
    assert "broken.pdf" in text


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
    assert none.exit_code == 1
    assert "0 of 0 pages" in none.stdout
    only = json.loads(run(root, "search", "page OR fox", "--doc", "guide", "--json").stdout)
    assert {h["path"] for h in only["hits"]} == {"guide.pdf"}
    exact = run(root, "search", "architecture explained", "--exact", "--json")
    (match,) = json.loads(exact.stdout)["matches"]
    assert (match["path"], match["page"]) == ("guide.pdf", 1)
    missing = run(root, "search", "architecture zebra", "--exact")
    assert missing.exit_code == 1
    assert "no exact occurrence" in missing.stderr


def test_extract_prints_pages(root: Path) -> None:
    run(root, "reindex")
    result = run(root, "extract", "guide", "--pages", "2")
    assert result.exit_code == 0
    assert "Second page" in result.stdout
    assert "transformer" not in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", "   "], "query is empty"),
        (["search", "x" * 2001], "limit is 2000"),
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
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_locked_index_is_reported_clearly(root: Path) -> None:
    run(root, "reindex")
    (root / "files" / "new.pdf").write_bytes((root / "files" / "notes.pdf").read_bytes())
    index = PdfIndex(make_settings(root))
    with index.engine.writer(timeout=1):
        result = CliRunner().invoke(
            main, ["--root", str(root), "reindex"], env={"PDFINDEX_LOCK_TIMEOUT": "0.2"}
        )
    index.close()
    assert result.exit_code == 2
    assert "another pdfindex process is writing" in result.stderr


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
        assert result.exit_code == 0, name
        assert "Example" in result.stdout, name
        assert f"pdfindex {name}" in readme, name


def test_setting_flags_come_from_the_settings_table() -> None:
    """Each setting's flag is on the commands its row names (every command's before and
    after the command name), with the row's help and default; the others have none."""
    commands = {"": main, **main.commands}
    for row in SETTINGS.values():
        for name, command in commands.items():
            options = {p.name: p for p in command.params}
            wanted = row.flag in (EVERY_COMMAND, name) and bool(row.flag)
            assert (row.name in options) == wanted, (row.name, name or "pdfindex")
            if wanted:
                help_text = options[row.name].help or ""
                assert help_text.startswith(row.help.replace("`", "")), (row.name, name)
                assert row.shown_default in help_text, (row.name, name)


def test_every_command_printing_json_takes_the_same_json_flag() -> None:
    printing = {"reindex", "stats", "list", "search", "extract"}
    for name, command in main.commands.items():
        found = [p for p in command.params if p.name == "as_json"]
        assert bool(found) == (name in printing), name
        assert all(p.opts == ["--json"] and p.help == "Print as JSON." for p in found), name


def test_limit_range_is_checked_and_shown_in_help(root: Path) -> None:
    result = run(root, "search", "fox", "--limit", "0")
    assert result.exit_code == 2
    assert "1<=x<=1000" in result.stderr
    assert "1<=x<=1000" in run(root, "search", "--help").stdout


def _pdfindex(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real `pdfindex` process (serve and watch install signal handlers)."""
    return subprocess.run(
        [sys.executable, "-m", "pdfindex.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


COMMANDS = [
    ["serve"],
    ["watch"],
    ["reindex"],
    ["search", "fox"],
    ["stats"],
    ["list"],
    ["extract", "guide"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_missing_root_or_files_folder_is_one_line_and_creates_nothing(
    tmp_path: Path, command: list[str]
) -> None:
    nowhere = tmp_path / "nonexistent"
    missing = _pdfindex("--root", str(nowhere), *command, cwd=tmp_path)
    assert missing.returncode == 2, missing.stderr
    assert "does not exist" in missing.stderr
    assert missing.stderr.count("\n") == 1
    assert "Traceback" not in missing.stderr
    assert missing.stdout == ""
    assert not nowhere.exists()
    # Run inside a files folder (no files/ under it): nothing is created there either.
    inside = tmp_path / "project" / "files"
    inside.mkdir(parents=True)
    result = _pdfindex(*command, cwd=inside)
    assert result.returncode == 2, result.stderr
    assert "files folder" in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    assert list(inside.iterdir()) == []


def test_an_empty_index_says_how_to_fill_it(root: Path) -> None:
    result = run(root, "search", "fox")
    assert result.exit_code == 1
    assert "0 pages indexed" in result.stderr
    assert "pdfindex reindex" in result.stderr
    assert "pdfindex reindex" in run(root, "list").stderr
    assert "pdfindex reindex" in run(root, "stats").stderr
    run(root, "reindex")
    assert "0 pages indexed" not in run(root, "search", "zebra").stderr


def test_list_shows_slug_pages_and_status(root: Path) -> None:
    (root / "files" / "sub").mkdir()
    pdfgen.write_pdf(root / "files" / "sub" / "Field Notes.pdf", ["one", "two"])
    run(root, "reindex")
    rows = json.loads(run(root, "list", "--json").stdout)
    by_path = {r["path"]: r for r in rows}
    assert list(by_path) == ["broken.pdf", "guide.pdf", "notes.pdf", "sub/Field Notes.pdf"]
    assert by_path["sub/Field Notes.pdf"]["slug"] == "sub_field_notes"
    assert by_path["sub/Field Notes.pdf"]["pages"] == 2
    assert by_path["broken.pdf"]["status"] == "failed"
    assert by_path["broken.pdf"]["error"]
    text = run(root, "list").stdout.splitlines()
    assert text[0].split() == ["PATH", "SLUG", "PAGES", "STATUS"]
    assert re.fullmatch(r"sub/Field Notes\.pdf\s+sub_field_notes\s+2\s+ok", text[-1])
    assert text[1].startswith("broken.pdf")
    assert text[1].endswith("failed")
    assert text[2].startswith("    ")  # its reason, under it


@pytest.mark.parametrize("name", ["guide.pdf", "guide", "GUIDE", "./guide.pdf"])
def test_doc_takes_a_path_a_stem_or_a_slug(root: Path, name: str) -> None:
    run(root, "reindex")
    result = run(root, "search", "page OR architecture", "--doc", name, "--json")
    assert {h["path"] for h in json.loads(result.stdout)["hits"]} == {"guide.pdf"}


def test_an_unknown_doc_gets_suggestions(root: Path) -> None:
    run(root, "reindex")
    result = run(root, "search", "fox", "--doc", "guid")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "no indexed document 'guid' (did you mean guide.pdf?)." in result.stderr
    assert "pdfindex list" in result.stderr


def test_exact_search_prints_grep_lines_and_file_names(root: Path) -> None:
    pdfgen.write_pdf(
        root / "files" / "more.pdf", ["a fox here\nnothing\nFox and fox again", "fox on page 2"]
    )
    run(root, "reindex")
    result = run(root, "search", "fox", "--exact")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "more.pdf:1:a fox here",
        "more.pdf:1:Fox and fox again",  # two matches, one line
        "more.pdf:2:fox on page 2",
        "notes.pdf:1:Quick brown fox. State of the art.",
    ]
    # a match across a line break is shown on one line
    across = run(root, "search", "architecture explained", "--exact").stdout
    assert across == "guide.pdf:1:The transformer architecture explained.\n"
    names = run(root, "search", "fox", "--exact", "-l")
    assert names.exit_code == 0
    assert names.stdout.splitlines() == ["more.pdf", "notes.pdf"]
    assert run(root, "search", "zebra", "--exact", "-l").exit_code == 1
    limited = run(root, "search", "fox", "--exact", "--limit", "1")
    assert len(limited.stdout.splitlines()) == 1
    assert "raise --limit" in limited.stderr


def test_files_with_matches_past_the_first_thousand_occurrences(root: Path) -> None:
    pdfgen.write_pdf(root / "files" / "a-many.pdf", ["fox " * 300] * 4)
    pdfgen.write_pdf(root / "files" / "z-last.pdf", ["one fox"])
    run(root, "reindex")
    names = run(root, "search", "fox", "--exact", "-l").stdout.splitlines()
    assert names == ["a-many.pdf", "notes.pdf", "z-last.pdf"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["fox", "--exact", "--pages", "1"], "--pages works with ranked search only"),
        (["fox", "-l"], "add --exact"),
        (["a~5"], "typo distance must be a whole number 0 to 2"),
        (["fox~3", "--exact"], ""),  # exact search takes ~ literally: no error
    ],
)
def test_search_refuses_what_it_cannot_do(root: Path, args: list[str], message: str) -> None:
    run(root, "reindex")
    result = run(root, "search", *args)
    if message:
        assert result.exit_code == 2, result.output
        assert message in result.stderr, result.output
        assert result.stderr.count("\n") == 1
    else:
        assert result.exit_code == 1
        assert "no exact occurrence" in result.stderr


def test_exact_search_on_an_encrypted_file_says_so(root: Path) -> None:
    pdfgen.write_encrypted_pdf(root / "files" / "locked.pdf", ["fox"], user_password="pw")
    run(root, "reindex")
    result = run(root, "search", "fox", "--exact", "--doc", "locked")
    assert result.exit_code == 2
    assert "'locked' (locked.pdf) is encrypted" in result.stderr
    assert "cannot be searched" in result.stderr
    assert "no exact occurrence" not in result.stderr
    broken = run(root, "search", "fox", "--exact", "--doc", "broken")
    assert broken.exit_code == 2
    assert "could not be read" in broken.stderr


def test_reindex_reports_progress_of_both_passes_with_file_names(tmp_path: Path) -> None:
    from pdfindex.indexer.progress import Step
    from tests.elementgen import report_pdf

    (tmp_path / "files").mkdir()
    report_pdf(tmp_path / "files" / "report.pdf")
    pdfgen.write_pdf(tmp_path / "files" / "plain.pdf", ["no figures here"])
    index = PdfIndex(make_settings(tmp_path))
    steps: list[Step] = []
    try:
        index.reindex(progress=steps.append)
    finally:
        index.close()
    assert [(s.stage, s.done, s.total) for s in steps] == [
        ("text", 0, 2),
        ("text", 1, 2),
        ("text", 2, 2),
        ("elements", 0, 1),  # only report.pdf has candidate pages
        ("elements", 1, 1),
    ]
    assert [s.path for s in steps[::3]] == ["", ""]  # a pass starts before any file
    assert {s.path for s in steps[1:3]} == {"plain.pdf", "report.pdf"}  # in finishing order
    assert steps[4].path == "report.pdf"


def test_watch_names_the_files_it_indexes(root: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "pdfindex.cli", "--root", str(root), "--workers", "1", "watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        lines = []
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if "added" in line:  # the catch-up scan's summary comes after its files
                break
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    named = [line.split()[-1] for line in lines if re.match(r"\d\d:\d\d:\d\d text \d/3: ", line)]
    assert sorted(named) == ["broken.pdf", "guide.pdf", "notes.pdf"]
