"""`python -m benchmarks.conversations [--root DIR] [--set FILE]`: whether
query_documents' follow-ups keep their session's topic (issue 27).

Reads a set of two-turn conversations judged by hand (`relevance/conversations.jsonl`:
{"id", "kind": "followup" | "switch", "turns": [{"query", "document", "pages"}, ...]}),
and asks each second turn twice, in-process, through the real tool:
- `alone`: in a new session, as if the first turn had not been asked;
- `session`: after the first turn (top_k 5, as an agent asks) in the same session.
A follow-up's answer is in the first turn's document; a switch names another document,
where its answer is. Per mode and kind: the second turn's page hit@1, hit@10 and MRR@10
(the distinct pages of its 20 passages) and document MRR@10, as `benchmarks.relevance`
counts them. The code measured is the one imported: run it from an older checkout for
the figures before a change.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.relevance import DEFAULT_ROOT, DEPTH, load, rank, summary

DEFAULT_SET = Path(__file__).parent / "relevance" / "conversations.jsonl"
MODES = ("alone", "session")
FIRST_TOP_K = 5


def pages_of(answer: dict[str, Any]) -> list[tuple[str, int]]:
    """The distinct (slug, page) of an answer's sources, best first, at most DEPTH."""
    found = [(s["metadata"]["document_id"], s["metadata"]["page"]) for s in answer["sources"]]
    return list(dict.fromkeys(found))[:DEPTH]


def run(root: Path, conversations: list[dict[str, Any]]) -> dict[str, Any]:
    """Every conversation's second turn, alone and in its session: rows and summaries."""
    from pdfindex import PdfIndex, load_settings
    from pdfindex.tools.passages import query_documents
    from pdfindex.tools.sessions import SessionStore

    index = PdfIndex(load_settings({}, root=root))
    rows: list[dict[str, Any]] = []
    try:
        index.reindex()
        slugs = {r.path.rsplit(".", 1)[0]: r.slug for r in index.engine.catalog().values()}
        for talk in conversations:  # the set names documents by their file's stem
            for turn in talk["turns"]:
                turn["document"] = slugs.get(turn["document"], turn["document"])
        with tempfile.TemporaryDirectory() as scratch:
            sessions = SessionStore(Path(scratch))
            query_documents(index, sessions, "warm up")
            for talk in conversations:
                first, second = talk["turns"][:2]
                for mode in MODES:
                    session_id = None
                    if mode == "session":
                        opened = query_documents(index, sessions, first["query"], top_k=FIRST_TOP_K)
                        session_id = opened["session_id"]
                    started = time.perf_counter()
                    answer = query_documents(index, sessions, second["query"], session_id, 20)
                    ms = (time.perf_counter() - started) * 1000
                    found = pages_of(answer)
                    page, document = rank(found, second)
                    rows.append(
                        {
                            "id": talk["id"],
                            "kind": talk["kind"],
                            "mode": mode,
                            "tool": "query_documents",
                            "page_rank": page,
                            "document_rank": document,
                            "ms": round(ms, 2),
                            "found": found[:3],
                            "topic": answer["query_metadata"].get("topic"),
                        }
                    )
        pages = index.stats()["pages"]
    finally:
        index.close()
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        for kind in (row["kind"], "all"):
            groups.setdefault((row["mode"], kind), []).append(row)
    summaries = [
        {"mode": mode, "kind": kind, **summary(group)} for (mode, kind), group in groups.items()
    ]
    return {"root": str(root), "pages": pages, "rows": rows, "summaries": summaries}


def table(result: dict[str, Any]) -> str:
    """The summaries as a Markdown table."""
    lines = [
        f"{result['pages']} pages; second turns of {len(result['rows']) // len(MODES)} "
        "conversations.",
        "",
        "| mode | kind | n | page hit@1 | page hit@10 | page MRR@10 | doc MRR@10 | p50 ms |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for s in sorted(result["summaries"], key=lambda s: (s["kind"], s["mode"])):
        lines.append(
            f"| {s['mode']} | {s['kind']} | {s['n']} | {s['hit@1']:.2f} | {s['hit@10']:.2f} | "
            f"{s['mrr@10']:.2f} | {s['doc_mrr@10']:.2f} | {s['p50_ms']:.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="an indexed root")
    parser.add_argument("--set", type=Path, default=DEFAULT_SET, help="conversations JSONL")
    parser.add_argument("--json", type=Path, default=None, help="write every figure here")
    parser.add_argument("--misses", action="store_true", help="list the session mode's misses")
    args = parser.parse_args(argv)
    conversations = load(args.set)
    if not conversations:
        sys.exit(f"{args.set} holds no conversations")
    result = run(args.root, conversations)
    print(table(result))
    if args.misses:
        talks = {t["id"]: t for t in conversations}
        for row in result["rows"]:
            if row["mode"] == "session" and row["page_rank"] != 1:
                second = talks[row["id"]]["turns"][1]
                print(
                    f"{row['id']} {row['kind']} rank {row['page_rank']} doc "
                    f"{row['document_rank']}: {second['query']} -> {second['document']} "
                    f"{second['pages']}; got {row['found']} topic {row['topic']}"
                )
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
