"""A throwaway PostgreSQL server for the tests and benchmarks of the postgres engine.

It runs Debian's PostgreSQL 15 binaries (`apt-get install postgresql`) on a Unix socket
in a temporary folder, owned by the `postgres` user when we are root (PostgreSQL refuses
to run as root), with durability off (a test server: nothing to keep). Each test module
gets its own database, copied from a template in milliseconds (`CREATE DATABASE … TEMPLATE`).
`start_standby` makes a hot standby of a server as an operator would (`pg_basebackup -R`),
for the read replica tests and benchmarks.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

BIN = Path(os.environ.get("PDFINDEX_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))
TEMPLATE = "pdfindex_template"
# A server for tests only: a crash may lose what it held, and nothing is kept anyway.
SETTINGS = "listen_addresses = ''\nmax_connections = 200\nshared_buffers = 128MB\n"
NOT_DURABLE = "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"


class Unavailable(RuntimeError):
    """PostgreSQL cannot be started here (not installed, or refused to start): why."""


class PgServer:
    """A running server: `url(name)` connects to database `name` over its socket."""

    def __init__(self, folder: Path, user: str | None, durable: bool = False) -> None:
        self.folder = folder
        self.data = folder / "data"
        self.socket_dir = folder  # short path: a socket path has at most 107 characters
        self.port = 5432
        self._user = user  # who runs the server (None: ourselves)
        self.durable = durable  # fsync on (benchmarks); tests need no durability
        self._count = 0

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [str(BIN / args[0]), *args[1:]]
        if self._user:
            command = ["runuser", "-u", self._user, "--", *command]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)

    def start(self) -> None:
        done = self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
            "--no-sync",
        )
        if done.returncode != 0:
            raise Unavailable(f"initdb failed: {(done.stderr or done.stdout).strip()[-400:]}")
        with open(self.data / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write(SETTINGS + ("" if self.durable else NOT_DURABLE))
            conf.write(f"unix_socket_directories = '{self.socket_dir}'\n")
        self._launch()
        self.sql("postgres", f"CREATE DATABASE {TEMPLATE}")

    def _launch(self) -> None:
        done = self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.folder / "server.log"),
            "-w",
            "-t",
            "60",
            "start",
        )
        if done.returncode != 0:
            log = self.folder / "server.log"
            tail = log.read_text(errors="replace")[-400:] if log.exists() else done.stderr
            raise Unavailable(f"pg_ctl start failed: {tail.strip()}")

    def start_standby(self) -> PgServer:
        """A hot standby of this server, as an operator makes one: `pg_basebackup -R`
        (a copy of the data folder that streams the primary's WAL) into a new folder,
        started on its own socket and port. Stop it before its primary."""
        folder = _new_folder(self._user)
        standby = PgServer(folder, self._user, self.durable)
        standby.port = self.port + 1
        done = self._run(
            "pg_basebackup",
            "-D",
            str(standby.data),
            "-R",
            "-X",
            "stream",
            "-c",
            "fast",
            "-h",
            str(self.socket_dir),
            "-p",
            str(self.port),
            "-U",
            "postgres",
            *([] if self.durable else ["--no-sync"]),
        )
        if done.returncode != 0:
            shutil.rmtree(folder, ignore_errors=True)
            raise Unavailable(
                f"pg_basebackup failed: {(done.stderr or done.stdout).strip()[-400:]}"
            )
        with open(standby.data / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write(f"unix_socket_directories = '{standby.socket_dir}'\n")
            conf.write(f"port = {standby.port}\nhot_standby = on\n")
        try:
            standby._launch()
        except BaseException:
            standby.stop()
            raise
        return standby

    def wal_position(self) -> str:
        """Where this primary's WAL ends now (an LSN such as '0/3000148')."""
        return str(self.value("postgres", "SELECT pg_current_wal_lsn()"))

    def replayed(self, position: str) -> bool:
        """Whether this standby has replayed the primary's WAL up to `position`."""
        return bool(self.value("postgres", f"SELECT pg_last_wal_replay_lsn() >= '{position}'"))

    def wait_replayed(self, primary: PgServer, timeout: float = 30.0) -> float:
        """Seconds until this standby replayed everything `primary` had written when
        called; raises TimeoutError past `timeout` (a standby that stopped streaming)."""
        position = primary.wal_position()
        began = time.monotonic()
        while not self.replayed(position):
            if time.monotonic() - began > timeout:
                raise TimeoutError(f"the standby did not replay {position} in {timeout:g} s")
            time.sleep(0.005)
        return time.monotonic() - began

    def value(self, database: str, statement: str) -> object:
        """The first column of the first row of `statement`."""
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as connection:
            row = connection.execute(statement).fetchone()  # type: ignore[arg-type]
        return row[0] if row else None

    def url(self, database: str) -> str:
        return f"postgresql://postgres@/{database}?host={self.socket_dir}&port={self.port}"

    def sql(self, database: str, statement: str) -> None:
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as connection:
            connection.execute(statement)  # type: ignore[arg-type]

    def new_database(self, prefix: str = "t") -> str:
        """A fresh empty database (from the template); its URL."""
        self._count += 1
        name = f"{prefix}_{os.getpid()}_{self._count}".lower()
        self.sql("postgres", f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """The database of `url` (from new_database), gone, its connections cut."""
        name = url.split("?")[0].rsplit("/", 1)[1]
        self.sql("postgres", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def halt(self) -> None:
        """Stopped, its data kept (`resume` starts it again): a server that went down."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def resume(self) -> None:
        """Started again after `halt`."""
        self._launch()

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)


def start_server(durable: bool = False) -> PgServer:
    """A new server in a new temporary folder; raises Unavailable with the reason.
    `durable` keeps PostgreSQL's default fsync and WAL settings (for benchmarks)."""
    if not (BIN / "initdb").exists():
        raise Unavailable(
            f"PostgreSQL is not installed ({BIN}/initdb missing): apt-get install postgresql"
        )
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise Unavailable("psycopg is not installed: pip install -e '.[postgres]'") from exc
    user = None
    if os.geteuid() == 0:  # PostgreSQL will not run as root
        try:
            pwd.getpwnam("postgres")
        except KeyError as exc:
            raise Unavailable("no 'postgres' user to run PostgreSQL as") from exc
        user = "postgres"
    server = PgServer(_new_folder(user), user, durable)
    try:
        server.start()
    except BaseException:
        server.stop()
        raise
    return server


def _new_folder(user: str | None) -> Path:
    """A new temporary folder for a server's data and socket, owned by `user`."""
    folder = Path(tempfile.mkdtemp(prefix="pdfpg-"))
    if user:
        owner = pwd.getpwnam(user)
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    return folder
