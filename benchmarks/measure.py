"""The figures: build, engine and writer limits, rescans, query latency, baselines, load.

Every figure is a plain JSON value. A figure that cannot be measured yet is None with a
sibling `<key>_note` saying why (see `not_available`). Timings are wall-clock seconds
(`perf_counter`) unless a key says otherwise; summaries are min/median/max over runs,
latencies p50/p95/p99 in milliseconds.
"""

from __future__ import annotations

import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pdfindex
from pdfindex.api import PdfIndex
from pdfindex.config import Settings, load_settings
from pdfindex.engine.whoosh.store import Store
from pdfindex.extract.adapters import get_adapter
from pdfindex.models import FileRecord
from pdfindex.search.textmatch import index_text
from pdfindex.tools.exact import search_pdf

WORD = re.compile(r"\w+")
LIVE_NOTE = "not yet available (live updates not implemented)"
REGEX_NOTE = "not yet available (no regex search in this pdfindex version)"
NO_MCP_NOTE = "no MCP tool yet"
PDFGREP_MISSING = "pdfgrep not installed (apt-get install pdfgrep)"
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
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def not_available(into: dict[str, Any], key: str, note: str) -> None:
    """Record a figure that cannot be measured: None plus a note saying why."""
    into[key] = None
    into[f"{key}_note"] = note


# -- statistics -------------------------------------------------------------------------


def summary(values: list[float], digits: int = 3) -> dict[str, Any]:
    """min/median/max and the number of runs."""
    return {
        "min": round(min(values), digits),
        "median": round(statistics.median(values), digits),
        "max": round(max(values), digits),
        "runs": len(values),
    }


def percentile(sorted_values: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (q in 0..1)."""
    pos = (len(sorted_values) - 1) * q
    low, high = math.floor(pos), math.ceil(pos)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (pos - low)


def latency(seconds: list[float], first: float | None = None) -> dict[str, Any]:
    """p50/p95/p99/min/max in ms over warm runs; `first_ms` is the untimed warm-up run."""
    ms = sorted(s * 1000 for s in seconds)
    out = {
        "p50_ms": round(percentile(ms, 0.50), 2),
        "p95_ms": round(percentile(ms, 0.95), 2),
        "p99_ms": round(percentile(ms, 0.99), 2),
        "min_ms": round(ms[0], 2),
        "max_ms": round(ms[-1], 2),
        "n": len(ms),
    }
    if first is not None:
        out["first_ms"] = round(first * 1000, 2)
    return out


def sample_latency(fn: Callable[[], object], plan: Plan) -> tuple[dict[str, Any], object]:
    """One warm-up call, then repeated calls within the plan's run count and time budget."""
    start = time.perf_counter()
    result = fn()
    first = time.perf_counter() - start
    times: list[float] = []
    began = time.perf_counter()
    while len(times) < plan.query_max_runs and (
        len(times) < plan.query_min_runs or time.perf_counter() - began < plan.query_budget_s
    ):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return latency(times, first), result


# -- machine ------------------------------------------------------------------------------


def machine(note: str | None) -> dict[str, Any]:
    """Cores, memory, CPU model, Python and package versions, load at the start."""
    from importlib.metadata import PackageNotFoundError, version

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
            "pypdfium2": pkg("pypdfium2"),
            "pdfminer.six": pkg("pdfminer.six"),
            "mcp": pkg("mcp"),
            "fpdf2": pkg("fpdf2"),
            "pdfgrep": pdfgrep_version(),
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
    import pdfindex

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


# -- workspace ----------------------------------------------------------------------------


@dataclass
class Workspace:
    """A project root in a temporary folder whose files/ mirrors the corpus (hard links;
    real copies for the files the rescans will touch or rewrite)."""

    corpus: Path
    root: Path
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
        env = {k: v for k, v in os.environ.items() if not k.startswith("PDFINDEX_")}
        env["PDFINDEX_LOG_DIR"] = str(self.root / "logs")
        # Subprocesses import the same pdfindex (and tests/) as this process.
        source = str(Path(pdfindex.__file__).resolve().parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [source, env.get("PYTHONPATH")]))
        if workers:
            env["PDFINDEX_WORKERS"] = str(workers)
        return env

    def settings(self, workers: int) -> Settings:
        return load_settings(
            {"workers": workers, "log_dir": str(self.root / "logs")}, root=self.root
        )

    def cli(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "pdfindex.cli", *args, "--root", str(self.root)]

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def list_pdfs(corpus: Path) -> list[str]:
    """PDFs under `corpus` as pdfindex sees them (hidden files and folders skipped)."""
    found = []
    for folder, dirs, names in os.walk(corpus):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in names:
            if not name.startswith(".") and name.lower().endswith(".pdf"):
                found.append((Path(folder) / name).relative_to(corpus).as_posix())
    return sorted(found)


def evenly(items: list[Any], count: int, offset: int = 0) -> list[Any]:
    """`count` items spread evenly over the list (deterministic)."""
    if count >= len(items):
        return list(items)
    step = len(items) / count
    return [items[(int(i * step) + offset) % len(items)] for i in range(count)]


