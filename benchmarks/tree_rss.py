"""`python -m benchmarks.tree_rss CMD ...`: run a command and report its wall time and the
peak of the summed RSS of its whole process tree (sampled every 50 ms), with each
process's share at that peak: what a build costs the machine, workers included."""

from __future__ import annotations

import subprocess
import sys
import time

from benchmarks.measure.process import TreeRss, _rss_kb


class _Detailed(TreeRss):
    """TreeRss that also keeps each process's RSS at the tree's peak."""

    at_peak: dict[int, int] = {}

    def run(self) -> None:
        while not self._stop_event.is_set():
            sizes = {pid: _rss_kb(pid) for pid in self._tree()}
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
    sys.exit(code)


if __name__ == "__main__":
    main()
