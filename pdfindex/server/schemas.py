"""The tools' JSON schemas as short as their meaning allows: every token of `tools/list`
sits in an agent's context for the whole conversation.

pydantic writes, for every property and class, a `title` made from its name ("Pdf Name"),
`anyOf [X, {type: null}]` and `default: null` for an optional value,
`additionalProperties: true` on every open class (the default) and each class's
docstring as its description. None of it says anything the name, the type or the tool's
description does not; what is left accepts and refuses the same arguments.
"""

from __future__ import annotations

from typing import Any

_SCHEMA_MAPS = ("properties", "$defs", "patternProperties")  # name -> schema
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")  # [schema, ...]
_SCHEMA_ONE = ("items", "additionalProperties", "not", "contains")  # one schema


def compact(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` without generated titles, with `type: [X, "null"]` for an optional plain
    value (an input schema: its descriptions are the arguments' help)."""
    return _node(schema, descriptions=True, root=True)


def compact_output(schema: dict[str, Any]) -> dict[str, Any]:
    """An output schema as advertised: the answer's keys, their types and which are always
    there, one level deep (a nested object or list of objects is said to be one).

    Each answer is still checked against its whole result type (tools/results.py) before
    it is sent; the nested shapes are in the README. What is left out: the classes'
    docstrings and the nested keys, which a client reads in the answer itself (output
    schemas were half of tools/list's 42,719 bytes before issue 28)."""
    short = _node(schema, descriptions=False, root=True)
    defs = short.pop("$defs", {})
    return {
        key: {name: _shallow(sub, defs) for name, sub in value.items()}
        if key == "properties"
        else value
        for key, value in short.items()
    }


_REF = "#/$defs/"


def _shallow(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """A property's schema with a nested object said as `{type: object}`."""
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_REF):
        rest = {key: value for key, value in node.items() if key != "$ref"}
        node = {**defs.get(ref[len(_REF) :], {}), **rest}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("properties", "required") or (key == "additionalProperties" and value is True):
            continue
        if key == "items" and isinstance(value, dict):
            out[key] = _shallow(value, defs)
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_shallow(sub, defs) for sub in value]
        else:
            out[key] = value
    return out


def _node(node: dict[str, Any], descriptions: bool, root: bool = False) -> dict[str, Any]:
    """One schema and those inside it, less what pydantic generates (module docstring)."""
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "description" and not descriptions:
            continue
        if key == "default" and value is None:
            continue  # an optional argument left out is None: not being required says it
        if key == "additionalProperties" and value is True and not root:
            continue  # open is the default; the root says it once for the whole answer
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _node(sub, descriptions) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_node(sub, descriptions) for sub in value]
        elif key in _SCHEMA_ONE and isinstance(value, dict):
            out[key] = _node(value, descriptions)
        else:
            out[key] = value
    return _nullable(out)


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    """`anyOf: [{type: X, limits...}, {type: null}]` as `type: [X, "null"]` with the same
    limits (JSON Schema applies a string's or array's limits to strings or arrays only);
    a branch with an enum, a const or a reference stays as it is (null is not among them)."""
    branches = node.get("anyOf")
    if not isinstance(branches, list) or len(branches) != 2 or {"type": "null"} not in branches:
        return node
    (other,) = [branch for branch in branches if branch != {"type": "null"}]
    if not isinstance(other.get("type"), str) or other.keys() & {"enum", "const", "$ref"}:
        return node
    if other.keys() & (node.keys() - {"anyOf"}):
        return node  # the same keyword on both levels: not one schema
    merged = {key: value for key, value in node.items() if key != "anyOf"}
    return {**other, "type": [other["type"], "null"], **merged}
