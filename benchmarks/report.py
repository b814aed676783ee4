"""Write a run's results: JSON (every figure), Markdown (the tables), PNG (a chart)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.measure import EXACT_ONLY, QUERY_KINDS, RECOLL_MISSING

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


Row = tuple[str, Callable[[dict[str, Any]], str], Callable[[dict[str, Any]], str] | None]
ENGINE_KEYS = ("build", "limits", "rescan", "live_update", "queries", "mcp_server", "concurrency")


def engines_of(r: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each measured engine's figures by name, in the order measured; a report from
    before `--engines` (schema 1) reads as one engine."""
    if "by_engine" in r:
        return r["by_engine"]
    return {r.get("engine", "pdfindex"): {k: r[k] for k in ENGINE_KEYS if k in r}}


def _same(values: list[str]) -> str:
    """One value if the engines agree, else each engine's, in order."""
    return values[0] if len(set(values)) == 1 else " / ".join(values)


def _row(label: str, cells: list[str]) -> str:
    return f"| {label} | " + " | ".join(cells) + " |"


def _build_rows(r: dict[str, Any]) -> list[Row]:
    """The build table: (label, engine cell, recoll cell or None for "—")."""
    cores = r["limits"]["cores"]
    lim = r["limits"]

    def b(key: str, digits: int = 2) -> Callable[[dict[str, Any]], str]:
        return lambda e: _mmm(e["build"][key], digits)

    def rb(key: str, digits: int = 2) -> Callable[[dict[str, Any]], str]:
        return lambda rc: _mmm(rc[key], digits)

    def utilisation(stats: dict[str, Any]) -> str:
        return f"{stats['cpu_s']['median'] / stats['wall_s']['median'] / cores:.0%}"

    def limit(e: dict[str, Any]) -> str:
        w = e["limits"]
        return (
            f"{_n(w['build_limit_pages_per_s'], 0)}, bound by {w['bound_by']}; build reaches "
            f"{w['build_share_of_limit']:.0%}"
        )

    def shared_limit(e: dict[str, Any]) -> str:
        w = e["limits"]
        return (
            f"{_n(w['shared_cpu_limit_pages_per_s'], 0)}; build reaches "
            f"{w['build_share_of_shared_cpu_limit']:.0%}"
        )

    return [
        ("full build, wall s", b("wall_s"), rb("wall_s")),
        ("full build, pages/s", b("pages_per_s", 0), rb("pages_per_s", 0)),
        ("full build, MB/s", b("mb_per_s"), rb("mb_per_s")),
        (
            "of which: text committed (searchable), s",
            lambda e: (
                f"{_mmm(e['build']['text_searchable_s'])} "
                f"({_mmm(e['build']['text_pages_per_s'], 0)} pages/s)"
            ),
            None,
        ),
        (
            "of which: elements pass after it, s",
            lambda e: (
                f"{_mmm(e['build']['elements_pass_s'])} "
                f"({e['build']['elements_found']:,} figures, tables, equations)"
            ),
            None,
        ),
        ("full build, CPU s (children included)", b("cpu_s", 1), rb("cpu_s", 1)),
        (
            f"CPU utilisation of {cores} cores",
            lambda e: f"{e['build']['cpu_utilisation']:.0%}",
            utilisation,
        ),
        ("peak RSS of the process tree, MB", b("peak_rss_mb", 0), rb("peak_rss_mb", 0)),
        (
            "indexing ≈ warm rebuild (`reindex --full`, text from cache), s",
            lambda e: (
                f"{_mmm(e['build']['warm_rebuild_s'])} "
                f"({_n(e['build']['warm_rebuild_pages_per_s'], 0)} pages/s)"
            ),
            None,
        ),
        (
            "extraction ≈ text pass − warm text pass, s (the part not hidden behind the writer)",
            lambda e: _n(e["build"]["extraction_s"], 1),
            None,
        ),
        (
            "index on disk, MB (× corpus)",
            lambda e: f"{_n(e['build']['index_mb'])} ({e['build']['index_to_corpus']:.2f}×)",
            lambda rc: f"{_n(rc['index_mb'])} ({rc['index_to_corpus']:.2f}×)",
        ),
        (
            "extraction cache, MB",
            lambda e: _n(e["build"]["cache_mb"], 2),
            None,
        ),
        (
            "segments after build / after warm rebuild",
            lambda e: f"{e['build']['segments_after_cold_build']} / {e['build']['segments']}",
            None,
        ),
        (
            f"writer alone, pages/s ({lim['writer_sample_pages']} pages, fresh index)",
            lambda e: _n(e["limits"]["writer_pages_per_s"], 0),
            None,
        ),
        (f"limit min({lim['extraction_workers']} × pdfium, writer), pages/s", limit, None),
        ("limit with extraction and writer sharing the cores, pages/s", shared_limit, None),
    ]


