"""The tables and the plot of benchmarks.million: every `build-*.json` and `measure-*.json`
of a folder gathered into one JSON, one Markdown file (the folder's `analysis.md`, when
written, goes first) and a PNG of p50 latency per query kind against pages, per engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def gather(folder: Path) -> dict[str, Any]:
    """{engine: {pages: {"build": ..., "measure": ...}}} from the folder's JSON files,
    keyed by the pages each file names (`build-ENGINE-PAGES.json`)."""
    runs: dict[str, dict[int, dict[str, Any]]] = {}
    for path in sorted(folder.glob("*-*-*.json")):
        kind, engine, pages = path.stem.split("-", 2)
        if kind not in ("build", "measure"):
            continue
        runs.setdefault(engine, {}).setdefault(int(pages), {})[kind] = json.loads(
            path.read_text(encoding="utf-8")
        )
    return {e: runs[e] for e in sorted(runs, key=lambda e: (e.startswith("postgres"), e))}


def cell(value: Any, unit: str = "") -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.2f}{unit}" if value < 100 else f"{value:,.0f}{unit}"
    if isinstance(value, int):
        return f"{value:,}{unit}"
    return str(value)


def tables(runs: dict[str, dict[int, dict[str, Any]]]) -> list[str]:
    columns = [(e, p) for e in runs for p in sorted(runs[e])]
    head = " | ".join(f"{e} {round(p / 1000):,}k" for e, p in columns)
    rule = "|---|" + "---:|" * len(columns)
    lines = ["## Build and serving", "", f"| figure | {head} |", rule]

    def row(label: str, get: Any, unit: str = "") -> None:
        values = []
        for engine, pages in columns:
            try:
                values.append(cell(get(runs[engine][pages]), unit))
            except (KeyError, TypeError):
                values.append("–")
        lines.append(f"| {label} | {' | '.join(values)} |")

    row("pages indexed", lambda r: r["build"]["pages"])
    row("files", lambda r: r["build"]["files"])
    row("build (writer + commit), s", lambda r: r["build"]["build_s"])
    row("build, pages/s", lambda r: r["build"]["pages_per_s"])
    row("build, CPU s of the building process", lambda r: r["build"].get("cpu_s"))
    row("pages before this build (an appended stage)", lambda r: r["build"].get("appended_to"))
    row("build process peak RSS, MB", lambda r: r["build"]["peak_rss_mb"])
    row("index size, MB", lambda r: r["build"]["index_mb"])
    row("open the index, s", lambda r: r["measure"]["open_s"])
    row("open + first search, s", lambda r: r["measure"]["open_and_first_search_s"])
    row(
        "`pdfindex serve` RSS after start-up, MB", lambda r: r["measure"]["serve"]["after_start_mb"]
    )
    row(
        "`pdfindex serve` RSS after the calls, MB",
        lambda r: r["measure"]["serve"]["after_calls_mb"],
    )
    row(
        "live index RSS (measuring process), MB",
        lambda r: r["measure"]["new_file_searchable"]["rss_mb_while_live"],
    )
    row("live start-up scan, s", lambda r: r["measure"]["new_file_searchable"]["startup_scan_s"])
    row("new file → first hit, median s", lambda r: r["measure"]["new_file_searchable"]["median_s"])
    row("new file → first hit, max s", lambda r: r["measure"]["new_file_searchable"]["max_s"])
    row("one-file commit, median s", lambda r: r["measure"]["one_file_commit"]["median_s"])
    row(
        "load average (1, 5, 15 min) after",
        lambda r: ", ".join(f"{v:.1f}" for v in r["measure"]["loadavg"]),
    )
    kinds = kind_names(runs)
    for key, title in (
        ("p50", "wall p50 / p95 ms (matches)"),
        ("cpu_p50", "CPU time of the process, p50 / p95 ms"),
    ):
        lines += ["", f"## Query latency, {title}", "", f"| query | {head} |", rule]
        for kind in kinds:
            values = []
            for engine, pages in columns:
                q = runs[engine][pages].get("measure", {}).get("queries", {}).get(kind)
                if not q or f"{key}_ms" not in q:
                    values.append("–")
                    continue
                high = q[f"{key.replace('50', '95')}_ms"]
                count = f" ({q['count']:,})" if key == "p50" else ""
                values.append(f"{q[f'{key}_ms']:.1f} / {high:.1f}{count}")
            lines.append(f"| {kind} | {' | '.join(values)} |")
    return lines


def kind_names(runs: dict[str, dict[int, dict[str, Any]]]) -> list[str]:
    kinds: list[str] = []
    for by_pages in runs.values():
        for run in by_pages.values():
            for kind in run.get("measure", {}).get("queries", {}):
                if kind not in kinds:
                    kinds.append(kind)
    return kinds


def ascii_label(kind: str) -> str:
    """The kind without backquotes, a Japanese word named so (the plot's font lacks it)."""
    text = kind.replace("`", "")
    if text.isascii():
        return text
    return "".join(c for c in text if c.isascii()).strip() + " (Japanese)"


def plot(runs: dict[str, dict[int, dict[str, Any]]], target: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kinds = kind_names(runs)
    figure, axes = plt.subplots(2, len(runs), figsize=(7 * len(runs), 11), squeeze=False)
    for row, (key, what) in enumerate((("p50_ms", "wall"), ("cpu_p50_ms", "CPU time"))):
        for axis, (engine, by_pages) in zip(axes[row], runs.items(), strict=True):
            axis.set_prop_cycle(color=plt.cm.tab20.colors[: len(kinds)])  # type: ignore[attr-defined]
            for kind in kinds:
                points = [
                    (pages, run["measure"]["queries"][kind][key])
                    for pages, run in sorted(by_pages.items())
                    if key in run.get("measure", {}).get("queries", {}).get(kind, {})
                ]
                if points:
                    xs, ys = zip(*points, strict=True)
                    axis.plot(xs, ys, marker="o", label=ascii_label(kind))
            axis.axhline(20, color="grey", linestyle="--", linewidth=1)
            axis.set_xscale("log")
            axis.set_xlim(30_000, 1_500_000)  # every panel over the same sizes
            axis.set_yscale("log")
            axis.set_xlabel("pages")
            axis.set_ylabel(f"p50 latency ({what}), ms")
            axis.set_title(f"{engine}: p50 {what}")
            axis.grid(True, which="both", alpha=0.3)
        axes[row][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1))
    figure.tight_layout()
    figure.savefig(target, dpi=110)


def write_report(folder: Path, name: str) -> None:
    runs = gather(folder)
    out = folder / name
    out.with_suffix(".json").write_text(
        json.dumps({e: {str(p): r for p, r in v.items()} for e, v in runs.items()}, indent=2)
        + "\n",
        encoding="utf-8",
    )
    analysis = folder / "analysis.md"
    text = analysis.read_text(encoding="utf-8").rstrip() + "\n\n" if analysis.exists() else ""
    out.with_suffix(".md").write_text(text + "\n".join(tables(runs)) + "\n", encoding="utf-8")
    plot(runs, out.with_suffix(".png"))
