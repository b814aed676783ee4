"""Score pdfindex's figure/table caption detection against the hand labels.

Runs `pdfindex.elements.detect_file_elements(path, pages=[sampled pages])` on every labelled
file, keeps detections of kind figure/table/chart/diagram that carry a printed caption label
(not a made-up one like "Figure p3-1"), matches them to `labels.json` on (file, page, normalised
label) and prints precision and recall per type, every false positive and negative, and the
detection speed. Writes `benchmarks/results/<date>-elements.json` and `.md`.

python -m benchmarks.elements.evaluate [--corpus DIR] [--out DIR] [--speed-all]
python -m benchmarks.elements.evaluate --self-check      # check the matching on fake data
python -m benchmarks.elements.evaluate --corpus DIR --labels FILE --manifest FILE --name NAME
                                                  # another labelled corpus (e.g. the held-out one)
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from datetime import date
from pathlib import Path
from typing import Any

from benchmarks.elements.corpus import DEFAULT_CORPUS, MANIFEST, load_manifest, sha256_file

HERE = Path(__file__).resolve().parent
LABELS = HERE / "labels.json"
RESULTS = HERE.parent / "results"

KEPT_KINDS = {"figure": "figure", "chart": "figure", "diagram": "figure", "table": "table"}
MADE_UP = re.compile(r"p\d+-\d+$")
_DASHES = str.maketrans({c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2212"})
_FIGURE = re.compile(r"^(?:figure|fig\.|fig(?=\d))")
_TABLE = re.compile(r"^(?:table|tab\.|tab(?=\d))")


@dataclass(frozen=True)
class Truth:
    """One hand-labelled caption."""

    file: str
    page: int
    label: str
    type: str
    specimen: bool = False


@dataclass(frozen=True)
class Detection:
    """One detector output, reduced to what is scored."""

    file: str
    page: int
    label: str
    kind: str


def normalise(label: str) -> str:
    """Matching key of a caption label: casefolded, no whitespace, 'Fig.' = 'Figure',
    'Tab.' = 'Table', dashes unified, trailing ':' or '.' dropped."""
    key = re.sub(r"\s+", "", label.translate(_DASHES).casefold()).rstrip(":.")
    return _TABLE.sub("table", _FIGURE.sub("figure", key, count=1), count=1)


def label_type(label: str, kind: str) -> str:
    """Scored type of a detection: from its label's word when it says Figure/Table, else kind."""
    key = normalise(label)
    if key.startswith("figure"):
        return "figure"
    if key.startswith("table"):
        return "table"
    return KEPT_KINDS.get(kind, "figure")


def keep(detection: Detection) -> bool:
    """Whether a detection is a caption-labelled figure or table (scored at all)."""
    return detection.kind in KEPT_KINDS and not MADE_UP.search(detection.label.strip())


def score(
    truth: list[Truth],
    detections: list[Detection],
    ignore: set[tuple[str, int, str]] | None = None,
    pages: set[tuple[str, int]] | None = None,
) -> dict[str, Any]:
    """Match detections to truth on (file, page, normalised label), as multisets.

    `ignore` holds (file, page, normalised label) keys a detection may match without counting
    (other caption types); `pages` limits detections to the labelled pages (default: the pages
    of `truth`, which then must list empty pages via `pages`). Returns per-type counts and the
    tp/fp/fn lists."""
    ignore = ignore or set()
    if pages is None:
        pages = {(t.file, t.page) for t in truth}
    want: dict[tuple[str, int, str], list[Truth]] = defaultdict(list)
    for t in truth:
        want[(t.file, t.page, normalise(t.label))].append(t)
    tp: list[dict[str, Any]] = []
    fp: list[dict[str, Any]] = []
    ignored: list[dict[str, Any]] = []
    for d in detections:
        if not keep(d) or (d.file, d.page) not in pages:
            continue
        key = (d.file, d.page, normalise(d.label))
        if want.get(key):
            t = want[key].pop(0)
            tp.append({**asdict(t), "detected_label": d.label, "kind": d.kind})
        elif key in ignore:
            ignored.append({**asdict(d), "type": label_type(d.label, d.kind)})
        else:
            fp.append({**asdict(d), "type": label_type(d.label, d.kind)})
    fn = [asdict(t) for rest in want.values() for t in rest]
    by_type: dict[str, dict[str, Any]] = {}
    for name in ("figure", "table", "all"):

        def of(rows: list[dict[str, Any]], name: str = name) -> int:
            return sum(1 for r in rows if name == "all" or r["type"] == name)

        n_tp, n_fp, n_fn = of(tp), of(fp), of(fn)
        by_type[name] = {
            "truth": n_tp + n_fn,
            "detected": n_tp + n_fp,
            "tp": n_tp,
            "fp": n_fp,
            "fn": n_fn,
            "precision": n_tp / (n_tp + n_fp) if n_tp + n_fp else None,
            "recall": n_tp / (n_tp + n_fn) if n_tp + n_fn else None,
        }
    return {"by_type": by_type, "tp": tp, "fp": fp, "fn": fn, "ignored": ignored}


