"""MCP clients for tests: in memory over an open AppContext (the tools' tests), or over
stdio to a real `pdfindex serve` subprocess (tests/test_server.py only)."""

from __future__ import annotations

import base64
import io
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, Tool
from PIL import Image

from pdfindex.config import Settings
from pdfindex.server import AppContext, build_server

T = TypeVar("T")
CATCH_UP = 120.0  # seconds the first scan of a test project may take on a busy machine


@contextmanager
def open_app(settings: Settings, watch: bool = False) -> Iterator[AppContext]:
    """An AppContext whose catch-up scan (text, then elements) is done; closed after."""
    app = AppContext.open(settings, watch=watch).start()
    try:
        assert app.live.caught_up.wait(CATCH_UP), "the catch-up scan did not finish"
        yield app
    finally:
        app.close()


class InMemory:
    """The MCP server of an open AppContext, driven in-process by the SDK's Client.

    Each method opens one client session, makes its requests in order and closes it;
    the AppContext (index, writer thread, sessions) outlives the sessions.
    """

    def __init__(self, app: AppContext) -> None:
        self.app = app
        self.server = build_server(app.index.settings, app=app)

    def run(self, script: Callable[[Client], Awaitable[T]]) -> T:
        async def main() -> T:
            async with Client(self.server) as client:
                return await script(client)

        return anyio.run(main)

    def calls(self, *requests: tuple[str, dict[str, Any]]) -> list[CallToolResult]:
        """Each (tool, arguments) in order, in one session."""

        async def script(client: Client) -> list[CallToolResult]:
            return [await client.call_tool(tool, arguments) for tool, arguments in requests]

        return self.run(script)

    def call(self, tool: str, /, **arguments: Any) -> CallToolResult:
        return self.calls((tool, arguments))[0]

    def resource(self, uri: str) -> str:
        async def script(client: Client) -> str:
            (content,) = (await client.read_resource(uri)).contents
            return content.text  # type: ignore[union-attr]

        return self.run(script)

    def tools(self) -> dict[str, Tool]:
        async def script(client: Client) -> dict[str, Tool]:
            return {tool.name: tool for tool in (await client.list_tools()).tools}

        return self.run(script)


def serve_params(
    root: Path, *flags: str, env: dict[str, str] | None = None
) -> StdioServerParameters:
    """`python -m pdfindex.cli serve --root ROOT FLAGS...` with this environment plus `env`."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "pdfindex.cli", "serve", "--root", str(root), *flags],
        env={**os.environ, **(env or {})},
    )


@asynccontextmanager
async def stdio(
    root: Path, *flags: str, env: dict[str, str] | None = None
) -> AsyncIterator[Client]:
    """A client session with a real `pdfindex serve` subprocess, over its stdin/stdout."""
    async with Client(serve_params(root, *flags, env=env)) as client:
        yield client


def text_of(result: CallToolResult) -> str:
    """The text parts of a tool result, joined by newlines."""
    return "\n".join(c.text for c in result.content if c.type == "text")


def image_of(result: CallToolResult) -> Image.Image:
    """The one PNG image of a tool result."""
    (image,) = [c for c in result.content if c.type == "image"]
    assert image.mime_type == "image/png"
    return Image.open(io.BytesIO(base64.b64decode(image.data)))
