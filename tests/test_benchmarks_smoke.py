"""`python -m benchmarks --quick` runs end to end and reports every figure.

Checks that the report has each figure, for every index engine measured, that a measured
figure is a real number (or summary of numbers), and that a figure is None only where it
is documented as not available (with a note saying why); never how fast anything is.

The suite runs once per engine (tests/conftest.py). The default engine's pass measures
every engine side by side (no `--engines`: the default is all) and checks each one's
figures; another engine's pass measures that engine alone (`--engines NAME`), which keeps
the two passes at about a minute together.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from pdfindex.config import SETTINGS
from pdfindex.engine import embedded_engines
from tests.conftest import ENGINE

REPO = Path(__file__).resolve().parents[1]
KINDS = (
    "common_word",
    "rare_word",
    "phrase_2",
    "phrase_4",
    "fuzzy_1",
    "fuzzy_2",
    "prefix",
    "boolean",
    "exact_one_doc",
    "exact_all_docs",
    "regex_one_doc",
)
BASELINE_KINDS = ("exact_one_doc", "exact_all_docs", "regex_one_doc")  # naive and pdfgrep
NAIVE_KINDS = ("exact_one_doc", "regex_one_doc")  # all documents: too slow, estimated only
QUERY_FIGURES = (
    "hits",
    "api",
    "mcp",
    "process",
    "naive_s",
    "pdfgrep_s",
    "speedup_vs_naive",
    "speedup_vs_pdfgrep",
)
# Every engine's own figures, at the top level (the first engine's) and under by_engine.
ENGINE_FIGURES = [
    "build.wall_s",
    "build.cpu_s",
    "build.pages_per_s",
    "build.mb_per_s",
    "build.peak_rss_mb",
    "build.warm_rebuild_s",
    "build.indexing_s",
    "build.extraction_s",
    "build.text_searchable_s",
    "build.text_pages_per_s",
    "build.elements_pass_s",
    "build.index_mb",
    "build.corpus_mb",
    "build.index_to_corpus",
    "limits.writer_pages_per_s",
    "limits.build_limit_pages_per_s",
    "limits.bound_by",
    "limits.build_share_of_limit",
    "rescan.no_change_api_s",
    "rescan.no_change_cli_s",
    "rescan.touch_1pct.seconds",
    "rescan.touch_1pct.parsed",
    "rescan.modify_1.seconds",
    "rescan.modify_1.parsed",
    "rescan.rename_10.seconds",
    "rescan.rename_10.parsed",
    "live_update.latency_s",
    "mcp_server.startup_s",
    *(f"queries.{kind}.{fig}" for kind in KINDS for fig in QUERY_FIGURES),
    *(
        f"concurrency.{front}.{fig}"
        for front in ("api", "mcp")
        for fig in ("throughput_qps", "latency")
    ),
]
RECOLL_KINDS = tuple(k for k in KINDS if k not in ("fuzzy_1", "fuzzy_2", "regex_one_doc"))
RECOLL_FIGURES = [
    "recoll.build.wall_s",
    "recoll.build.pages_per_s",
    "recoll.build.peak_rss_mb",
    "recoll.build.index_mb",
    *(f"recoll.queries.{kind}.{fig}" for kind in RECOLL_KINDS for fig in ("wall_s", "peak_rss_mb")),
]
RECOLL_MISSING = "recoll not installed (apt-get install recoll)"
FIGURES = [
    "machine.cores",
    "machine.memory_gb",
    "machine.cpu_model",
    "machine.python",
    "machine.versions",
    "corpus.files",
    "corpus.pages",
    "corpus.mb",
    "limits.pdfium_pages_per_s",
    "limits.pdfminer_pages_per_s",
    "limits.writer_pages_per_s",
    "limits.extraction_limit_pages_per_s",
    "limits.build_limit_pages_per_s",
    "limits.bound_by",
    "limits.build_share_of_limit",
    "limits.word_agreement.pdfminer_words_in_pdfium",
    "limits.word_agreement.pdfium_words_in_pdfminer",
    "whole_process.rss_floor_mb",
    *ENGINE_FIGURES,
]


def may_be_null(key: str) -> bool:
    """Figures documented as possibly not available (each then carries a `_note`).

    Live updates, the regex kind and every MCP tool are always measured now: a null for
    them is a bug, not a missing feature.
    """
    parts = key.split(".")
    if parts[0] != "queries":
        return False
    kind, figure = parts[1], parts[2]
    if figure == "mcp":
        return kind == "exact_all_docs"  # search_pdf searches one document
    if figure == "process":
        return kind == "regex_one_doc"  # no CLI command for regular expressions
    if figure in ("naive_s", "speedup_vs_naive"):
        return kind not in NAIVE_KINDS
    if figure in ("pdfgrep_s", "speedup_vs_pdfgrep"):
        return kind not in BASELINE_KINDS or shutil.which("pdfgrep") is None
    return False


def assert_numbers(key: str, value: Any) -> None:
    """A measured figure is a finite number, or a summary / latency dict of them."""
    if isinstance(value, dict) and ({"median", "p50_ms"} & set(value)):
        fields = ("min", "median", "max") if "median" in value else ("p50_ms", "p95_ms", "p99_ms")
        for field in fields:
            assert_numbers(f"{key}.{field}", value.get(field))
        return
    if isinstance(value, int | float) and not isinstance(value, bool):
        assert math.isfinite(value), f"{key} = {value!r}"
        assert value >= 0, f"{key} = {value!r}"
        return
    assert isinstance(value, str | dict), f"{key} = {value!r}: not a figure"
    assert value, f"{key} = {value!r}: not a figure"


def lookup(data: dict[str, Any], key: str, where: str = "") -> tuple[dict[str, Any], str]:
    """The dict holding `key` (dotted) and its last part; `where` prefixes the message."""
    *path, last = key.split(".")
    for part in path:
        assert part in data, f"report lacks {where}{key}"
        data = data[part]
    assert last in data, f"report lacks {where}{key}"
    return data, last


def check_figures(report: dict[str, Any], keys: list[str], where: str = "") -> None:
    """Each key is there, and a real figure or a documented null with its note."""
    for key in keys:
        holder, last = lookup(report, key, where)
        if holder[last] is None:
            assert may_be_null(key), f"{where}{key} is null but must be measured"
            assert holder.get(f"{last}_note"), f"{where}{key} is null without a note"
        else:
            assert_numbers(f"{where}{key}", holder[last])


def check_engines(report: dict[str, Any], table: str, expected: list[str]) -> None:
    """Every expected engine's figures are there and real, side by side in the tables;
    the top level holds the first engine's (a one-engine report's shape)."""
    assert report["engines"] == expected
    assert report["engine"] == expected[0]
    by_engine = report["by_engine"]
    assert list(by_engine) == expected, f"engines measured: {list(by_engine)}"
    for name in expected:
        check_figures(by_engine[name], ENGINE_FIGURES, f"by_engine.{name}.")
        figures = by_engine[name]
        assert figures["limits"]["engine"] == name
        for kind in KINDS:
            assert {"p50_ms", "p95_ms", "p99_ms"} <= set(figures["queries"][kind]["api"]), kind
        assert figures["live_update"]["latency_s"]["median"] > 0
        assert figures["rescan"]["rename_10"]["parsed"] == 0
        assert figures["rescan"]["touch_1pct"]["parsed"] == 0
        assert figures["rescan"]["modify_1"]["parsed"] == 1
        assert f"--engine {name}" in figures["queries"]["common_word"]["process"]["command"]
        assert f"library ms, {name} |" in table, f"no library column for {name}"
        assert f"`pdfindex search`, {name} |" in table, f"no whole-process column for {name}"
    first = by_engine[expected[0]]
    for key in ("build", "rescan", "queries", "concurrency", "live_update"):
        assert report[key] == first[key], key
    assert "| figure | " + " | ".join(expected) + " |" in table  # the build table


def check_recoll(report: dict[str, Any], table: str) -> None:
    """recoll measured when installed (never installed by the tests), else said why."""
    if shutil.which("recollindex") and shutil.which("recollq"):
        check_figures(report, RECOLL_FIGURES)
        assert report["recoll"]["queries"]["common_word"]["documents"] > 0
        assert "| recollq |" in table
        return
    assert report["recoll"]["build"] is None
    assert report["recoll"]["build_note"] == RECOLL_MISSING
    assert RECOLL_MISSING in table


def test_quick_run_reports_every_figure(tmp_path: Path) -> None:
    default = SETTINGS["engine"].default
    side_by_side = ENGINE["name"] == default
    expected = [default, *sorted(set(embedded_engines()) - {default})]
    if not side_by_side:
        expected = [ENGINE["name"]]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PDFINDEX_")}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks",
            "--quick",
            *([] if side_by_side else ["--engines", ENGINE["name"]]),
            "--out",
            str(tmp_path / "results"),
            "--corpus-root",
            str(tmp_path / "corpus"),
            "--scratch",
            str(tmp_path),
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    reports = list((tmp_path / "results").glob("*.json"))
    assert len(reports) == 1
    report = json.loads(reports[0].read_text())
    assert reports[0].with_suffix(".png").read_bytes().startswith(b"\x89PNG")
    table = reports[0].with_suffix(".md").read_text()
    assert "| kind | query | hits | library ms" in table
    assert "| kind | query | hits | library ms" in proc.stdout  # printed at the end

    check_figures(report, FIGURES)
    check_engines(report, table, expected)
    check_recoll(report, table)
    for package in ("pdfindex", "whoosh", "tantivy", "pypdfium2", "pdfminer.six", "mcp"):
        assert report["machine"]["versions"][package], package
    assert report["queries"]["regex_one_doc"]["mcp_tool"] == "search_in_file"
    for stats in (report["build"]["wall_s"], report["rescan"]["no_change_api_s"]):
        assert {"min", "median", "max"} <= set(stats)
    assert report["corpus"]["pages"] >= 100


def test_reliability_round3_classifies_attempts(tmp_path: Path) -> None:
    """Two cheap classes of `python -m benchmarks.reliability --round3` (bad settings through
    the real CLI, worker memory caps): every attempt gets one of the five outcomes."""
    from benchmarks.reliability import OUTCOMES, class_caps, class_settings

    for tally in (class_settings(tmp_path), class_caps(tmp_path)):
        row = tally.row()
        assert row["tried"] >= 4, row
        assert sum(row[o] for o in OUTCOMES) == row["tried"], row
        assert row["handled"] == row["tried"], tally.attempts
