"""Terminal manners (issue 28, items 6 and 7): what the CLI prints fits the terminal's
width (COLUMNS, or a real pseudo-terminal's size for the progress line), long names are
shortened in the middle, `list` has a header and aligned columns, `search` takes an
unquoted query, and every command's --help reads at 80 columns."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from pdfindex.api import PdfIndex
from pdfindex.cli import main
from pdfindex.cli.terminal import cells, shorten, wrap
from tests import pdfgen
from tests.conftest import make_settings

LONG = "latex_{}_package_documentation_and_user_guide_version_{:02d}_with_long_examples.pdf"
TOPICS = ["geometry", "fancyhdr", "hyperref", "microtype"]
WIDTHS = [80, 40]


def _write_library(root: Path, count: int = 12) -> list[str]:
    """PDFs with long names (some in a long sub-folder) and a broken one; their paths."""
    files = root / "files"
    (files / "texlive-doc" / "latex").mkdir(parents=True, exist_ok=True)
    paths = []
    for n in range(count):
        topic = TOPICS[n % len(TOPICS)]
        path = ("texlive-doc/latex/" if n % 2 else "") + LONG.format(topic, n)
        text = f"The {topic} manual. The effective page margins are set by its options."
        pdfgen.write_pdf(files / path, [text, f"Page two of the {topic} guide."])
        paths.append(path)
    pdfgen.write_corrupt_pdf(files / "broken_download_of_a_very_long_named_document.pdf")
    return paths


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Path:
    root = tmp_path_factory.mktemp("terminal")
    _write_library(root)
    index = PdfIndex(make_settings(root))
    try:
        index.reindex()
    finally:
        index.close()
    return root


def _run(root: Path, *args: str, columns: int | None = None) -> click.testing.Result:
    env = {"COLUMNS": str(columns)} if columns else {}
    return CliRunner().invoke(main, ["--root", str(root), *args], env=env)


def _too_wide(text: str, width: int) -> list[str]:
    return [line for line in text.splitlines() if cells(line) > width]


# -- names shortened in the middle ---------------------------------------------------------


@pytest.mark.parametrize("width", [1, 2, 5, 12, 20, 40])
def test_a_long_name_keeps_its_start_and_its_end(width: int) -> None:
    name = LONG.format("geometry", 7)
    shown = shorten(name, width)
    assert cells(shown) == width
    head, _, tail = shown.partition("…")
    assert name.startswith(head)
    assert name.endswith(tail)


def test_shortening_counts_wide_characters_as_two_cells() -> None:
    shown = shorten("日本語の文書の名前がとても長い.pdf", 12)
    assert cells(shown) <= 12
    assert shown.endswith(".pdf")


def test_a_name_that_fits_is_left_alone() -> None:
    assert shorten("guide.pdf", 9) == "guide.pdf"


@pytest.mark.parametrize("width", [20, 41, 80])
def test_wrapped_text_fits_in_cells_and_keeps_every_character(width: int) -> None:
    text = "the " * 20 + "安定版は" * 30 + " " + "x" * 200 + " **page margins**"
    lines = wrap(text, width, "   ", "   ")
    assert [line for line in lines if cells(line) > width] == []
    assert "".join(line.strip().replace(" ", "") for line in lines) == text.replace(" ", "")


# -- list --------------------------------------------------------------------------------


@pytest.mark.parametrize("width", WIDTHS)
def test_list_fits_the_width_with_a_header_and_aligned_columns(library: Path, width: int) -> None:
    result = _run(library, "list", columns=width)
    assert result.exit_code == 0, result.output
    assert _too_wide(result.stdout, width) == []
    rows = [line for line in result.stdout.splitlines() if not line.startswith(" ")]
    assert rows[0].split() == ["PATH", "SLUG", "PAGES", "STATUS"]
    # Aligned: the PAGES column ends where its header does, on every row.
    end = rows[0].index("PAGES") + len("PAGES")
    assert {re.search(r"\d+(?=\s+\w+$)", row).end() for row in rows[1:]} == {end}
    assert len(rows) == 14  # the header, 12 documents, the broken one


def test_list_shortens_names_in_the_middle(library: Path) -> None:
    rows = _run(library, "list", columns=80).stdout.splitlines()[1:]
    shown = next(row.split()[0] for row in rows if row.startswith("latex_geometry"))
    assert "…" in shown
    assert shown.endswith("_examples.pdf")


def test_list_puts_a_problem_s_reason_under_its_row(library: Path) -> None:
    lines = _run(library, "list", columns=80).stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("broken"))
    assert lines[at].endswith("failed")
    assert lines[at + 1].startswith("    ")
    assert "pdfium" in lines[at + 1]


def test_list_to_a_pipe_keeps_whole_names_and_json_is_unchanged(library: Path) -> None:
    whole = _run(library, "list").stdout.splitlines()
    assert whole[1].split()[0] == "broken_download_of_a_very_long_named_document.pdf"
    rows = json.loads(_run(library, "list", "--json", columns=40).stdout)
    assert rows[1]["path"] == LONG.format("geometry", 0)
    assert set(rows[1]) >= {"path", "slug", "title", "pages", "status", "error"}


# -- stats and search ------------------------------------------------------------------------


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize(
    "args", [["stats"], ["search", "page", "margins"], ["search", '"page margins"', "--limit", "3"]]
)
def test_stats_and_search_fit_the_width(library: Path, args: list[str], width: int) -> None:
    result = _run(library, *args, columns=width)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip()
    assert _too_wide(result.stdout, width) == []


def test_a_result_s_snippet_takes_three_lines_at_most_on_a_terminal(tmp_path: Path) -> None:
    """Six results fit a 24-line screen: a long snippet is cut after its third line,
    saying so; to a pipe it stays whole."""
    words = " ".join(f"margins{n} page text about margins and pages" for n in range(40))
    pdfgen.write_pdf(tmp_path / "files" / "long.pdf", [words])
    index = PdfIndex(make_settings(tmp_path))
    try:
        index.reindex()
    finally:
        index.close()
    narrow = _run(tmp_path, "search", "margins", columns=40).stdout.splitlines()
    piped = _run(tmp_path, "search", "margins").stdout.splitlines()
    assert narrow[0].startswith("1. long.pdf")
    assert len(narrow[1:-1]) == 3
    assert narrow[3].endswith("…")
    assert len(piped) == 3  # the result line, the whole snippet, the count


def test_search_takes_an_unquoted_query_of_several_words(library: Path) -> None:
    quoted = _run(library, "search", "page margins", "--json")
    words = _run(library, "search", "page", "margins", "--json")
    assert words.exit_code == 0, words.output
    assert json.loads(words.stdout) == json.loads(quoted.stdout)


def test_options_may_follow_or_split_the_words(library: Path) -> None:
    after = json.loads(_run(library, "search", "page", "margins", "--limit", "2", "--json").stdout)
    assert len(after["hits"]) == 2
    between = _run(library, "search", "page", "--limit", "2", "margins", "--json")
    assert json.loads(between.stdout) == after


def test_after_a_double_dash_a_word_may_start_with_a_dash(library: Path) -> None:
    result = _run(library, "search", "--exact", "--", "-l")
    assert result.exit_code == 1  # searched for "-l" (no occurrence), not read as a flag
    assert "no exact occurrence of '-l'" in result.stderr


def test_search_without_a_query_is_a_usage_error(library: Path) -> None:
    result = _run(library, "search")
    assert result.exit_code == 2
    assert "Missing argument 'QUERY...'" in result.stderr


# -- the progress line on a real terminal --------------------------------------------------


def _on_a_terminal(args: list[str], width: int) -> str:
    """Run the CLI with stderr on a pseudo-terminal of `width` columns (no COLUMNS), and
    return all it wrote there."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, width, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    process = subprocess.Popen(
        [sys.executable, "-m", "pdfindex", *args],
        stdout=subprocess.DEVNULL,
        stderr=follower,
        env=env,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the process is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=120)
    os.close(leader)
    assert process.returncode == 0, b"".join(chunks)
    return b"".join(chunks).decode()


