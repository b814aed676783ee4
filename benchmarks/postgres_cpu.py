"""Per query kind of benchmarks.engine_table on the postgres engine: wall p50, and mean CPU
of this process and of the PostgreSQL backend serving it (from /proc, summed over the
runs): what a call costs on a quiet machine, whatever the load. The server must run on
this machine (its backend's /proc entry is read).

python -m benchmarks.postgres_cpu DATABASE_URL ROOT RUNS [OUT.json]
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import million
from benchmarks.engine_table import query_cases
from pdfindex.api import PdfIndex


def main() -> None:
    url, root, runs = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    index = PdfIndex(million.settings_for(root, "postgres", url))
    engine: Any = index.engine
    index.search("hyphenation")
    pid = engine._rows("SELECT pg_backend_pid()")[0][0]
    tick = os.sysconf("SC_CLK_TCK")

    def server_cpu() -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick

    record = index.find_record(f"{million.marker(0)}/{million.DOCUMENT}")
    cases, _ = query_cases(index, record.slug, record.path)
    out: dict[str, Any] = {"pages": engine.indexed_pages(), "loadavg_start": os.getloadavg()}
    out["queries"] = {}
    for name, call in cases:
        found = call()
        wall = []
        server_before, client_before = server_cpu(), time.process_time()
        for _ in range(runs):
            begin = time.perf_counter()
            call()
            wall.append((time.perf_counter() - begin) * 1000)
        server = (server_cpu() - server_before) * 1000 / runs
        client = (time.process_time() - client_before) * 1000 / runs
        out["queries"][name] = {
            "count": found,
            "wall_p50_ms": round(statistics.median(wall), 1),
            "client_cpu_ms": round(client, 1),
            "server_cpu_ms": round(server, 1),
            "cpu_ms": round(client + server, 1),
        }
        print(
            f"{name:60s} {found:9,d}  wall {statistics.median(wall):7.1f}  client {client:6.1f}"
            f"  server {server:6.1f}",
            flush=True,
        )
    out["loadavg_end"] = os.getloadavg()
    if len(sys.argv) > 4:
        Path(sys.argv[4]).write_text(json.dumps(out, indent=1, ensure_ascii=False))
    index.close()


if __name__ == "__main__":
    main()
