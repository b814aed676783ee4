"""One document resolver for every front (pdfindex.names): the real CLI and the plain tool
functions take the same spellings of a name to the same record, and give an unknown name
the same closest names."""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath

import pytest
from click.testing import CliRunner, Result

from pdfindex.api import PdfIndex
from pdfindex.cli import main
from pdfindex.errors import DocumentNotFound
from pdfindex.names import stem
from pdfindex.tools import catalog, exact
from tests import pdfgen
from tests.conftest import make_settings

SPELLINGS = {
    "papers/survey.pdf": "papers/survey.pdf",  # the path
    "./papers/survey.pdf": "papers/survey.pdf",
    "papers/survey": "papers/survey.pdf",  # without extension: .pdf first
    "papers/survey.md": "papers/survey.md",
    "notes/plan.md": "notes/plan.md",
    "notes/plan": "notes/plan.md",  # without extension: any extension
}
UNKNOWN = ["papers/survy", "notes/plam", "zzzz"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    files = make_settings(tmp_path).files_dir
    pdfgen.write_pdf(files / "papers" / "survey.pdf", ["A survey of margins."])
    (files / "papers" / "survey.md").write_text("# Survey notes\n\nmargins again\n")
    (files / "notes_plan.txt").write_text("an older plan, in margins\n")
    assert cli(tmp_path, "reindex").exit_code == 0
    # notes/plan.md gets slug notes_plan_2 (notes_plan is taken), and keeps it once the
    # older file is gone: only its path without extension names it now, not its slug's base
    (files / "notes").mkdir()
    (files / "notes" / "plan.md").write_text("# Plan\n\nthe margins plan\n")
    assert cli(tmp_path, "reindex").exit_code == 0
    (files / "notes_plan.txt").unlink()
    assert cli(tmp_path, "reindex").exit_code == 0
    return tmp_path


def cli(root: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--root", str(root), "--workers", "2", *args])


def cli_path(root: Path, name: str) -> str:
    """The document `pdfindex extract` and `pdfindex search --exact --doc` take `name` to."""
    extracted = cli(root, "extract", name, "--json")
    assert extracted.exit_code == 0, extracted.output
    searched = cli(root, "search", "margins", "--exact", "--doc", name, "--json")
    assert searched.exit_code == 0, searched.output
    assert {m["path"] for m in json.loads(searched.stdout)["matches"]} == {
        json.loads(extracted.stdout)["path"]
    }
    return str(json.loads(extracted.stdout)["path"])


def cli_suggestions(root: Path, name: str) -> list[str]:
    result = cli(root, "extract", name)
    assert result.exit_code == 2, result.output
    assert f"no indexed document {name!r}" in result.stderr
    said = re.search(r"\(did you mean (.+?)\?\)", result.stderr)
    return said.group(1).split(", ") if said else []


def tool_suggestions(index: PdfIndex, name: str) -> list[str]:
    with pytest.raises(DocumentNotFound) as raised:
        catalog.document_info(index, name)
    text = str(raised.value)
    assert text.startswith(f"Document '{name}' not found.")
    listed = text.partition(" Closest: ")[2].partition(". Give ")[0]
    return re.findall(r"'[^']*' \(([^)]*)\)", listed)


def test_the_cli_and_the_tools_take_a_name_to_the_same_record(root: Path) -> None:
    index = PdfIndex(make_settings(root))
    try:
        slugs = {record.slug: record.path for record in index.documents()}
        assert slugs["notes_plan_2"] == "notes/plan.md"
        assert "papers_survey" in slugs
        spellings = SPELLINGS | {slug: path for slug, path in slugs.items()}  # the slugs
        spellings["NOTES_PLAN_2"] = slugs["notes_plan_2"]  # whatever the case
        spellings["Papers/Survey"] = slugs["papers_survey"]  # a path that is a slug's
        for name, path in spellings.items():
            assert cli_path(root, name) == path, name
            assert catalog.document_info(index, name)["path"] == path, name
            answer = exact.search_pdf(index, name, "margins")
            assert answer["file_exists"], (name, answer)
            assert answer["query_exists"], (name, answer)
        for name in UNKNOWN:
            near = cli_suggestions(root, name)
            assert near == tool_suggestions(index, name), name
            assert ("zzzz" in name) == (near == []), (name, near)
        assert set(cli_suggestions(root, "papers/survy")) == {
            "papers/survey.pdf",
            "papers/survey.md",
        }
        assert cli_suggestions(root, "notes/plam") == ["notes/plan.md"]
    finally:
        index.close()


@pytest.mark.parametrize(
    "path", ["a", "a.pdf", "a/b.md", ".hidden", "a/.hidden", "a.", "a.tar.gz", "a.b/c", "x/..pdf"]
)
def test_a_stem_is_the_path_without_its_extension(path: str) -> None:
    assert stem(path) == str(PurePosixPath(path).with_suffix(""))
