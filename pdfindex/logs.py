"""Logging set-up: a per-session log file (seed 000) and stderr; never stdout.

The logs' disk use is bounded: a session's file is rotated at `max_bytes` (the
`log_file_mb` setting) with BACKUPS older parts kept, and at start only the newest `keep`
session logs (`log_keep`, the new one included) stay, with their parts; so `log_dir`
holds at most keep x (1 + BACKUPS) x max_bytes.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import time
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Any

_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
MAX_BYTES = 5_000_000  # the log_file_mb setting's default
BACKUPS = 2  # older parts of a session's log kept: NAME.log.1, NAME.log.2
KEEP = 10  # the log_keep setting's default
# A session's log (seed 000's name, `_N` when two started in the same second) or a part
_SESSION_LOG = re.compile(r"(\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d(?:_\d+)?\.log)(?:\.\d+)?")
_OPENED: list[logging.Handler] = []  # the file handlers this module made


def setup_logging(
    log_dir: Path | None,
    level: int = logging.INFO,
    stderr: bool = True,
    max_bytes: int = MAX_BYTES,
    keep: int = KEEP,
) -> Path | None:
    """Send pdfindex logs to `log_dir/YYYY-MM-DD_HH-MM-SS.log` (when given) and stderr;
    that file rotates at `max_bytes`, and older sessions' logs beyond `keep` go."""
    root = logging.getLogger()
    root.setLevel(level)
    for handler in list(root.handlers):
        root.removeHandler(handler)
        if handler in _OPENED:  # an earlier set-up's file (tests, a restart in-process)
            _OPENED.remove(handler)
            handler.close()
    if stderr:
        console = logging.StreamHandler(sys.stderr)
        console.setFormatter(logging.Formatter(_FORMAT))
        console.setLevel(logging.WARNING)
        root.addHandler(console)
    if log_dir is None:
        return None
    log_dir.mkdir(parents=True, exist_ok=True)
    remove_old_logs(log_dir, keep - 1)  # the new one is the keep-th
    stamp = time.strftime("%Y-%m-%d_%H-%M-%S")
    path, n = log_dir / f"{stamp}.log", 2
    while path.exists():  # two sessions started in the same second
        path, n = log_dir / f"{stamp}_{n}.log", n + 1
    file_handler = RotatingFileHandler(
        path, maxBytes=max(1, int(max_bytes)), backupCount=BACKUPS, encoding="utf-8"
    )
    file_handler.setFormatter(logging.Formatter(_FORMAT))
    root.addHandler(file_handler)
    _OPENED.append(file_handler)
    return path


def log_limits(settings: Any) -> dict[str, int]:
    """setup_logging's limits from the settings (`log_file_mb`, `log_keep`)."""
    return {"max_bytes": int(settings.log_file_mb * 1_000_000), "keep": int(settings.log_keep)}


def remove_old_logs(log_dir: Path, keep: int) -> int:
    """Remove all but the newest `keep` session logs of `log_dir` (by their last write),
    each with its rotated parts; the number of files removed. Other files stay."""
    sessions: dict[str, list[tuple[float, str]]] = {}
    with os.scandir(log_dir) as listing:
        for item in listing:
            match = _SESSION_LOG.fullmatch(item.name)
            if match is None or not item.is_file(follow_symlinks=False):
                continue
            try:
                written = item.stat().st_mtime
            except OSError:
                continue
            sessions.setdefault(match.group(1), []).append((written, item.path))
    newest = sorted(sessions, key=lambda s: (max(sessions[s])[0], s), reverse=True)
    removed = 0
    for name in newest[max(0, keep) :]:
        for _, file in sessions[name]:
            try:
                os.unlink(file)
                removed += 1
            except OSError:  # gone meanwhile, or not ours to remove
                continue
    return removed
