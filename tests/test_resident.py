"""`pdfindex search` answered by a running `pdfindex watch` (pdfindex.cli.resident,
pdfindex.quick; issue 30): the real watcher and the real CLI as processes. What a
handed-over search prints, on which stream and in which order, and its exit code, are
those of the same search in its own process; a search of other settings, or with no
live watcher, is searched by the process that asked."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import pdfgen
from tests.conftest import ENGINE
from tests.waiting import eventually

SEARCHES = [
    ["transformer"],
    ["fox", "--json"],
    ['"state of the art"'],
    ["transfomer"],  # corrected: a note on stderr before the results
    ["nosuchwordzz"],  # exit code 1
    ["fox", "--exact"],
    ["fox", "--exact", "-l"],
    ["fox", "--limit", "0"],  # a usage error, exit code 2
    ["fox AND ("],  # a query error
    ["fox", "--doc", "nosuch"],
    ["fox", "--pages", "3-1"],
    ["how does the transformer work"],
]


def _environment(**more: str) -> dict[str, str]:
    """The environment of every process here, the watcher's included (module fixtures
    run outside the tests' own): no PDFINDEX_* setting but this pass's engine."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith("PDFINDEX_")}
    kept.pop("COLUMNS", None)
    return {**kept, "PDFINDEX_ENGINE": ENGINE["name"], **more}


