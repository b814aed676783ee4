"""`python -m benchmarks.million` end to end at a tiny scale: a base root of real PDFs,
scaled to 200 pages through the engine's writer, measured, and reported. Checks that the
copies are what the index holds (each copy's marker word finds its copy only) and that
every figure is there; never how fast anything is."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.million import main
from pdfindex.api import PdfIndex
from pdfindex.config import load_settings
from tests import pdfgen


def test_a_tiny_million_builds_measures_and_reports(tmp_path: Path) -> None:
    base = tmp_path / "base"
    files = base / "files"
    (files / "generic").mkdir(parents=True)
    pdfgen.write_pdf(
        files / "generic" / "manual.pdf",
        [f"Page {n}: the node distance of a tree, and hyphenation." for n in range(12)],
    )
    for n in range(4):
        pdfgen.write_pdf(files / f"doc{n}.pdf", [f"the name of the page {k}" for k in range(7)])
    settings = load_settings({"engine": "tantivy", "elements": False}, root=base)
    index = PdfIndex(settings)
    index.reindex()
    index.close()  # 40 pages: 200 is five copies

    root, out = tmp_path / "scaled", tmp_path / "results"
    assert main(["build", str(root), "--base", str(base), "--pages", "120"]) == 0
    # grown along the same sequence: copies 3 and 4 are added, the first three kept
    assert main(["build", str(root), "--base", str(base), "--pages", "200", "--append",
                 "--out", str(out / "build-tantivy-200.json")]) == 0  # fmt: skip
    built = json.loads((out / "build-tantivy-200.json").read_text())
    assert (built["pages"], built["appended_to"], built["files"]) == (200, 120, 10)
    assert sorted(p.name for p in (root / "files").iterdir())[-1] == "copy00004"
    # the hard links are the base's files: a live index finds every one unchanged
    assert (root / "files/copy00003/doc1.pdf").stat().st_ino == (files / "doc1.pdf").stat().st_ino

    scaled = PdfIndex(load_settings({"engine": "tantivy"}, root=root))
    try:
        total, hits = scaled.search("copy00002", limit=100)
        assert {h.path.split("/")[0] for h in hits} == {"copy00002"}
        assert total == len(hits) == 40
    finally:
        scaled.close()

    assert main(["measure", str(root), "--runs", "2", "--commits", "1", "--live-runs", "1",
                 "--document", "generic_manual", "--no-serve",
                 "--out", str(out / "measure-tantivy-200.json")]) == 0  # fmt: skip
    measured = json.loads((out / "measure-tantivy-200.json").read_text())
    assert measured["pages"] == 200
    assert measured["queries"]["rare word `hyphenation`"]["count"] == 60
    assert all(q["p50_ms"] > 0 for q in measured["queries"].values())
    assert measured["new_file_searchable"]["median_s"] > 0
    assert measured["one_file_commit"]["median_s"] > 0

    assert main(["report", str(out)]) == 0
    report = (out / "million.md").read_text()
    assert "| new file → first hit, median s |" in report
    assert "| rare word `hyphenation` | " in report
    assert (out / "million.png").stat().st_size > 10_000
