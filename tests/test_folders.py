"""Several folders in one library (issue 26, item 4): the `folders` setting, each folder a
source (`NAME/path`), on every engine: searched, watched, resolved, shown; process_document
in place, refused outside, imported with import_outside; `file_name` kept as the title;
seed 003's root-relative paths; the MCP client's roots."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.types import ListRootsResult, Root

from pdfindex.api import PdfIndex
from pdfindex.cli import main
from pdfindex.config import Settings
from pdfindex.errors import ConfigError
from pdfindex.models import FileStatus
from pdfindex.search.exact import exact_search
from pdfindex.server import build_server
from pdfindex.tools.catalog import document_info, find_document
from pdfindex.tools.exact import search_pdf
from pdfindex.tools.files import list_searchable_files, read_pdf
from pdfindex.tools.passages import process_document
from tests import pdfgen
from tests.brute import brute_force
from tests.conftest import make_settings
from tests.mcpclient import open_app
from tests.waiting import eventually


def _library(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A root whose files/ holds two documents, and two folders elsewhere."""
    root, away = tmp_path / "project", tmp_path / "away"
    pdfgen.write_pdf(root / "files" / "main.pdf", ["Main folder zebra stripes", "page two"])
    (root / "files" / "notes.md").write_text("# Notes\n\nZebra notes in markdown.\n")
    papers, books = away / "Papers", away / "books"
    pdfgen.write_pdf(papers / "giraffe.pdf", ["Giraffe necks and zebra herds"])
    (papers / "sub").mkdir()
    (papers / "sub" / "okapi.md").write_text("# Okapi\n\nThe okapi is a zebra-striped giraffid.\n")
    pdfgen.write_pdf(books / "book.pdf", ["A book on savanna zebra migration", "chapter two"])
    (away / "secret.pdf").write_bytes((root / "files" / "main.pdf").read_bytes())
    return root, papers, books


def _settings(root: Path, *folders: Path | str, **more: Any) -> Settings:
    return make_settings(root, folders=tuple(str(f) for f in folders), **more)


@contextmanager
def opened(settings: Settings) -> Iterator[PdfIndex]:
    index = PdfIndex(settings)
    try:
        yield index
    finally:
        index.close()


@pytest.fixture
def library(tmp_path: Path) -> Iterator[PdfIndex]:
    root, papers, books = _library(tmp_path)
    index = PdfIndex(_settings(root, papers, books))
    index.reindex()
    yield index
    index.close()


def test_two_folders_are_one_library_searched_as_one(library: PdfIndex) -> None:
    paths = {r.path: r.status for r in library.documents()}
    assert paths == {
        "main.pdf": FileStatus.OK,
        "notes.md": FileStatus.OK,
        "papers/giraffe.pdf": FileStatus.OK,
        "papers/sub/okapi.md": FileStatus.OK,
        "books/book.pdf": FileStatus.OK,
    }
    assert set(library.folders) == {"papers", "books"}  # base names, lower-case
    total, hits = library.search("zebra", limit=20)
    assert {h.path for h in hits} == set(paths)
    for query in ("zebra", "giraffe", "okapi is", "savanna zebra"):
        expected = [
            (record.path, page, start)
            for record in library.documents()
            for page, text in enumerate(library.engine.page_texts(record.slug), 1)
            for start, _ in brute_force(text, query)
        ]
        matches, _ = exact_search(library.engine, query, limit=1000, context_length=0)
        assert sorted((m.path, m.page, m.start) for m in matches) == sorted(expected), query
        assert expected
    # a folder's document by its path, its slug, and its absolute path
    assert search_pdf(library, "papers/giraffe.pdf", "necks")["query_exists"]
    papers = library.folders["papers"]
    assert search_pdf(library, str(papers / "sub" / "okapi.md"), "giraffid")["query_exists"]
    stats = library.stats()
    assert [(f["name"], f["documents"]) for f in stats["folders"]] == [
        ("", 2),
        ("papers", 2),
        ("books", 1),
    ]
    listed = list_searchable_files(library)
    assert {row["path"] for row in listed["files"]} == set(paths)
    assert listed["folders"] == {"papers": str(papers), "books": str(library.folders["books"])}


