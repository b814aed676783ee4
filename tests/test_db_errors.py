"""The database's errors as pdfindex says them (issue 31, defects 8 and 9), against a real
PostgreSQL (tests/pgserver.py) through the real CLI and a real `pdfindex serve`:

- no output of any command (stats, reindex, search, serve's stderr, log and tool
  answers) repeats any part of a password, whatever its spelling in database_url or
  read_url: libpq's own messages, which do, are never shown;
- a database that may only be read (a SELECT-only user, default_transaction_read_only)
  is one line naming the privilege or setting, exit code 2; under serve the tool that
  writes says so, and the tools that read keep working.

Runs once (conftest ONE_PASS), on its own server, whatever the pass's engine; skips with
the reason where PostgreSQL cannot be started.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pdfindex.cli import main
from pdfindex.config import load_settings
from pdfindex.config.masking import without_password
from tests import pgserver

psycopg = pytest.importorskip("psycopg", reason="the postgres extra is not installed")

FRAGMENTS = ("Pa55", "W0rd")  # every password below holds both; no output may hold either
HANDSHAKE_VERSION = "2025-11-25"


@pytest.fixture(scope="module")
def server() -> Iterator[pgserver.PgServer]:
    try:
        started = pgserver.start_server()
    except pgserver.Unavailable as exc:
        pytest.skip(f"PostgreSQL cannot be started here: {exc}")
    yield started
    started.stop()


class Place:
    """A fresh database on the test server: its name and socket folder."""

    def __init__(self, server: pgserver.PgServer) -> None:
        url = server.new_database("m")
        self.db = url.split("?")[0].rsplit("/", 1)[1]
        self.sock = str(server.socket_dir)
        self.url = url  # postgres, no password (the server trusts local connections)


# -- defect 8: password fragments -------------------------------------------------------

# (form, {setting: value}): PDFINDEX_DATABASE_URL / PDFINDEX_READ_URL, or `toml:` keys
# written to pdfindex.toml. The test server trusts its socket, so a URL that libpq reads
# right connects (its password unused) and one it misreads fails: both must stay masked.
FORMS: dict[str, Callable[[Place], dict[str, str]]] = {
    "url plain": lambda p: {
        "DATABASE_URL": f"postgresql://postgres:Pa55W0rd@/{p.db}?host={p.sock}"
    },
    "url lone %": lambda p: {
        "DATABASE_URL": f"postgresql://postgres:Pa55%W0rd@/{p.db}?host={p.sock}"
    },
    "url /": lambda p: {"DATABASE_URL": f"postgresql://postgres:Pa55/W0rd@/{p.db}?host={p.sock}"},
    "url @ socket": lambda p: {
        "DATABASE_URL": f"postgresql://postgres:Pa55@W0rd@/{p.db}?host={p.sock}"
    },
    "url @ tcp": lambda p: {"DATABASE_URL": f"postgresql://postgres:Pa55@W0rd@localhost:1/{p.db}"},
    "url :": lambda p: {"DATABASE_URL": f"postgresql://postgres:Pa55:W0rd@/{p.db}?host={p.sock}"},
    "url ?": lambda p: {"DATABASE_URL": f"postgresql://postgres:Pa55?W0rd@/{p.db}?host={p.sock}"},
    "url #": lambda p: {"DATABASE_URL": f"postgresql://postgres:Pa55#W0rd@/{p.db}?host={p.sock}"},
    "url space = quotes": lambda p: {
        "DATABASE_URL": f"postgresql://postgres:Pa55 =W0rd'\"@/{p.db}?host={p.sock}"
    },
    "url encoded": lambda p: {
        "DATABASE_URL": f"postgresql://postgres:Pa55%40%2FW0rd@/{p.db}?host={p.sock}"
    },
    "query password": lambda p: {
        "DATABASE_URL": f"postgresql://postgres@/{p.db}?host={p.sock}&password=Pa55W0rd"
    },
    "query passwor%64": lambda p: {
        "DATABASE_URL": f"postgresql://postgres@/{p.db}?host={p.sock}&passwor%64=Pa55W0rd"
    },
    "query password with &": lambda p: {
        "DATABASE_URL": f"postgresql://postgres@/{p.db}?password=Pa55&W0rd&host={p.sock}"
    },
    "query sslpassword": lambda p: {
        "DATABASE_URL": f"postgresql://postgres@/{p.db}?host={p.sock}&sslpassword=Pa55W0rd"
    },
    "conninfo": lambda p: {
        "DATABASE_URL": f"host={p.sock} dbname={p.db} user=postgres password=Pa55W0rd"
    },
    "conninfo quoted": lambda p: {
        "DATABASE_URL": f"host={p.sock} dbname={p.db} password='Pa55 \\' W0rd' user=postgres"
    },
    "conninfo escaped space": lambda p: {
        "DATABASE_URL": f"host={p.sock} dbname={p.db} password=Pa55\\ W0rd user=postgres"
    },
    "conninfo spaced =": lambda p: {
        "DATABASE_URL": f"host={p.sock} dbname={p.db} password = Pa55=W0rd user=postgres"
    },
    "conninfo unterminated": lambda p: {
        "DATABASE_URL": f"host={p.sock} dbname={p.db} user=postgres password='Pa55 W0rd"
    },
    "conninfo bad key": lambda p: {
        "DATABASE_URL": f"host={p.sock} dbname={p.db} user=postgres pass=Pa55 W0rd"
    },
    "read url misread": lambda p: {
        "DATABASE_URL": p.url,
        "READ_URL": f"postgresql://postgres:Pa55@W0rd@localhost:1/{p.db}",
    },
    "read url works": lambda p: {
        "DATABASE_URL": p.url,
        "READ_URL": f"postgresql://postgres:Pa55%2FW0rd@/{p.db}?host={p.sock}",
    },
    "toml read_url": lambda p: {
        "DATABASE_URL": p.url,
        "toml:read_url": f"postgresql://postgres@/{p.db}?host={p.sock}&passwor%64=Pa55W0rd",
    },
    "toml database_url": lambda p: {
        "toml:database_url": f"postgresql://postgres:Pa55%W0rd@/{p.db}?host={p.sock}"
    },
}


def _project(root: Path, settings: dict[str, str]) -> dict[str, str]:
    """A project root with one text file, its pdfindex.toml; the environment to run in."""
    (root / "files").mkdir(parents=True, exist_ok=True)
    (root / "files" / "note.txt").write_text("the lighthouse keeper kept the light\n")
    toml = {k.removeprefix("toml:"): v for k, v in settings.items() if k.startswith("toml:")}
    (root / "pdfindex.toml").write_text(
        "".join(f"{key} = {json.dumps(value)}\n" for key, value in toml.items())
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PDFINDEX_")}
    env |= {"PDFINDEX_ENGINE": "postgres", "PDFINDEX_ELEMENTS": "false", "PDFINDEX_OCR": "false"}
    env["PDFINDEX_REQUEST_TIMEOUT"] = "120"  # a busy machine: no tool answer cut short
    env |= {f"PDFINDEX_{k}": v for k, v in settings.items() if not k.startswith("toml:")}
    return env


def _cli(root: Path, env: dict[str, str], *args: str) -> tuple[int, str]:
    """A command through click's runner, in this process: its exit code and all it wrote
    (stdout, stderr, and the exception it ended on, if any)."""
    environ = {k: None for k in os.environ if k.startswith("PDFINDEX_")}
    environ |= {k: v for k, v in env.items() if k.startswith("PDFINDEX_")}
    result = CliRunner().invoke(main, ["--root", str(root), *args], env=environ)  # type: ignore[arg-type]
    shown = result.output + (repr(result.exception) if result.exception else "")
    return result.exit_code, shown


def _run(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """`pdfindex ARGS` as a user runs it, in its own process."""
    command = [sys.executable, "-m", "pdfindex.cli", "--root", str(root), *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)


def _serve(
    root: Path, env: dict[str, str], calls: list[tuple[str, dict[str, Any]]]
) -> tuple[list[dict[str, Any]], str]:
    """A real `pdfindex serve`: each call's result (none once it has exited) and
    everything else it wrote (stdout, stderr, its session log)."""
    command = [sys.executable, "-m", "pdfindex.cli", "--root", str(root), "serve", "--no-watch"]
    stderr = root / "serve.stderr"
    with open(stderr, "wb") as err:
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, env=env
        )
    lines: list[bytes] = []

    def request(id_: int, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
        message = {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}
        try:
            process.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
            process.stdin.flush()  # type: ignore[union-attr]
        except BrokenPipeError:
            return None
        while line := process.stdout.readline():  # type: ignore[union-attr]
            lines.append(line)
            answer = json.loads(line)
            if answer.get("id") == id_:
                return answer
        return None  # it exited

    results = []
    try:
        hello = {
            "protocolVersion": HANDSHAKE_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "tests", "version": "1"},
        }
        if request(1, "initialize", hello) is not None:
            process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')  # type: ignore[union-attr]
            process.stdin.flush()  # type: ignore[union-attr]
            for n, (tool, arguments) in enumerate(calls, 2):
                answer = request(n, "tools/call", {"name": tool, "arguments": arguments})
                if answer is None:
                    break
                results.append(answer.get("result", answer))
    finally:
        try:
            process.stdin.close()  # type: ignore[union-attr]
        except BrokenPipeError:
            pass
        process.wait(timeout=60)
        lines += process.stdout.readlines()  # type: ignore[union-attr]
        process.stdout.close()  # type: ignore[union-attr]
    logs = "".join(p.read_text(errors="replace") for p in sorted((root / "logs").glob("*.log*")))
    written = b"".join(lines).decode(errors="replace") + stderr.read_text(errors="replace")
    return results, written + logs


def _leaks(text: str) -> list[str]:
    return [fragment for fragment in FRAGMENTS if fragment in text]


@pytest.mark.parametrize("form", list(FORMS))
def test_no_command_shows_any_part_of_a_password(
    server: pgserver.PgServer, tmp_path: Path, form: str
) -> None:
    settings = FORMS[form](Place(server))
    env = _project(tmp_path, settings)
    outputs = {}
    for command in (["stats"], ["stats", "--json"], ["reindex"], ["search", "lighthouse"]):
        code, outputs[" ".join(command)] = _cli(tmp_path, env, *command)
        assert code in (0, 2), (command, outputs[" ".join(command)])  # no traceback
    calls = [
        ("get_library_status", {}),
        ("search_documents", {"query": "lighthouse"}),
        ("process_document", {"file_path": "note.txt"}),
    ]
    results, outputs["serve"] = _serve(tmp_path, env, calls)
    outputs["serve results"] = json.dumps(results)
    for shown in settings.values():
        outputs[f"settings as shown: {shown}"] = without_password(shown)
    for name, text in outputs.items():
        assert not _leaks(text), f"{form}: {name} shows {_leaks(text)}:\n{text}"
    connected = "Traceback" not in outputs["stats"] and "cannot connect" not in outputs["stats"]
    if connected:  # libpq read it right: the URL is shown, masked
        assert "***" in outputs["stats"]
        assert "lighthouse" in outputs["search lighthouse"]
        assert results, results
        assert not any(r.get("isError") for r in results), results
    else:  # pdfindex's words, the URL masked; serve says the same and stops
        assert outputs["stats"].startswith("Error: cannot connect to the "), outputs["stats"]
        assert "***" in outputs["stats"]
        assert "cannot connect to the " in outputs["serve"]


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "postgresql://bob:Pa55W0rd@db.example:5432/lib",
            "postgresql://bob:***@db.example:5432/lib",
        ),
        ("postgresql://bob:Pa55/W0rd@db.example/lib", "postgresql://bob:***@db.example/lib"),
        ("postgresql://bob:Pa55@W0rd@db.example/lib", "postgresql://bob:***@db.example/lib"),
        (
            "postgresql://bob@db/lib?passwor%64=Pa55W0rd&port=5",
            "postgresql://bob@db/lib?passwor%64=***&port=5",
        ),
        ("postgresql://bob@db/lib?PASSWORD=Pa55&W0rd", "postgresql://bob@db/lib?PASSWORD=***"),
        (
            "postgres://db/lib?oauth_client_secret=Pa55W0rd",
            "postgres://db/lib?oauth_client_secret=***",
        ),
        ("host=db password='Pa55 W0rd' user=bob", "host=db password=*** user=bob"),
        ("host=db password=Pa55\\ W0rd user=bob", "host=db password=*** user=bob"),
        ("host=db dbname='postgresql://u:Pa55W0rd@h/d'", "host=db dbname=***"),
        ("host=db password='Pa55 W0rd", "host=db ***"),
        ("postgresql://bob@db.example:5432/lib", "postgresql://bob@db.example:5432/lib"),
        ("host=/run/postgresql dbname=lib", "host=/run/postgresql dbname=lib"),
    ],
)
def test_the_one_masking_rule_hides_every_spelling(url: str, shown: str) -> None:
    assert without_password(url) == shown
    settings = load_settings({"database_url": url, "read_url": url}, root=Path("/nowhere"))
    dump = json.dumps(settings.as_dict()) + repr(settings)
    assert not _leaks(dump), dump


# -- defect 9: a database that may only be read -----------------------------------------


def _indexed(server: pgserver.PgServer, root: Path) -> tuple[Place, dict[str, str]]:
    """A database indexed by its owner (postgres), then a second file waiting: the
    environment of that project (the owner's URL)."""
    place = Place(server)
    env = _project(root, {"DATABASE_URL": place.url})
    done = _run(root, env, "reindex")
    assert done.returncode == 0, done.stderr
    (root / "files" / "later.txt").write_text("a later note about the harbour\n")
    return place, env


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("Error: ")
    return line


def test_a_select_only_user_is_told_which_privilege_is_missing(
    server: pgserver.PgServer, tmp_path: Path
) -> None:
    place, env = _indexed(server, tmp_path)
    server.sql("postgres", "DROP ROLE IF EXISTS reader")
    server.sql("postgres", "CREATE ROLE reader LOGIN")
    server.sql(place.db, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader")
    try:
        env["PDFINDEX_DATABASE_URL"] = f"postgresql://reader@/{place.db}?host={place.sock}"
        for command in (["reindex"], ["reindex", "--full"]):
            line = _one_line(_run(tmp_path, env, *command))
            assert "the database user reader may only read" in line
            assert "INSERT, UPDATE and DELETE on table pdfindex_" in line
        found = _run(tmp_path, env, "search", "lighthouse")
        assert found.returncode == 0, found.stderr
        assert "note.txt" in found.stdout, found.stderr
        assert _run(tmp_path, env, "stats").returncode == 0

        server.sql(place.db, "REVOKE SELECT ON pdfindex_pages FROM reader")
        line = _one_line(_run(tmp_path, env, "search", "lighthouse"))
        assert "may not read" in line
        assert "SELECT on table pdfindex_pages" in line
    finally:
        server.sql(place.db, "DROP OWNED BY reader")
        server.sql("postgres", "DROP ROLE reader")


def test_a_read_only_database_is_named_by_its_setting(
    server: pgserver.PgServer, tmp_path: Path
) -> None:
    place, env = _indexed(server, tmp_path)
    server.sql("postgres", f"ALTER DATABASE {place.db} SET default_transaction_read_only = on")
    line = _one_line(_run(tmp_path, env, "reindex"))
    assert "is read-only (default_transaction_read_only = on)" in line
    assert "searches still work" in line
    found = _run(tmp_path, env, "search", "lighthouse")
    assert found.returncode == 0, found.stderr
    assert "note.txt" in found.stdout, found.stderr

    empty = Place(server)  # no tables yet, and none can be made
    server.sql("postgres", f"ALTER DATABASE {empty.db} SET default_transaction_read_only = on")
    env["PDFINDEX_DATABASE_URL"] = empty.url
    line = _one_line(_run(tmp_path, env, "stats"))
    assert "creating the pdfindex tables" in line
    assert "default_transaction_read_only" in line


@pytest.mark.parametrize("how", ["select-only user", "default_transaction_read_only"])
def test_under_serve_writing_says_read_only_and_reading_works(
    server: pgserver.PgServer, tmp_path: Path, how: str
) -> None:
    place, env = _indexed(server, tmp_path)
    if how == "select-only user":
        server.sql("postgres", "DROP ROLE IF EXISTS serve_reader")
        server.sql("postgres", "CREATE ROLE serve_reader LOGIN")
        server.sql(place.db, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO serve_reader")
        env["PDFINDEX_DATABASE_URL"] = f"postgresql://serve_reader@/{place.db}?host={place.sock}"
    else:
        server.sql("postgres", f"ALTER DATABASE {place.db} SET default_transaction_read_only = on")
    try:
        results, written = _serve(
            tmp_path,
            env,
            [
                ("process_document", {"file_path": "later.txt"}),
                ("search_documents", {"query": "lighthouse"}),
                ("list_documents", {}),
                ("get_library_status", {}),
            ],
        )
    finally:
        if how == "select-only user":
            server.sql(place.db, "DROP OWNED BY serve_reader")
            server.sql("postgres", "DROP ROLE serve_reader")
    processed, searched, listed, status = results
    assert processed["isError"], processed
    answer = processed["structuredContent"]
    assert answer["error"] == "ReadOnlyError", answer
    assert "retry shortly" not in answer["message"]
    expected = "may only read" if how == "select-only user" else "default_transaction_read_only"
    assert expected in answer["message"]
    assert not searched["isError"], searched
    assert "Document: note" in json.dumps(searched), searched
    assert not listed["isError"], listed
    assert "note" in json.dumps(listed), listed
    assert not status["isError"], status
    assert "Traceback" not in written
