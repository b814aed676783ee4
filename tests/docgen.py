"""README blocks generated from the code: the MCP tool reference (from the server's own
`list_tools()` and `list_resources()`), the settings table (from `pdfindex.config`) and
the CLI reference (`--help`, rendered by `tests/clidoc.py`).

Each block sits between marker comments in README.md (`<!-- tools:start -->` ...
`<!-- tools:end -->`); `tests/test_readme.py` fails when a block differs from what this
module renders now. To rewrite the blocks in place:

    python -m tests.docgen                       # or
    UPDATE_README=1 pytest tests/test_readme.py
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

from pdfindex.config import EVERY_COMMAND, SETTINGS, Setting
from tests.clidoc import render_cli

README = Path(__file__).resolve().parents[1] / "README.md"

# -- the tool reference ------------------------------------------------------------


def server_listing() -> tuple[list[Any], list[Any]]:
    """The tools and resources the MCP server lists, from a server built in-process on an
    empty temporary root (listing needs no lifespan: nothing is opened or indexed)."""
    from pdfindex.config import load_settings
    from pdfindex.server import build_server

    with tempfile.TemporaryDirectory() as root:
        server = build_server(load_settings(root=root), watch=False)

        async def listing() -> tuple[list[Any], list[Any]]:
            return await server.list_tools(), await server.list_resources()

        return anyio.run(listing)


def _cell(text: str) -> str:
    """One Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _first_paragraph(text: str | None) -> str:
    paragraphs = re.split(r"\n\s*\n", (text or "").strip())
    return " ".join(paragraphs[0].split())


def _bounds(schema: dict[str, Any]) -> str:
    """Limits of a value: '1–100', '≥ 0', '1–2000 chars', 'at most 50 items'."""

    def span(low: Any, high: Any, unit: str) -> str:
        if low is not None and high is not None:
            return f"{low}–{high}{unit}"
        if low is not None:
            return f"≥ {low}{unit}" if unit == "" else f"at least {low}{unit}"
        if high is not None:
            return f"≤ {high}{unit}" if unit == "" else f"at most {high}{unit}"
        return ""

    parts = [
        span(schema.get("minimum"), schema.get("maximum"), ""),
        span(schema.get("minLength"), schema.get("maxLength"), " chars"),
        span(schema.get("minItems"), schema.get("maxItems"), " items"),
    ]
    return ", ".join(p for p in parts if p)


def type_of(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> str:
    """A JSON schema as a short type: `integer 1–100`, `string or null`, `array of integer`,
    `one of "a", "b"`, or the name of a referenced model (its values, for an enum)."""
    defs = defs or {}
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return type_of(defs[name], defs) if "enum" in defs.get(name, {}) else name
    if "anyOf" in schema:
        branches = [s for s in schema["anyOf"] if s.get("type") != "null"]
        text = " or ".join(type_of(s, defs) for s in branches)
        return text + (" or null" if len(branches) < len(schema["anyOf"]) else "")
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v) for v in schema["enum"])
    kind = schema.get("type", "any")
    if isinstance(kind, list):  # ["string", "null"]: an optional value, written compactly
        bare = {key: value for key, value in schema.items() if key != "type"}
        return " or ".join(k if k == "null" else type_of({**bare, "type": k}, defs) for k in kind)
    if kind == "array":
        kind = f"array of {type_of(schema.get('items', {}), defs)}"
    bounds = _bounds(schema)
    if not bounds:
        return kind
    return f"{kind} {bounds}" if kind in ("integer", "number") else f"{kind}, {bounds}"


def _referenced(schema: dict[str, Any]) -> str | None:
    """The model a property refers to (directly, as array items or in a union)."""
    for candidate in [schema, schema.get("items", {}), *schema.get("anyOf", [])]:
        if "$ref" in candidate:
            return candidate["$ref"].rsplit("/", 1)[-1]
        if candidate is not schema and candidate.get("items", {}).get("$ref"):
            return candidate["items"]["$ref"].rsplit("/", 1)[-1]
    return None


def _argument_lines(schema: dict[str, Any], defs: dict[str, Any], prefix: str = "") -> list[str]:
    """One bullet per argument: name, type, default (or required), description; the fields
    of a referenced model follow their argument (`sources[].path`)."""
    lines = []
    required = set(schema.get("required", []))
    for name, prop in schema.get("properties", {}).items():
        if "default" in prop:
            default = f"default `{json.dumps(prop['default'])}`"
        else:
            default = "required" if name in required else "optional"
        shown = f"{prefix}{name}"
        description = " ".join(prop.get("description", "").split())
        kind = type_of(prop, defs)
        lines.append(f"- `{shown}` ({kind}; {default}): {description}".rstrip(": "))
        model = _referenced(prop)
        if model and model in defs:
            inner = "[]." if prop.get("type") == "array" else "."
            lines += _argument_lines(defs[model], defs, f"{shown}{inner}")
    return lines


def _hints(annotations: Any) -> str:
    """What a tool does to the world, from its MCP annotations."""
    if annotations is None:
        return "No annotations."
    if annotations.read_only_hint:
        return "Read-only."
    words = ["Changes state"]
    words.append("destructive" if annotations.destructive_hint else "not destructive")
    if annotations.idempotent_hint:
        words.append("idempotent")
    if annotations.open_world_hint:
        words.append("open world")
    return ", ".join(words) + "."


