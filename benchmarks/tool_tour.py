"""Every MCP tool called once through the SDK's stdio client, with its response shortened
and timed: a transcript of what an agent sees, and get_page_image's cold and cached cost.

python -m benchmarks.tool_tour [--files files] [--width 160]

Works on a copy of the files folder in a temporary root (a fresh index), so the first
calls also show the start-up scan.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

CALLS: list[tuple[str, dict[str, Any]]] = [
    (
        "search_pdf",
        {
            "pdf_name": "research/attention-notes",
            "query": "multi-head",
            "topk": 2,
            "context_length": 80,
        },
    ),
    ("fuzzy_search", {"query": "atention sofmax", "max_results": 2}),
    (
        "search_in_file",
        {"file": "recipes.pdf", "pattern": r"\b(cup|spoon) of \w+", "context_lines": 0},
    ),
    ("extract_pdf_page", {"file": "storage-report.pdf", "pages": [3]}),
    ("list_searchable_files", {}),
    ("read_pdf", {"sources": [{"path": "scanned-memo.pdf", "pages": "1"}]}),
    ("search_documents", {"query": "tomato soup", "limit": 2}),
    ("find_document", {"query": "atention"}),
    ("list_documents", {}),
    ("list_documents_paginated", {"page": 1, "page_size": 2, "sort_by": "page_count"}),
    ("get_document_info", {"document_slug": "storage_report"}),
    ("get_library_status", {}),
    # seed 004's example workflow
    ("search_visual_elements", {"query": "system architecture diagram", "limit": 2}),
    ("get_element_image", {"document_slug": "storage_report", "element_label": "Figure 4"}),
    ("get_element_details", {"document_slug": "storage_report", "element_label": "Table 2"}),
    ("get_page_image", {"document_slug": "storage_report", "page_number": 6}),
    # seed 002
    ("process_document", {"file_path": "recipes.pdf"}),
    ("query_documents", {"query": "How long does the soup simmer?", "top_k": 2}),
    ("list_sessions", {}),
]


def shorten(result: Any, width: int) -> str:
    """Text parts (and structured content) cut to `width`; images as their size."""
    parts = []
    if result.structured_content is not None and not any(c.type == "image" for c in result.content):
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    else:
        for content in result.content:
            if content.type == "text":
                parts.append(content.text)
            elif content.type == "image":
                parts.append(
                    f"<ImageContent {content.mime_type}, {len(content.data) * 3 // 4:,} B>"
                )
    text = " ⏎ ".join(" ".join(p.split()) for p in parts)
    error = "ERROR " if result.is_error else ""
    return error + (text if len(text) <= width else text[: width - 1] + "…")


async def tour(root: Path, width: int) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pdfindex.cli", "serve", "--root", str(root)],
        env=dict(os.environ),
    )
    timings: dict[str, Any] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name for t in (await session.list_tools()).tools}
        print(f"{len(tools)} tools: {', '.join(sorted(tools))}\n")
        for name, args in CALLS:
            started = time.perf_counter()
            result = await session.call_tool(name, args)
            ms = (time.perf_counter() - started) * 1000
            print(f"{name}({json.dumps(args, ensure_ascii=False)})  [{ms:.0f} ms]")
            print(f"  → {shorten(result, width)}\n")
        cold, cached = [], []
        for page in (1, 2, 3, 4, 5):
            for bucket in (cold, cached):
                started = time.perf_counter()
                await session.call_tool(
                    "get_page_image", {"document_slug": "storage_report", "page_number": page}
                )
                bucket.append((time.perf_counter() - started) * 1000)
        timings["get_page_image_cold_ms"] = round(statistics.median(cold), 1)
        timings["get_page_image_cached_ms"] = round(statistics.median(cached), 1)
        resources = [str(r.uri) for r in (await session.list_resources()).resources]
        timings["resources"] = resources
    return timings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tool_tour")
    parser.add_argument("--files", type=Path, default=Path("files"))
    parser.add_argument("--width", type=int, default=160)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(args.files, Path(tmp) / "files")
        timings = anyio.run(tour, Path(tmp), args.width)
    print(
        "get_page_image, median of 5 pages (150 dpi): "
        f"cold {timings['get_page_image_cold_ms']} ms, "
        f"cached {timings['get_page_image_cached_ms']} ms"
    )
    print(f"resources: {', '.join(timings['resources'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
