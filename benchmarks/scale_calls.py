"""Calls whose cost grew with the number of files (issue 31, defect 12): `stats`,
`get_library_status`, `query_documents` and a tool call naming an unknown document, on a
library of many small text files.

    python -m benchmarks.scale_calls ROOT [--files 50000] [--engine tantivy] [--runs 5]

Fills ROOT/files with `--files` small .txt files and indexes them when ROOT has no index
yet (at 50,000 files that takes minutes; later runs reuse it), then times each call in
this process: the first call (after opening the index: the catalog is read then) and
the median of `--runs` calls after it. To compare with another version of pdfindex, run
it again with that version first on PYTHONPATH (e.g. `git archive HEAD pdfindex | tar -x
-C /tmp/before` and `PYTHONPATH=/tmp/before`) over the same ROOT. Not part of the tests.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pdfindex
from pdfindex.api import PdfIndex
from pdfindex.config import load_settings
from pdfindex.errors import DocumentNotFound
from pdfindex.tools import catalog, names, passages
from pdfindex.tools.sessions import SessionStore

TOPICS = ("margins", "hyphenation", "tables", "fonts", "indexes", "citations", "figures")
PER_FOLDER = 1000


def fill(files: Path, count: int) -> None:
    """`count` small text files, PER_FOLDER to a folder."""
    for n in range(count):
        folder = files / f"part{n // PER_FOLDER:03d}"
        if n % PER_FOLDER == 0:
            folder.mkdir(parents=True, exist_ok=True)
        topic = TOPICS[n % len(TOPICS)]
        (folder / f"note{n:06d}.txt").write_text(
            f"Note {n} on {topic}\n\nHow to change the {topic} of document {n}: "
            f"word{n} and the {topic} settings.\n"
        )


def timed(call: Callable[[], Any], runs: int) -> dict[str, float]:
    """Seconds of the first call and the median of `runs` calls after it."""
    seconds = []
    for _ in range(runs + 1):
        started = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - started)
    return {"first_s": round(seconds[0], 4), "median_s": round(statistics.median(seconds[1:]), 4)}


def unknown_document(index: PdfIndex) -> None:
    """What a tool naming a document no one has does (search_pdf's pdf_name, ...)."""
    try:
        names.find_document(index, "part007/no-such-notes")
    except DocumentNotFound:
        return
    raise AssertionError("an unknown name was found")


def unknown_record(index: PdfIndex) -> None:
    """The CLI's document lookup (`PdfIndex.find_record`) of an unknown name."""
    try:
        index.find_record("part007/no-such-notes")
    except DocumentNotFound:
        return
    raise AssertionError("an unknown name was found")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--engine", default="tantivy")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    root: Path = args.root
    settings = load_settings({"engine": args.engine, "workers": 2}, root=root)
    files = root / "files"
    if not files.exists():
        started = time.perf_counter()
        fill(files, args.files)
        print(f"wrote {args.files} files in {time.perf_counter() - started:.1f} s", flush=True)
    index = PdfIndex(settings)
    try:
        if not index.engine.catalog():
            started = time.perf_counter()
            summary = index.reindex()
            print(
                f"indexed {summary.added} files in {time.perf_counter() - started:.1f} s",
                flush=True,
            )
    finally:
        index.close()
    index = PdfIndex(settings)  # a new process's start: nothing read yet
    try:
        with tempfile.TemporaryDirectory() as scratch:
            sessions = SessionStore(Path(scratch))
            calls: dict[str, Callable[[], Any]] = {
                "stats": index.stats,
                "get_library_status": lambda: catalog.library_status(index, "off", False, None),
                "query_documents": lambda: passages.query_documents(
                    index, sessions, "how to change the margins"
                ),
                "unknown_document_tool": lambda: unknown_document(index),
                "unknown_document_find_record": lambda: unknown_record(index),
            }
            report = {
                "pdfindex": str(Path(pdfindex.__file__).parent),
                "engine": args.engine,
                "calls": {name: timed(call, args.runs) for name, call in calls.items()},
                "documents": index.stats()["documents"],
            }
    finally:
        index.close()
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
