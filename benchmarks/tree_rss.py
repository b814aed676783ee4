"""`python -m benchmarks.tree_rss CMD ...`: run a command and report its wall time and the
peak of the summed RSS of its whole process tree (sampled every 50 ms), with each
process's share at that peak: what a build costs the machine, workers included; and the
largest peak RSS (VmHWM) any one process of the tree reached, with its command line: the
figure a per-process memory budget is about."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.measure.process import TreeRss, _rss_kb


class _Detailed(TreeRss):
    """TreeRss that also keeps each process's RSS at the tree's peak."""

    at_peak: dict[int, int] = {}
    hwm: dict[int, tuple[int, str]] = {}  # pid: (its VmHWM in kB, its command line)

    def run(self) -> None:
        while not self._stop_event.is_set():
            pids = self._tree()
            sizes = {pid: _rss_kb(pid) for pid in pids}
            for pid in pids:
                high = _hwm_kb(pid)
                if high > self.hwm.get(pid, (0, ""))[0]:
                    self.hwm[pid] = (high, self.hwm.get(pid, (0, ""))[1] or _cmdline(pid))
            total = sum(sizes.values())
            if total > self.peak_kb:
                self.peak_kb, self.peak_processes, self.at_peak = total, len(sizes), sizes
            self._stop_event.wait(self.interval)


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    begin = time.perf_counter()
    proc = subprocess.Popen(sys.argv[1:])
    sampler = _Detailed(proc.pid)
    sampler.start()
    code = proc.wait()
    sampler.stop()
    shares = sorted((kb // 1024 for kb in sampler.at_peak.values()), reverse=True)
    print(
        f"exit {code}, wall {time.perf_counter() - begin:.1f} s, peak tree RSS "
        f"{sampler.peak_kb / 1024:.0f} MB over {sampler.peak_processes} processes "
        f"(MB each at the peak: {shares})",
        file=sys.stderr,
    )
    largest = sorted(sampler.hwm.items(), key=lambda item: -item[1][0])[:4]
    for pid, (kb, cmd) in largest:
        print(f"  process {pid} peak RSS {kb / 1024:.0f} MB: {cmd[:100]}", file=sys.stderr)
    sys.exit(code)


def _hwm_kb(pid: int) -> int:
    """A process's own peak RSS so far (VmHWM): caught even between two samples."""
    try:
        found = re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    except OSError:
        return 0
    return int(found.group(1)) if found else 0


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        return ""


if __name__ == "__main__":
    main()
