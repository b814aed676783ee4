"""The MCP protocol around the tools: strict argument schemas, errors raised before or
after a tool's own code, and an answer to every line the stdio transport cannot read."""

from __future__ import annotations

import inspect
import json
import logging
import re
import time
from collections.abc import Callable
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    CallToolResult,
    ErrorData,
    JSONRPCError,
    JSONRPCResponse,
    TextContent,
    ToolAnnotations,
)
from pydantic import ConfigDict, ValidationError

from pdfindex.server.errors import (
    ERROR_CHARS,
    crash_message,
    echo,
    error_result,
    invalid_arguments,
)
from pdfindex.server.lanes import in_lane, received_at
from pdfindex.server.schemas import compact, compact_output

log = logging.getLogger("pdfindex.server")  # one name for the session log's call lines
_UNWRAP = re.compile(r"(?<!\n)\n(?!\n)")  # a docstring's line breaks inside a paragraph


def strict_tool(
    fn: Callable[..., Any],
    hints: ToolAnnotations,
    structured: bool | None,
    one_of: list[str] | None = None,
) -> Tool:
    """A tool whose arguments refuse unknown names (the SDK's own model ignores them),
    with a description free of docstring indentation; `one_of`: arguments of which the
    input schema requires one (what a function signature cannot say)."""
    tool = Tool.from_function(
        fn,
        title=hints.title,
        description=_UNWRAP.sub(" ", inspect.cleandoc(fn.__doc__ or "")),
        annotations=hints.model_copy(update={"title": None}),  # the tool's title says it
        structured_output=structured,
    )
    tool.fn, tool.is_async = in_lane(fn), True  # its own thread lane (LANES)
    loose = tool.fn_metadata.arg_model
    closed = type(loose.__name__, (loose,), {"model_config": ConfigDict(extra="forbid")})
    tool.fn_metadata.arg_model = closed
    tool.parameters = compact(closed.model_json_schema(by_alias=True))
    if tool.fn_metadata.output_schema is not None:
        tool.fn_metadata.output_schema = compact_output(tool.fn_metadata.output_schema)
    if one_of:
        tool.parameters["anyOf"] = [{"required": [name]} for name in one_of]
    return tool


class PdfIndexServer(MCPServer):
    """MCPServer with pdfindex's one error rule also for what happens before or after a
    tool's own code: arguments that fail the schema, and answers that fail conversion."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> Any:
        received_at.set(time.monotonic())  # the call's time limit starts now (in_lane)
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:
            log.error("tool %s failed after its code ran", name, exc_info=exc.__cause__)
            cause = exc.__cause__ or exc
            return error_result(name, "ProcessingError", crash_message(cause, None))
        except ToolError as exc:
            tool = self._tool_manager.get_tool(name)
            if tool is None or not isinstance(exc.__cause__, ValidationError):
                raise
            message, details = invalid_arguments(exc.__cause__, tool.parameters)
            log.info("invalid arguments %s: %s", name, message)
            return error_result(name, "ValidationError", message, details, arguments)

    async def run_stdio_async(self) -> None:
        """The SDK's stdio loop, with a reply to every line it cannot read (AnsweringReader)."""
        async with stdio_server() as (read_stream, write_stream):
            await self._lowlevel_server.run(
                AnsweringReader(read_stream, write_stream),
                write_stream,
                self._lowlevel_server.create_initialization_options(),
            )


# -- every line gets an answer ---------------------------------------------------------

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class AnsweringReader:
    """The stdio transport's read stream, less the lines it could not read: the SDK only
    logs those, so a client without a timeout of its own waited forever. Invalid JSON
    gets JSON-RPC's parse error (-32700, id null); a request holding a lone surrogate
    ("\\ud800" is legal JSON but no text) an error naming its argument; another line
    that is not a JSON-RPC message, -32600 with its id. Malformed notifications and
    responses are logged, as JSON-RPC answers neither."""

    def __init__(self, inner: Any, write_stream: Any) -> None:
        self._inner, self._write = inner, write_stream

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            answer = unreadable_answer(item)
            if answer is None:
                continue
            try:
                await self._write.send(SessionMessage(answer))
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                log.info("no answer sent to an unreadable line: the connection is closed")

    def __aiter__(self) -> AnsweringReader:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    def close(self) -> None:
        self._inner.close()

    async def __aenter__(self) -> AnsweringReader:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()


