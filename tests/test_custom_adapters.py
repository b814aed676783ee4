"""Custom adapters (`[[custom_adapters]]` in pdfindex.toml): real small programs (Python
scripts run through sys.executable) read made-up file types into the real index; one that
sleeps, fails or allocates past its caps fails its own file only, and no shell ever sees
a file name."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pdfindex.api import PdfIndex
from pdfindex.config import load_settings
from pdfindex.errors import ConfigError
from pdfindex.models import FileStatus
from pdfindex.search.exact import exact_search
from tests.brute import brute_force
from tests.conftest import make_settings
from tests.mcpclient import InMemory, open_app

# Prints the file upper-cased, a page per '|', then its own arguments after the input
# (so a test sees exactly what the program was given).
UPPER = """\
import sys
text = open(sys.argv[1], encoding="utf-8").read()
sys.stdout.write(text.upper().replace("|", "\\f"))
sys.stdout.write("\\nARGS " + " ".join(sys.argv[2:]))
"""
SLEEPY = "import time\ntime.sleep(60)\n"
FAILING = "import sys\nprint('reading', file=sys.stderr)\nsys.exit('bad header in file')\n"
GREEDY = "block = bytearray(1 << 31)\nprint(len(block))\n"  # 2 GiB: past a 300 MB cap
TEXTS = {
    "a.up": "first page words alpha|second page: the c++ beta, e.g. 3.14|third",
    "sub/b.up": "another document|with the alpha word again",
}


def toml(*adapters: dict[str, object]) -> str:
    """[[custom_adapters]] tables (JSON strings are TOML basic strings)."""
    out = []
    for adapter in adapters:
        out.append("[[custom_adapters]]")
        out += [f"{key} = {json.dumps(value)}" for key, value in adapter.items()]
    return "\n".join(out) + "\n"


def script(root: Path, name: str, body: str) -> dict[str, object]:
    """A program as a custom adapter runs it: the interpreter, then the script."""
    path = root / "programs" / f"{name}.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(body)
    return {"command": sys.executable, "args": [str(path), "$input"]}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Path:
    root = tmp_path_factory.mktemp("custom")
    for name, text in TEXTS.items():
        (root / "files" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "files" / name).write_text(text)
    (root / "files" / "plain.txt").write_text("plain text, read by the built-in adapter\n")
    upper = script(root, "upper", UPPER)
    upper["args"] = [*upper["args"], "; touch pwned", "$(touch pwned2)", "`touch pwned3`"]  # type: ignore[misc]
    (root / "pdfindex.toml").write_text(
        toml({"name": "upper", "extensions": ["up", ".UPX"], **upper, "description": "Upper"})
    )
    return root


@pytest.fixture(scope="module")
def index(project: Path) -> Iterator[PdfIndex]:
    library = PdfIndex(make_settings(project, elements=False))
    library.reindex()
    yield library
    library.close()


def test_a_program_reads_a_made_up_type_and_exact_search_equals_brute_force(
    index: PdfIndex,
) -> None:
    record = index.engine.record("a.up")
    assert record is not None
    assert (record.status, record.pages) == (FileStatus.OK, 3)  # pages split at \f
    assert record.extractor.startswith("custom-upper-")
    texts = index.engine.page_texts(record.slug)
    assert texts[0] == "FIRST PAGE WORDS ALPHA"
    assert texts[2].startswith("THIRD\nARGS ; touch pwned $(touch pwned2) `touch pwned3`")
    for query in ("alpha", "c++ beta", "e.g. 3.14", "touch pwned", "page"):
        for slug in (record.slug, index.engine.record("sub/b.up").slug):  # type: ignore[union-attr]
            stored = index.engine.page_texts(slug)
            expected = [(n, s) for n, t in enumerate(stored, 1) for s, _ in brute_force(t, query)]
            found, _ = exact_search(index.engine, query, slug=slug, limit=1000)
            assert [(m.page, m.start) for m in found] == expected, (slug, query)
    assert index.engine.record("plain.txt").status == FileStatus.OK  # type: ignore[union-attr]


def test_no_shell_sees_the_arguments_or_a_file_name(tmp_path: Path) -> None:
    """A file named `a;touch x.zzz` and arguments holding $(...), `...` and ';' run
    nothing: the program gets them as they are."""
    files = tmp_path / "files"
    files.mkdir()
    (files / "a;touch x.zzz").write_text("semicolon name")
    (files / "$(touch y).zzz").write_text("dollar name")
    upper = script(tmp_path, "upper", UPPER)
    (tmp_path / "pdfindex.toml").write_text(toml({"name": "z", "extensions": ["zzz"], **upper}))
    library = PdfIndex(make_settings(tmp_path, elements=False))
    try:
        library.reindex()
        assert library.engine.record("a;touch x.zzz").status == FileStatus.OK  # type: ignore[union-attr]
        assert library.engine.record("$(touch y).zzz").status == FileStatus.OK  # type: ignore[union-attr]
    finally:
        library.close()
    made = {p.name for p in tmp_path.rglob("*")} | {p.name for p in Path.cwd().rglob("*")}
    assert not made & {"x.zzz", "x", "y", "pwned", "pwned2", "pwned3"}


def test_resources_list_custom_adapters_with_their_binary(project: Path) -> None:
    with open_app(make_settings(project, elements=False)) as app:
        client = InMemory(app)
        adapters = json.loads(client.resource("adapters://list"))["adapters"]
        settings = json.loads(client.resource("config://settings"))
    by_name = {a["name"]: a for a in adapters}
    custom = by_name["upper"]
    assert custom["custom"] is True
    assert custom["binary"] == sys.executable
    assert custom["extensions"] == ["up", "upx"]
    assert custom["description"] == "Upper"
    assert all({"name", "description", "extensions", "binary"} <= set(a) for a in adapters)
    assert by_name["pdfium"]["binary"].startswith("pypdfium2 ")
    assert by_name["pdfminer"]["binary"].startswith("pdfminer.six ")
    assert by_name["text"]["binary"] == "python (built-in)"
    assert not by_name["pdfium"]["custom"]
    (shown,) = settings["custom_adapters"]["value"]
    assert (shown["name"], shown["command"]) == ("upper", sys.executable)
    assert settings["custom_adapters"]["source"] == "pdfindex.toml"


def test_changing_the_command_reads_again_and_removing_it_unlists(tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    (files / "n.up").write_text("some words")
    upper = script(tmp_path, "upper", UPPER)
    config = tmp_path / "pdfindex.toml"
    config.write_text(toml({"name": "upper", "extensions": ["up"], **upper}))
    first = PdfIndex(make_settings(tmp_path, elements=False))
    try:
        assert first.reindex().parsed == 1
        assert first.reindex().parsed == 0  # unchanged
    finally:
        first.close()
    upper["args"] = [*upper["args"], "--other"]  # type: ignore[misc]
    config.write_text(toml({"name": "upper", "extensions": ["up"], **upper}))
    second = PdfIndex(make_settings(tmp_path, elements=False))
    try:
        assert second.reindex().parsed == 1  # another command: another cache key
        assert second.engine.page_texts("n")[0].endswith("ARGS --other")
    finally:
        second.close()
    config.write_text("")
    third = PdfIndex(make_settings(tmp_path, elements=False))
    try:
        assert third.reindex().unsupported == 1
        record = third.engine.record("n.up")
        assert record is not None
        assert (record.status, third.engine.page_texts("n")) == (FileStatus.UNSUPPORTED, [])
    finally:
        third.close()


def test_a_custom_adapter_takes_precedence_over_a_built_in_one(tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    (files / "t.txt").write_text("lower case")
    (tmp_path / "pdfindex.toml").write_text(
        toml({"name": "shout", "extensions": ["txt"], **script(tmp_path, "up", UPPER)})
    )
    library = PdfIndex(make_settings(tmp_path, elements=False))
    try:
        library.reindex()
        assert library.engine.page_texts("t")[0].startswith("LOWER CASE")
    finally:
        library.close()


def test_a_program_past_its_limits_fails_its_file_only(tmp_path: Path) -> None:
    """Time limit, non-zero exit, memory cap, a program that is not there: each fails
    its own file with the reason; the other files are read."""
    files = tmp_path / "files"
    files.mkdir()
    for name in ("slow.sleepy", "bad.failing", "big.greedy", "x.missing", "fine.up"):
        (files / name).write_text("content")
    (files / "plain.txt").write_text("plain words")
    (tmp_path / "pdfindex.toml").write_text(
        toml(
            {"name": "sleepy", "extensions": ["sleepy"], **script(tmp_path, "s", SLEEPY)},
            {"name": "failing", "extensions": ["failing"], **script(tmp_path, "f", FAILING)},
            {"name": "greedy", "extensions": ["greedy"], **script(tmp_path, "g", GREEDY)},
            {"name": "missing", "extensions": ["missing"], "command": "/no/such/program"},
            {"name": "upper", "extensions": ["up"], **script(tmp_path, "u", UPPER)},
        )
    )
    library = PdfIndex(make_settings(tmp_path, elements=False, timeout=5.0, memory_mb=300))
    try:
        summary = library.reindex()
        records = library.engine.catalog()
    finally:
        library.close()
    assert summary.failed == 4
    assert records["slow.sleepy"].error.startswith("timeout: custom adapter 'sleepy'")  # type: ignore[union-attr]
    assert "ran past the time limit of" in records["slow.sleepy"].error  # type: ignore[operator]
    assert records["bad.failing"].error == (
        f"custom adapter 'failing' ({sys.executable}) exited with status 1: bad header in file"
    )
    assert records["big.greedy"].error.endswith("MemoryError")  # type: ignore[union-attr]
    assert "cannot be started" in records["x.missing"].error  # type: ignore[operator]
    for name in ("slow.sleepy", "bad.failing", "big.greedy", "x.missing"):
        assert records[name].status == FileStatus.FAILED
    assert records["fine.up"].status == FileStatus.OK
    assert records["plain.txt"].status == FileStatus.OK


@pytest.mark.parametrize(
    ("tables", "complaint"),
    [
        ({"name": "Bad Name", "extensions": ["x"], "command": "c"}, "name 'Bad Name'"),
        ({"name": "x", "extensions": [], "command": "c"}, "extensions must be a list"),
        ({"name": "x", "extensions": ["a/b"], "command": "c"}, "'a/b' is not a file extension"),
        ({"name": "x", "extensions": ["x"], "command": " "}, "command must name a program"),
        ({"name": "x", "extensions": ["x"], "command": "c", "args": "$input"}, "args must be"),
        ({"name": "x", "extensions": ["x"], "command": "c", "shell": True}, "unknown keys shell"),
    ],
)
def test_a_wrong_declaration_is_a_clear_config_error(
    tmp_path: Path, tables: dict[str, object], complaint: str
) -> None:
    (tmp_path / "pdfindex.toml").write_text(toml(tables))
    with pytest.raises(ConfigError, match="custom_adapters #1 from pdfindex.toml") as error:
        load_settings(root=tmp_path)
    assert complaint in str(error.value)


def test_custom_adapters_come_from_pdfindex_toml_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PDFINDEX_CUSTOM_ADAPTERS", "djvu=djvutxt")
    with pytest.raises(ConfigError, match="set them in pdfindex.toml"):
        load_settings(root=tmp_path)
    monkeypatch.delenv("PDFINDEX_CUSTOM_ADAPTERS")
    (tmp_path / "files").mkdir()
    (tmp_path / "pdfindex.toml").write_text(
        toml({"name": "pdfium", "extensions": ["x"], "command": "c"})
    )
    with pytest.raises(ConfigError, match="'pdfium' is a built-in adapter's"):
        PdfIndex(load_settings(root=tmp_path))
