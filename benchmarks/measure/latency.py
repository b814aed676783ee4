"""5. Query latency through the library, in-process: every query kind, p50/p95/p99."""

from __future__ import annotations

from typing import Any

from benchmarks.measure.common import RANKED_KINDS, Plan, log
from benchmarks.measure.queries import Queries
from benchmarks.measure.stats import sample_call
from pdfindex.api import PdfIndex
from pdfindex.tools.exact import search_pdf
from pdfindex.tools.grep import search_in_file


def measure_queries_api(index: PdfIndex, queries: Queries, plan: Plan) -> dict[str, dict]:
    """`PdfIndex.search` for the ranked kinds, `search_pdf` and `PdfIndex.exact` for the
    exact ones, `search_in_file` for the regex."""
    out: dict[str, dict] = {}
    for kind in RANKED_KINDS:
        text = queries.texts[kind]
        log(f"queries (API): {kind} {text!r}")
        stats, (hits, _) = sample_call(lambda t=text: index.search(t, limit=10), plan)
        out[kind] = {"query": text, "document": None, "hits": hits, "api": stats}
    text = queries.texts["exact_one_doc"]
    log(f"queries (API): exact_one_doc {text!r} in {queries.document}")
    stats, found = sample_call(lambda: search_pdf(index, queries.document, text), plan)
    out["exact_one_doc"] = {
        "query": text,
        "document": queries.document,
        "document_pages": queries.document_pages,
        "hits": len(found["matches"]),
        "api": stats,
    }
    text = queries.texts["exact_all_docs"]
    log(f"queries (API): exact_all_docs {text!r}")
    stats, (matches, more) = sample_call(lambda: index.exact(text, document=None, limit=10), plan)
    out["exact_all_docs"] = {"query": text, "document": None, "hits": len(matches), "api": stats}
    out["exact_all_docs"]["more_than_limit"] = more
    pattern = queries.texts["regex_one_doc"]
    log(f"queries (API): regex_one_doc {pattern!r} in {queries.document}")
    stats, lines = sample_call(lambda: search_in_file(index, queries.document_path, pattern), plan)
    hits: Any = lines.get("total_matches", len(lines.get("matches", [])))
    out["regex_one_doc"] = {
        "query": pattern,
        "document": queries.document,
        "hits": hits,
        "api": stats,
    }
    return out