def markdown(r: dict[str, Any]) -> str:
    m, c, lim = r["machine"], r["corpus"], r["limits"]
    per = engines_of(r)
    names = list(per)
    first = per[names[0]]
    v = m["versions"]
    src = m["pdfindex_source"]
    recoll = r.get("recoll") or {}
    recoll_build = recoll.get("build")
    one_core = c["pages"] / lim["pdfium_pages_per_s"]
    commit = (src.get("commit") or "?")[:10] + (" + local changes" if src.get("dirty") else "")
    lines = [
        f"# pdfindex benchmark: {c['name']} ({r['date']})",
        "",
        f"Machine: {m['cores']} cores ({m['cpu_model']}), {m['memory_gb']} GB, Python "
        f"{m['python']}; pdfindex {v['pdfindex']} ({commit}), tantivy {v.get('tantivy')}, "
        f"whoosh {v['whoosh']}, pypdfium2 {v['pypdfium2']}, pdfminer.six {v['pdfminer.six']}, "
        f"mcp {v['mcp']}, pdfgrep {v['pdfgrep'] or 'not installed'}, recoll "
        f"{v.get('recoll') or 'not installed'}. Load average at start "
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
        + f". Index engines: {', '.join(names)}, side by side on the same corpus and queries."
        f" Mode: {'quick' if r['quick'] else 'full'}; whole run {r['timing']['total_s']:.0f} s."
        " Timings are min / median / max over runs (one number: one run); latencies"
        " p50 / p95 / p99 in ms.",
        "",
        "## Build",
        "",
        "Each engine: `pdfindex reindex --engine E` as a process on an empty index and cache"
        + (
            "; recoll: `recollindex -c DIR` on an empty index (its text through pdftotext)."
            if recoll_build
            else f". No peer: {recoll.get('build_note') or RECOLL_MISSING}."
        ),
        "",
        _row("figure", [*names, *(["recoll"] if recoll_build else [])]),
        "|---|" + "---:|" * (len(names) + bool(recoll_build)),
    ]
    for label, cell, peer in _build_rows(r):
        cells = [cell(per[name]) for name in names]
        if recoll_build:
            cells.append(peer(recoll_build) if peer else "—")
        lines.append(_row(label, cells))
    lines += [
        "",
        "## Extraction limits (shared by the engines)",
        "",
        "| figure | value |",
        "|---|---:|",
        f"| pypdfium2 alone, 1 process, pages/s ({lim['pdfium_sample']['pages']} pages) | "
        f"{_n(lim['pdfium_pages_per_s'], 0)} ({_n(lim['pdfium_mb_per_s'], 2)} MB/s; the corpus"
        f" needs {_n(one_core, 1)} s of one core) |",
        f"| pdfminer.six alone, 1 process, pages/s ({lim['pdfminer_sample']['pages']} pages) | "
        f"{_n(lim['pdfminer_pages_per_s'], 1)} (pdfium {_n(lim['pdfium_vs_pdfminer_speed'], 0)}× "
        "faster on the same files) |",
        f"| {lim['extraction_workers']} × pdfium, pages/s | "
        f"{_n(lim['extraction_limit_pages_per_s'], 0)} |",
        f"| word agreement: pdfminer's words in pdfium's text / pdfium's in pdfminer's | "
        f"{lim['word_agreement']['pdfminer_words_in_pdfium']:.1%} / "
        f"{lim['word_agreement']['pdfium_words_in_pdfminer']:.1%} |",
        "",
        "## Rescans and live updates",
        "",
        _row("case", [f"{name}, s" for name in names] + ["parsed", "note"]),
        "|---|" + "---:|" * (len(names) + 1) + "---|",
        *_rescan_rows(c, per),
        "",
        "## Queries",
        "",
        "Library = `PdfIndex.search` / `search_pdf` / `exact` (and `search_in_file` for regex)"
        " in-process; MCP = the tool listed below the table, called through the SDK's stdio"
        " client against `pdfindex serve`. Hits: pages (exact: matches), one value when the"
        " engines agree.",
        "",
        _row(
            "kind",
            ["query", "hits"]
            + [f"library ms, {name}" for name in names]
            + [f"MCP ms, {name}" for name in names],
        ),
        "|---|---|---:|" + "---:|" * (2 * len(names)),
    ]
    for kind in QUERY_KINDS:
        q = first["queries"][kind]
        query = "`" + q["query"].replace("|", "\\|") + "`"
        if q.get("document"):
            query += f" in `{q['document']}`"
        qs = [per[name]["queries"][kind] for name in names]
        lines.append(
            _row(
                KIND_LABELS[kind],
                [query, _same([_n(x["hits"]) for x in qs])]
                + [_lat(x["api"]) for x in qs]
                + [_lat(x["mcp"]) for x in qs],
            )
        )
    lines += ["", f"MCP tools: {_mcp_tools(first)}."]
    lines += _baseline_section(per)
    lines += _process_section(r, per)
    lines += _load_section(per)
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