def make_workspace(corpus: Path, scratch: Path | None = None) -> Workspace:
    pdfs = list_pdfs(corpus)
    if not pdfs:
        raise SystemExit(f"no PDFs under {corpus}")
    root = Path(tempfile.mkdtemp(prefix="pdfindex-bench-", dir=scratch))
    ws = Workspace(corpus, root, pdfs, sum((corpus / p).stat().st_size for p in pdfs))
    ws.touched = evenly(pdfs, max(1, round(len(pdfs) * 0.01)), offset=1)
    by_size = sorted(pdfs, key=lambda p: ((corpus / p).stat().st_size, p))
    ws.rewrite = next((p for p in by_size[len(by_size) // 2 :] if p not in ws.touched), by_size[0])
    mutable = {*ws.touched, ws.rewrite}
    for rel in pdfs:
        source, target = corpus / rel, ws.files / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if rel in mutable:
            shutil.copy2(source, target)
            continue
        try:
            os.link(source, target)
        except OSError:
            shutil.copy2(source, target)
    return ws


# -- process tree memory --------------------------------------------------------------------


class TreeRss(threading.Thread):
    """Samples the summed VmRSS of a process and all its descendants every 50 ms."""

    def __init__(self, pid: int, interval: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.peak_kb = 0
        self.peak_processes = 0
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            pids = self._tree()
            total = sum(_rss_kb(p) for p in pids)
            if total > self.peak_kb:
                self.peak_kb, self.peak_processes = total, len(pids)
            self._stop_event.wait(self.interval)

    def stop(self) -> None:
        self._stop_event.set()
        self.join()

    def _tree(self) -> list[int]:
        children: dict[int, list[int]] = {}
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry.name}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
        tree, todo = [], [self.pid]
        while todo:
            pid = todo.pop()
            tree.append(pid)
            todo.extend(children.get(pid, []))
        return tree


def _rss_kb(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(r"VmRSS:\s+(\d+) kB", status)
    return int(found.group(1)) if found else 0


def run_measured(cmd: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Run a command; wall and CPU seconds (children included), peak RSS of its tree."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = TreeRss(proc.pid)
    sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    sampler.stop()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {err.strip()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "peak_rss_mb": sampler.peak_kb / 1024,
        "processes_at_peak": sampler.peak_processes,
        "stdout": out,
    }


# -- 1. full build ----------------------------------------------------------------------------


def measure_build(ws: Workspace, plan: Plan) -> dict[str, Any]:
    """Cold builds (empty index and cache) and warm rebuilds (`reindex --full`, all text
    from the cache), each as a `pdfindex reindex` process."""
    import json

    env = ws.env(plan.workers)
    cold: list[dict[str, Any]] = []
    for run in range(plan.build_runs):
        shutil.rmtree(ws.index_dir, ignore_errors=True)
        log(f"build: cold run {run + 1}/{plan.build_runs}")
        result = run_measured(ws.cli("reindex", "--json"), env)
        result["summary"] = json.loads(result.pop("stdout"))
        cold.append(result)
    segments_cold = _stats(ws, plan)["segments"]
    warm: list[dict[str, Any]] = []
    for run in range(plan.warm_runs):
        log(f"build: warm rebuild (reindex --full) {run + 1}/{plan.warm_runs}")
        result = run_measured(ws.cli("reindex", "--full", "--json"), env)
        result["summary"] = json.loads(result.pop("stdout"))
        warm.append(result)
    last = cold[-1]["summary"]
    pages = last["pages"]
    mb = ws.corpus_bytes / 1e6
    walls = [r["wall_s"] for r in cold]
    warm_walls = [r["wall_s"] for r in warm]
    stats = _stats(ws, plan)
    indexing = statistics.median(warm_walls)
    # The elements pass runs after the text is committed: text is searchable before it.
    elements_s = [r["summary"].get("elements_seconds", 0.0) for r in cold]
    text_walls = [w - e for w, e in zip(walls, elements_s, strict=True)]
    warm_text = statistics.median(
        r["wall_s"] - r["summary"].get("elements_seconds", 0.0) for r in warm
    )
    return {
        "runs": plan.build_runs,
        "pages": pages,
        "files_parsed": last["parsed"],
        "failed": last["failed"],
        "wall_s": summary(walls),
        "cpu_s": summary([r["cpu_s"] for r in cold]),
        "cpu_utilisation": round(
            statistics.median(r["cpu_s"] / r["wall_s"] for r in cold) / (os.cpu_count() or 1), 3
        ),
        "pages_per_s": summary([pages / w for w in walls], 1),
        "mb_per_s": summary([mb / w for w in walls], 2),
        "peak_rss_mb": summary([r["peak_rss_mb"] for r in cold], 1),
        "processes_at_peak": cold[-1]["processes_at_peak"],
        "warm_rebuild_s": summary(warm_walls),
        "warm_rebuild_cpu_s": summary([r["cpu_s"] for r in warm]),
        "warm_rebuild_pages_per_s": round(pages / indexing, 1),
        "warm_rebuild_peak_rss_mb": summary([r["peak_rss_mb"] for r in warm], 1),
        "indexing_s": round(indexing, 3),
        "extraction_s": round(max(0.0, statistics.median(text_walls) - warm_text), 3),
        "text_searchable_s": summary(text_walls),
        "text_pages_per_s": summary([pages / w for w in text_walls], 1),
        "elements_pass_s": summary(elements_s),
        "elements_found": last.get("elements_found", 0),
        "index_mb": round(stats["index_bytes"] / 1e6, 2),
        "cache_mb": round(stats["cache_bytes"] / 1e6, 2),
        "corpus_mb": round(mb, 2),
        "index_to_corpus": round(stats["index_bytes"] / ws.corpus_bytes, 3),
        "index_and_cache_to_corpus": round(
            (stats["index_bytes"] + stats["cache_bytes"]) / ws.corpus_bytes, 3
        ),
        "segments_after_cold_build": segments_cold,
        "segments": stats["segments"],
        "by_status": stats["by_status"],
    }


def _stats(ws: Workspace, plan: Plan) -> dict[str, Any]:
    index = PdfIndex(ws.settings(plan.workers))
    try:
        return index.stats()
    finally:
        index.close()


# -- 2. engines and writer alone ------------------------------------------------------------------


def pick_sample(
    records: list[FileRecord], target_pages: int, max_doc_pages: int
) -> list[FileRecord]:
    """Evenly spread ok documents of at most `max_doc_pages` pages, about `target_pages` in all."""
    fitting = [r for r in records if r.status == "ok" and r.pages <= max_doc_pages] or [
        min((r for r in records if r.status == "ok"), key=lambda r: r.pages)
    ]
    mean = statistics.mean(r.pages for r in fitting)
    count = max(1, min(len(fitting), round(target_pages / mean)))
    chosen, pages = [], 0
    for record in evenly(fitting, count):
        if chosen and pages + record.pages > target_pages * 1.2:
            continue
        chosen.append(record)
        pages += record.pages
    return chosen


def extract_all(engine: str, paths: list[Path]) -> tuple[float, list[list[str]]]:
    adapter = get_adapter(engine)
    start = time.perf_counter()
    texts = [adapter.extract(p).pages for p in paths]
    return time.perf_counter() - start, texts


def word_counts(pages: Iterable[str]) -> Counter[str]:
    return Counter(w.casefold() for page in pages for w in WORD.findall(page))


def agreement(a: Counter[str], b: Counter[str]) -> float:
    """Share of a's word occurrences that b also has (multiset intersection)."""
    total = sum(a.values())
    return round(sum((a & b).values()) / total, 4) if total else 0.0


def measure_limits(
    ws: Workspace, records: list[FileRecord], plan: Plan, build: dict[str, Any]
) -> dict[str, Any]:
    """Each engine's single-process extraction rate, the raw Whoosh writer rate, and the
    build's limit min(cores x extraction rate, writer rate)."""
    cores = os.cpu_count() or 1
    workers = plan.workers or cores
    big = pick_sample(records, plan.pdfium_sample_pages, 10_000)
    big_paths = [ws.files / r.path for r in big]
    big_bytes = sum(p.stat().st_size for p in big_paths)
    big_pages = sum(r.pages for r in big)
    log(f"limits: pdfium on {len(big)} files, {big_pages} pages")
    pdfium_s, pdfium_texts = extract_all("pdfium", big_paths)

    small = pick_sample(
        records, plan.pdfminer_sample_pages, max(5, plan.pdfminer_sample_pages // 3)
    )
    small_paths = [ws.files / r.path for r in small]
    small_pages = sum(r.pages for r in small)
    log(f"limits: pdfminer and pdfium on {len(small)} files, {small_pages} pages")
    miner_s, miner_texts = extract_all("pdfminer", small_paths)
    pdfium_small_s, pdfium_small_texts = extract_all("pdfium", small_paths)
    miner_words = word_counts(p for doc in miner_texts for p in doc)
    pdfium_words = word_counts(p for doc in pdfium_small_texts for p in doc)

    log(f"limits: raw Whoosh writer on {big_pages} pages")
    store_dir = Path(tempfile.mkdtemp(prefix="writer-", dir=ws.root))
    store = Store(store_dir)
    start = time.perf_counter()
    with store.writer(timeout=10) as writer:
        for record, pages in zip(big, pdfium_texts, strict=True):
            writer.add_file(record, pages, [index_text(p) for p in pages])
    writer_s = time.perf_counter() - start
    store.close()
    shutil.rmtree(store_dir, ignore_errors=True)

    pdfium_rate = big_pages / pdfium_s
    miner_rate = small_pages / miner_s
    writer_rate = big_pages / writer_s
    extraction_limit = workers * pdfium_rate
    limit = min(extraction_limit, writer_rate)
    build_rate = build["pages_per_s"]["median"]
    # Extraction and writing share the cores: pages cost 1/e + 1/w CPU-seconds each.
    cpu_limit = cores / (1 / pdfium_rate + 1 / writer_rate)
    return {
        "cores": cores,
        "extraction_workers": workers,
        "pdfium_pages_per_s": round(pdfium_rate, 1),
        "pdfium_mb_per_s": round(big_bytes / 1e6 / pdfium_s, 2),
        "pdfium_sample": {"files": len(big), "pages": big_pages, "mb": round(big_bytes / 1e6, 2)},
        "pdfminer_pages_per_s": round(miner_rate, 2),
        "pdfium_pages_per_s_on_pdfminer_sample": round(small_pages / pdfium_small_s, 1),
        "pdfminer_sample": {"files": len(small), "pages": small_pages},
        "pdfium_vs_pdfminer_speed": round((small_pages / pdfium_small_s) / miner_rate, 1),
        "writer_pages_per_s": round(writer_rate, 1),
        "writer_sample_pages": big_pages,
        "extraction_limit_pages_per_s": round(extraction_limit, 1),
        "build_limit_pages_per_s": round(limit, 1),
        "bound_by": "extraction" if extraction_limit < writer_rate else "indexing (Whoosh writer)",
        "build_share_of_limit": round(build_rate / limit, 3),
        "shared_cpu_limit_pages_per_s": round(cpu_limit, 1),
        "build_share_of_shared_cpu_limit": round(build_rate / cpu_limit, 3),
        "word_agreement": {
            "pdfminer_words_in_pdfium": agreement(miner_words, pdfium_words),
            "pdfium_words_in_pdfminer": agreement(pdfium_words, miner_words),
            "pdfminer_words": sum(miner_words.values()),
            "pdfium_words": sum(pdfium_words.values()),
        },
    }


# -- queries from the corpus itself -------------------------------------------------------------


@dataclass
class Queries:
    """What each query kind asks, chosen deterministically from the indexed text."""

    document: str  # search_pdf name (path under files/ without .pdf)
    document_pages: int
    document_path: str
    texts: dict[str, str]
    mixed: list[tuple[str, str]]  # (pdf_name, query) pairs for the load test

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _typo(word: str, positions: list[int]) -> str:
    letters = list(word)
    for pos in positions:
        ch = letters[pos]
        letters[pos] = "e" if ch != "e" else "a"
        if letters[pos] == ch or (pos > 0 and letters[pos - 1] == letters[pos]):
            letters[pos] = "x" if ch != "x" else "z"
    return "".join(letters)


def _line_windows(text: str, size: int) -> list[list[str]]:
    """Runs of `size` plain words (letters only, 3+ characters) within one line."""
    windows = []
    for line in text.splitlines():
        tokens = line.split()
        for i in range(len(tokens) - size + 1):
            run = tokens[i : i + size]
            if all(t.isalpha() and len(t) >= 3 for t in run):
                windows.append(run)
    return windows


def choose_queries(index: PdfIndex, sample_docs: int = 40) -> Queries:
    """Most frequent word, a word on one or two pages, real 2- and 4-word runs from a
    page, typo'd words, a prefix and a boolean query, all from the indexed text."""
    catalog = sorted(
        (r for r in index.engine.catalog().values() if r.status == "ok"), key=lambda r: r.path
    )
    median_pages = statistics.median(r.pages for r in catalog)
    doc = min(catalog, key=lambda r: (abs(r.pages - median_pages), r.path))
    page_freq: Counter[str] = Counter()
    total: Counter[str] = Counter()
    mixed: list[tuple[str, str]] = []
    for record in evenly(catalog, sample_docs):
        _, pages = index.page_texts(record.path)
        for _number, text in pages:
            words = [w.casefold() for w in WORD.findall(text)]
            total.update(words)
            page_freq.update(set(words))
        middle = pages[len(pages) // 2][1]
        windows = _line_windows(middle, 2)
        if windows and len(mixed) < 16:
            mixed.append((_name(record.path), " ".join(windows[len(windows) // 2])))
    _, doc_pages = index.page_texts(doc.path)
    middle = doc_pages[len(doc_pages) // 2][1]
    fours = _line_windows(middle, 4) or _line_windows(middle, 3) or [["the", "of", "and", "to"]]
    twos = _line_windows(middle, 2) or [fours[0][:2]]
    phrase4 = " ".join(fours[len(fours) // 3])
    phrase2 = " ".join(twos[(2 * len(twos)) // 3])

    alpha = [w for w, _ in sorted(total.items(), key=lambda kv: (-kv[1], kv[0])) if w.isalpha()]
    common = alpha[0]
    mid = [w for w in alpha if len(w) >= 5 and w.isascii()]
    mid = mid[len(mid) // 20 :] or mid or alpha
    fuzzy_base = next((w for w in mid if 6 <= len(w) <= 12), mid[0])
    rare = _rare_word(index, page_freq)
    boolean = (
        f"{mid[0]} AND ({mid[1 % len(mid)]} OR {mid[2 % len(mid)]}) AND NOT {mid[3 % len(mid)]}"
    )
    return Queries(
        document=_name(doc.path),
        document_pages=doc.pages,
        document_path=doc.path,
        texts={
            "common_word": common,
            "rare_word": rare,
            "phrase_2": f'"{phrase2}"',
            "phrase_4": f'"{phrase4}"',
            "fuzzy_1": f"{_typo(fuzzy_base, [2])}~1",
            "fuzzy_2": f"{_typo(fuzzy_base, [2, len(fuzzy_base) - 2])}~2",
            "prefix": f"{fuzzy_base[:3]}*",
            "boolean": boolean,
            "exact_one_doc": phrase2,
            "exact_all_docs": phrase4,
            "regex_one_doc": rf"{phrase2.split()[0]}\s+\w+",
        },
        mixed=mixed or [(_name(doc.path), phrase2)],
    )


def _rare_word(index: PdfIndex, page_freq: Counter[str]) -> str:
    """A word on exactly one or two pages of the whole index (the first that is)."""
    candidates = sorted(w for w, n in page_freq.items() if n == 1 and w.isalpha() and len(w) >= 5)
    best, best_hits = None, None
    for word in evenly(candidates, 60):
        hits, _ = index.search(word, limit=1)
        if hits in (1, 2):
            return word
        if hits and (best_hits is None or hits < best_hits):
            best, best_hits = word, hits
    return best or (candidates[0] if candidates else "the")


def _name(path: str) -> str:
    return re.sub(r"\.pdf$", "", path, flags=re.IGNORECASE)


# -- 5. query latency through the library -------------------------------------------------------


def measure_queries_api(index: PdfIndex, queries: Queries, plan: Plan) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for kind in RANKED_KINDS:
        text = queries.texts[kind]
        log(f"queries (API): {kind} {text!r}")
        stats, result = sample_latency(lambda t=text: index.search(t, limit=10), plan)
        out[kind] = {"query": text, "document": None, "hits": result[0], "api": stats}  # type: ignore[index]
    text = queries.texts["exact_one_doc"]
    log(f"queries (API): exact_one_doc {text!r} in {queries.document}")
    stats, result = sample_latency(lambda: search_pdf(index, queries.document, text), plan)
    out["exact_one_doc"] = {
        "query": text,
        "document": queries.document,
        "document_pages": queries.document_pages,
        "hits": len(result["matches"]),  # type: ignore[index]
        "api": stats,
    }
    text = queries.texts["exact_all_docs"]
    log(f"queries (API): exact_all_docs {text!r}")
    stats, result = sample_latency(lambda: index.exact(text, document=None, limit=10), plan)
    matches, more = result  # type: ignore[misc]
    out["exact_all_docs"] = {"query": text, "document": None, "hits": len(matches), "api": stats}
    out["exact_all_docs"]["more_than_limit"] = more
    pattern = queries.texts["regex_one_doc"]
    out["regex_one_doc"] = {"query": pattern, "document": queries.document}
    grep = _regex_search()
    if grep is None:
        not_available(out["regex_one_doc"], "hits", REGEX_NOTE)
        not_available(out["regex_one_doc"], "api", REGEX_NOTE)
        return out
    log(f"queries (API): regex_one_doc {pattern!r} in {queries.document}")
    stats, result = sample_latency(lambda: grep(index, queries.document_path, pattern), plan)
    hits = result.get("total_matches", len(result.get("matches", [])))  # type: ignore[union-attr]
    out["regex_one_doc"].update(hits=hits, api=stats)
    return out


def _regex_search() -> Callable[..., dict[str, Any]] | None:
    """pdfindex's regex search in one file (`pdfindex.grep.search_in_file`), if it has one."""
    try:
        from pdfindex.tools.grep import search_in_file
    except ImportError:
        return None
    return search_in_file


# -- 5 and 7 over MCP (a real stdio client) -------------------------------------------------------


def measure_mcp(ws: Workspace, queries: Queries, plan: Plan) -> dict[str, Any]:
    """Start `pdfindex serve` under the official SDK's stdio client; time search_pdf alone
    and with `plan.clients` concurrent calls on one session."""
    import anyio

    return anyio.run(_mcp_async, ws, queries, plan)


def _mcp_calls(queries: Queries, tools: set[str]) -> list[tuple[str, str, dict[str, Any]]]:
    """(kind, tool, arguments) for each query kind this server has a tool for."""
    calls = [
        (
            "exact_one_doc",
            "search_pdf",
            {"pdf_name": queries.document, "query": queries.texts["exact_one_doc"], "topk": 10},
        )
    ]
    if "search_documents" in tools:  # ranked; its words are OR-ed (any word may match)
        calls += [
            (kind, "search_documents", {"query": queries.texts[kind], "limit": 10})
            for kind in RANKED_KINDS
        ]
    if "search_in_file" in tools:
        pattern = queries.texts["regex_one_doc"]
        calls.append(
            ("regex_one_doc", "search_in_file", {"file": queries.document_path, "pattern": pattern})
        )
    return calls


async def _sample_async(fn: Callable[[], Any], plan: Plan) -> dict[str, Any]:
    """The async twin of sample_latency."""
    start = time.perf_counter()
    await fn()
    first = time.perf_counter() - start
    times: list[float] = []
    began = time.perf_counter()
    while len(times) < plan.query_max_runs and (
        len(times) < plan.query_min_runs or time.perf_counter() - began < plan.query_budget_s
    ):
        start = time.perf_counter()
        await fn()
        times.append(time.perf_counter() - start)
    return latency(times, first)


def _server_params(ws: Workspace, plan: Plan) -> Any:
    from mcp import StdioServerParameters

    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "pdfindex.cli", "serve", "--root", str(ws.root)],
        env=ws.env(plan.workers),
    )


async def _mcp_async(ws: Workspace, queries: Queries, plan: Plan) -> dict[str, Any]:
    import anyio
    from mcp import ClientSession, stdio_client

    params = _server_params(ws, plan)
    out: dict[str, Any] = {}
    with open(ws.root / "server-stderr.log", "w") as errlog:
        started = time.perf_counter()
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            out["startup_s"] = round(time.perf_counter() - started, 3)

            async def tool(name: str, args: dict[str, Any]) -> Any:
                result = await session.call_tool(name, args)
                data = result.structured_content or {}
                if result.is_error or (isinstance(data, dict) and "error" in data):
                    raise RuntimeError(f"{name}({args}) failed: {result}")
                return data

            async def call(name: str, query: str) -> dict[str, Any]:
                return await tool("search_pdf", {"pdf_name": name, "query": query, "topk": 10})

            text = queries.texts["exact_one_doc"]
            start = time.perf_counter()
            first_result = await call(queries.document, text)
            out["first_call_s"] = round(time.perf_counter() - start, 3)
            for _ in range(3):  # the start-up catch-up scan may still be finishing
                await call(queries.document, text)
            out["tools"] = sorted(t.name for t in (await session.list_tools()).tools)
            kinds: dict[str, dict[str, Any]] = {}
            for kind, name, args in _mcp_calls(queries, set(out["tools"])):
                log(f"queries (MCP): {kind} through {name}")
                stats = await _sample_async(lambda n=name, a=args: tool(n, a), plan)
                kinds[kind] = {"tool": name, "latency": stats}
            out["kinds"] = kinds
            out["exact_one_doc_hits"] = len(first_result.get("matches", []))

            calls = plan.calls_per_client * plan.clients
            mixed = [queries.mixed[i % len(queries.mixed)] for i in range(calls)]
            log(f"concurrency (MCP): {calls} calls sequential, then {plan.clients} at once")
            seq: list[float] = []
            began = time.perf_counter()
            for name, query in mixed:
                start = time.perf_counter()
                await call(name, query)
                seq.append(time.perf_counter() - start)
            seq_wall = time.perf_counter() - began

            conc: list[float] = []

            async def client(number: int) -> None:
                for i in range(plan.calls_per_client):
                    name, query = mixed[(number * plan.calls_per_client + i) % len(mixed)]
                    start = time.perf_counter()
                    await call(name, query)
                    conc.append(time.perf_counter() - start)

            began = time.perf_counter()
            async with anyio.create_task_group() as group:
                for number in range(plan.clients):
                    group.start_soon(client, number)
            conc_wall = time.perf_counter() - began
            out["concurrency"] = _load_figures(plan, calls, seq, seq_wall, conc, conc_wall)
    return out


def _load_figures(
    plan: Plan, calls: int, seq: list[float], seq_wall: float, conc: list[float], conc_wall: float
) -> dict[str, Any]:
    return {
        "clients": plan.clients,
        "calls": calls,
        "throughput_qps": round(calls / conc_wall, 1),
        "latency": latency(conc),
        "sequential_throughput_qps": round(calls / seq_wall, 1),
        "sequential_latency": latency(seq),
        "speedup_vs_sequential": round(seq_wall / conc_wall, 2),
    }


def measure_threads(index: PdfIndex, queries: Queries, plan: Plan) -> dict[str, Any]:
    """`plan.clients` threads calling PdfIndex.search_pdf at once, and one thread alone."""
    calls = plan.calls_per_client * plan.clients
    mixed = [queries.mixed[i % len(queries.mixed)] for i in range(calls)]
    for name, query in queries.mixed:
        search_pdf(index, name, query)  # warm-up
    log(f"concurrency (API): {calls} calls sequential, then {plan.clients} threads")
    seq: list[float] = []
    began = time.perf_counter()
    for name, query in mixed:
        start = time.perf_counter()
        search_pdf(index, name, query)
        seq.append(time.perf_counter() - start)
    seq_wall = time.perf_counter() - began

    def client(number: int) -> list[float]:
        times = []
        for i in range(plan.calls_per_client):
            name, query = mixed[(number * plan.calls_per_client + i) % len(mixed)]
            start = time.perf_counter()
            search_pdf(index, name, query)
            times.append(time.perf_counter() - start)
        return times

    began = time.perf_counter()
    with ThreadPoolExecutor(plan.clients) as pool:
        conc = [t for times in pool.map(client, range(plan.clients)) for t in times]
    conc_wall = time.perf_counter() - began
    return _load_figures(plan, calls, seq, seq_wall, conc, conc_wall)


# -- 6. baselines: seed 000's naive re-parse, and pdfgrep ---------------------------------------


def naive_search(path: Path, query: str) -> int:
    """Seed 000's way: re-parse the whole PDF with pdfminer.six, then a case-insensitive find."""
    from pdfminer.high_level import extract_text

    return extract_text(str(path)).lower().find(query.lower())


def naive_regex(path: Path, pattern: str) -> int:
    """The same naive way for a regular expression (case-insensitive)."""
    from pdfminer.high_level import extract_text

    found = re.search(pattern, extract_text(str(path)), re.IGNORECASE)
    return found.start() if found else -1


def measure_baselines(
    ws: Workspace, queries: Queries, plan: Plan, limits: dict[str, Any], pages: int
) -> dict[str, dict[str, Any]]:
    """Naive re-parse and pdfgrep for the exact kinds (one document; all documents)."""
    doc_path = ws.files / queries.document_path
    one = queries.texts["exact_one_doc"]
    every = queries.texts["exact_all_docs"]
    out: dict[str, dict[str, Any]] = {"exact_one_doc": {}, "exact_all_docs": {}}

    log(f"baselines: naive pdfminer re-parse of {queries.document_path} x{2 * plan.naive_runs}")
    times = []
    found = -1
    for _ in range(plan.naive_runs):
        start = time.perf_counter()
        found = naive_search(doc_path, one)
        times.append(time.perf_counter() - start)
    out["exact_one_doc"]["naive_s"] = summary(times)
    out["exact_one_doc"]["naive_found"] = found >= 0
    pattern = queries.texts["regex_one_doc"]
    times = []
    for _ in range(plan.naive_runs):
        start = time.perf_counter()
        found = naive_regex(doc_path, pattern)
        times.append(time.perf_counter() - start)
    out["regex_one_doc"] = {"naive_s": summary(times), "naive_found": found >= 0}
    estimate = round(pages / limits["pdfminer_pages_per_s"], 1)
    not_available(
        out["exact_all_docs"],
        "naive_s",
        f"not run: re-parsing all {pages} pages per query would take about {estimate} s "
        "at the measured pdfminer rate",
    )
    out["exact_all_docs"]["naive_estimate_s"] = estimate

    exe = shutil.which("pdfgrep")
    if exe is None:
        for kind in out:
            not_available(out[kind], "pdfgrep_s", PDFGREP_MISSING)
        return out
    log(f"baselines: pdfgrep -i -F on one file x{plan.pdfgrep_runs}")
    times = []
    for _ in range(plan.pdfgrep_runs):
        start = time.perf_counter()
        proc = subprocess.run([exe, "-i", "-F", "--", one, str(doc_path)], capture_output=True)
        times.append(time.perf_counter() - start)
    out["exact_one_doc"]["pdfgrep_s"] = summary(times)
    out["exact_one_doc"]["pdfgrep_lines"] = proc.stdout.count(b"\n")
    times = []
    for _ in range(plan.pdfgrep_runs):
        start = time.perf_counter()
        proc = subprocess.run([exe, "-i", "-P", "--", pattern, str(doc_path)], capture_output=True)
        times.append(time.perf_counter() - start)
    out["regex_one_doc"]["pdfgrep_s"] = summary(times)
    out["regex_one_doc"]["pdfgrep_lines"] = proc.stdout.count(b"\n")
    log("baselines: pdfgrep -i -F -r over the corpus x1 (slow)")
    start = time.perf_counter()
    proc = subprocess.run(
        [exe, "-i", "-F", "-r", "--include", "*.pdf", "--", every, str(ws.files)],
        capture_output=True,
    )
    out["exact_all_docs"]["pdfgrep_s"] = summary([time.perf_counter() - start])
    out["exact_all_docs"]["pdfgrep_lines"] = proc.stdout.count(b"\n")
    return out


# -- 3. rescans ------------------------------------------------------------------------------------


def measure_rescans(ws: Workspace, plan: Plan) -> dict[str, Any]:
    """No-change rescans (library and CLI process), 1% touched, 1 file rewritten, 10 renamed."""
    from benchmarks.corpus import render_document

    env = ws.env(plan.workers)
    index = PdfIndex(ws.settings(plan.workers))
    out: dict[str, Any] = {}
    try:

        def timed(runs: int, before: Callable[[int], None] | None = None) -> tuple[list, list]:
            times, summaries = [], []
            for run in range(runs):
                if before:
                    before(run)
                start = time.perf_counter()
                result = index.reindex()
                times.append(time.perf_counter() - start)
                summaries.append(result)
            return times, summaries

        log("rescan: no change (library)")
        times, _ = timed(plan.rescan_runs)
        out["no_change_api_s"] = summary(times)

        log("rescan: no change (whole `pdfindex reindex` process)")
        cli_times = [run_measured(ws.cli("reindex"), env)["wall_s"] for _ in range(plan.cli_runs)]
        out["no_change_cli_s"] = summary(cli_times)

        touched = ws.touched
        log(f"rescan: {len(touched)} files touched")

        def touch(run: int) -> None:
            stamp = time.time() + run + 1
            for rel in touched:
                os.utime(ws.files / rel, (stamp, stamp))

        times, results = timed(plan.rescan_runs, touch)
        out["touch_1pct"] = {
            "files": len(touched),
            "seconds": summary(times),
            "touched": results[-1].touched,
            "parsed": max(r.parsed for r in results),
        }

        target = ws.rewrite
        record = index.engine.record(target)
        pages = min(record.pages if record else 20, 200)
        log(f"rescan: 1 file rewritten ({target}, {pages} pages)")

        def rewrite(run: int) -> None:
            data = render_document(pages, 10_000 + run, f"Rewritten document, version {run}")
            tmp = ws.files / (target + ".tmp")
            tmp.write_bytes(data)
            tmp.replace(ws.files / target)  # a new inode: the corpus file is not touched

        times, results = timed(plan.rescan_runs, rewrite)
        out["modify_1"] = {
            "file": target,
            "pages": pages,
            "seconds": summary(times),
            "parsed": max(r.parsed for r in results),
            "updated": results[-1].updated,
        }

        fixed = [p for p in ws.pdfs if p not in {*touched, target}]
        renamed = evenly(fixed, 10, offset=3)
        log(f"rescan: {len(renamed)} files renamed")

        def rename(run: int) -> None:
            for rel in renamed:
                plain = ws.files / rel
                moved = plain.with_name(plain.stem + "-renamed.pdf")
                source, dest = (plain, moved) if run % 2 == 0 else (moved, plain)
                source.rename(dest)

        times, results = timed(plan.rescan_runs, rename)
        out["rename_10"] = {
            "files": len(renamed),
            "seconds": summary(times),
            "moved": results[-1].moved,
            "parsed": max(r.parsed for r in results),
        }
    finally:
        index.close()
    return out


# -- 4. live updates -----------------------------------------------------------------------------


def measure_live_update(ws: Workspace, plan: Plan) -> dict[str, Any]:
    """File landed in files/ -> found by search_pdf, with `pdfindex serve` watching.

    Each run writes a small new PDF with a unique word next to files/, moves it in (so it
    lands whole), and polls search_pdf over MCP every 20 ms until the word is found.
    None while pdfindex has no live updates (no `pdfindex.live` module).
    """
    import importlib.util

    out: dict[str, Any] = {}
    if importlib.util.find_spec("pdfindex.indexer.live") is None:
        not_available(out, "latency_s", LIVE_NOTE)
        return out
    import anyio

    runs = 2 if plan.quick else 5
    log(f"live update: {runs} files landing while `pdfindex serve` watches")
    times = anyio.run(_live_async, ws, plan, runs)
    if times is None:
        not_available(out, "latency_s", f"a landed file was not searchable within {LIVE_WAIT} s")
    else:
        out["latency_s"] = summary(times)
        out["method"] = "new 2-page PDF moved into files/, search_pdf polled every 20 ms over MCP"
    return out


LIVE_WAIT = 30.0


async def _live_async(ws: Workspace, plan: Plan, runs: int) -> list[float] | None:
    import anyio
    from mcp import ClientSession, stdio_client

    from tests.pdfgen import write_pdf

    times: list[float] = []
    with open(ws.root / "server-live-stderr.log", "w") as errlog:
        async with (
            stdio_client(_server_params(ws, plan), errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.call_tool("search_pdf", {"pdf_name": _name(ws.pdfs[0]), "query": "a"})
            for run in range(runs):
                marker = f"landedmarker{run:03d}q"
                name = f"zz-landed-{run:03d}"
                staged = write_pdf(ws.root / f"{name}.pdf", [f"{marker} arrives here", "page two"])
                target = ws.files / f"{name}.pdf"
                staged.replace(target)
                landed = time.perf_counter()
                while True:
                    result = await session.call_tool(
                        "search_pdf", {"pdf_name": name, "query": marker}
                    )
                    if (result.structured_content or {}).get("query_exists"):
                        times.append(time.perf_counter() - landed)
                        break
                    if time.perf_counter() - landed > LIVE_WAIT:
                        return None
                    await anyio.sleep(0.02)
                target.unlink()
                await anyio.sleep(1.5)  # let the watcher take the removal before the next run
    return times