def unreadable_answer(exc: Exception) -> JSONRPCError | JSONRPCResponse | None:
    """The reply to a line the transport could not read as a message (`exc`, its
    pydantic error, holds the line or what it parsed to); None when JSON-RPC wants none."""
    problems = exc.errors() if isinstance(exc, ValidationError) else []
    line = next((p["input"] for p in problems if p["type"] == "json_invalid"), None)
    if not isinstance(line, str):
        parsed = next((p["input"] for p in problems if isinstance(p.get("input"), dict)), None)
        return _not_a_message(parsed, problems, exc)
    try:
        message = json.loads(line)
    except (ValueError, RecursionError) as bad:
        log.info("unreadable line answered with a parse error: %s", bad)
        return _rpc_error(None, PARSE_ERROR, f"Parse error: the line is not valid JSON ({bad})")
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return _not_a_message(message, problems, exc)
    if "id" not in message:
        log.info("a notification holding invalid text was dropped: %s", message["method"])
        return None
    request_id = _usable_id(message["id"])
    found = _lone_surrogate(message.get("params"), ["params"])
    if found is None:  # something else jiter refuses and Python's json takes: NaN, Infinity
        cause = problems[0]["msg"] if problems else str(exc)
        return _rpc_error(request_id, PARSE_ERROR, f"Parse error: {cause}")
    path, text = found
    problem = _surrogate_problem(text)
    params = message.get("params")
    tool = params.get("name") if isinstance(params, dict) else None
    if message["method"] == "tools/call" and path[1:2] == ["arguments"] and len(path) > 2:
        if isinstance(tool, str) and not _LONE_SURROGATE.search(tool):
            named = {str(path[2]): text}  # get_document_info: the seed its argument names
            result = error_result(
                tool, "ValidationError", f"{_path_text(path[2:])}: {problem}", None, named
            )
            log.info("error %s %s", tool, text_of_result(result))
            shown = result.model_dump(by_alias=True, mode="json", exclude_none=True)
            shown.pop("resultType", None)  # as the SDK sends results in the handshake era
            return JSONRPCResponse(jsonrpc="2.0", id=request_id, result=shown)
    return _rpc_error(request_id, INVALID_PARAMS, f"{_path_text(path)}: {problem}")


def text_of_result(result: CallToolResult) -> str:
    return " ".join(c.text for c in result.content if isinstance(c, TextContent))


def _not_a_message(
    parsed: Any, problems: list[Any], exc: Exception
) -> JSONRPCError | JSONRPCResponse | None:
    """-32600 for valid JSON that is no JSON-RPC message; None for a malformed response
    or notification (neither is answered)."""
    if isinstance(parsed, dict):
        response = "method" not in parsed and ("result" in parsed or "error" in parsed)
        if response or ("method" in parsed and "id" not in parsed):  # notification
            log.info("a malformed response or notification was dropped: %s", exc)
            return None
    request_id = _usable_id(parsed.get("id")) if isinstance(parsed, dict) else None
    request = [p for p in problems if p["loc"][:1] == ("JSONRPCRequest",)] or problems
    cause = ", ".join(
        f"{'.'.join(str(part) for part in p['loc'][1:]) or 'message'}: {p['msg']}"
        for p in request[:3]
    )
    log.info("an invalid request was answered: %s", cause)
    return _rpc_error(
        request_id,
        INVALID_REQUEST,
        f"Invalid Request: not a JSON-RPC 2.0 request object ({cause or exc})",
    )


def _rpc_error(request_id: int | str | None, code: int, message: str) -> JSONRPCError:
    return JSONRPCError(
        jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message[:ERROR_CHARS])
    )


def _usable_id(value: Any) -> int | str | None:
    """A request id the answer can repeat (JSON-RPC: null when it cannot be told)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None
    if isinstance(value, str) and _LONE_SURROGATE.search(value):
        return None
    return value


def _lone_surrogate(value: Any, path: list[Any]) -> tuple[list[Any], str] | None:
    """(where, the text) of the first string or key in `value` holding a lone surrogate;
    a key's place ends with '(name)'."""
    if isinstance(value, str):
        return (path, value) if _LONE_SURROGATE.search(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            if _LONE_SURROGATE.search(key):
                return [*path, "(name)"], key
            found = _lone_surrogate(item, [*path, key])
            if found is not None:
                return found
    if isinstance(value, list):
        for n, item in enumerate(value):
            found = _lone_surrogate(item, [*path, n])
            if found is not None:
                return found
    return None


def _path_text(path: list[Any]) -> str:
    """['sources', 0, 'path'] -> 'sources[0].path'; a key's place: 'an argument name'."""
    shown = ""
    for part in path:
        if part == "(name)":
            return f"{shown} (an argument name)" if shown else "an argument name"
        if isinstance(part, int):
            shown += f"[{part}]"
        else:
            shown += f".{echo(str(part))}" if shown else echo(str(part))
    return shown


def _surrogate_problem(text: str) -> str:
    """Why a string holding a lone surrogate is refused, with where it is, escaped."""
    at = _LONE_SURROGATE.search(text)
    assert at is not None
    code = f"\\u{ord(at.group()):04x}"
    return (
        f"the text holds a lone surrogate {code} at character {at.start() + 1}, which JSON "
        "can write but is no Unicode character (half of a pair for a character beyond "
        "U+FFFF); send the character itself, or both halves of its pair"
    )