def _rescan_rows(c: dict[str, Any], per: dict[str, dict[str, Any]]) -> list[str]:
    """One row per rescan case and the live update; a column of seconds per engine."""
    rows = []
    rescans = [e["rescan"] for e in per.values()]
    first = rescans[0]

    def row(label: str, key: str, parsed: str, note: str, digits: int = 3) -> str:
        cells = [
            _mmm(rs[key]["seconds"] if "seconds" in rs[key] else rs[key], digits) for rs in rescans
        ]
        return _row(label, [*cells, parsed, note])

    def parsed(key: str) -> str:
        return _same([str(rs[key]["parsed"]) for rs in rescans])

    def counted(key: str, field: str, what: str) -> str:
        return f"{_same([str(rs[key][field]) for rs in rescans])} recognised as {what}"

    rows.append(row("no change, `PdfIndex.reindex()`", "no_change_api_s", "0", ""))
    rows.append(
        row(
            "no change, whole `pdfindex reindex` process",
            "no_change_cli_s",
            "0",
            "Python start-up and imports included",
        )
    )
    rows.append(
        row(
            f"{first['touch_1pct']['files']} of {c['files']} files (1%) touched",
            "touch_1pct",
            parsed("touch_1pct"),
            counted("touch_1pct", "touched", "touched"),
        )
    )
    rows.append(
        row(
            f"1 file rewritten ({first['modify_1']['pages']} pages)",
            "modify_1",
            parsed("modify_1"),
            "",
        )
    )
    rows.append(
        row(
            f"{first['rename_10']['files']} files renamed",
            "rename_10",
            parsed("rename_10"),
            counted("rename_10", "moved", "moved"),
        )
    )
    lives = [e["live_update"] for e in per.values()]
    cells = [_mmm(live["latency_s"], 2) if live["latency_s"] else "n/a" for live in lives]
    note = next((live["method"] for live in lives if live.get("method")), "")
    notes = [live["latency_s_note"] for live in lives if live["latency_s"] is None]
    rows.append(
        _row(
            "file landed → searchable by `search_pdf` (`pdfindex serve` watching)",
            [*cells, "1", "; ".join([note, *notes]).strip("; ")],
        )
    )
    return rows


