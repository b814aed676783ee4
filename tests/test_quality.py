"""Project hygiene that CI should catch: ruff-clean code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_is_clean() -> None:
    """ruff comes with the test extra: run the one installed beside this Python, never
    skip when it is missing from PATH."""
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "pdfindex", "tests", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
