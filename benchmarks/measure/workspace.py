"""The temporary project root a run measures, mirroring the corpus without modifying it.

Each index engine gets a workspace of its own: the rescans change files and every cold
build starts from an empty index folder, so engines measured one after the other neither
see each other's changes nor lose each other's index.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pdfindex
from benchmarks.corpus import FolderCorpus
from benchmarks.measure.common import evenly
from pdfindex.config import Settings, load_settings


@dataclass
class Workspace:
    """A project root in a temporary folder whose files/ mirrors the corpus (hard links;
    real copies for the files the rescans will touch or rewrite)."""

    corpus: Path
    root: Path
    engine: str  # the index engine every pdfindex in this workspace runs
    pdfs: list[str]  # posix paths under files/, sorted
    corpus_bytes: int
    touched: list[str] = field(default_factory=list)  # the 1% the touch rescan stamps
    rewrite: str = ""  # the file the modify rescan rewrites

    @property
    def files(self) -> Path:
        return self.root / "files"

    @property
    def index_dir(self) -> Path:
        return self.root / "index"

    def env(self, workers: int) -> dict[str, str]:
        """The environment of pdfindex subprocesses: defaults, not the caller's settings."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("PDFINDEX_")}
        env["PDFINDEX_LOG_DIR"] = str(self.root / "logs")
        env["PDFINDEX_ENGINE"] = self.engine
        # Subprocesses import the same pdfindex as this process.
        source = str(Path(pdfindex.__file__).resolve().parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [source, env.get("PYTHONPATH")]))
        if workers:
            env["PDFINDEX_WORKERS"] = str(workers)
        return env

    def settings(self, workers: int) -> Settings:
        return load_settings(
            {"workers": workers, "log_dir": str(self.root / "logs"), "engine": self.engine},
            root=self.root,
        )

    def cli(self, *args: str) -> list[str]:
        """A `pdfindex` command on this root and engine (the flag, too, so a recorded
        command repeats by hand)."""
        return [
            sys.executable,
            "-m",
            "pdfindex.cli",
            *args,
            "--root",
            str(self.root),
            "--engine",
            self.engine,
        ]

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def make_workspace(corpus: FolderCorpus, engine: str, scratch: Path | None = None) -> Workspace:
    """Mirror the corpus's documents into files/ of a new temporary root for `engine`."""
    folder = corpus.folder
    pdfs = list(corpus.documents())
    if not pdfs:
        raise SystemExit(f"no PDFs under {folder}")
    root = Path(tempfile.mkdtemp(prefix=f"pdfindex-bench-{engine}-", dir=scratch))
    size = sum((folder / p).stat().st_size for p in pdfs)
    ws = Workspace(folder, root, engine, pdfs, size)
    ws.touched = evenly(pdfs, max(1, round(len(pdfs) * 0.01)), offset=1)
    by_size = sorted(pdfs, key=lambda p: ((folder / p).stat().st_size, p))
    ws.rewrite = next((p for p in by_size[len(by_size) // 2 :] if p not in ws.touched), by_size[0])
    mutable = {*ws.touched, ws.rewrite}
    for rel in pdfs:
        source, target = folder / rel, ws.files / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if rel in mutable:
            shutil.copy2(source, target)
            continue
        try:
            os.link(source, target)
        except OSError:
            shutil.copy2(source, target)
    return ws