def _baseline_section(per: dict[str, dict[str, Any]]) -> list[str]:
    """Naive re-parse and pdfgrep on the kinds they answer, with each engine's speed-up."""
    names = list(per)
    first = per[names[0]]["queries"]
    kinds = [k for k in QUERY_KINDS if first[k].get("naive_s_note") != EXACT_ONLY]
    lines = [
        "",
        "### Without an index: naive re-parse and pdfgrep",
        "",
        "Naive = seed 000's way (pdfminer.six `extract_text` of the whole PDF per query, then"
        " a case-insensitive find or `re.search`); pdfgrep = `pdfgrep -i -F` (`-P` for the"
        " regex; `-r` over the corpus for all documents). Speed-up = baseline median / the"
        " engine's library p50.",
        "",
        _row(
            "kind",
            ["naive s", "pdfgrep s"]
            + [f"vs naive, {name}" for name in names]
            + [f"vs pdfgrep, {name}" for name in names],
        ),
        "|---|" + "---:|" * (2 + 2 * len(names)),
    ]
    for kind in kinds:
        qs = [per[name]["queries"][kind] for name in names]
        lines.append(
            _row(
                KIND_LABELS[kind],
                [_mmm(first[kind]["naive_s"]), _mmm(first[kind]["pdfgrep_s"])]
                + [_ratio(q["speedup_vs_naive"]) for q in qs]
                + [_ratio(q["speedup_vs_pdfgrep"]) for q in qs],
            )
        )
    return lines


def _proc(stats: dict[str, Any] | None) -> str:
    """A whole process's median seconds and median peak RSS."""
    if not stats:
        return "n/a"
    return f"{stats['wall_s']['median']:.3f} ({stats['peak_rss_mb']['median']:.0f} MB)"


def _process_section(r: dict[str, Any], per: dict[str, dict[str, Any]]) -> list[str]:
    """`pdfindex search` as a whole process per engine, next to recollq."""
    names = list(per)
    first = per[names[0]]["queries"]
    if "process" not in first[QUERY_KINDS[0]] and "process_note" not in first[QUERY_KINDS[0]]:
        return []  # a report from before whole-process figures
    recoll = r.get("recoll") or {}
    rq = recoll.get("queries")
    runs = r["plan"].get("process_runs", "?")
    floor = (r.get("whole_process") or {}).get("rss_floor_mb")
    lines = [
        "",
        "### Whole process: `pdfindex search` and recollq",
        "",
        f"Median seconds (and peak RSS) over {runs} runs of one query as a whole process:"
        " `pdfindex search QUERY --engine E --root R --limit 10` (`--exact`, and `--doc` for"
        " one document)"
        + (
            ", and `recollq -c DIR -n 10 -q QUERY`; recoll's documents found, pdfindex's hits"
            " are pages."
            if rq
            else f". No recollq: {recoll.get('queries_note') or RECOLL_MISSING}."
        )
        + (
            f" Peak RSS is the process's own (`wait4`), spawned from a launcher of {floor} MB:"
            " no figure is below that."
            if floor
            else ""
        ),
        "",
        _row(
            "kind",
            [f"`pdfindex search`, {name}" for name in names]
            + (["recoll query", "recollq", "recoll documents"] if rq else []),
        ),
        "|---|" + "---:|" * len(names) + ("---|---:|---:|" if rq else ""),
    ]
    for kind in QUERY_KINDS:
        cells = [_proc(per[name]["queries"][kind].get("process")) for name in names]
        if rq:
            peer = rq.get(kind)
            if peer:
                query = "`" + peer["query"].replace("|", "\\|") + "`"
                cells += [query, _proc(peer), _n(peer["documents"])]
            else:
                cells += [rq.get(f"{kind}_note", "n/a"), "n/a", "n/a"]
        lines.append(_row(KIND_LABELS[kind], cells))
    return lines


