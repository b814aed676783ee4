"""The extraction cache holds only text of the bytes it is keyed by (issue 31, item 4): a
file rewritten in place after it was hashed and before it was parsed is hashed and read
again, so a later copy of its old bytes is indexed with its own text."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from pdfindex.api import PdfIndex
from pdfindex.indexer.progress import TEXT, Step
from tests import pdfgen
from tests.conftest import make_settings


def _texts(index: PdfIndex) -> dict[str, str]:
    """Each indexed file's text, all pages joined."""
    return {
        path: "\n".join(index.engine.page_texts(record.slug))
        for path, record in index.engine.catalog().items()
    }


def test_a_file_rewritten_between_hash_and_parse_never_poisons_the_cache(tmp_path: Path) -> None:
    old, new = tmp_path / "alpha.pdf", tmp_path / "bravo.pdf"
    pdfgen.write_pdf(old, ["alphaword holds this page"])
    pdfgen.write_pdf(new, ["bravoword holds this page"])
    root = tmp_path / "root"
    (root / "files").mkdir(parents=True)
    target = root / "files" / "doc.pdf"
    shutil.copy(old, target)
    rewritten: list[int] = []

    def rewrite_in_place(step: Step) -> None:
        """Once every file is hashed and before any is parsed: new bytes, same inode."""
        if step.stage == TEXT and step.done == 0 and not rewritten:
            inode = target.stat().st_ino
            with open(target, "r+b") as handle:
                handle.truncate(0)
                handle.write(new.read_bytes())
            stat = target.stat()
            os.utime(target, (stat.st_atime, stat.st_mtime + 5))
            assert target.stat().st_ino == inode
            rewritten.append(inode)

    index = PdfIndex(make_settings(root))
    try:
        index.reindex(progress=rewrite_in_place)
        assert rewritten
        texts = _texts(index)
        assert "bravoword" in texts["doc.pdf"]
        assert "alphaword" not in texts["doc.pdf"]
        record = index.engine.catalog()["doc.pdf"]
        assert (record.size, record.mtime) == (target.stat().st_size, target.stat().st_mtime)

        shutil.copy(old, root / "files" / "copy.pdf")  # the old bytes, seen again
        index.reindex()
        texts = _texts(index)
        assert "alphaword" in texts["copy.pdf"]
        assert "bravoword" not in texts["copy.pdf"]

        index.reindex(full=True)
        texts = _texts(index)
        assert "alphaword" in texts["copy.pdf"]
        assert "bravoword" not in texts["copy.pdf"]
        assert "bravoword" in texts["doc.pdf"]
    finally:
        index.close()