def load_labels(path: Path = LABELS) -> dict[str, Any]:
    """labels.json as a dict."""
    return json.loads(path.read_text(encoding="utf-8"))


def truth_from_labels(labels: dict[str, Any], specimens: bool = True) -> list[Truth]:
    """The labelled elements (without caption specimens if `specimens` is false)."""
    return [
        Truth(p["file"], p["page"], e["label"], e["type"], bool(e.get("specimen")))
        for p in labels["pages"]
        for e in p["elements"]
        if specimens or not e.get("specimen")
    ]


def ignore_keys(labels: dict[str, Any], specimens: bool) -> set[tuple[str, int, str]]:
    """Keys a detection may match without counting: other caption types, and the specimens
    when they are left out of the truth."""
    keys = {
        (p["file"], p["page"], normalise(label))
        for p in labels["pages"]
        for label in p.get("other_captions", [])
    }
    if not specimens:
        keys |= {
            (p["file"], p["page"], normalise(e["label"]))
            for p in labels["pages"]
            for e in p["elements"]
            if e.get("specimen")
        }
    return keys


def detect(
    corpus: Path, labels: dict[str, Any], deadline_s: float | None
) -> tuple[list[Detection], dict[str, Any]]:
    """Run the detector on the labelled pages of each file; detections and timing."""
    from pdfindex.elements.detect import detect_file_elements

    wanted: dict[str, list[int]] = defaultdict(list)
    for p in labels["pages"]:
        wanted[p["file"]].append(p["page"])
    detections: list[Detection] = []
    per_file: dict[str, Any] = {}
    errors: dict[str, str] = {}
    total = 0.0
    for rel, pages in sorted(wanted.items()):
        pages = sorted(set(pages))
        deadline = time.monotonic() + deadline_s if deadline_s else None
        start = time.perf_counter()
        try:
            found = detect_file_elements(corpus / rel, pages=pages, deadline=deadline)
        except Exception as exc:  # noqa: BLE001 - one file's failure must not stop the run
            errors[rel] = f"{type(exc).__name__}: {exc}"
            found = []
        elapsed = time.perf_counter() - start
        total += elapsed
        per_file[rel] = {"pages": len(pages), "seconds": round(elapsed, 4)}
        for e in found:
            detections.append(Detection(rel, int(e.page), str(e.label), str(e.kind)))
    n_pages = sum(f["pages"] for f in per_file.values())
    timing = {
        "pages": n_pages,
        "seconds": round(total, 3),
        "pages_per_s": round(n_pages / total, 2) if total else None,
        "per_file": per_file,
        "errors": errors,
    }
    return detections, timing


