"""An index written by an earlier pdfindex opens without a rebuild.

`tests/data/legacy-index-v6` was built by the last release before the package moved to
its pipeline layout (commit 9d3f5f4, index format 6): two PDFs, one of them in a
sub-folder, with one figure found by the elements pass. Its extraction cache was left
out on purpose, so a rebuild would have to parse the PDFs again: the test sees none.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from pdfindex import PdfIndex
from pdfindex.tools.exact import search_pdf
from tests.conftest import make_settings

LEGACY = Path(__file__).parent / "data" / "legacy-index-v6"


def test_an_index_from_before_the_move_opens_and_answers(tmp_path: Path) -> None:
    shutil.copytree(LEGACY, tmp_path, dirs_exist_ok=True)
    index = PdfIndex(make_settings(tmp_path, engine="whoosh"))  # the format-6 index is Whoosh
    try:
        catalog = index.engine.catalog()
        assert sorted(catalog) == ["notes.pdf", "sub/report.pdf"]
        assert catalog["notes.pdf"].title == "Legacy Notes"
        assert catalog["notes.pdf"].elements == {"figure": 1}
        total, hits = index.search("transformer")
        assert total == 1
        assert (hits[0].slug, hits[0].page) == ("notes", 1)
        assert search_pdf(index, "sub/report", "storage engine")["query_exists"]

        # Its files were read by an older pdfium adapter: read again, once (the ligature
        # fix of issue 28 changed what pdfium's text holds).
        first = index.reindex()
        assert (first.added, first.updated, first.parsed) == (0, 2, 2)
        # A checkout gives the files new mtimes: the hashes match, so nothing is parsed.
        for path in (tmp_path / "files").rglob("*.pdf"):
            os.utime(path, (path.stat().st_atime, path.stat().st_mtime + 60))
        summary = index.reindex()
        assert (summary.added, summary.updated, summary.parsed) == (0, 0, 0)
        assert summary.touched + summary.unchanged == 2
        assert index.search("segments")[0] == 1
    finally:
        index.close()