def _cli(
    root: Path, *args: str, own: bool = False, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`pdfindex ...` as a process of its own (`-m pdfindex` runs what the console script
    runs); `own`: never handed over."""
    environ = _environment(**(env or {}))
    if own:
        environ["PDFINDEX_RESIDENT"] = "0"
    return subprocess.run(
        [sys.executable, "-m", "pdfindex", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env=environ,
        stdin=subprocess.DEVNULL,
    )


def _handed_over(
    root: Path, *args: str, env: dict[str, str] | None = None, before: tuple[str, ...] = ()
) -> dict[str, object]:
    """What pdfindex.quick does with `pdfindex BEFORE search ARGS` in a fresh process: the
    exit code a resident process gave (None: none answered), and whether click loaded."""
    code = (
        "import json, sys\n"
        "from pdfindex.quick import handed_over\n"
        f"code = handed_over([*{list(before)!r}, 'search', *{list(args)!r}])\n"
        "sys.stdout.flush()\n"
        "print(json.dumps({'code': code, 'click': 'click' in sys.modules,"
        " 'config': 'pdfindex.config' in sys.modules}), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env=_environment(**(env or {})),
    )
    return dict(json.loads(done.stderr.strip().splitlines()[-1]))


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("resident")
    files = root / "files"
    files.mkdir()
    pdfgen.write_pdf(
        files / "guide.pdf",
        ["The transformer architecture\nexplained.", "Second page, the transformer again."],
    )
    pdfgen.write_pdf(files / "notes.pdf", ["Quick brown fox. State of the art.\nA fox."])
    assert _cli(root, "reindex").returncode == 0
    return root


def _start_watch(root: Path, answering: bool = True) -> subprocess.Popen[bytes]:
    """`pdfindex watch` of `root`, once it has said whether it answers searches (its stderr
    in a file: a pipe nobody reads would stop it once full)."""
    log = root / f"watch-stderr-{len(list(root.glob('watch-stderr-*')))}.txt"
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "pdfindex", "--root", str(root), "watch"],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            stdin=subprocess.DEVNULL,
            env=_environment(),
        )

    def first_line() -> str | None:
        if process.poll() is not None:
            raise AssertionError(f"pdfindex watch ended: {log.read_text()}")
        text = log.read_text()
        return text.splitlines()[0] if "watching" in text else None

    line = eventually(first_line, "the watcher's first line")
    if ("answering `pdfindex search`" in line) != answering:
        _stop(process)
        raise AssertionError(log.read_text())
    return process


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=60)


@pytest.fixture(scope="module")
def watching(root: Path) -> Iterator[Path]:
    process = _start_watch(root)
    yield root / "index" / "search.sock"
    _stop(process)


@pytest.mark.parametrize("args", SEARCHES, ids=lambda a: " ".join(a))
def test_a_handed_over_search_prints_what_its_own_process_prints(
    root: Path, watching: Path, args: list[str]
) -> None:
    assert isinstance(_handed_over(root, *args)["code"], int)  # answered by the watcher
    answered, own = _cli(root, "search", *args), _cli(root, "search", *args, own=True)
    assert (answered.stdout, answered.stderr, answered.returncode) == (
        own.stdout,
        own.stderr,
        own.returncode,
    )
    assert "Traceback" not in answered.stderr


def _merged(root: Path, **env: str) -> str:
    """What `pdfindex search transfomer` prints with stderr and stdout on one pipe."""
    return subprocess.run(
        f"{sys.executable} -m pdfindex search transfomer 2>&1",
        shell=True,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env=_environment(**env),
    ).stdout


def test_notes_come_before_the_results_as_printed(root: Path, watching: Path) -> None:
    """stdout and stderr in the order they were written: a correction's note first."""
    merged = _merged(root)
    note = merged.index("transformer")
    assert merged.index("1.") > note, merged
    assert merged == _merged(root, PDFINDEX_RESIDENT="0")


def test_the_asking_process_loads_neither_click_nor_the_settings(
    root: Path, watching: Path
) -> None:
    asked = _handed_over(root, "fox")
    assert asked == {"code": 0, "click": False, "config": False}


def test_the_socket_is_this_user_s_only(watching: Path) -> None:
    mode = os.stat(watching).st_mode
    assert stat.S_ISSOCK(mode)
    assert stat.S_IMODE(mode) == 0o600


def test_other_settings_are_searched_by_the_process_that_asked(
    root: Path, watching: Path, tmp_path: Path
) -> None:
    """Another limit, another engine, another root: not the watcher's settings."""
    assert _handed_over(root, "fox", env={"PDFINDEX_WORKERS": "1"})["code"] is None
    other = "whoosh" if ENGINE["name"] != "whoosh" else "tantivy"
    assert _handed_over(root, "fox", "--engine", other)["code"] is None
    elsewhere = tmp_path / "other"
    (elsewhere / "files").mkdir(parents=True)
    pdfgen.write_pdf(elsewhere / "files" / "fox.pdf", ["A fox elsewhere."])
    assert _cli(elsewhere, "reindex").returncode == 0
    (elsewhere / "index" / "search.sock").symlink_to(watching)  # the watcher's door
    assert _handed_over(elsewhere, "fox")["code"] is None
    bare = tmp_path / "bare"  # no files folder: an error, from the process that asked
    (bare / "index").mkdir(parents=True)
    (bare / "index" / "search.sock").symlink_to(watching)
    assert _handed_over(bare, "fox")["code"] is None
    assert "files folder" in _cli(bare, "search", "fox").stderr
    found = _cli(elsewhere, "search", "fox")
    assert found.returncode == 0
    assert "fox.pdf" in found.stdout
    assert "notes.pdf" not in found.stdout


def test_a_bad_request_leaves_the_watcher_answering(root: Path, watching: Path) -> None:
    for garbage in (b"not json\n", b'{"argv": ["stats"]}\n', b'{"argv": ["search", 1]}\n'):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(str(watching))
            conn.sendall(garbage)
            conn.shutdown(socket.SHUT_WR)
            reply = conn.recv(1 << 16)
        assert reply in (b"", json.dumps({"elsewhere": True}).encode())
    assert _handed_over(root, "fox")["code"] == 0


def test_without_a_live_watcher_the_search_is_its_own(root: Path, watching: Path) -> None:
    """A socket left by a watcher killed outright: the search goes on in its own process,
    and the next watcher takes the place over; a stopped watcher removes its socket."""
    _stop(_start_watch(root, answering=False))  # a second watcher: the first one answers
    assert watching.exists()  # not the second one's to remove
    stale = root / "index" / "stale"
    stale.mkdir(exist_ok=True)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(stale / "search.sock"))
    dead.close()  # a socket file nobody listens on
    assert _handed_over(root, "fox", env={"PDFINDEX_INDEX_DIR": str(stale)})["code"] is None


def test_a_new_watcher_replaces_a_dead_one_s_socket(tmp_path: Path) -> None:
    root = tmp_path
    (root / "files").mkdir()
    pdfgen.write_pdf(root / "files" / "fox.pdf", ["A fox."])
    assert _cli(root, "reindex").returncode == 0
    process = _start_watch(root)
    door = root / "index" / "search.sock"
    eventually(door.exists, "the watcher's socket")
    process.kill()  # no clean-up: the socket stays
    process.wait(timeout=60)
    assert door.exists()
    assert _handed_over(root, "fox")["code"] is None
    assert _cli(root, "search", "fox").returncode == 0  # searched by its own process
    again = _start_watch(root)
    try:
        eventually(lambda: _handed_over(root, "fox")["code"] == 0, "the new watcher answering")
    finally:
        _stop(again)
    assert not door.exists()