def speed_all(
    corpus: Path, files: list[str], deadline_s: float | None, manifest_path: Path = MANIFEST
) -> dict[str, Any]:
    """Detection speed over every page of every corpus file."""
    from pdfindex.elements.detect import detect_file_elements

    manifest = load_manifest(manifest_path)
    pages = 0
    total = 0.0
    found = 0
    for rel in files:
        deadline = time.monotonic() + deadline_s if deadline_s else None
        start = time.perf_counter()
        found += len(detect_file_elements(corpus / rel, deadline=deadline))
        total += time.perf_counter() - start
        pages += next(f["pages"] for f in manifest["files"] if f["file"] == rel)
    return {
        "pages": pages,
        "seconds": round(total, 3),
        "pages_per_s": round(pages / total, 2) if total else None,
        "elements": found,
    }


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def markdown(result: dict[str, Any]) -> str:
    """The report as Markdown."""
    lines = [f"# Element detection on Debian *-doc PDFs ({result['date']})", ""]
    summary = result["labels"]
    lines += [
        f"Hand labels: {summary['pages']} pages ({summary['pages_without_elements']} without "
        f"elements), {summary['elements']} captions ({summary['figures']} figures, "
        f"{summary['tables']} tables; {summary['specimens']} caption specimens). "
        f"Corpus: {result['corpus']['files']} PDFs, {result['corpus']['pages']} pages.",
        "",
        "| set | type | truth | detected | TP | FP | FN | precision | recall |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, scored in (("all", result["score"]), ("no specimens", result["score_no_specimens"])):
        for kind in ("figure", "table", "all"):
            row = scored["by_type"][kind]
            lines.append(
                f"| {name} | {kind} | {row['truth']} | {row['detected']} | {row['tp']} | "
                f"{row['fp']} | {row['fn']} | {_pct(row['precision'])} | {_pct(row['recall'])} |"
            )
    timing = result["timing"]
    lines += [
        "",
        f"Detection on the {timing['pages']} labelled pages: {timing['seconds']} s, "
        f"{timing['pages_per_s']} pages/s (one call per file, pages=[...]).",
    ]
    if result.get("speed_all"):
        sp = result["speed_all"]
        lines.append(
            f"Whole corpus: {sp['pages']} pages in {sp['seconds']} s, {sp['pages_per_s']} "
            f"pages/s, {sp['elements']} elements."
        )
    if timing["errors"]:
        lines += ["", "Errors:"] + [f"- {f}: {e}" for f, e in timing["errors"].items()]
    scored = result["score"]
    lines += ["", f"## False positives ({len(scored['fp'])})", ""]
    lines += [f'- {r["type"]}: {r["file"]} p{r["page"]} "{r["label"]}"' for r in scored["fp"]]
    lines += ["", f"## False negatives ({len(scored['fn'])})", ""]
    lines += [
        f'- {r["type"]}: {r["file"]} p{r["page"]} "{r["label"]}"'
        + (" (specimen)" if r.get("specimen") else "")
        for r in scored["fn"]
    ]
    if scored["ignored"]:
        lines += ["", f"## Other caption types detected (not scored: {len(scored['ignored'])})", ""]
        lines += [f'- {r["file"]} p{r["page"]} "{r["label"]}"' for r in scored["ignored"]]
    lines += ["", "## Per file", "", "| file | truth | TP | FP | FN |"]
    lines.append("| --- | ---: | ---: | ---: | ---: |")
    for rel, row in sorted(result["per_file"].items()):
        lines.append(f"| {rel} | {row['truth']} | {row['tp']} | {row['fp']} | {row['fn']} |")
    return "\n".join(lines) + "\n"


def per_file(scored: dict[str, Any], labels: dict[str, Any]) -> dict[str, dict[str, int]]:
    """TP/FP/FN and truth counts per labelled file."""
    rows: dict[str, Counter[str]] = {p["file"]: Counter() for p in labels["pages"]}
    for kind in ("tp", "fp", "fn"):
        for r in scored[kind]:
            rows[r["file"]][kind] += 1
    return {
        f: {"truth": c["tp"] + c["fn"], "tp": c["tp"], "fp": c["fp"], "fn": c["fn"]}
        for f, c in rows.items()
    }


def check_corpus(corpus: Path, labels: dict[str, Any], manifest_path: Path = MANIFEST) -> list[str]:
    """Labelled files that are missing or differ from the manifest."""
    known = {f["file"]: f["sha256"] for f in load_manifest(manifest_path)["files"]}
    problems = []
    for rel in sorted({p["file"] for p in labels["pages"]}):
        path = corpus / rel
        if not path.is_file():
            problems.append(f"missing: {rel}")
        elif rel in known and sha256_file(path) != known[rel]:
            problems.append(f"sha256 differs from the manifest: {rel}")
    return problems


def self_check() -> None:
    """Check `score` and `normalise` on a tiny fake list (raises AssertionError)."""
    assert normalise("Fig. 2.4") == normalise("Figure 2.4") == "figure2.4"
    assert normalise("Tab. 3:") == normalise("TABLE  3") == "table3"
    assert normalise("Figure 2\u20131") == "figure2-1"
    assert normalise("Figures 3") == "figures3"
    assert normalise("Fig3") == "figure3"
    assert normalise("tabular 3") == "tabular3"
    truth = [
        Truth("a.pdf", 1, "Figure 1", "figure"),
        Truth("a.pdf", 1, "Table 1", "table"),
        Truth("a.pdf", 2, "Table 10.4", "table"),
        Truth("a.pdf", 2, "Table 10.4", "table"),
        Truth("b.pdf", 5, "Fig. 3", "figure"),
    ]
    detections = [
        Detection("a.pdf", 1, "Fig. 1", "chart"),  # TP (Fig. = Figure, chart = figure)
        Detection("a.pdf", 1, "Figure p1-1", "figure"),  # made-up label: skipped
        Detection("a.pdf", 1, "Equation 2", "equation"),  # not a kept kind: skipped
        Detection("a.pdf", 2, "Table 10.4", "table"),  # TP, one of two
        Detection("a.pdf", 3, "Table 9", "table"),  # FP on an empty labelled page
        Detection("a.pdf", 4, "Table 9", "table"),  # page not labelled: skipped
        Detection("b.pdf", 5, "Figure 3", "figure"),  # TP
        Detection("b.pdf", 5, "Example 2", "figure"),  # other caption: ignored
        Detection("b.pdf", 5, "Figure 4", "diagram"),  # FP
    ]
    pages = {("a.pdf", 1), ("a.pdf", 2), ("a.pdf", 3), ("b.pdf", 5)}
    got = score(truth, detections, ignore={("b.pdf", 5, "example2")}, pages=pages)
    bt = got["by_type"]
    assert (bt["figure"]["tp"], bt["figure"]["fp"], bt["figure"]["fn"]) == (2, 1, 0), bt
    assert (bt["table"]["tp"], bt["table"]["fp"], bt["table"]["fn"]) == (1, 1, 2), bt
    assert bt["all"]["precision"] == 3 / 5, bt
    assert bt["all"]["recall"] == 3 / 5, bt
    assert [r["label"] for r in got["ignored"]] == ["Example 2"]
    assert sorted(r["label"] for r in got["fn"]) == ["Table 1", "Table 10.4"]


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.elements.evaluate", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="corpus folder")
    parser.add_argument("--labels", type=Path, default=LABELS, help="labels.json")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results folder")
    parser.add_argument(
        "--manifest", type=Path, default=MANIFEST, help="the corpus's manifest.json"
    )
    parser.add_argument(
        "--name", default="elements", help="result file name: <date>-<name>.{json,md}"
    )
    parser.add_argument(
        "--deadline", type=float, default=None, help="seconds allowed per file (default none)"
    )
    parser.add_argument(
        "--speed-all", action="store_true", help="also time detection on every corpus page"
    )
    parser.add_argument("--self-check", action="store_true", help="check the matching and exit")
    parser.add_argument("--note", default="", help="text stored with the results")
    args = parser.parse_args(argv)
    if args.self_check:
        self_check()
        print("self-check passed")
        return 0
    labels = load_labels(args.labels)
    problems = check_corpus(args.corpus, labels, args.manifest)
    if any(p.startswith("missing") for p in problems):
        heldout = "heldout" in str(args.manifest)
        fetcher = "benchmarks.elements.heldout.fetch" if heldout else "benchmarks.elements.corpus"
        print(*problems, f"fetch it: python -m {fetcher}", sep="\n")
        return 2
    for p in problems:
        print("warning:", p, file=sys.stderr)
    detections, timing = detect(args.corpus, labels, args.deadline)
    pages = {(p["file"], p["page"]) for p in labels["pages"]}
    scored = score(truth_from_labels(labels), detections, ignore_keys(labels, True), pages)
    no_spec = score(
        truth_from_labels(labels, specimens=False),
        detections,
        ignore_keys(labels, False),
        pages,
    )
    manifest = load_manifest(args.manifest)
    result: dict[str, Any] = {
        "date": date.today().isoformat(),
        "note": args.note,
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
        "corpus": {
            "files": len(manifest["files"]),
            "pages": manifest.get("total_pages"),
            "packages": {p: v["version"] for p, v in manifest["packages"].items()},
        },
        "labels": labels["summary"],
        "timing": timing,
        "score": scored,
        "score_no_specimens": no_spec,
        "per_file": per_file(scored, labels),
        "detections": [asdict(d) for d in detections],
        "corpus_warnings": problems,
    }
    if args.speed_all:
        result["speed_all"] = speed_all(
            args.corpus, [f["file"] for f in manifest["files"]], args.deadline, args.manifest
        )
    report = markdown(result)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"{result['date']}-{args.name}"
    stem.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    stem.with_suffix(".md").write_text(report, encoding="utf-8")
    print(report)
    print(f"wrote {stem}.json and .md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
