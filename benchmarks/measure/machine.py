"""What ran the benchmark: cores, memory, CPU, versions, the pdfindex commit and load.

On a shared machine the load average tells how much to trust a number.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import pdfindex
from benchmarks.measure.recoll import recoll_version


def machine(note: str | None) -> dict[str, Any]:
    """Cores, memory, CPU model, Python and package versions, load at the start."""

    def pkg(name: str) -> str | None:
        try:
            return version(name)
        except PackageNotFoundError:
            return None

    meminfo = Path("/proc/meminfo").read_text() if Path("/proc/meminfo").exists() else ""
    mem = re.search(r"MemTotal:\s+(\d+) kB", meminfo)
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = re.search(r"model name\s*:\s*(.+)", cpuinfo)
    return {
        "cores": os.cpu_count(),
        "memory_gb": round(int(mem.group(1)) / 1024**2, 1) if mem else None,
        "cpu_model": model.group(1).strip() if model else None,
        "python": sys.version.split()[0],
        "platform": sys.platform,
        "load_average_at_start": list(os.getloadavg()),
        "versions": {
            "pdfindex": pkg("pdfindex"),
            "whoosh": pkg("whoosh-reloaded") or pkg("whoosh"),
            "tantivy": pkg("tantivy"),
            "pypdfium2": pkg("pypdfium2"),
            "pdfminer.six": pkg("pdfminer.six"),
            "mcp": pkg("mcp"),
            "fpdf2": pkg("fpdf2"),
            "pdfgrep": pdfgrep_version(),
            "recoll": recoll_version(),
        },
        "pdfindex_source": pdfindex_source(),
        "note": note,
    }


def pdfgrep_version() -> str | None:
    exe = shutil.which("pdfgrep")
    if not exe:
        return None
    out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    found = re.search(r"version (\d+(?:\.\d+)*)", out)
    return found.group(1) if found else out.strip()[:40]


def pdfindex_source() -> dict[str, Any]:
    """Where pdfindex was imported from and, in a git checkout, its commit and dirtiness."""
    folder = Path(pdfindex.__file__).resolve().parent
    info: dict[str, Any] = {"path": str(folder), "commit": None, "dirty": None}
    try:
        top = folder.parent
        commit = subprocess.run(
            ["git", "-C", str(top), "rev-parse", "HEAD"], capture_output=True, text=True
        )
        if commit.returncode == 0:
            info["commit"] = commit.stdout.strip()
            status = subprocess.run(
                ["git", "-C", str(top), "status", "--porcelain", "--", "pdfindex"],
                capture_output=True,
                text=True,
            )
            info["dirty"] = bool(status.stdout.strip())
    except OSError:
        pass
    return info