@pytest.fixture
def fresh_library(tmp_path: Path) -> Path:
    _write_library(tmp_path, count=10)
    return tmp_path


@pytest.mark.parametrize("width", WIDTHS)
def test_reindex_progress_is_one_line_redrawn_in_place(fresh_library: Path, width: int) -> None:
    shown = _on_a_terminal(["--root", str(fresh_library), "--workers", "1", "reindex"], width)
    draws = [part for line in shown.split("\n") for part in line.split("\r") if part.strip()]
    progress = [draw for draw in draws if draw.startswith("page text")]
    assert len(progress) >= 11  # the pass's start and a redraw per file
    assert [draw for draw in progress if cells(draw) >= width] == []
    # One line on screen: every redraw returns to its start, none starts a new line.
    lines = [line for line in shown.split("\n") if "page text" in line]
    assert len(lines) == 1
    assert any("…" in draw and draw.endswith(".pdf") for draw in progress)
    assert [draw for draw in draws if cells(draw) > width] == []  # the failure's lines too


# -- help ----------------------------------------------------------------------------------


def _examples(command: click.Command) -> list[str]:
    """The example lines of a command's help: the lines after its last \\b marker."""
    text = command.help or ""
    block = text.rsplit("\b", 1)[1] if "\b" in text else ""
    return [line.strip() for line in block.splitlines()[2:] if line.strip()]


@pytest.mark.parametrize("name", [None, *sorted(main.commands)])
def test_every_help_fits_80_columns_with_its_examples_intact(name: str | None) -> None:
    args = [name, "--help"] if name else ["--help"]
    result = CliRunner().invoke(main, args, env={"COLUMNS": "80"})
    assert result.exit_code == 0
    assert _too_wide(result.stdout, 80) == []
    command = main.commands[name] if name else main
    shown = [line.strip() for line in result.stdout.splitlines()]
    assert _examples(command)
    for line in _examples(command):
        assert line in shown
