"""File-landed-to-searchable latency with the watcher running.

    python -m benchmarks.live_latency --root ROOT [--runs 20]

Copies a small new PDF into ROOT/files, polls search_pdf every 20 ms until it finds the
new text, removes the file again, and repeats; prints min/median/max seconds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.pdfwriter import write_pdf
from pdfindex.api import PdfIndex
from pdfindex.config import load_settings
from pdfindex.tools.exact import search_pdf

if TYPE_CHECKING:
    from pdfindex.indexer.live import LiveIndex


def measure(root: Path, runs: int = 20, quiet: float = 1.0) -> list[float]:
    """Seconds from the end of the write to the first search that finds the text."""
    index = PdfIndex(load_settings(root=root))
    live = index.live(quiet=quiet).start()
    live.caught_up.wait()
    try:
        return landing_seconds(index, live, root, runs)
    finally:
        live.close()
        index.close()


def landing_seconds(
    index: PdfIndex, live: LiveIndex, root: Path, runs: int, move: bool = False
) -> list[float]:
    """For each run, a new PDF written (or, with `move`, renamed) into the files folder
    and the seconds until search_pdf finds its word (polled every 20 ms, 60 s at most)."""
    scratch = Path(tempfile.mkdtemp())
    latencies = []
    for run in range(runs):
        marker = f"landedmarker{run:03d}x"
        source = write_pdf(scratch / f"{run}.pdf", [f"{marker} arrives", "second page"])
        target = root / "files" / f"zz-landed-{run:03d}.pdf"
        if move:  # one `moved` event, as a save-then-rename gives
            os.replace(source, target)
        else:
            target.write_bytes(source.read_bytes())
        landed = time.perf_counter()
        while not search_pdf(index, target.stem, marker).get("query_exists"):
            if time.perf_counter() - landed > 60:
                raise RuntimeError(f"{target.name} not searchable after 60 s")
            time.sleep(0.02)
        latencies.append(time.perf_counter() - landed)
        target.unlink()
        live.wait_idle(60)
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    values = measure(args.root, args.runs)
    print(
        f"landed-to-searchable over {len(values)} runs: min {min(values):.2f} s, "
        f"median {statistics.median(values):.2f} s, max {max(values):.2f} s"
    )


if __name__ == "__main__":
    main()