def _load_section(per: dict[str, dict[str, Any]]) -> list[str]:
    clients = next(iter(per.values()))["concurrency"]["clients"]
    lines = [
        "",
        f"## Load: {clients} clients issuing mixed `search_pdf` calls at once",
        "",
        f"| front | engine | calls | queries/s, {clients} at once | p50 / p95 / p99 ms |"
        " queries/s, one at a time | p50 / p95 / p99 ms |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for label, key in (
        (f"library, {clients} threads", "api"),
        (f"MCP, {clients} tasks on one session", "mcp"),
    ):
        for name, e in per.items():
            f = e["concurrency"][key]
            lines.append(
                f"| {label} | {name} | {f['calls']} | {_n(f['throughput_qps'])} | "
                f"{_lat(f['latency'])} | {_n(f['sequential_throughput_qps'])} | "
                f"{_lat(f['sequential_latency'])} |"
            )
    return lines


def _mcp_tools(e: dict[str, Any]) -> str:
    used: dict[str, list[str]] = {}
    for kind in QUERY_KINDS:
        tool = e["queries"][kind].get("mcp_tool")
        if tool:
            used.setdefault(tool, []).append(KIND_LABELS[kind])
    text = "; ".join(f"`{tool}` for {', '.join(kinds)}" for tool, kinds in used.items())
    if "search_documents" in used:
        text += " (`search_documents` OR-s plain words, so it may find more than the library)"
    return text


def _nulls(r: Any, prefix: str = "") -> dict[str, str]:
    """Every null figure's dotted key and its note."""
    found: dict[str, str] = {}
    if isinstance(r, dict):
        for key, value in r.items():
            if value is None and isinstance(r.get(f"{key}_note"), str):
                found[prefix + key] = r[f"{key}_note"]
            elif isinstance(value, dict):
                found.update(_nulls(value, f"{prefix}{key}."))
    return found


def not_available_notes(r: dict[str, Any]) -> dict[str, str]:
    """Every null figure's dotted key and its note, grouped by distinct note. An engine's
    figures under `by_engine` are listed only where they differ from the top level's (the
    first engine's), so each engine's "no MCP tool yet" is said once."""
    found = _nulls({k: v for k, v in r.items() if k != "by_engine"})
    for name, figures in (r.get("by_engine") or {}).items():
        for key, note in _nulls(figures).items():
            if found.get(key) != note:
                found[f"by_engine.{name}.{key}"] = note
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


Getter = Callable[[str], tuple[float, float] | None]  # query kind -> (ms, p95 ms) or None
ENGINE_COLOURS = ("#1f77b4", "#2ca02c", "#9467bd", "#8c564b")
ENGINE_DARK = ("#0b3c5d", "#145a14", "#4b2a6b", "#4a2c24")
ENGINE_LIGHT = ("#aec7e8", "#98df8a", "#c5b0d5", "#c49c94")