def test_a_serving_process_answers_and_its_protocol_stays_whole(tmp_path: Path) -> None:
    """`pdfindex serve` answers too: the MCP client's session goes on, its stdout holding
    protocol messages only, around searches handed to the same process."""
    import anyio

    from tests.mcpclient import stdio, text_of

    (tmp_path / "files").mkdir()
    pdfgen.write_pdf(tmp_path / "files" / "fox.pdf", ["A quick fox.", "A fox again."])
    assert _cli(tmp_path, "reindex").returncode == 0
    door = tmp_path / "index" / "search.sock"

    async def session() -> list[str]:
        async with stdio(tmp_path, env=_environment()) as client:
            before = text_of(await client.call_tool("search_documents", {"query": "fox"}))
            await anyio.to_thread.run_sync(lambda: eventually(door.exists, "serve's socket"))
            asked = await anyio.to_thread.run_sync(lambda: _handed_over(tmp_path, "fox"))
            printed = await anyio.to_thread.run_sync(lambda: _cli(tmp_path, "search", "fox"))
            after = text_of(await client.call_tool("search_documents", {"query": "fox"}))
            own = _cli(tmp_path, "search", "fox", own=True)
            assert asked["code"] == 0
            assert (printed.stdout, printed.returncode) == (own.stdout, own.returncode)
            return [before, after]

    before, after = anyio.run(session)
    assert before == after
    assert "Document: fox" in after
    assert not door.exists()  # gone with the server


def test_the_web_server_answers_with_its_own_port(tmp_path: Path) -> None:
    """`pdfindex web --port 0` answers a plain `pdfindex search`: its address is its own
    flag, not a setting of the search."""
    from tests.webserver import web_server

    (tmp_path / "files").mkdir()
    pdfgen.write_pdf(tmp_path / "files" / "fox.pdf", ["A quick fox."])
    assert _cli(tmp_path, "reindex").returncode == 0
    door = tmp_path / "index" / "search.sock"
    with web_server(tmp_path, env=_environment()):
        eventually(door.exists, "the web server's socket")
        assert _handed_over(tmp_path, "fox")["code"] == 0
        assert _handed_over(tmp_path, "fox", "--workers", "1")["code"] is None
    assert not door.exists()


def test_settings_flags_before_the_command_s_name(root: Path, watching: Path) -> None:
    """`pdfindex --root R search ...` is handed over as `pdfindex search --root R ...`;
    a flag there that is not a setting's is left to click, which refuses it."""
    before = ("--root", str(root), "--engine", ENGINE["name"])
    assert _handed_over(root, "fox", before=before)["code"] == 0
    answered = _cli(root, *before, "search", "fox")
    own = _cli(root, *before, "search", "fox", own=True)
    assert (answered.stdout, answered.stderr, answered.returncode) == (
        own.stdout,
        own.stderr,
        own.returncode,
    )
    assert _handed_over(root, "fox", before=("--json", "x"))["code"] is None
    refused = _cli(root, "--json", "x", "search", "fox")
    assert refused.returncode == 2
    assert "No such option" in refused.stderr


def test_a_watcher_stopped_as_soon_as_it_says_it_watches_ends(tmp_path: Path) -> None:
    """SIGTERM the moment `pdfindex watch` says it watches (as a service manager or a
    script may) ends it. The system may hand the signal to any thread; Python runs its
    handler in the main thread, which slept an hour at a time: the watcher went on for
    that hour (seen once in a full run; before the fix, this test's first or second try
    hung)."""
    root = tmp_path
    (root / "files").mkdir()
    pdfgen.write_pdf(root / "files" / "fox.pdf", ["A fox."])
    assert _cli(root, "reindex").returncode == 0
    for attempt in range(6):
        process = subprocess.Popen(
            [sys.executable, "-m", "pdfindex", "--root", str(root), "watch"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            env=_environment(),
        )
        assert process.stderr is not None
        assert b"watching" in process.stderr.readline()
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=60)
            raise AssertionError(f"pdfindex watch did not end (try {attempt + 1})") from None
        finally:
            process.stderr.close()
