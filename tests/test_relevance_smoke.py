"""benchmarks/relevance.py on a small real root: its figures are computed from the tools'
answers, per tool, ranking mode and kind."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from benchmarks import relevance
from pdfindex.search import understand
from tests import pdfgen

PAGES = {
    "groups.pdf": [
        "Introduction to groups and what they are.",
        "The action of a group on a set is transitive.",
    ],
    "what.pdf": ["What is what? What, what, what: what is this and what is that?"],
    "loading.pdf": ["Loading packages twice fails with an error."],
}
LABELS = [
    {"id": "s-1", "kind": "question", "query": "What is action?", "document": "groups"},
    {"id": "s-2", "kind": "keywords", "query": "group action", "document": "groups"},
    {"id": "s-3", "kind": "question", "query": "Is a package loaded twice?", "document": "x"},
]


def test_the_runner_measures_each_tool_and_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], index_engine: str
) -> None:
    for name, pages in PAGES.items():
        pdfgen.write_pdf(tmp_path / "files" / name, pages)
    labelled = tmp_path / "set.jsonl"
    labelled.write_text("\n".join(json.dumps({**e, "pages": [2]}) for e in LABELS) + "\n\n")
    out = tmp_path / "figures.json"

    relevance.main(
        ["--root", str(tmp_path), "--set", str(labelled), "--engine", index_engine]
        + ["--json", str(out)]
    )

    printed = capsys.readouterr().out
    assert "| search_documents | after | question | 2 |" in printed
    result = json.loads(out.read_text())
    assert result["engine"] == index_engine
    assert result["pages"] == 4
    rows = {(r["tool"], r["mode"], r["id"]): r for r in result["rows"]}
    assert len(rows) == 2 * 2 * 3
    assert rows[("search_documents", "after", "s-1")]["page_rank"] == 1
    assert understand.ENABLED  # the `before` mode is over
    assert rows[("search_documents", "after", "s-3")]["page_rank"] is None  # wrong document
    summary = {(s["tool"], s["mode"], s["kind"]): s for s in result["summaries"]}
    after = summary[("search_documents", "after", "question")]
    assert after["n"] == 2
    assert after["hit@1"] == 0.5
    assert after["mrr@10"] == 0.5
    assert after["doc_mrr@10"] == 0.5
    assert after["p50_ms"] > 0
    assert summary[("query_documents", "after", "keywords")]["hit@10"] == 1.0


@pytest.mark.skipif(
    not (shutil.which("recollindex") and shutil.which("recollq")), reason="recoll not installed"
)
def test_recoll_is_measured_as_the_peer_by_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], index_engine: str
) -> None:
    for name, pages in PAGES.items():
        pdfgen.write_pdf(tmp_path / "files" / name, pages)
    config = tmp_path / "recoll"
    config.mkdir()
    (config / "recoll.conf").write_text(f"topdirs = {tmp_path / 'files'}\nnoaspell = 1\n")
    subprocess.run(["recollindex", "-c", str(config)], check=True, capture_output=True)
    labelled = tmp_path / "set.jsonl"
    labelled.write_text(json.dumps({**LABELS[1], "pages": [2]}) + "\n")
    out = tmp_path / "figures.json"

    relevance.main(
        ["--root", str(tmp_path), "--set", str(labelled), "--engine", index_engine]
        + ["--modes", "after", "--recoll", str(config), "--json", str(out)]
    )

    assert "| recoll | peer | keywords | 1 | – | – | – | 1.00 |" in capsys.readouterr().out
    (row,) = [r for r in json.loads(out.read_text())["rows"] if r["tool"] == "recoll"]
    assert row["found"][0] == ["groups", 0]
    assert row["page_rank"] is None
