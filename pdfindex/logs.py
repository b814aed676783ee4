"""Logging set-up: a per-session log file (seed 000) and stderr; never stdout."""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def setup_logging(
    log_dir: Path | None, level: int = logging.INFO, stderr: bool = True
) -> Path | None:
    """Send pdfindex logs to `log_dir/YYYY-MM-DD_HH-MM-SS.log` (when given) and stderr."""
    root = logging.getLogger()
    root.setLevel(level)
    for handler in list(root.handlers):
        root.removeHandler(handler)
    if stderr:
        console = logging.StreamHandler(sys.stderr)
        console.setFormatter(logging.Formatter(_FORMAT))
        console.setLevel(logging.WARNING)
        root.addHandler(console)
    if log_dir is None:
        return None
    log_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y-%m-%d_%H-%M-%S")
    path, n = log_dir / f"{stamp}.log", 2
    while path.exists():  # two sessions started in the same second
        path, n = log_dir / f"{stamp}_{n}.log", n + 1
    file_handler = logging.FileHandler(path, encoding="utf-8")
    file_handler.setFormatter(logging.Formatter(_FORMAT))
    root.addHandler(file_handler)
    return path
