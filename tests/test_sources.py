"""Several folders (hosts) feeding one PostgreSQL library, each under its own source name
(issue 15), against a real PostgreSQL server (tests/pgserver.py): the postgres pass only.

Roots side by side in one temporary folder stand for hosts; each is its own PdfIndex (or
its own `pdfindex serve` process) on one database.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pdfindex.api import PdfIndex
from pdfindex.cli import main
from pdfindex.config import index_settings, load_settings
from pdfindex.engine import open_engine
from pdfindex.errors import (
    ConfigError,
    IndexLocked,
    PathOutsideFiles,
    SourceTaken,
    SourceUnreachable,
)
from pdfindex.models import FileRecord
from pdfindex.text.index import index_text
from pdfindex.tools.files import list_searchable_files, read_pdf
from pdfindex.tools.fuzzy import fuzzy_search
from pdfindex.tools.grep import search_in_file
from pdfindex.tools.pages import extract_pdf_page, get_page_image
from tests import pdfgen
from tests.conftest import database_for, make_settings

psycopg = pytest.importorskip("psycopg", reason="the postgres extra is not installed")


@pytest.fixture(autouse=True)
def _postgres_pass_only(index_engine: str) -> None:
    if index_engine != "postgres":
        pytest.skip("a library several folders feed is the postgres engine's (its pass)")


def _host(root: Path, url: str, source: str = "", **overrides: Any) -> PdfIndex:
    return PdfIndex(
        make_settings(root, database_url=url, source=source or None, elements=False, **overrides)
    )


@pytest.fixture
def two_hosts(tmp_path: Path) -> Iterator[tuple[PdfIndex, PdfIndex]]:
    """Host a (source hosta: alpha.pdf) and host b (source hostb: beta.pdf), indexed."""
    url = database_for(tmp_path)
    pdfgen.write_pdf(tmp_path / "a" / "files" / "alpha.pdf", ["alpha words on a", "page two"])
    pdfgen.write_pdf(tmp_path / "b" / "files" / "beta.pdf", ["beta words on b"])
    a, b = _host(tmp_path / "a", url, "hosta"), _host(tmp_path / "b", url, "hostb")
    try:
        a.reindex()
        b.reindex()
        yield a, b
    finally:
        a.close()
        b.close()


def test_without_source_names_a_second_folder_is_refused_and_deletes_nothing(
    tmp_path: Path,
) -> None:
    """The bug this fixes: a second root's scan saw the first root's files as removed and
    deleted them. Now its writer is refused with one line saying what to do, and a
    take-over is on purpose only."""
    url = database_for(tmp_path)
    pdfgen.write_pdf(tmp_path / "a" / "files" / "alpha.pdf", ["alpha words"])
    pdfgen.write_pdf(tmp_path / "b" / "files" / "beta.pdf", ["beta words"])
    first, second = _host(tmp_path / "a", url), _host(tmp_path / "b", url)
    try:
        first.reindex()
        with pytest.raises(SourceTaken) as refused:
            second.reindex()
        message = str(refused.value)
        assert f"this library is fed by {(tmp_path / 'a' / 'files').resolve()} on " in message
        assert "give this folder its own source name" in message
        assert 'source = "…" in pdfindex.toml or PDFINDEX_SOURCE' in message
        assert sorted(first.engine.catalog()) == ["alpha.pdf"]
        second.reindex(take_over_source=True)  # this folder replaces the first one
        assert sorted(first.engine.catalog()) == ["beta.pdf"]
        with pytest.raises(SourceTaken):
            first.reindex()
    finally:
        first.close()
        second.close()


def test_naming_the_source_of_a_library_renames_its_records_as_moves(tmp_path: Path) -> None:
    """A folder that fed the library unnamed and is then given a source name takes its
    records along (moves: nothing parsed again), and its old names are gone."""
    url = database_for(tmp_path)
    pdfgen.write_pdf(tmp_path / "files" / "alpha.pdf", ["alpha words"])
    unnamed = _host(tmp_path, url)
    try:
        unnamed.reindex()
    finally:
        unnamed.close()
    named = _host(tmp_path, url, "hosta")
    try:
        summary = named.reindex()
        assert (summary.moved, summary.parsed, summary.removed) == (1, 0, 0)
        assert {p: r.slug for p, r in named.engine.catalog().items()} == {
            "hosta/alpha.pdf": "hosta_alpha"
        }
        assert set(named.engine.sources()) == {"hosta"}
    finally:
        named.close()


def test_the_cli_refuses_a_second_folder_in_one_line(tmp_path: Path) -> None:
    url = database_for(tmp_path)
    for name in ("a", "b"):
        pdfgen.write_pdf(tmp_path / name / "files" / f"{name}.pdf", [f"{name} words"])
    runner = CliRunner()
    first = runner.invoke(main, ["reindex", "--root", str(tmp_path / "a")])
    assert first.exit_code == 0, first.output
    second = runner.invoke(main, ["reindex", "--root", str(tmp_path / "b")])
    assert second.exit_code == 2
    (line,) = second.output.strip().splitlines()
    assert line.startswith("Error: this library is fed by ")
    assert "its unnamed source" in line
    named = runner.invoke(main, ["reindex", "--root", str(tmp_path / "b"), "--source", "hostb"])
    assert named.exit_code == 0, named.output
    assert url  # both roots wrote the one database of this test


def test_two_sources_share_one_library_and_change_only_their_own(
    two_hosts: tuple[PdfIndex, PdfIndex], tmp_path: Path
) -> None:
    a, b = two_hosts
    assert {p: r.slug for p, r in b.engine.catalog().items()} == {
        "hosta/alpha.pdf": "hosta_alpha",
        "hostb/beta.pdf": "hostb_beta",
    }
    # Both hosts search both folders' text.
    for host in (a, b):
        assert [h.path for h in host.search("alpha")[1]] == ["hosta/alpha.pdf"]
        assert [m.path for m in host.exact("beta words")[0]] == ["hostb/beta.pdf"]
    # A file leaving host a's folder is removed by a's scan only; b's leaves it alone.
    (tmp_path / "a" / "files" / "alpha.pdf").unlink()
    pdfgen.write_pdf(tmp_path / "b" / "files" / "gamma.pdf", ["gamma words"])
    summary = b.reindex()
    assert (summary.added, summary.removed) == (1, 0)
    assert sorted(b.engine.catalog()) == ["hosta/alpha.pdf", "hostb/beta.pdf", "hostb/gamma.pdf"]
    assert b.reindex(full=True).removed == 0  # a full rebuild of b keeps a's records
    assert a.reindex().removed == 1
    assert sorted(a.engine.catalog()) == ["hostb/beta.pdf", "hostb/gamma.pdf"]


def test_names_and_tools_see_every_source_and_files_of_their_own(
    two_hosts: tuple[PdfIndex, PdfIndex],
) -> None:
    a, _ = two_hosts
    # Own files by library path, by path under the folder, by slug; others by path/slug.
    assert a.find_record("alpha.pdf").path == "hosta/alpha.pdf"
    assert a.find_record("hosta/alpha").slug == "hosta_alpha"
    assert a.find_record("hostb/beta.pdf").slug == "hostb_beta"
    assert a.find_record("hostb_beta").path == "hostb/beta.pdf"
    read = read_pdf(a, [{"path": "hostb/beta.pdf", "pages": "1"}])["results"][0]
    assert read["success"], read
    assert "beta words" in str(read), read
    lines = search_in_file(a, "hostb_beta", r"beta \w+")["matches"]
    assert [m["content"] for m in lines] == ["beta words on b"]
    fuzzy = fuzzy_search(a, "wrds", interactive=False, match="words")["matches"]
    assert {m["file"] for m in fuzzy} == {"hosta/alpha.pdf", "hostb/beta.pdf"}
    for scope in ("hostb/beta.pdf", "hostb_beta", "hostb"):  # its folder unknown here
        fuzzy = fuzzy_search(a, "wrds", path=scope, interactive=False, match="words")["matches"]
        assert {m["file"] for m in fuzzy} == {"hostb/beta.pdf"}, scope
    listed = list_searchable_files(a)
    rows = {row["path"]: row["status"] for row in listed["files"]}
    assert rows == {"hosta/alpha.pdf": "ok"}  # this host's folder, as the library names it
    caption, png = get_page_image(a, "hosta_alpha", 2)
    assert png.startswith(b"\x89PNG")
    assert "Page 2 of 2" in caption


def test_another_sources_file_is_unreachable_without_its_folder_and_read_with_it(
    two_hosts: tuple[PdfIndex, PdfIndex], tmp_path: Path
) -> None:
    a, b = two_hosts
    with pytest.raises(SourceUnreachable) as unreachable:
        get_page_image(a, "hostb_beta", 1)
    assert str(unreachable.value) == (
        "'hostb/beta.pdf' is in the library from source 'hostb', whose folder is not "
        "reachable from this host; its text is searchable here, and "
        'source_folders.hostb = "/path" makes the file itself readable'
    )
    with pytest.raises(SourceUnreachable, match="source 'hostb'"):
        extract_pdf_page(a, "hostb/beta.pdf", [1], "plain")
    shared = _host(
        tmp_path / "a", database_for(tmp_path), "hosta", source_folders={"hostb": "../b/files"}
    )
    try:
        _, png = get_page_image(shared, "hostb_beta", 1)
        assert png.startswith(b"\x89PNG")
        converted = extract_pdf_page(shared, "hostb/beta.pdf", [1], "plain")
        assert "beta words" in converted["content"]
        real, path = shared.resolve(str(tmp_path / "b" / "files" / "beta.pdf"))
        assert path == "hostb/beta.pdf"
        assert real == (tmp_path / "b" / "files" / "beta.pdf")
    finally:
        shared.close()
    assert b.engine.record("hostb/beta.pdf") is not None


def test_a_source_folder_keeps_every_path_inside_it(tmp_path: Path) -> None:
    """`..` and symlinks through another source's folder are refused as through the files
    folder: nothing outside the folder is read."""
    url = database_for(tmp_path)
    secret = tmp_path / "secret.pdf"
    pdfgen.write_pdf(secret, ["secret words"])
    folder = tmp_path / "b" / "files"
    pdfgen.write_pdf(folder / "beta.pdf", ["beta words"])
    (folder / "leak.pdf").symlink_to(secret)
    (tmp_path / "a" / "files").mkdir(parents=True)
    b = _host(tmp_path / "b", url, "hostb")
    a = _host(tmp_path / "a", url, "hosta", source_folders={"hostb": str(folder)})
    try:
        b.reindex()
        assert sorted(a.engine.catalog()) == ["hostb/beta.pdf"]  # the link leads out: skipped
        for attempt in ("hostb/../../secret.pdf", "hostb/leak.pdf", str(secret)):
            with pytest.raises(PathOutsideFiles):
                a.resolve(attempt)
        with pytest.raises(PathOutsideFiles):  # also where the source's folder is unknown
            b.resolve("hosta/../../secret.pdf")
    finally:
        a.close()
        b.close()


def test_source_names_and_folders_are_checked(tmp_path: Path, monkeypatch) -> None:
    for bad in ("Host A", "a/b", "ü"):
        with pytest.raises(ConfigError, match=r"use lower-case letters, digits, '_' and '-'"):
            load_settings({"source": bad}, root=tmp_path)
    monkeypatch.setenv("PDFINDEX_SOURCE_FOLDERS", "hostb=/mnt/hostb/files, hostc=shared/c")
    settings = load_settings({"source": "host_a-1"}, root=tmp_path)
    assert settings.source_folders == {
        "hostb": Path("/mnt/hostb/files"),
        "hostc": tmp_path.resolve() / "shared" / "c",
    }
    shown = settings.as_dict()
    assert shown["source"] == {"value": "host_a-1", "source": "flag --source"}
    assert shown["source_folders"]["source"] == "env PDFINDEX_SOURCE_FOLDERS"
    monkeypatch.setenv("PDFINDEX_SOURCE_FOLDERS", "/mnt/hostb/files")
    with pytest.raises(ConfigError, match="name=folder"):
        load_settings(root=tmp_path)


def _record(path: str) -> FileRecord:
    slug = path.removesuffix(".pdf").replace("/", "_")
    return FileRecord(path, slug, "t", 1, 1, 0.0, "0", "ok", None, 0.0, "x")


def test_writers_of_two_sources_run_at_once_and_keep_the_vocabulary_right(
    tmp_path: Path,
) -> None:
    """One writer lock per source: two hosts write at the same time, in long transactions.
    Each first adds a word the other adds next (counting as they went, each would wait for
    the other's row: a deadlock); the page counts of the vocabulary equal a recount
    afterwards (no update lost)."""
    url = database_for(tmp_path)
    engines = [
        open_engine(index_settings(tmp_path / n, "postgres", database_url=url)) for n in ("a", "b")
    ]
    for engine, source in zip(engines, ("a", "b"), strict=True):
        engine.use_source(source)
    both_wrote = threading.Barrier(2, timeout=30)
    errors: list[BaseException] = []

    def write(engine: Any, source: str, mine: str, theirs: str) -> None:
        try:
            with engine.writer(timeout=5) as writer:
                writer.add_file(_record(f"{source}/first.pdf"), [mine], [mine])
                both_wrote.wait()  # each holds its own lock and has written its word
                for n in range(30):
                    text = f"{theirs} {mine} shared {source}{n}"
                    writer.add_file(_record(f"{source}/d{n}.pdf"), [text], [index_text(text)])
                for n in range(0, 30, 3):
                    writer.remove_file(f"{source}/d{n}.pdf")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [
        threading.Thread(target=write, args=(engines[0], "a", "apple", "zebra")),
        threading.Thread(target=write, args=(engines[1], "b", "zebra", "apple")),
    ]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors, errors
        with psycopg.connect(url) as connection:
            stored = dict(connection.execute("SELECT word, pages FROM pdfindex_words").fetchall())
            recount = dict(
                connection.execute(
                    "SELECT word, ndoc FROM ts_stat('SELECT words FROM pdfindex_pages')"
                ).fetchall()
            )
        assert stored == recount
        assert (stored["shared"], stored["apple"], stored["zebra"], stored.get("a0")) == (
            40,
            41,
            41,
            None,
        )
        # The same source stays one writer at a time.
        with engines[0].writer(timeout=1):
            with pytest.raises(IndexLocked, match="writing source 'a' of the index"):
                with engines[0].writer(timeout=0.3):
                    pass
    finally:
        for engine in engines:
            engine.close()


def test_serve_refuses_to_feed_a_source_another_folder_feeds(tmp_path: Path) -> None:
    """A second host started without its own source name searches the library but does
    not write it: its status says why, and the first host's records stay."""
    from tests.mcpclient import open_app

    url = database_for(tmp_path)
    pdfgen.write_pdf(tmp_path / "a" / "files" / "alpha.pdf", ["alpha words"])
    pdfgen.write_pdf(tmp_path / "b" / "files" / "beta.pdf", ["beta words"])
    first = _host(tmp_path / "a", url)
    try:
        first.reindex()
    finally:
        first.close()
    with open_app(make_settings(tmp_path / "b", database_url=url, elements=False)) as app:
        assert "this library is fed by" in (app.live.last_error or "")
        assert sorted(app.index.engine.catalog()) == ["alpha.pdf"]
        assert [h.path for h in app.index.search("alpha")[1]] == ["alpha.pdf"]
    assert os.environ["PDFINDEX_DATABASE_URL"] == url


LANDED = 120.0  # generous bound on "a file landed → searchable from both" (2 busy cores)


async def _poll(client: Any, query: str, wanted: str) -> bool:
    """Whether search_documents finds `wanted` (a slug) within LANDED seconds."""
    import anyio

    from tests.mcpclient import text_of

    with anyio.move_on_after(LANDED):
        while True:
            result = await client.call_tool("search_documents", {"query": query})
            if not result.is_error and wanted in text_of(result):
                return True
            await anyio.sleep(0.2)
    return False


def test_two_serve_processes_on_two_folders_share_one_library(tmp_path: Path) -> None:
    """Issue 15's "Done when": two `pdfindex serve` processes (real MCP client over stdio)
    on different roots with different source names and one database: a PDF landing in
    either folder is searchable from both; the other host's page image errors clearly
    without source_folders and is rendered with it."""
    import anyio

    from tests.mcpclient import image_of, stdio, text_of

    a, b = tmp_path / "a", tmp_path / "b"
    pdfgen.write_pdf(a / "files" / "alpha.pdf", ["alpha kestrel page"])
    (b / "files").mkdir(parents=True)
    quick = {"PDFINDEX_ELEMENTS": "false", "PDFINDEX_WORKERS": "1"}
    env_a, env_b = quick | {"PDFINDEX_SOURCE": "hosta"}, quick | {"PDFINDEX_SOURCE": "hostb"}

    async def both_hosts() -> None:
        async with stdio(a, env=env_a) as host_a, stdio(b, env=env_b) as host_b:
            for client in (host_a, host_b):
                assert await _poll(client, "kestrel", "hosta_alpha")
            pdfgen.write_pdf(b / "files" / "landed.pdf", ["a heron landed on b"])
            for client in (host_a, host_b):
                assert await _poll(client, "heron", "hostb_landed")
            pdfgen.write_pdf(a / "files" / "later.pdf", ["an osprey landed on a"])
            for client in (host_b, host_a):
                assert await _poll(client, "osprey", "hosta_later")
            image = await host_a.call_tool(
                "get_page_image", {"document_slug": "hostb_landed", "page_number": 1}
            )
            assert image.is_error
            assert "source 'hostb', whose folder is not reachable from this host" in (
                text_of(image)
            )
            own = await host_a.call_tool(
                "get_page_image", {"document_slug": "hosta_alpha", "page_number": 1}
            )
            assert not own.is_error
            assert image_of(own).width > 100

    async def with_the_shared_folder() -> None:
        env = env_a | {"PDFINDEX_SOURCE_FOLDERS": f"hostb={b / 'files'}"}
        async with stdio(a, env=env) as host_a:
            image = await host_a.call_tool(
                "get_page_image", {"document_slug": "hostb_landed", "page_number": 1}
            )
            assert not image.is_error, text_of(image)
            assert image_of(image).width > 100

    anyio.run(both_hosts)
    anyio.run(with_the_shared_folder)
