"""What files of types no adapter reads cost the indexer, and what a custom adapter costs
per file.

    python -m benchmarks.unsupported_cost [--unread 5000] [--custom 200] [--workers 2]

In a scratch folder: N files of a made-up type (listed `unsupported`, never read), timed
for the first reindex and a no-change rescan (what every watcher event costs); then M
files read by a custom adapter (a Python script run per file) beside M `.txt` files.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from pdfindex.api import PdfIndex
from pdfindex.config import load_settings

UPPER = "import sys\nsys.stdout.write(open(sys.argv[1], encoding='utf-8').read().upper())\n"


def timed(root: Path, workers: int) -> dict[str, object]:
    """First reindex and a no-change rescan of `root`, in seconds."""
    index = PdfIndex(load_settings({"workers": workers, "elements": False}, root=root))
    try:
        began = time.monotonic()
        summary = index.reindex()
        first = time.monotonic() - began
        began = time.monotonic()
        index.reindex()
        rescan = time.monotonic() - began
    finally:
        index.close()
    return {"first_s": round(first, 2), "rescan_s": round(rescan, 3), "summary": summary.line()}


def unread(root: Path, count: int, workers: int) -> dict[str, object]:
    files = root / "files"
    for n in range(count):
        folder = files / f"d{n % 50}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{n}.xyz").write_bytes(b"x" * 1000)
    return timed(root, workers)


def custom(root: Path, count: int, workers: int) -> dict[str, object]:
    files = root / "files"
    files.mkdir(parents=True)
    for n in range(count):
        (files / f"c{n}.up").write_text(f"custom file {n} words")
        (files / f"t{n}.txt").write_text(f"text file {n} words")
    program = root / "upper.py"
    program.write_text(UPPER)
    (root / "pdfindex.toml").write_text(
        '[[custom_adapters]]\nname = "up"\nextensions = ["up"]\n'
        f"command = {json.dumps(sys.executable)}\n"
        f'args = [{json.dumps(str(program))}, "$input"]\n'
    )
    return timed(root, workers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--unread", type=int, default=5000)
    parser.add_argument("--custom", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        print(f"{args.unread} unsupported:", unread(Path(scratch, "a"), args.unread, args.workers))
        print(
            f"{args.custom} custom + {args.custom} .txt:",
            custom(Path(scratch, "b"), args.custom, args.workers),
        )


if __name__ == "__main__":
    main()
