"""What every measurement shares: the plan of repetitions, logging, "not available",
the query kinds, and small helpers over lists and names."""

from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass
from typing import Any

from pdfindex.api import PdfIndex
from pdfindex.models import FileRecord

WORD = re.compile(r"\w+")
NO_MCP_NOTE = "no MCP tool yet"
PDFGREP_MISSING = "pdfgrep not installed (apt-get install pdfgrep)"
RECOLL_MISSING = "recoll not installed (apt-get install recoll)"
EXACT_ONLY = "baselines answer exact substring and regex queries only"
RANKED_KINDS = (
    "common_word",
    "rare_word",
    "phrase_2",
    "phrase_4",
    "fuzzy_1",
    "fuzzy_2",
    "prefix",
    "boolean",
)
QUERY_KINDS = (*RANKED_KINDS, "exact_one_doc", "exact_all_docs", "regex_one_doc")


@dataclass
class Plan:
    """How many repetitions each figure gets (quick: seconds; full: minutes)."""

    quick: bool = False
    build_runs: int = 2
    warm_runs: int = 1
    rescan_runs: int = 3
    cli_runs: int = 3
    process_runs: int = 5  # whole `pdfindex search` / `recollq` processes per query kind
    query_min_runs: int = 5
    query_max_runs: int = 60
    query_budget_s: float = 6.0
    pdfium_sample_pages: int = 3000
    pdfminer_sample_pages: int = 60
    naive_runs: int = 3
    pdfgrep_runs: int = 3
    clients: int = 8
    calls_per_client: int = 25
    workers: int = 0  # extraction processes for pdfindex; 0 = all cores

    @classmethod
    def for_mode(cls, quick: bool) -> Plan:
        if not quick:
            return cls()
        return cls(
            quick=True,
            build_runs=1,
            warm_runs=1,
            rescan_runs=2,
            cli_runs=2,
            process_runs=3,
            query_min_runs=3,
            query_max_runs=8,
            query_budget_s=0.4,
            pdfium_sample_pages=120,
            pdfminer_sample_pages=12,
            naive_runs=2,
            pdfgrep_runs=1,
            calls_per_client=4,
        )


def log(message: str) -> None:
    """Progress on stderr, so stdout carries only the report."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def not_available(into: dict[str, Any], key: str, note: str) -> None:
    """Record a figure that cannot be measured: None plus a note saying why."""
    into[key] = None
    into[f"{key}_note"] = note


def evenly(items: list[Any], count: int, offset: int = 0) -> list[Any]:
    """`count` items spread evenly over the list (deterministic)."""
    if count >= len(items):
        return list(items)
    step = len(items) / count
    return [items[(int(i * step) + offset) % len(items)] for i in range(count)]


def pdf_name(path: str) -> str:
    """search_pdf's name for a file: its path under files/ without `.pdf`."""
    return re.sub(r"\.pdf$", "", path, flags=re.IGNORECASE)


def catalog(index: PdfIndex) -> list[FileRecord]:
    """Every indexed file's record, by path (the one place benchmarks read the catalog)."""
    return sorted(index.engine.catalog().values(), key=lambda r: r.path)
