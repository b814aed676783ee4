"""Shared fixtures: real PDFs generated once per session, settings in temporary folders."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from pdfindex.api import PdfIndex
from pdfindex.config import Settings, load_settings
from tests import pdfgen

HYPHEN_TEXT = ("The transformer", "architecture", 8)  # -> "architec-" / "ture"


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Tests never read the developer's PDFINDEX_* settings or their current folder."""
    for name in ("ROOT", "FILES_DIR", "INDEX_DIR", "LOG_DIR", "EXTRACTOR", "TIMEOUT", "WORKERS"):
        monkeypatch.delenv(f"PDFINDEX_{name}", raising=False)
    monkeypatch.chdir(tmp_path)


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
    values = {"workers": 2, "timeout": 60.0, "lock_timeout": 2.0}
    values.update(overrides)
    return load_settings(values, root=root)


@pytest.fixture
def files_root(tmp_path: Path, corpus: Path) -> Path:
    """A project root whose files/ holds a copy of the corpus."""
    shutil.copytree(corpus, tmp_path / "files")
    return tmp_path


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, corpus: Path) -> Iterator[PdfIndex]:
    """A built index over the corpus, shared by read-only tests of a module."""
    root = tmp_path_factory.mktemp("root")
    shutil.copytree(corpus, root / "files")
    index = PdfIndex(make_settings(root))
    index.reindex()
    yield index
    index.close()
