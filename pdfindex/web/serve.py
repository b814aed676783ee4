"""`pdfindex web`'s process: refuse an unsafe start, open the index with its watcher,
serve the app with uvicorn until SIGINT or SIGTERM, then close the index cleanly."""

from __future__ import annotations

import logging
import signal
import socket
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import uvicorn
from starlette.routing import BaseRoute

from pdfindex.config import Settings
from pdfindex.errors import ConfigError
from pdfindex.server.context import AppContext
from pdfindex.web.app import build_app
from pdfindex.web.guard import is_loopback
from pdfindex.web.tokens import Keys, stored_hash, token_file

if TYPE_CHECKING:
    from pdfindex.api import PdfIndex

log = logging.getLogger("pdfindex.web")
GRACE_SECONDS = 3  # open MCP event streams get this long to end at shutdown


def page_routes() -> list[BaseRoute]:
    """The search page's routes (pdfindex/web/pages.py)."""
    from pdfindex.web.pages import routes

    return routes()


def _stop(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt  # as Ctrl-C: the index is closed on the way out


def check_start(settings: Settings) -> Keys:
    """The keys to serve with, or a one-line refusal: a network address without a token,
    half a TLS pair."""
    keys = Keys(stored_hash(settings.index_dir))
    if not is_loopback(settings.web_host) and not keys.required:
        raise ConfigError(
            f"refusing to serve on {settings.web_host} without a token: run "
            f"`pdfindex web --new-token` first (its hash goes to "
            f"{token_file(settings.index_dir)}), or use --host 127.0.0.1"
        )
    if bool(settings.web_certfile) != bool(settings.web_keyfile):
        raise ConfigError("web_certfile and web_keyfile go together: give both or neither")
    return keys


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: a free one)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    sock.set_inheritable(True)
    return sock


def url_of(settings: Settings, sock: socket.socket) -> str:
    host, port = settings.web_host, sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    return f"{'https' if settings.web_certfile else 'http'}://{shown}:{port}/"


def _tls_file(settings: Settings, name: str) -> str | None:
    value = getattr(settings, name)
    return str(settings.root / Path(value).expanduser()) if value else None


def serve(
    settings: Settings,
    page_routes: Sequence[BaseRoute],
    announce: Callable[[str], None],
    alongside: Callable[[PdfIndex], Callable[[], None]] | None = None,
) -> None:
    """Serve until a signal; `announce(url)` once the socket listens. `alongside`: started
    with the open index, and stopped first (the CLI's resident search)."""
    signal.signal(signal.SIGTERM, _stop)  # uvicorn raises it again after its shutdown
    keys = check_start(settings)
    sock = listen(settings.web_host, settings.web_port)
    ctx = AppContext.open(settings, watch=True)
    stop: Callable[[], None] | None = None
    try:
        ctx.start()
        stop = alongside(ctx.index) if alongside is not None else None
        config = uvicorn.Config(
            build_app(ctx, settings, page_routes, keys=keys),
            log_config=None,  # pdfindex's logging: the session log and stderr
            access_log=False,  # the guard logs each request, without secrets
            lifespan="on",
            server_header=False,
            timeout_graceful_shutdown=GRACE_SECONDS,
            ssl_certfile=_tls_file(settings, "web_certfile"),
            ssl_keyfile=_tls_file(settings, "web_keyfile"),
        )
        announce(url_of(settings, sock))
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        if stop is not None:
            stop()
        ctx.close()
        sock.close()
        log.info("web server stopped")
