"""The same MCP server over Streamable HTTP, for `pdfindex web` (pdfindex/web/app.py).

The web front mounts the ASGI endpoint at `/mcp` and runs `lifespan` in its own; the
tools, resources and answers are those of stdio because the server is `build_server`'s,
over the one AppContext the web server opened.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings

from pdfindex.config import Settings
from pdfindex.server import build_server
from pdfindex.server.context import AppContext

MCP_PATH = "/mcp"


@dataclass(frozen=True)
class HttpTransport:
    """`endpoint`: the ASGI app answering POST/GET/DELETE on MCP_PATH; `lifespan`: the
    session manager's run (its task group), entered once for the web server's life."""

    endpoint: Callable[..., Any]
    lifespan: Callable[[], AbstractAsyncContextManager[None]]


def http_transport(settings: Settings, app: AppContext) -> HttpTransport:
    """The Streamable HTTP transport of the MCP server over `app` (stateful sessions, so
    sampling and roots reach the client as over stdio)."""
    server = build_server(settings, app=app)
    # Host and Origin are checked by the web front on every path (pdfindex/web/guard.py),
    # against the address it is bound to; the SDK's own check knows loopback names only.
    # streamable_http_app makes the session manager; its Starlette app is not used.
    server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    manager = server.session_manager
    return HttpTransport(endpoint=StreamableHTTPASGIApp(manager), lifespan=manager.run)
