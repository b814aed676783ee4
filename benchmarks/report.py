"""Write a run's results: JSON (every figure), Markdown (the tables), PNG (a chart)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.measure import QUERY_KINDS

KIND_LABELS = {
    "common_word": "common word",
    "rare_word": "rare word",
    "phrase_2": "2-word phrase",
    "phrase_4": "4-word phrase",
    "fuzzy_1": "fuzzy, 1 typo",
    "fuzzy_2": "fuzzy, 2 typos",
    "prefix": "prefix",
    "boolean": "boolean",
    "exact_one_doc": "exact, one document (search_pdf)",
    "exact_all_docs": "exact, all documents",
    "regex_one_doc": "regex, one document",
}


def write_all(results: dict[str, Any], folder: Path, stem: str) -> dict[str, Path]:
    """`<stem>.json`, `<stem>.md` and `<stem>.png` in `folder`; returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {ext: folder / f"{stem}.{ext}" for ext in ("json", "md", "png")}
    results.setdefault("files", {})
    results["files"] = {ext: path.name for ext, path in paths.items()}
    chart(results, paths["png"])
    paths["json"].write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    paths["md"].write_text(markdown(results))
    return paths


# -- Markdown -------------------------------------------------------------------------------


def _n(value: Any, digits: int = 1) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _mmm(stats: dict[str, Any] | None, digits: int = 2) -> str:
    """min / median / max (or one value for one run)."""
    if not stats:
        return "n/a"
    if stats["runs"] == 1:
        return _n(stats["median"], digits)
    return " / ".join(_n(stats[k], digits) for k in ("min", "median", "max"))


def _lat(stats: dict[str, Any] | None) -> str:
    if not stats:
        return "n/a"
    return " / ".join(_n(stats[k], 1) for k in ("p50_ms", "p95_ms", "p99_ms"))


def _ratio(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.0f}×" if value >= 10 else f"{value:.2g}×"


