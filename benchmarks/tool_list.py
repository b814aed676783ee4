"""What the tool list costs an agent's context: `tools/list` of a real `pdfindex serve`,
through the SDK's stdio client, in bytes and tokens, in all and per tool.

python -m benchmarks.tool_list [--files files] [--per-tool]

Tokens are counted with OpenAI's cl100k_base encoding when `tiktoken` (with its
encoding files at hand) or `bpe-openai` (which ships them) is installed, else estimated
as characters / 4; the output says which. The size is the JSON of the `tools` list as the
server sends it (the SDK's `model_dump(by_alias=True, exclude_none=True)`, compact).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters


def token_counter() -> tuple[str, Callable[[str], int]]:
    """(name of the count, the count): cl100k_base when a tokenizer is installed."""
    try:
        import bpe_openai

        encoding = bpe_openai.get_encoding("cl100k_base")
        return "cl100k_base tokens (bpe-openai)", lambda text: len(encoding.encode(text))
    except ImportError:
        pass
    try:
        import tiktoken

        encoding = tiktoken.get_encoding("cl100k_base")
        return "cl100k_base tokens (tiktoken)", lambda text: len(encoding.encode(text))
    except Exception:  # not installed, or its encoding files cannot be downloaded
        return "tokens estimated as characters / 4", lambda text: len(text) // 4


async def list_tools(root: Path) -> list[dict[str, Any]]:
    """The tools of `pdfindex serve --root ROOT`, as the server sent them."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pdfindex.cli", "serve", "--root", str(root), "--no-watch"],
        env=dict(os.environ),
    )
    async with Client(params) as client:
        tools = (await client.list_tools()).tools
    return [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in tools]


def sizes(tools: list[dict[str, Any]]) -> dict[str, Any]:
    """Bytes and tokens of the whole list and of each tool."""
    name, count = token_counter()
    whole = json.dumps({"tools": tools}, separators=(",", ":"), ensure_ascii=False)
    per_tool = {}
    for tool in tools:
        text = json.dumps(tool, separators=(",", ":"), ensure_ascii=False)
        per_tool[tool["name"]] = {"bytes": len(text.encode()), "tokens": count(text)}
    return {
        "tools": len(tools),
        "bytes": len(whole.encode()),
        "tokens": count(whole),
        "token_count": name,
        "per_tool": per_tool,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", default="files", help="folder copied as the files folder")
    parser.add_argument("--per-tool", action="store_true", help="also each tool's size")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        shutil.copytree(args.files, root / "files")
        result = sizes(anyio.run(list_tools, root))
    print(
        f"tools/list: {result['tools']} tools, {result['bytes']:,} bytes, "
        f"{result['tokens']:,} {result['token_count']}"
    )
    if args.per_tool:
        ranked = sorted(result["per_tool"].items(), key=lambda kv: -kv[1]["bytes"])
        for tool, size in ranked:
            print(f"  {tool:26} {size['bytes']:6,} bytes {size['tokens']:6,} tokens")


if __name__ == "__main__":
    main()
