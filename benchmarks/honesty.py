"""`python -m benchmarks.honesty [--root DIR]`: does pdfindex say so when no page answers
a question (issue 28)?

Ranks every labelled question of `relevance/` (answerable: tuning, heldout, heldout2) and
every question of `relevance/unanswerable.jsonl` (30 questions whose answer no manual of
`/work/rel` holds, checked by searching the manuals' text) through `pdfindex.ranking.rank`,
the one ranking of every front, and reads the first page's confidence. For each
threshold: the false-confidence rate (unanswerable questions at or above it), and the
share of answerable questions below it, split by whether their first page was right.
The threshold is chosen on the tuning set and checked on the held-out ones.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from benchmarks.relevance import DEFAULT_ROOT, load

SETS = Path(__file__).parent / "relevance"
ANSWERABLE = ("tuning.jsonl", "heldout.jsonl", "heldout2.jsonl")
THRESHOLDS = [round(0.3 + 0.05 * n, 2) for n in range(13)]


def run(root: Path) -> dict[str, Any]:
    """Each question's first page, whether it answers, and its confidence."""
    from pdfindex import PdfIndex, load_settings
    from pdfindex.ranking import CLEAR_ANSWER, rank

    index = PdfIndex(load_settings({}, root=root))
    rows = []
    try:
        index.reindex()
        slugs = {r.path.rsplit(".", 1)[0]: r.slug for r in index.engine.catalog().values()}
        questions = [("unanswerable", e) for e in load(SETS / "unanswerable.jsonl")]
        questions += [(name.split(".")[0], e) for name in ANSWERABLE for e in load(SETS / name)]
        for group, entry in questions:
            found = rank(index, entry["query"], 10, snippets=False)
            first = (found.hits[0].slug, found.hits[0].page) if found.hits else None
            document = slugs.get(entry.get("document", ""), entry.get("document"))
            rows.append(
                {
                    "set": group,
                    "id": entry["id"],
                    "kind": entry.get("kind", "question"),
                    "confidence": found.confidence,
                    "right_page": bool(first)
                    and first[0] == document
                    and first[1] in entry.get("pages", []),
                    "right_document": bool(first) and first[0] == document,
                    "corrected": found.corrected,
                    "first": first,
                }
            )
    finally:
        index.close()
    return {"root": str(root), "threshold": CLEAR_ANSWER, "rows": rows, "sweep": sweep(rows)}


def sweep(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per threshold and set: false confidence on the unanswerable questions; answerable
    questions below it, those whose first page was right and those whose was wrong."""
    out = []
    for threshold in THRESHOLDS:
        line: dict[str, Any] = {"threshold": threshold}
        for group in ("unanswerable", *(n.split(".")[0] for n in ANSWERABLE)):
            mine = [r for r in rows if r["set"] == group]
            low = [r for r in mine if r["confidence"] < threshold]
            if group == "unanswerable":
                line["false_confidence"] = 1 - len(low) / len(mine)
                continue
            right = [r for r in mine if r["right_page"]]
            wrong = [r for r in mine if not r["right_page"]]
            line[group] = {
                "right_flagged": sum(r in low for r in right) / max(1, len(right)),
                "wrong_flagged": sum(r in low for r in wrong) / max(1, len(wrong)),
            }
        out.append(line)
    return out


def table(result: dict[str, Any]) -> str:
    lines = [
        "| threshold | false confidence (30 unanswerable) | "
        + " | ".join(
            f"{n.split('.')[0]}: right first page flagged / wrong flagged" for n in ANSWERABLE
        )
        + " |",
        "|---:|---:|" + "---:|" * len(ANSWERABLE),
    ]
    for line in result["sweep"]:
        sets = [line[n.split(".")[0]] for n in ANSWERABLE]
        cells = [f"{c['right_flagged']:.2f} / {c['wrong_flagged']:.2f}" for c in sets]
        mark = " ←" if line["threshold"] == result["threshold"] else ""
        lines.append(
            f"| {line['threshold']:.2f}{mark} | {line['false_confidence']:.2f} | "
            + " | ".join(cells)
            + " |"
        )
    by_set: dict[str, list[float]] = {}
    for row in result["rows"]:
        by_set.setdefault(row["set"], []).append(row["confidence"])
    lines.append("")
    lines += [
        f"- {name}: {len(v)} questions, median confidence {statistics.median(v):.2f}"
        for name, v in by_set.items()
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="an indexed root")
    parser.add_argument("--json", type=Path, default=None, help="write every figure here")
    args = parser.parse_args(argv)
    result = run(args.root)
    print(table(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