def markdown(r: dict[str, Any]) -> str:
    m, c, b, lim, rs = r["machine"], r["corpus"], r["build"], r["limits"], r["rescan"]
    v = m["versions"]
    src = m["pdfindex_source"]
    one_core = b["pages"] / lim["pdfium_pages_per_s"]
    commit = (src.get("commit") or "?")[:10] + (" + local changes" if src.get("dirty") else "")
    lines = [
        f"# pdfindex benchmark: {c['name']} ({r['date']})",
        "",
        f"Machine: {m['cores']} cores ({m['cpu_model']}), {m['memory_gb']} GB, Python "
        f"{m['python']}; pdfindex {v['pdfindex']} ({commit}), whoosh {v['whoosh']}, "
        f"pypdfium2 {v['pypdfium2']}, pdfminer.six {v['pdfminer.six']}, mcp {v['mcp']}, "
        f"pdfgrep {v['pdfgrep'] or 'not installed'}. Load average at start "
        f"{m['load_average_at_start'][0]:.2f}, at end {r['load_average_at_end'][0]:.2f}."
        + (f" {m['note']}" if m.get("note") else ""),
        "",
        f"Corpus: {c['files']:,} files, {c['pages']:,} pages, {c['mb']:,.1f} MB"
        + (
            f" (generated in {c['generated']['seconds']:.0f} s on {c['generated']['workers']}"
            " processes" + (", reused from an earlier run)" if c["generated"]["reused"] else ")")
            if c.get("generated")
            else ""
        )
        + f". Mode: {'quick' if r['quick'] else 'full'}; whole run {r['timing']['total_s']:.0f} s."
        " Timings are min / median / max over runs (one number: one run); latencies"
        " p50 / p95 / p99 in ms.",
        "",
        "## Build and limits",
        "",
        "| figure | value |",
        "|---|---:|",
        f"| full build (`pdfindex reindex`, empty index), wall s | {_mmm(b['wall_s'])} |",
        f"| full build, pages/s | {_mmm(b['pages_per_s'], 0)} |",
        f"| full build, MB/s | {_mmm(b['mb_per_s'], 2)} |",
        f"| of which: text committed (searchable), s | {_mmm(b['text_searchable_s'])} "
        f"({_mmm(b['text_pages_per_s'], 0)} pages/s) |",
        f"| of which: elements pass after it, s | {_mmm(b['elements_pass_s'])} "
        f"({b['elements_found']:,} figures, tables, equations) |",
        f"| full build, CPU s (children included) | {_mmm(b['cpu_s'], 1)} |",
        f"| CPU utilisation of {lim['cores']} cores | {b['cpu_utilisation']:.0%} |",
        f"| peak RSS of the process tree, MB | {_mmm(b['peak_rss_mb'], 0)} |",
        f"| indexing ≈ warm rebuild (`reindex --full`, text from cache), s | "
        f"{_mmm(b['warm_rebuild_s'])} ({_n(b['warm_rebuild_pages_per_s'], 0)} pages/s) |",
        f"| extraction ≈ text pass − warm text pass, s | {_n(b['extraction_s'], 1)} (the part not"
        f" hidden behind the writer; pdfium alone needs {one_core:.0f} s of one core) |",
        f"| index on disk / corpus | {_n(b['index_mb'])} MB / {_n(b['corpus_mb'])} MB = "
        f"{b['index_to_corpus']:.2f}× (+ cache {_n(b['cache_mb'])} MB) |",
        f"| segments after build / after warm rebuild | {b['segments_after_cold_build']} / "
        f"{b['segments']} |",
        f"| pypdfium2 alone, 1 process, pages/s ({lim['pdfium_sample']['pages']} pages) | "
        f"{_n(lim['pdfium_pages_per_s'], 0)} ({_n(lim['pdfium_mb_per_s'], 2)} MB/s) |",
        f"| pdfminer.six alone, 1 process, pages/s ({lim['pdfminer_sample']['pages']} pages) | "
        f"{_n(lim['pdfminer_pages_per_s'], 1)} (pdfium {_n(lim['pdfium_vs_pdfminer_speed'], 0)}× "
        "faster on the same files) |",
        f"| Whoosh writer alone, pages/s ({lim['writer_sample_pages']} pages) | "
        f"{_n(lim['writer_pages_per_s'], 0)} |",
        f"| limit min({lim['extraction_workers']} × pdfium, writer), pages/s | "
        f"{_n(lim['build_limit_pages_per_s'], 0)} (bound by {lim['bound_by']}); build reaches "
        f"{lim['build_share_of_limit']:.0%} |",
        f"| limit with extraction and writer sharing the cores, pages/s | "
        f"{_n(lim['shared_cpu_limit_pages_per_s'], 0)}; build reaches "
        f"{lim['build_share_of_shared_cpu_limit']:.0%} |",
        f"| word agreement: pdfminer's words in pdfium's text / pdfium's in pdfminer's | "
        f"{lim['word_agreement']['pdfminer_words_in_pdfium']:.1%} / "
        f"{lim['word_agreement']['pdfium_words_in_pdfminer']:.1%} |",
        "",
        "## Rescans and live updates",
        "",
        "| case | seconds | parsed | note |",
        "|---|---:|---:|---|",
        f"| no change, `PdfIndex.reindex()` | {_mmm(rs['no_change_api_s'], 3)} | 0 | |",
        f"| no change, whole `pdfindex reindex` process | {_mmm(rs['no_change_cli_s'], 3)} | 0 |"
        " Python start-up and imports included |",
        f"| {rs['touch_1pct']['files']} of {c['files']} files (1%) touched | "
        f"{_mmm(rs['touch_1pct']['seconds'], 3)} | {rs['touch_1pct']['parsed']} | "
        f"{rs['touch_1pct']['touched']} recognised as touched |",
        f"| 1 file rewritten ({rs['modify_1']['pages']} pages) | "
        f"{_mmm(rs['modify_1']['seconds'], 3)} | {rs['modify_1']['parsed']} | |",
        f"| {rs['rename_10']['files']} files renamed | {_mmm(rs['rename_10']['seconds'], 3)} | "
        f"{rs['rename_10']['parsed']} | {rs['rename_10']['moved']} recognised as moved |",
        _live_row(r["live_update"]),
        "",
        "## Queries",
        "",
        "Library = `PdfIndex.search` / `search_pdf` / `exact` (and `search_in_file` for regex)"
        " in-process; MCP = the tool listed below the table, called through the SDK's stdio"
        " client against `pdfindex serve`; naive = seed 000's way"
        " (pdfminer.six `extract_text` of the whole PDF per query, then a case-insensitive find"
        " or `re.search`); pdfgrep = `pdfgrep -i -F` (`-P` for the regex; `-r` over the corpus"
        " for all documents). Speed-ups compare medians with the library p50.",
        "",
        "| kind | query | hits | library ms | MCP ms | naive s | pdfgrep s | vs naive |"
        " vs pdfgrep |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for kind in QUERY_KINDS:
        q = r["queries"][kind]
        query = "`" + q["query"].replace("|", "\\|") + "`"
        if q.get("document"):
            query += f" in `{q['document']}`"
        lines.append(
            f"| {KIND_LABELS[kind]} | {query} | {_n(q['hits'])} | {_lat(q['api'])} | "
            f"{_lat(q['mcp'])} | {_mmm(q['naive_s'])} | {_mmm(q['pdfgrep_s'])} | "
            f"{_ratio(q['speedup_vs_naive'])} | {_ratio(q['speedup_vs_pdfgrep'])} |"
        )
    lines += ["", f"MCP tools: {_mcp_tools(r)}."]
    cc = r["concurrency"]
    lines += [
        "",
        f"## Load: {cc['clients']} clients issuing mixed `search_pdf` calls at once",
        "",
        "| front | calls | queries/s, 8 at once | p50 / p95 / p99 ms | queries/s, one at a time |"
        " p50 / p95 / p99 ms |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for label, key in (("library, 8 threads", "api"), ("MCP, 8 tasks on one session", "mcp")):
        f = cc[key]
        lines.append(
            f"| {label} | {f['calls']} | {_n(f['throughput_qps'])} | {_lat(f['latency'])} | "
            f"{_n(f['sequential_throughput_qps'])} | {_lat(f['sequential_latency'])} |"
        )
    lines += ["", "## Not available", ""]
    lines += [f"- {keys}: {note}" for keys, note in not_available_notes(r).items()]
    if r.get("notes"):
        lines += ["", "## Notes", ""] + [f"- {note}" for note in r["notes"]]
    lines += [
        "",
        f"Phases (s): {', '.join(f'{k} {v:.0f}' for k, v in r['timing']['phases'].items())}.",
        "",
    ]
    return "\n".join(lines)


def _mcp_tools(r: dict[str, Any]) -> str:
    used: dict[str, list[str]] = {}
    for kind in QUERY_KINDS:
        tool = r["queries"][kind].get("mcp_tool")
        if tool:
            used.setdefault(tool, []).append(KIND_LABELS[kind])
    text = "; ".join(f"`{tool}` for {', '.join(kinds)}" for tool, kinds in used.items())
    if "search_documents" in used:
        text += " (`search_documents` OR-s plain words, so it may find more than the library)"
    return text


def _live_row(live: dict[str, Any]) -> str:
    label = "| file landed → searchable by `search_pdf` (`pdfindex serve` watching) |"
    if live["latency_s"] is None:
        return f"{label} n/a | | {live['latency_s_note']} |"
    return f"{label} {_mmm(live['latency_s'], 2)} | 1 | {live['method']} |"


def not_available_notes(r: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """Every null figure's dotted key and its note, grouped by distinct note."""
    found: dict[str, str] = {}
    if isinstance(r, dict):
        for key, value in r.items():
            if value is None and isinstance(r.get(f"{key}_note"), str):
                found[prefix + key] = r[f"{key}_note"]
            elif isinstance(value, dict):
                found.update(not_available_notes(value, f"{prefix}{key}."))
    if prefix:
        return found
    # note -> figure names -> parents, so the list reads "queries.a, queries.b: x, y".
    by_note: dict[str, dict[str, list[str]]] = {}
    for key, note in found.items():
        parent, _, name = key.rpartition(".")
        by_note.setdefault(note, {}).setdefault(parent, []).append(name)
    out: dict[str, str] = {}
    for note, parents in by_note.items():
        groups: dict[tuple[str, ...], list[str]] = {}
        for parent, names in parents.items():
            groups.setdefault(tuple(names), []).append(parent)
        text = "; ".join(
            f"{', '.join(f'`{p}`' for p in ps)}: {', '.join(names)}" for names, ps in groups.items()
        )
        out[text] = note
    return out


# -- PNG -----------------------------------------------------------------------------------


def chart(r: dict[str, Any], path: Path) -> None:
    """Latency per query kind (log ms), build throughput against its limits, query load."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2, ax3) = plt.subplots(
        1, 3, figsize=(17, 6.5), gridspec_kw={"width_ratios": [2.0, 1.5, 1]}
    )
    kinds = [k for k in QUERY_KINDS if r["queries"][k]["api"]]
    series = [
        ("library p50", lambda q: q["api"]["p50_ms"] if q["api"] else None, "#1f77b4"),
        ("MCP p50", lambda q: q["mcp"]["p50_ms"] if q["mcp"] else None, "#ff7f0e"),
        (
            "naive re-parse",
            lambda q: q["naive_s"]["median"] * 1000 if q["naive_s"] else None,
            "#d62728",
        ),
        (
            "pdfgrep",
            lambda q: q["pdfgrep_s"]["median"] * 1000 if q["pdfgrep_s"] else None,
            "#7f7f7f",
        ),
    ]
    height = 0.2
    for i, (label, get, color) in enumerate(series):
        ys, xs, errs = [], [], []
        for row, kind in enumerate(kinds):
            value = get(r["queries"][kind])
            if value is not None:
                ys.append(row + (i - 1.5) * height)
                xs.append(value)
                q = r["queries"][kind]
                p95 = q["api"]["p95_ms"] if i == 0 else q["mcp"]["p95_ms"] if i == 1 else value
                errs.append(max(0.0, p95 - value))
        if xs:
            ax1.barh(ys, xs, height=height, color=color, label=label, xerr=[[0] * len(errs), errs])
    ax1.set_yticks(range(len(kinds)), [KIND_LABELS[k] for k in kinds])
    ax1.invert_yaxis()
    ax1.set_xscale("log")
    ax1.set_xlabel("ms (log scale; whiskers to p95)")
    ax1.set_title("Query latency")
    ax1.legend(loc="upper right", fontsize=8)

    b, lim = r["build"], r["limits"]
    w = lim["extraction_workers"]
    bars = [
        ("full build", b["pages_per_s"]["median"], "#1f77b4"),
        ("warm rebuild\n(indexing)", b["warm_rebuild_pages_per_s"], "#aec7e8"),
        (f"pdfium\n× {w} processes", lim["extraction_limit_pages_per_s"], "#2ca02c"),
        ("Whoosh\nwriter alone", lim["writer_pages_per_s"], "#9467bd"),
        (f"pdfminer\n× {w} processes", lim["pdfminer_pages_per_s"] * w, "#d62728"),
    ]
    ax2.bar([x[0] for x in bars], [x[1] for x in bars], color=[x[2] for x in bars])
    ax2.axhline(lim["build_limit_pages_per_s"], color="black", linestyle="--", linewidth=1)
    ax2.text(
        -0.4, lim["build_limit_pages_per_s"], " limit (min of the two)", va="bottom", fontsize=8
    )
    ax2.set_ylabel("pages/s")
    ax2.set_title("Build throughput")
    ax2.tick_params(axis="x", labelsize=7)

    cc = r["concurrency"]
    labels = ["library\n1 thread", "library\n8 threads", "MCP\n1 client", "MCP\n8 clients"]
    values = [
        cc["api"]["sequential_throughput_qps"],
        cc["api"]["throughput_qps"],
        cc["mcp"]["sequential_throughput_qps"],
        cc["mcp"]["throughput_qps"],
    ]
    ax3.bar(labels, values, color=["#aec7e8", "#1f77b4", "#ffbb78", "#ff7f0e"])
    ax3.set_ylabel("search_pdf queries/s")
    ax3.set_title("Query throughput")
    ax3.tick_params(axis="x", labelsize=8)

    c = r["corpus"]
    fig.suptitle(
        f"pdfindex — {c['name']}: {c['files']:,} files, {c['pages']:,} pages, {c['mb']:.0f} MB; "
        f"{r['machine']['cores']} cores; {r['date']}"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
