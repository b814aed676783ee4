"""Files of a type no adapter reads: listed as `unsupported` by the tools and the CLI, and
every call naming one answers at once why (never "retry shortly"), through the real MCP
client and the real CLI over a real index."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pdfindex.api import PdfIndex
from pdfindex.cli import main
from pdfindex.config import Settings
from pdfindex.extract.adapters import supported_extensions
from pdfindex.models import FileStatus
from tests import pdfgen
from tests.conftest import make_settings
from tests.mcpclient import InMemory, open_app, text_of
from tests.waiting import eventually

UNREAD = ("data.xyz", "sub/blob.bin", "Makefile")  # types no adapter reads, nor will
READS = ", ".join(supported_extensions())


def why(path: str) -> str:
    """The one wording (pdfindex.names.unsupported) for `path`."""
    suffix = Path(path).suffix
    kind = f"a {suffix} file" if suffix else "a file without an extension"
    return f"{path} is {kind}; pdfindex reads: {READS}"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, corpus: Path, index_engine: str) -> Path:
    root = tmp_path_factory.mktemp("unsupported")
    files = root / "files"
    (files / "sub").mkdir(parents=True)
    shutil.copy(corpus / "multi.pdf", files / "multi.pdf")
    (files / "notes.txt").write_text("the quick brown fox\n")
    (files / "data.xyz").write_bytes(b"\x00\x01 binary the quick brown fox")
    (files / "sub" / "blob.bin").write_bytes(bytes(range(256)) * 64)
    (files / "Makefile").write_text("all:\n\techo fox\n")
    (files / ".hidden.xyz").write_text("hidden")  # hidden: never listed
    (files / ".cache").mkdir()
    (files / ".cache" / "x.xyz").write_text("hidden folder")
    (files / "logs").mkdir()  # the log folder (settings_of): pdfindex's own, never listed
    (files / "logs" / "2026-01-01_00-00-00.log").write_text("a session log\n")
    return root


def settings_of(root: Path) -> Settings:
    return make_settings(root, log_dir=str(root / "files" / "logs"), elements=False)


@pytest.fixture(scope="module")
def tools(project: Path, index_engine: str) -> Iterator[InMemory]:
    with open_app(settings_of(project)) as app:
        yield InMemory(app)


def test_the_tools_list_them_as_unsupported(tools: InMemory, project: Path) -> None:
    listing = tools.call("list_searchable_files", path=".")
    rows = {row["path"]: row for row in listing.structured_content["files"]}
    assert set(rows) == {"multi.pdf", "notes.txt", *UNREAD}  # no hidden file, no log
    for path in UNREAD:
        assert rows[path]["status"] == FileStatus.UNSUPPORTED, rows[path]
        assert rows[path]["error"] == why(path)
        assert rows[path]["adapter"] is None
    assert rows["multi.pdf"]["status"] == FileStatus.OK
    status = text_of(tools.call("get_library_status"))
    assert f"{len(UNREAD)} unsupported" in status, status


def test_every_call_naming_one_answers_why_at_once(tools: InMemory) -> None:
    """search_pdf, search_in_file, read_pdf, get_document_info, extract_pdf_page and
    fuzzy_search's path: the type, and what pdfindex reads; find_document says it with
    the name."""
    wanted = why("data.xyz")
    answers = tools.calls(
        ("search_pdf", {"pdf_name": "data.xyz", "query": "fox"}),
        ("search_in_file", {"file": "data.xyz", "pattern": "fox"}),
        ("read_pdf", {"sources": [{"path": "data.xyz"}]}),
        ("get_document_info", {"document_slug": "data.xyz"}),
        ("extract_pdf_page", {"file": "data.xyz", "pages": [1]}),
        ("fuzzy_search", {"query": "fox", "path": "data.xyz"}),
    )
    for answer in answers:
        text = json.dumps(answer.structured_content) + text_of(answer)
        assert wanted in text, text
        assert "retry" not in text, text
    search_pdf, in_file, read, info, page, fuzzy = answers
    assert search_pdf.is_error
    assert in_file.is_error
    assert page.is_error
    assert fuzzy.is_error
    assert not read.structured_content["results"][0]["success"]
    assert info.structured_content["index_status"] == FileStatus.UNSUPPORTED
    found = tools.call("find_document", query="data.xyz").structured_content
    match = next(m for m in found["matches"] if m["path"] == "data.xyz")
    assert (match["status"], match["error"]) == (FileStatus.UNSUPPORTED, wanted)


def test_a_file_not_listed_yet_answers_at_once_too(tools: InMemory, project: Path) -> None:
    """Dropped after the scan (no watcher here, so it stays unindexed): not the
    "not indexed yet; retry shortly" of a PDF on its way."""
    late = project / "files" / "late.xyz"
    late.write_text("arrived late")
    try:
        search_pdf, in_file, info = tools.calls(
            ("search_pdf", {"pdf_name": "late.xyz", "query": "late"}),
            ("search_in_file", {"file": "late.xyz", "pattern": "late"}),
            ("get_document_info", {"document_slug": "late.xyz"}),
        )
        assert search_pdf.structured_content["error"] == why("late.xyz")
        for answer in (in_file, info):
            assert why("late.xyz") in text_of(answer)
            assert "retry" not in text_of(answer)
        rows = tools.call("list_searchable_files", path=".").structured_content["files"]
        (row,) = [r for r in rows if r["path"] == "late.xyz"]
        assert (row["status"], row["error"]) == (FileStatus.UNSUPPORTED, why("late.xyz"))
        pdf = project / "files" / "late.pdf"  # a readable type on its way: still "retry"
        pdfgen.write_pdf(pdf, ["late pdf"])
        assert "retry" in text_of(tools.call("search_in_file", file="late.pdf", pattern="x"))
    finally:
        late.unlink()
        (project / "files" / "late.pdf").unlink(missing_ok=True)


def test_fuzzy_search_says_which_file_types_are_not_read(tools: InMemory) -> None:
    answer = tools.call(
        "fuzzy_search", query="quick brown", file_types=["xyz", "txt"], interactive=False
    ).structured_content
    assert f"file_types .xyz: pdfindex reads no such files (it reads: {READS})" in answer["note"]
    assert {m["file"] for m in answer["matches"]} == {"notes.txt"}  # the other type answers
    plain = tools.call("fuzzy_search", query="quick brown", file_types=["txt"], interactive=False)
    assert "note" not in plain.structured_content


def run(root: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--root", str(root), "--workers", "2", *args])


def test_the_cli_lists_counts_and_refuses_them(tmp_path: Path, project: Path) -> None:
    shutil.copytree(project / "files", tmp_path / "files", ignore=shutil.ignore_patterns("logs"))
    reindex = run(tmp_path, "reindex", "--json")
    assert reindex.exit_code == 0, reindex.output
    summary = json.loads(reindex.stdout)
    assert summary["unsupported"] == len(UNREAD)
    assert summary["parsed"] == 2  # only the PDF and the text file were read
    listed = {r["path"]: r for r in json.loads(run(tmp_path, "list", "--json").stdout)}
    assert {p for p, r in listed.items() if r["status"] == "unsupported"} == set(UNREAD)
    assert listed["data.xyz"]["error"] == why("data.xyz")
    text = run(tmp_path, "list").stdout
    assert re.search(rf"^data\.xyz .* unsupported\n    {re.escape(why('data.xyz'))}$", text, re.M)
    stats = json.loads(run(tmp_path, "stats", "--json").stdout)
    assert stats["by_status"]["unsupported"] == len(UNREAD)
    assert all(p["status"] != "unsupported" for p in stats["problems"])  # counted, not listed
    assert "3 unsupported" in run(tmp_path, "stats").stdout
    search = run(tmp_path, "search", "fox", "--exact", "--doc", "data.xyz")
    assert search.exit_code == 2
    assert f"{why('data.xyz')}; it cannot be searched" in search.stderr
    extract = run(tmp_path, "extract", "sub/blob.bin")
    assert extract.exit_code == 2
    assert why("sub/blob.bin") in extract.stderr
    again = json.loads(run(tmp_path, "reindex", "--json").stdout)
    assert (again["unsupported"], again["unchanged"]) == (0, 5)  # listed once, then unchanged


def test_listed_records_follow_the_folder(tmp_path: Path) -> None:
    """A record costs no read (no hash), is renamed and removed with its file."""
    files = tmp_path / "files"
    files.mkdir()
    (files / "a.xyz").write_text("x")
    index = PdfIndex(make_settings(tmp_path, elements=False))
    try:
        index.reindex()
        record = index.engine.record("a.xyz")
        assert record is not None
        assert (record.status, record.pages, record.sha256) == (FileStatus.UNSUPPORTED, 0, "")
        (files / "a.xyz").rename(files / "b.xyz")
        summary = index.reindex()
        assert (summary.removed, summary.unsupported) == (1, 1)
        assert index.engine.record("a.xyz") is None
        assert index.engine.record("b.xyz").error == why("b.xyz")  # type: ignore[union-attr]
        (files / "b.xyz").unlink()
        index.reindex()
        assert index.engine.catalog() == {}
    finally:
        index.close()


def test_the_watcher_lists_and_unlists_them(tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    (files / "a.txt").write_text("words")
    with open_app(make_settings(tmp_path, elements=False), watch=True) as app:
        (files / "new.xyz").write_bytes(b"\x00data")
        record = eventually(lambda: app.index.engine.record("new.xyz"), "new.xyz listed")
        assert (record.status, record.error) == (FileStatus.UNSUPPORTED, why("new.xyz"))
        (files / "new.xyz").unlink()
        eventually(lambda: app.index.engine.record("new.xyz") is None, "new.xyz unlisted")
