"""Wall time, CPU time and peak memory of a pdfindex process and all its workers, and of
one short process (a `pdfindex search`, a `recollq`) as a whole."""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any


class TreeRss(threading.Thread):
    """Samples the summed VmRSS of a process and all its descendants every 50 ms."""

    def __init__(self, pid: int, interval: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.peak_kb = 0
        self.peak_processes = 0
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            pids = self._tree()
            total = sum(_rss_kb(p) for p in pids)
            if total > self.peak_kb:
                self.peak_kb, self.peak_processes = total, len(pids)
            self._stop_event.wait(self.interval)

    def stop(self) -> None:
        self._stop_event.set()
        self.join()

    def _tree(self) -> list[int]:
        children: dict[int, list[int]] = {}
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry.name}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
        tree, todo = [], [self.pid]
        while todo:
            pid = todo.pop()
            tree.append(pid)
            todo.extend(children.get(pid, []))
        return tree


def _rss_kb(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(r"VmRSS:\s+(\d+) kB", status)
    return int(found.group(1)) if found else 0


def run_measured(cmd: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Run a command; wall and CPU seconds (children included), peak RSS of its tree."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = TreeRss(proc.pid)
    sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    sampler.stop()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {err.strip()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "peak_rss_mb": sampler.peak_kb / 1024,
        "processes_at_peak": sampler.peak_processes,
        "stdout": out,
    }


# Spawns the command, waits for it and writes "wall maxrss_kb exit_code" to argv[1]. A
# child's ru_maxrss includes the memory of whatever it was spawned from (the kernel keeps
# the pre-exec peak), so a command spawned straight from this process would report at
# least this process's size; from this small launcher, at least the launcher's (`rss_floor`).
LAUNCHER = """
import os, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
start = time.perf_counter()
pid = os.posix_spawnp(cmd[0], cmd, os.environ)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - start
with open(out, "w") as f:
    f.write(f"{wall} {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}")
"""


def run_short(
    cmd: list[str], env: dict[str, str] | None = None, ok: tuple[int, ...] = (0,)
) -> dict[str, Any]:
    """Run a short single process: wall seconds from spawn to exit and its peak RSS as the
    kernel counted it (`wait4`'s ru_maxrss), which 50 ms sampling would miss in a process
    that lives 10 ms. Spawned from a small launcher (see LAUNCHER), whose start-up is not
    timed. `ok` lists the accepted exit codes (1: found nothing)."""
    with tempfile.TemporaryDirectory() as folder:
        figures = Path(folder) / "figures"
        proc = subprocess.run(
            [sys.executable, "-I", "-S", "-c", LAUNCHER, str(figures), *cmd],
            env=env,
            capture_output=True,
            text=True,
            errors="replace",
        )
        if proc.returncode != 0 or not figures.exists():
            raise RuntimeError(f"launcher for {' '.join(cmd)} failed: {proc.stderr[-2000:]}")
        wall, maxrss_kb, code = figures.read_text().split()
    if int(code) not in ok:
        raise RuntimeError(f"{' '.join(cmd)} exited {code}: {proc.stderr.strip()[-2000:]}")
    return {
        "wall_s": float(wall),
        "peak_rss_mb": int(maxrss_kb) / 1024,  # kB on Linux
        "exit_code": int(code),
        "stdout": proc.stdout,
    }


def rss_floor_mb() -> float:
    """The least peak RSS `run_short` can report: the launcher's own (running `true`)."""
    return round(run_short(["true"])["peak_rss_mb"], 1)