def _shape(schema: dict[str, Any], defs: dict[str, Any], depth: int) -> str:
    """An object's keys, nested objects (and lists of objects) spelled out `depth` levels
    down: `{status, document_info: {id, file_name}, sessions: [{session_id}]}`."""
    schema = next((s for s in schema.get("anyOf", []) if s.get("type") != "null"), schema)
    if "$ref" in schema:
        schema = defs.get(schema["$ref"].rsplit("/", 1)[-1], {})
    if schema.get("type") == "array":
        inner = _shape(schema.get("items", {}), defs, depth)
        return f"[{inner}]" if inner else ""
    props = schema.get("properties")
    if not props or depth == 0:
        return ""
    parts = []
    for name, prop in props.items():
        inner = _shape(prop, defs, depth - 1)
        parts.append(f"{name}: {inner}" if inner else name)
    return "{" + ", ".join(parts) + "}"


def _returns(output_schema: dict[str, Any] | None) -> str:
    """The answer's shape when the tool declares one (nested keys two levels down), else
    text."""
    if not output_schema or not output_schema.get("properties"):
        return "text"
    props = output_schema["properties"]
    if list(props) == ["result"] and props["result"].get("type") == "string":
        return "text"
    return "`" + _shape(output_schema, output_schema.get("$defs", {}), 3) + "`"


def _result_schema(name: str) -> dict[str, Any] | None:
    """The whole shape of a JSON tool's answer, from its result type (the advertised
    output schema stops one level down to keep tools/list short)."""
    import inspect

    from pydantic import TypeAdapter
    from typing_extensions import is_typeddict

    from pdfindex.server.tools import TOOLS

    (fn,) = [fn for fn, _hints, _structured in TOOLS if fn.__name__ == name]
    returns = inspect.signature(fn, eval_str=True).return_annotation
    return TypeAdapter(returns).json_schema() if is_typeddict(returns) else None


def render_tool(tool: Any) -> str:
    from pdfindex.server.errors import ERROR_FORMS, TOOL_ERROR

    schema = tool.input_schema or {}
    text = f"{_first_paragraph(tool.description)} *{_hints(tool.annotations)}*"
    returns = _returns(_result_schema(tool.name) if tool.output_schema else None)
    if returns == "text" and "PNG image" in (tool.description or ""):
        returns = "text and a PNG image (`ImageContent`)"
    text += f" Returns {returns}."
    text += f" Errors (`isError`): {ERROR_FORMS.get(tool.name, TOOL_ERROR)}."
    lines = [f"#### `{tool.name}` — {tool.title}", "", text, ""]
    arguments = _argument_lines(schema, schema.get("$defs", {}))
    if "anyOf" in schema:
        one_of = " or ".join(f"`{r['required'][0]}`" for r in schema["anyOf"])
        arguments.append(f"- Give {one_of}.")
    lines += [*arguments, ""] if arguments else ["No arguments.", ""]
    return "\n".join(lines)


def render_tools() -> str:
    tools, resources = server_listing()
    lines = [
        f"{len(tools)} tools and {len(resources)} resources, as the server's `list_tools()` "
        "and `list_resources()` describe them (generated by `tests/docgen.py`).",
        "",
    ]
    lines += [render_tool(t) for t in tools]
    lines += ["#### Resources", ""]
    lines += [
        f"- `{r.uri}` ({r.mime_type or 'text'}): {_first_paragraph(r.description)}"
        for r in resources
    ]
    return "\n".join(lines)


# -- the settings table ------------------------------------------------------------


def _flag(row: Setting) -> str:
    if not row.flag:
        return "—"
    return f"`{row.option}`" if row.flag == EVERY_COMMAND else f"`{row.flag} {row.option}`"


def setting_rows() -> list[tuple[str, str, str, str, str]]:
    """(setting, flag, environment, default, help): the settings table, pdfindex.config."""
    return [
        (
            row.name,
            _flag(row),
            f"`{row.env}`",
            row.shown_default if row.name == "root" else f"`{row.shown_default}`",
            row.help,
        )
        for row in SETTINGS.values()
    ]


def render_settings() -> str:
    lines = ["| setting | flag | environment | default | what it sets |", "|---|---|---|---|---|"]
    lines += [
        f"| `{name}` | {flag} | {env} | {default} | {_cell(text)} |"
        for name, flag, env, default, text in setting_rows()
    ]
    return "\n".join(lines)


# -- the README blocks --------------------------------------------------------------

BLOCKS: dict[str, Callable[[], str]] = {
    "settings": render_settings,
    "tools": render_tools,
    "cli": render_cli,  # tests/clidoc.py
}


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def block(text: str, name: str) -> str:
    """The text between a block's markers (KeyError when the markers are missing)."""
    start, end = markers(name)
    found = re.search(re.escape(start) + r"\n(.*?)" + re.escape(end), text, re.DOTALL)
    if found is None:
        raise KeyError(f"README.md has no {start} ... {end} block")
    return found.group(1)


def with_block(text: str, name: str, body: str) -> str:
    """`text` with the block `name` replaced by `body`."""
    start, end = markers(name)
    block(text, name)  # the markers must be there
    pattern = re.escape(start) + r"\n.*?" + re.escape(end)
    return re.sub(pattern, lambda _m: f"{start}\n{body}\n{end}", text, count=1, flags=re.DOTALL)


def regenerated(text: str) -> str:
    """The README text with every generated block rendered from the code as it is now."""
    for name, render in BLOCKS.items():
        text = with_block(text, name, render())
    return text


def main() -> int:
    text = README.read_text(encoding="utf-8")
    new = regenerated(text)
    if new != text:
        README.write_text(new, encoding="utf-8")
        print(f"rewrote the generated blocks of {README}", file=sys.stderr)
    else:
        print(f"{README} is up to date", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