def test_the_watcher_follows_a_second_folder(tmp_path: Path) -> None:
    root, papers, books = _library(tmp_path)
    index = PdfIndex(_settings(root, papers, books))
    live = index.live(quiet=0.3).start()
    try:
        assert live.caught_up.wait(60)
        pdfgen.write_pdf(books / "new.pdf", ["A new arrival about aardvarks"])
        eventually(lambda: index.is_indexed("books/new.pdf"), "the new file indexed")
        assert search_pdf(index, "books/new.pdf", "aardvarks")["query_exists"]
        pdfgen.write_pdf(books / "new.pdf", ["Edited: now about pangolins"])
        eventually(
            lambda: search_pdf(index, "books/new.pdf", "pangolins")["query_exists"],
            "the edit indexed",
        )
        (papers / "sub" / "okapi.md").unlink()
        eventually(lambda: not index.is_indexed("papers/sub/okapi.md"), "the deletion followed")
    finally:
        live.close()
        index.close()


def test_process_document_in_place_refused_outside_and_imported(tmp_path: Path) -> None:
    root, papers, books = _library(tmp_path)
    secret = tmp_path / "away" / "secret.pdf"
    with opened(_settings(root, papers)) as index:
        pdfgen.write_pdf(papers / "late.pdf", ["Arrived late: capybara"])
        done = process_document(index, index.reindex, str(papers / "late.pdf"), "Capybara Atlas")
        assert done["status"] == "success", done
        assert index.engine.record("papers/late.pdf") is not None  # where it is
        assert not (root / "files" / "imported").exists()
        info = document_info(index, done["document_id"])
        assert info["title"] == "Capybara Atlas"
        found = find_document(index, "capybara atlas")
        assert found["matches"][0]["path"] == "papers/late.pdf"
        # outside every folder: refused, naming the setting; nothing copied
        refused = process_document(index, index.reindex, str(books / "book.pdf"))
        assert refused["status"] == "error"
        assert "`folders`" in refused["message"]
        assert "import_outside" in refused["message"]
        assert not (root / "files" / "imported").exists()
    with opened(_settings(root, papers, import_outside=True, import_mb=1)) as index:
        done = process_document(index, index.reindex, str(secret), "Imported Thing")
        assert done["status"] == "success", done
        copied = root / "files" / "imported" / "secret.pdf"
        assert copied.read_bytes() == secret.read_bytes()
        assert index.engine.record("imported/secret.pdf").title == "Imported Thing"
        again = process_document(index, index.reindex, str(secret))  # same bytes: no copy
        assert again["status"] == "success"
        assert sorted(p.name for p in copied.parent.iterdir()) == ["secret.pdf"]
        # a link, a FIFO, an unread type, a file past import_mb: refused, nothing copied
        (tmp_path / "link.pdf").symlink_to(secret)
        os.mkfifo(tmp_path / "pipe.pdf")
        (tmp_path / "big.pdf").write_bytes(b"%PDF-1.4\n" + b"0" * 1_100_000)
        (tmp_path / "data.xyz").write_text("never read")
        for name in ("link.pdf", "pipe.pdf", "big.pdf", "data.xyz"):
            answer = process_document(index, index.reindex, str(tmp_path / name))
            assert answer["status"] == "error", (name, answer)
        assert sorted(p.name for p in copied.parent.iterdir()) == ["secret.pdf"]
        # the title survives a full rebuild
        index.reindex(full=True)
        assert index.engine.record("papers/late.pdf").title == "Capybara Atlas"
        assert index.engine.record("imported/secret.pdf").title == "Imported Thing"


def test_paths_from_the_project_root_resolve(library: PdfIndex) -> None:
    root = library.settings.root
    answer = read_pdf(library, [{"path": "files/main.pdf", "pages": [1]}])["results"][0]
    assert answer["success"], answer
    assert "zebra stripes" in answer["data"]["page_texts"][0]["text"]
    papers = library.folders["papers"]
    relative = os.path.relpath(papers / "giraffe.pdf", root)  # ../away/Papers/giraffe.pdf
    answer = read_pdf(library, [{"path": relative, "pages": [1]}])["results"][0]
    assert answer["success"], answer
    assert "Giraffe necks" in answer["data"]["page_texts"][0]["text"]


def test_paths_leading_out_of_every_folder_are_refused(library: PdfIndex) -> None:
    papers = library.folders["papers"]
    (papers / "leak.pdf").symlink_to(papers.parent / "secret.pdf")
    (papers / "out").symlink_to(papers.parent, target_is_directory=True)
    library.reindex()
    assert "papers/leak.pdf" not in {r.path for r in library.documents()}
    for path in (
        "papers/../secret.pdf",
        "papers/../../away/secret.pdf",
        "papers/leak.pdf",
        "papers/out/secret.pdf",
        str(papers.parent / "secret.pdf"),
        "files/../../away/secret.pdf",
        "../away/secret.pdf",
    ):
        answer = read_pdf(library, [{"path": path, "pages": [1]}])["results"][0]
        assert not answer["success"], (path, answer)
        assert "zebra stripes" not in json.dumps(answer)


