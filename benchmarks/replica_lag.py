"""`python -m benchmarks.replica_lag --database-url PRIMARY --read-url STANDBY`: how long
after the primary's commit a hot standby answers it (issue 15).

Each of `--commits` commits adds one small document holding a word of its own through the
postgres engine's writer on the primary (one transaction, as the indexer commits); a
second engine reading from the standby then searches that word until it finds it. Printed:
the commit's own time and the lag from the commit's return to the standby's first answer
(p50 / max), with PostgreSQL's own `replay_lag` from pg_stat_replication. The documents
are removed again at the end (one more commit). Without URLs it starts a throwaway primary
and standby (tests/pgserver.py, durable) on an empty library.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from pdfindex.engine.postgres.engine import PostgresEngine
from pdfindex.models import FileRecord
from pdfindex.text.index import index_text

POLL = 0.0005  # seconds between two searches on the standby
GUARD = 60.0  # seconds a commit may take to reach the standby before the run fails


def _record(path: str) -> FileRecord:
    return FileRecord(
        path, path.removesuffix(".pdf"), "lag probe", 1, 1, 0.0, "0", "ok", None, 0.0, "x"
    )


def measure(url: str, read_url: str, commits: int) -> dict[str, list[float]]:
    """Per commit: its time on the primary and its lag to the standby (ms)."""
    folder = Path(tempfile.mkdtemp(prefix="replica-lag-"))
    writer = PostgresEngine(folder, url, read_url="")
    reader = PostgresEngine(folder, url, read_url=read_url)
    figures: dict[str, list[float]] = {"commit_ms": [], "lag_ms": [], "replay_lag_ms": []}
    paths = []
    try:
        for n in range(commits):
            word = f"lagprobe{n}x{time.time_ns()}"
            path = f"lag-probe-{n}.pdf"
            paths.append(path)
            text = f"replica lag probe {word}"
            began = time.perf_counter()
            with writer.writer(timeout=30) as writing:
                writing.add_file(_record(path), [text], [index_text(text)])
            committed = time.perf_counter()
            while not reader.candidates(terms=[word]).refs:
                if time.perf_counter() - committed > GUARD:
                    raise TimeoutError(f"the standby did not answer commit {n} in {GUARD:g} s")
                time.sleep(POLL)
            seen = time.perf_counter()
            figures["commit_ms"].append((committed - began) * 1000)
            figures["lag_ms"].append((seen - committed) * 1000)
            replay = writer._rows(
                "SELECT extract(epoch FROM replay_lag) * 1000 FROM pg_stat_replication"
            )
            if replay and replay[0][0] is not None:
                figures["replay_lag_ms"].append(float(replay[0][0]))
            time.sleep(0.2)  # commits spaced out, as an indexer's are
        with writer.writer(timeout=30) as writing:
            for path in paths:
                writing.remove_file(path)
    finally:
        writer.close()
        reader.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="the primary (default: a throwaway pair)")
    parser.add_argument("--read-url", help="its hot standby")
    parser.add_argument("--commits", type=int, default=20)
    args = parser.parse_args()
    servers = []
    url, read_url = args.database_url, args.read_url
    if not (url and read_url):
        from tests import pgserver

        primary = pgserver.start_server(durable=True)
        servers = [primary.start_standby(), primary]
        url = primary.new_database("lag")
        servers[0].wait_replayed(primary)
        read_url = servers[0].url(url.split("?")[0].rsplit("/", 1)[1])
    try:
        figures = measure(url, read_url, args.commits)
    finally:
        for server in servers:
            server.stop()
    print(f"{args.commits} commits of one document each, spaced 0.2 s:")
    for name, values in figures.items():
        if values:
            print(
                f"  {name}: p50 {statistics.median(values):.1f}, min {min(values):.1f}, "
                f"max {max(values):.1f}"
            )


if __name__ == "__main__":
    main()