def chart(r: dict[str, Any], path: Path) -> None:
    """Latency per query kind (log ms) per engine against the baselines and recoll, build
    throughput per engine against its limits, query throughput per engine."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    per = engines_of(r)
    names = list(per)
    fig, (ax1, ax2, ax3) = plt.subplots(
        1, 3, figsize=(19, 7), gridspec_kw={"width_ratios": [2.0, 1.6, 1.2]}
    )
    first = per[names[0]]["queries"]
    kinds = [k for k in QUERY_KINDS if first[k]["api"]]

    def lat(name: str, front: str) -> Getter:
        def get(kind: str) -> tuple[float, float] | None:
            stats = per[name]["queries"][kind].get(front)
            return (stats["p50_ms"], stats["p95_ms"]) if stats else None

        return get

    def median_ms(key: str) -> Getter:
        def get(kind: str) -> tuple[float, float] | None:
            stats = first[kind].get(key)
            return (stats["median"] * 1000, stats["median"] * 1000) if stats else None

        return get

    def process(name: str) -> Getter:
        def get(kind: str) -> tuple[float, float] | None:
            stats = per[name]["queries"][kind].get("process")
            ms = stats["wall_s"]["median"] * 1000 if stats else 0.0
            return (ms, ms) if stats else None

        return get

    def recollq(kind: str) -> tuple[float, float] | None:
        peer = ((r.get("recoll") or {}).get("queries") or {}).get(kind)
        return (peer["wall_s"]["median"] * 1000, peer["wall_s"]["median"] * 1000) if peer else None

    series: list[tuple[str, Getter, str]] = []
    for i, name in enumerate(names):
        series.append((f"library p50, {name}", lat(name, "api"), ENGINE_COLOURS[i % 4]))
    for i, name in enumerate(names):
        series.append((f"MCP p50, {name}", lat(name, "mcp"), ENGINE_LIGHT[i % 4]))
    for i, name in enumerate(names):
        series.append((f"pdfindex search process, {name}", process(name), ENGINE_DARK[i % 4]))
    series += [
        ("naive re-parse", median_ms("naive_s"), "#d62728"),
        ("pdfgrep", median_ms("pdfgrep_s"), "#7f7f7f"),
        ("recollq (whole process)", recollq, "#ff7f0e"),
    ]
    series = [s for s in series if any(s[1](k) for k in kinds)]
    height = 0.8 / len(series)
    for i, (label, get, color) in enumerate(series):
        ys, xs, errs = [], [], []
        for row, kind in enumerate(kinds):
            found = get(kind)
            if found is not None:
                ys.append(row + (i - (len(series) - 1) / 2) * height)
                xs.append(found[0])
                errs.append(max(0.0, found[1] - found[0]))
        ax1.barh(ys, xs, height=height, color=color, label=label, xerr=[[0] * len(errs), errs])
    ax1.set_yticks(range(len(kinds)), [KIND_LABELS[k] for k in kinds])
    ax1.invert_yaxis()
    ax1.set_xscale("log")
    ax1.set_xlabel("ms (log scale; whiskers to p95)")
    ax1.set_title("Query latency")
    ax1.legend(loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=3, fontsize=7)

    lim = r["limits"]
    w = lim["extraction_workers"]
    bars: list[tuple[str, float, str]] = []
    for i, name in enumerate(names):
        b = per[name]["build"]
        bars.append((f"{name}\nbuild", b["pages_per_s"]["median"], ENGINE_COLOURS[i % 4]))
        bars.append((f"{name}\nwarm rebuild", b["warm_rebuild_pages_per_s"], ENGINE_LIGHT[i % 4]))
        bars.append((f"{name}\nwriter alone", per[name]["limits"]["writer_pages_per_s"], "#9467bd"))
    recoll_build = (r.get("recoll") or {}).get("build")
    if recoll_build:
        bars.append(("recoll\nbuild", recoll_build["pages_per_s"]["median"], "#ff7f0e"))
    bars += [
        (f"pdfium\n× {w}", lim["extraction_limit_pages_per_s"], "#2ca02c"),
        (f"pdfminer\n× {w}", lim["pdfminer_pages_per_s"] * w, "#d62728"),
    ]
    ax2.bar([x[0] for x in bars], [x[1] for x in bars], color=[x[2] for x in bars])
    ax2.set_yscale("log")
    ax2.set_ylabel("pages/s (log scale)")
    ax2.set_title("Build throughput")
    ax2.tick_params(axis="x", labelsize=6, rotation=90)

    labels, values, colours = [], [], []
    for i, name in enumerate(names):
        cc = per[name]["concurrency"]
        for label, key, field in (
            ("library 1", "api", "sequential_throughput_qps"),
            (f"library {cc['clients']}", "api", "throughput_qps"),
            ("MCP 1", "mcp", "sequential_throughput_qps"),
            (f"MCP {cc['clients']}", "mcp", "throughput_qps"),
        ):
            labels.append(f"{name}\n{label}")
            values.append(cc[key][field])
            colours.append(ENGINE_COLOURS[i % 4] if key == "api" else ENGINE_LIGHT[i % 4])
    ax3.bar(labels, values, color=colours)
    ax3.set_ylabel("search_pdf queries/s (1 or n clients)")
    ax3.set_title("Query throughput")
    ax3.tick_params(axis="x", labelsize=6, rotation=90)

    c = r["corpus"]
    fig.suptitle(
        f"pdfindex ({', '.join(names)}) — {c['name']}: {c['files']:,} files, {c['pages']:,}"
        f" pages, {c['mb']:.0f} MB; {r['machine']['cores']} cores; {r['date']}"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
