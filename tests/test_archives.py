"""Archives (ZIP, TAR.GZ, 7z, a PDF inside a ZIP inside a ZIP): each member document is
searchable under ARCHIVE/MEMBER by every search, edits and deletions are followed, and
hostile archives fail clearly within their budget, leaving nothing outside the index."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from pdfindex.api import PdfIndex
from pdfindex.cli import main
from pdfindex.search.exact import exact_search
from pdfindex.tools.catalog import search_documents
from pdfindex.tools.exact import search_pdf
from pdfindex.tools.files import list_searchable_files
from pdfindex.tools.fuzzy import fuzzy_search
from pdfindex.tools.grep import search_in_file
from pdfindex.tools.pages import extract_pdf_page, get_page_image
from tests import archivegen, pdfgen
from tests.brute import brute_force
from tests.conftest import make_settings
from tests.waiting import eventually

MEMBERS = {
    "bundle.zip/papers/a.pdf": "zebra quagga",
    "bundle.zip/papers/notes/n.md": "platypus ledger",
    "shelf.tar.gz/docs/t.txt": "okapi lantern",
    "seven.7z/inside/s.md": "narwhal compass",
    "outer.zip/inner.zip/deep/d.pdf": "axolotl harbour",
}


def _pdf(tmp: Path, name: str, pages: list[str]) -> bytes:
    return pdfgen.write_pdf(tmp / name, pages).read_bytes()


def build_library(root: Path) -> None:
    """files/ holding a ZIP (a PDF and a .md in sub-folders), a TAR.GZ, a 7z and a PDF
    inside a ZIP inside a ZIP."""
    files, tmp = root / "files", root / "gen"
    a = _pdf(tmp, "a.pdf", ["the zebra quagga grazes", "page two of a"])
    archivegen.write_zip(
        files / "bundle.zip",
        {"papers/a.pdf": a, "papers/notes/n.md": b"# Notes\nthe platypus ledger\n"},
    )
    archivegen.write_tar(files / "shelf.tar.gz", {"docs/t.txt": b"an okapi lantern here\n"})
    archivegen.write_7z(files / "seven.7z", {"inside/s.md": b"# S\nnarwhal compass\n"})
    inner = archivegen.write_zip(
        tmp / "inner.zip", {"deep/d.pdf": _pdf(tmp, "d.pdf", ["the axolotl harbour"])}
    )
    archivegen.write_zip(files / "outer.zip", {"inner.zip": inner.read_bytes()})
    for made in tmp.iterdir():
        made.unlink()
    tmp.rmdir()


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Iterator[PdfIndex]:
    """Built once per engine pass (make_settings reads the pass's engine)."""
    root = tmp_path_factory.mktemp("archives")
    build_library(root)
    index = PdfIndex(make_settings(root))
    index.reindex()
    yield index
    index.close()


def test_every_member_document_is_indexed_under_its_archive_path(library: PdfIndex) -> None:
    paths = {r.path for r in library.documents()}
    archives = {"bundle.zip", "shelf.tar.gz", "seven.7z", "outer.zip"}
    assert paths == set(MEMBERS) | archives
    for name in archives:
        record = library.engine.record(name)
        assert record is not None
        assert record.status == "ok", record.error
    listed = {row["path"] for row in list_searchable_files(library)["files"]}
    assert listed == paths


@pytest.mark.parametrize("path", sorted(MEMBERS))
def test_search_pdf_and_search_in_file_find_member_text(library: PdfIndex, path: str) -> None:
    words = MEMBERS[path]
    found = search_pdf(library, path, words)
    assert found["query_exists"], found
    lines = search_in_file(library, path, words.split()[1])["matches"]
    assert [words in m["content"] for m in lines] == [True]


def test_ranked_and_fuzzy_search_name_the_member(library: PdfIndex) -> None:
    for path, words in MEMBERS.items():
        record = library.engine.record(path)
        assert record is not None
        assert f"Document: {record.slug}\n" in search_documents(library, words)
    hits = fuzzy_search(library, "axolotl", file_types=["pdf"], interactive=False)["matches"]
    assert {h["file"] for h in hits} == {"outer.zip/inner.zip/deep/d.pdf"}


@pytest.mark.parametrize("query", ["zebra", "the", "a", "okapi lantern", "compass\n", "e"])
def test_exact_search_equals_brute_force_over_members(library: PdfIndex, query: str) -> None:
    expected = []
    for record in library.documents():
        for page, text in enumerate(library.engine.page_texts(record.slug), 1):
            expected += [(record.path, page, start) for start, _ in brute_force(text, query)]
    matches, _ = exact_search(library.engine, query, limit=1000, context_length=4)
    assert sorted((m.path, m.page, m.start) for m in matches) == sorted(expected)


def test_the_cli_searches_members_exactly_and_ranked(library: PdfIndex) -> None:
    root = ["--root", str(library.settings.root)]
    ranked = CliRunner().invoke(main, ["search", *root, "axolotl harbour", "--json"])
    assert ranked.exit_code == 0, ranked.output
    hits = json.loads(ranked.stdout)["hits"]
    assert [h["path"] for h in hits] == ["outer.zip/inner.zip/deep/d.pdf"]
    exact = CliRunner().invoke(main, ["search", *root, "platypus ledger", "--exact", "--json"])
    assert exact.exit_code == 0, exact.output
    (match,) = json.loads(exact.stdout)["matches"]
    assert match["path"] == "bundle.zip/papers/notes/n.md"


def test_page_tools_read_the_member_from_its_archive(library: PdfIndex) -> None:
    """get_page_image and extract_pdf_page read the PDF's bytes out of two ZIPs into
    the index folder's scratch folder, which is empty again afterwards."""
    _caption, png = get_page_image(library, "outer_zip_inner_zip_deep_d", 1)
    assert png.startswith(b"\x89PNG")
    page = extract_pdf_page(library, "bundle.zip/papers/a.pdf", [1], "markdown")
    assert "zebra quagga" in page["content"]
    scratch = library.settings.index_dir / "tmp"
    assert list(scratch.iterdir()) == []


def test_an_edited_archive_rereads_only_what_changed_and_a_deleted_one_leaves(
    tmp_path: Path,
) -> None:
    files = tmp_path / "files"
    archive = files / "b.zip"
    archivegen.write_zip(archive, {"keep.md": b"steady words", "edit.md": b"old words"})
    archivegen.write_zip(files / "other.zip", {"o.txt": b"other archive"})
    index = PdfIndex(make_settings(tmp_path))
    try:
        first = index.reindex()
        assert sorted(first.parsed_paths) == ["b.zip/edit.md", "b.zip/keep.md", "other.zip/o.txt"]
        slug = index.engine.record("b.zip/keep.md").slug  # type: ignore[union-attr]
        archivegen.write_zip(
            archive,
            {"keep.md": b"steady words", "edit.md": b"new words"} | {"added.txt": b"added words"},
        )
        os.utime(archive, (1, 1))  # a clearly different mtime on coarse file systems
        second = index.reindex()
        assert sorted(second.parsed_paths) == ["b.zip/added.txt", "b.zip/edit.md"]
        assert found(index, "b.zip/edit.md", "new words")
        assert not found(index, "b.zip/edit.md", "old words")
        assert index.engine.record("b.zip/keep.md").slug == slug  # type: ignore[union-attr]
        archivegen.write_zip(archive, {"edit.md": b"new words"})
        os.utime(archive, (2, 2))
        third = index.reindex()
        assert third.removed == 2
        assert {r.path for r in index.documents()} == {
            "b.zip",
            "b.zip/edit.md",
            "other.zip",
            "other.zip/o.txt",
        }
        archive.unlink()
        index.reindex()
        assert {r.path for r in index.documents()} == {"other.zip", "other.zip/o.txt"}
        assert index.reindex().parsed_paths == []  # an unchanged archive is not read again
    finally:
        index.close()


def found(index: PdfIndex, name: str, text: str) -> bool:
    return bool(search_pdf(index, name, text).get("query_exists"))


def test_the_watcher_follows_an_archive(tmp_path: Path) -> None:
    files = tmp_path / "files"
    archivegen.write_zip(files / "w.zip", {"a.md": b"first version"})
    index = PdfIndex(make_settings(tmp_path))
    live = index.live(quiet=0.3).start()
    try:
        assert live.caught_up.wait(30)
        assert found(index, "w.zip/a.md", "first version")
        archivegen.write_zip(files / "w.zip", {"a.md": b"second version", "b.md": b"new member"})
        eventually(lambda: found(index, "w.zip/b.md", "new member"), "the added member")
        eventually(lambda: found(index, "w.zip/a.md", "second version"), "the edited member")
        (files / "w.zip").unlink()
        eventually(lambda: index.documents() == [], "the deleted archive's members leave")
    finally:
        live.close()
        index.close()


# -- hostile archives ------------------------------------------------------------------


def hostile(kind: str, files: Path, outside: Path) -> None:
    """Write the hostile archive `kind` (and one good document) into `files`."""
    pdf = pdfgen.write_pdf(outside / "escaped.pdf", ["an escaped document"]).read_bytes()
    if kind == "bomb":
        archivegen.write_targz_bomb(files / "bomb.tar.gz", 10)
    elif kind in ("nested", "nested-deep"):
        archivegen.write_nested_bomb(files / "42.zip")
    elif kind == "traversal":
        archivegen.write_zip(
            files / "escape.zip",
            {"../../x.pdf": pdf, "/abs.pdf": pdf, "C:/drive.pdf": pdf, "ok/good.pdf": pdf},
        )
    elif kind == "links":
        archivegen.write_tar_with_links(
            files / "links.tar.gz",
            {"good.pdf": pdf},
            {"link.pdf": str(outside / "escaped.pdf"), "up.pdf": "../../escaped.pdf"},
        )
    elif kind == "budget":  # incompressible: only the byte budget (1 MB here) stops it
        members = {f"r{n}.txt": os.urandom(600_000) for n in range(3)}
        archivegen.write_zip(files / "big.zip", members, compress=False)
    elif kind == "many":
        archivegen.write_many_members(
            files / "many.zip", 100_000, {"first.txt": b"first member"}, {"last.txt": b"last"}
        )


EXPECTED = {  # kind -> (archive, status, a phrase of its error or notes, documents inside)
    "bomb": ("bomb.tar.gz", "failed", "compression ratio over 100:1", set()),
    "budget": ("big.zip", "failed", "over the budget of 1 MB uncompressed", set()),
    "nested": ("42.zip", "ok", "nested deeper than 3 levels", set()),
    "nested-deep": ("42.zip", "failed", "compression ratio over 100:1", set()),
    "traversal": ("escape.zip", "ok", "'../../x.pdf': its name leads out", {"ok/good.pdf"}),
    "links": ("links.tar.gz", "ok", "'link.pdf': a link, not read", {"good.pdf"}),
    "many": ("many.zip", "ok", "more than 10,000 entries", {"first.txt"}),
}


def tree(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")}


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_a_hostile_archive_fails_clearly_within_its_budget(tmp_path: Path, kind: str) -> None:
    """The real CLI indexes the archive in a process of its own (TMPDIR a folder of the
    test's): the archive's record says what was refused, nothing is written outside the
    index folder, and the peak memory of the indexer and its workers stays small."""
    root, outside, temp = tmp_path / "root", tmp_path / "outside", tmp_path / "temp"
    for folder in (root / "files", outside, temp):
        folder.mkdir(parents=True)
    hostile(kind, root / "files", outside)
    before = tree(tmp_path)
    script = (
        "import resource, sys; from pdfindex.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        # Its own peak from VmHWM: ru_maxrss of RUSAGE_SELF keeps the forking parent's
        # (pytest's) size across exec. Its workers' peak: RUSAGE_CHILDREN (forked from it).
        "hwm = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')]\n"
        "usage = [*hwm, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss]\n"
        "print('PEAK', max(usage) // 1024, file=sys.stderr)\n"
    )
    env = {**os.environ, "TMPDIR": str(temp), "PDFINDEX_WORKERS": "2"}
    if kind == "nested-deep":  # deep enough to reach the zeros: the ratio stops them
        env["PDFINDEX_ARCHIVE_DEPTH"] = "10"
    if kind == "budget":
        env["PDFINDEX_ARCHIVE_MB"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", script, "reindex", "--root", str(root)],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    peak = int(done.stderr.rsplit("PEAK", 1)[1])
    print(f"{kind}: peak memory {peak} MB")  # pytest -s shows the figures
    assert peak < 600, f"peak memory {peak} MB"  # a 10 GB bomb, 64 TB claimed by 42.zip
    archive, status, phrase, inside = EXPECTED[kind]
    index = PdfIndex(make_settings(root, database_url=os.environ.get("PDFINDEX_DATABASE_URL")))
    try:
        record = index.engine.record(archive)
        assert record is not None
        assert record.status == status
        assert phrase in " ".join([record.error or "", *record.notes])
        members = {r.path.removeprefix(archive + "/") for r in index.documents()} - {archive}
        assert members == inside
    finally:
        index.close()
    assert list(temp.iterdir()) == []
    scratch = root / "index" / "tmp"
    assert not scratch.exists() or list(scratch.iterdir()) == []
    grown = {p for p in tree(tmp_path) - before if not p.startswith(("root/index", "root/logs"))}
    assert grown == set()
    assert not (tmp_path / "x.pdf").exists()
    assert not Path("/x.pdf").exists()
