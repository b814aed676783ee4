"""README command 1 alone (`pip install -e .`, then `pdfindex serve`) in a fresh venv gives
every feature: each tool answers through the real MCP SDK client over stdio, a scanned page
is read by OCR with no Tesseract on PATH (RapidOCR, a pip dependency), a page renders as a
PNG (Pillow) and a page converts to docx (the pandoc pypandoc-binary ships).

Slow: pip fetches ~300 MB of wheels (less from pip's cache). It runs on one pass of the
suite only, and is skipped only when the package index cannot be reached.
"""

from __future__ import annotations

import base64
import io
import os
import shutil
import subprocess
import venv
import zipfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

from pdfindex.config import SETTINGS
from tests import pdfgen
from tests.conftest import ENGINE
from tests.elementgen import report_pdf
from tests.mcpclient import image_of, text_of

REPO = Path(__file__).resolve().parents[1]
INSTALL_TIMEOUT = 1500  # seconds pip may take to fetch and install everything


def _without_tesseract() -> str:
    """PATH without the folders that hold a tesseract program, so RapidOCR must read."""
    return os.pathsep.join(
        p for p in os.environ["PATH"].split(os.pathsep) if not shutil.which("tesseract", path=p)
    )


def _install(tmp_path: Path) -> Path:
    """A fresh venv with README command 1's install; returns its bin folder."""
    folder = tmp_path / "venv"
    venv.create(folder, with_pip=True)
    bin_dir = folder / "bin"
    python = str(bin_dir / "python")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    probe = subprocess.run(
        [python, "-m", "pip", "index", "versions", "rapidocr-onnxruntime"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    if probe.returncode != 0:
        lines = probe.stderr.strip().splitlines()
        pytest.skip(f"the package index cannot be reached: {lines[-1] if lines else ''}")
    done = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "-e", str(REPO)],
        capture_output=True,
        text=True,
        env=env,
        timeout=INSTALL_TIMEOUT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return bin_dir


def _files(root: Path) -> None:
    files = root / "files"
    pdfgen.write_pdf(
        files / "notes.pdf",
        ["Harbour logistics overview.\nThe quick brown fox.", "Second page about cranes."],
        title="Harbour Notes",
    )
    report_pdf(files / "storage-report.pdf")  # figures, tables, an equation
    pdfgen.write_image_only_pdf(files / "scan.pdf", "PURCHASE ORDER 5521")


CALLS: dict[str, dict[str, Any]] = {
    "search_pdf": {"pdf_name": "scan", "query": "5521"},
    "fuzzy_search": {"query": "harbor logistcs"},
    "search_in_file": {"file": "notes.pdf", "pattern": r"cran\w+"},
    "extract_pdf_page": {"file": "notes.pdf", "pages": [1], "output_format": "docx"},
    "list_searchable_files": {},
    "read_pdf": {"sources": [{"path": "notes.pdf", "pages": "1-2"}]},
    "search_documents": {"query": "purchase order"},
    "get_page_image": {"document_slug": "notes", "page_number": 1},
    "search_visual_elements": {"query": "throughput storage engine"},
    "get_element_image": {"document_slug": "storage_report", "element_label": "Figure 1"},
    "get_element_details": {"document_slug": "storage_report", "element_label": "Table 2"},
    "get_document_info": {"document_slug": "scan"},
    "find_document": {"query": "harbor notes"},
    "list_documents": {},
    "list_documents_paginated": {"page_size": 2},
    "get_library_status": {},
    "process_document": {"file_path": "notes.pdf"},
    "query_documents": {"query": "What is said about cranes?"},
    "list_sessions": {},
}


async def _session(command: Path, root: Path, env: dict[str, str]) -> dict[str, Any]:
    params = StdioServerParameters(
        command=str(command), args=["serve", "--root", str(root)], env=env
    )
    async with Client(params) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        answers = {name: await client.call_tool(name, args) for name, args in CALLS.items()}
    return {"listed": listed, "answers": answers}


@pytest.mark.timeout(INSTALL_TIMEOUT + 600)
def test_readme_install_alone_runs_every_tool(tmp_path: Path) -> None:
    if ENGINE["name"] != SETTINGS["engine"].default:
        pytest.skip("the install does not depend on the index engine: one pass is enough")
    bin_dir = _install(tmp_path)
    root = tmp_path / "project"
    _files(root)
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")},
        "PATH": _without_tesseract(),
    }
    assert shutil.which("tesseract", path=env["PATH"]) is None
    # the runtime dependencies are in the venv (not only in this test environment)
    where = subprocess.run(
        [str(bin_dir / "python"), "-c", "import PIL, pypandoc, rapidocr_onnxruntime"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert where.returncode == 0, where.stderr
    indexed = subprocess.run(
        [str(bin_dir / "pdfindex"), "reindex", "--root", str(root)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert indexed.returncode == 0, indexed.stderr
    assert "failed 0" in indexed.stdout, indexed.stdout

    found = anyio.run(_session, bin_dir / "pdfindex", root, env)
    answers: dict[str, CallToolResult] = found["answers"]
    assert found["listed"] == set(CALLS), "a tool is missing from this test (or the server)"
    errors = {name: text_of(answer)[:300] for name, answer in answers.items() if answer.is_error}
    assert not errors

    scan = answers["search_pdf"].structured_content  # read by RapidOCR
    assert scan is not None, scan
    assert scan["query_exists"], scan
    assert "scan" in text_of(answers["search_documents"])
    info = answers["get_document_info"].structured_content
    assert info is not None, info
    assert info["ocr"]["pages"] == 1, info
    status = text_of(answers["get_library_status"])
    assert "rapidocr-onnxruntime" in status, status
    assert "1 pages read by OCR" in status, status

    page = image_of(answers["get_page_image"])  # Pillow
    assert page.width > 100
    assert page.height > 100
    figure = image_of(answers["get_element_image"])
    assert 0 < figure.width < page.width * 3

    docx = answers["extract_pdf_page"].structured_content  # pypandoc-binary's pandoc
    assert docx is not None
    assert docx["encoding"] == "base64"
    with zipfile.ZipFile(io.BytesIO(base64.b64decode(docx["content"]))) as archive:
        assert "Harbour logistics" in archive.read("word/document.xml").decode("utf-8")

    assert "Figure 1" in text_of(answers["search_visual_elements"])
    assert "notes" in text_of(answers["list_documents"])
    paged = answers["list_documents_paginated"].structured_content
    assert paged is not None, paged
    assert paged["pagination"]["total"] == 3, paged
    cranes = answers["query_documents"].structured_content
    assert cranes is not None, cranes
    assert cranes["sources"], cranes