def test_folder_settings_names_and_conflicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, papers, books = _library(tmp_path)
    other = tmp_path / "x" / "papers"
    other.mkdir(parents=True)
    settings = _settings(root, papers, other, f"shelf={books}")
    assert settings.folders == {"papers": papers, "papers-2": other, "shelf": books}
    monkeypatch.setenv("PDFINDEX_FOLDERS", f"{papers}{os.pathsep}{books}")
    assert set(make_settings(root).folders) == {"papers", "books"}
    monkeypatch.delenv("PDFINDEX_FOLDERS")
    (root / "pdfindex.toml").write_text(f'folders = {{lib = "{books}"}}\n')
    assert make_settings(root).folders == {"lib": books}
    (root / "pdfindex.toml").unlink()
    (root / "files" / "papers").mkdir()  # a files-folder sub-folder named as a folder
    with pytest.raises(ConfigError, match="name that folder otherwise"):
        PdfIndex(_settings(root, papers))
    shutil.rmtree(root / "files" / "papers")
    for overlapping in (root / "files", root, papers / "sub"):
        with pytest.raises(ConfigError, match="overlaps"):
            PdfIndex(_settings(root, papers, overlapping))
    with pytest.raises(ConfigError, match="does not exist"):
        PdfIndex(_settings(root, tmp_path / "nowhere"))


def test_the_cli_takes_folder_repeated(tmp_path: Path) -> None:
    root, papers, books = _library(tmp_path)
    base = ["--root", str(root), "--workers", "2", "--folder", str(papers), "--folder"]
    result = CliRunner().invoke(main, [*base, f"shelf={books}", "reindex"])
    assert result.exit_code == 0, result.output
    listed = CliRunner().invoke(main, [*base, f"shelf={books}", "list", "--json"])
    rows = {row["path"]: row["folder"] for row in json.loads(listed.output)}
    assert rows["shelf/book.pdf"] == "shelf"
    assert rows["papers/giraffe.pdf"] == "papers"
    assert rows["main.pdf"] == ""
    stats = CliRunner().invoke(main, [*base, f"shelf={books}", "stats"])
    assert f"shelf = {books} (1 documents, 2 pages)" in stats.output
    found = CliRunner().invoke(main, [*base, f"shelf={books}", "search", "savanna"])
    assert "shelf/book.pdf" in found.output


def _roots_session(settings: Settings, roots: list[Path], *calls: tuple[str, dict]) -> list[Any]:
    """Tool calls in one session of a client that declares `roots` (the handshake-era
    protocol: the 2026-07-28 one deprecates roots)."""

    async def list_roots(_context: Any) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=folder.as_uri()) for folder in roots])

    with open_app(settings, watch=False) as app:
        server = build_server(settings, app=app)

        async def main_() -> list[Any]:
            async with Client(server, mode="legacy", list_roots_callback=list_roots) as client:
                answers = []
                for tool, arguments in calls:
                    answers.append(await client.call_tool(tool, arguments))
                    if tool == "get_library_status" and settings.index_client_roots:
                        await anyio.to_thread.run_sync(
                            lambda: eventually(
                                lambda: app.index.is_indexed("books/book.pdf"), "roots indexed"
                            )
                        )
                return answers

        return anyio.run(main_)


def test_the_clients_roots_are_reported_and_indexed_on_request(tmp_path: Path) -> None:
    root, papers, books = _library(tmp_path)
    roots = [root / "files", papers, books]
    (status,) = _roots_session(_settings(root, papers), roots, ("get_library_status", {}))
    text = status.content[0].text
    assert f"- {(root / 'files').as_uri()}: indexed (the files folder)" in text
    assert f"- {papers.as_uri()}: indexed (folder 'papers')" in text
    assert f"- {books.as_uri()}: not indexed (index_client_roots" in text
    settings = _settings(root, papers, index_client_roots=True)
    status, found = _roots_session(
        settings,
        roots,
        ("get_library_status", {}),
        ("search_pdf", {"pdf_name": "books/book", "query": "savanna"}),
    )
    assert found.structured_content["query_exists"], found
