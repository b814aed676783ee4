"""What every request to `pdfindex web` passes before any page or MCP call sees it, as
one pure ASGI middleware (so streamed answers and server-sent events pass through it
unchanged):

1. `Host` must name this server (DNS-rebinding protection, as the MCP transport
   specification asks): a loopback name, the address it is bound to, or `web_hosts`;
   else 421. `Origin`, when a browser sends one, must be the same origin; else 403.
2. A token bucket per client address (`web_rate`, `web_burst`); past it 429 with
   Retry-After.
3. When a token is configured: `Authorization: Bearer TOKEN` on `/mcp`; the bearer or
   the login cookie on `/api/*` and `/events` (401) and on pages (a redirect to
   `/login`). Pages never check tokens themselves.
4. One log line per request: client, method, path (secret-looking query values
   masked), status, milliseconds. Never a header, a cookie or a body.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pdfindex.web.tokens import Keys

log = logging.getLogger("pdfindex.web")

COOKIE = "pdfindex_session"
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
OPEN_PATHS = ("/login", "/logout")  # the login form itself; logout only drops a cookie
SECRET_PARAMETERS = ("token", "access_token", "key", "password", "secret", "auth")
MAX_CLIENTS = 10_000  # rate-limit buckets kept; full ones are dropped first past it


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_names(bound: str, extra: Iterable[str]) -> frozenset[str]:
    """The names a `Host` header may carry: loopback names, the bound address (and, on a
    wildcard bind, this machine's names and addresses), and the configured extra ones."""
    names = {*LOOPBACK_NAMES, bound.strip("[]").lower()}
    if bound in ("0.0.0.0", "::", ""):
        machine = socket.gethostname()
        names |= {machine.lower(), socket.getfqdn().lower()}
        try:
            names |= {info[4][0].lower() for info in socket.getaddrinfo(machine, None)}
        except OSError:
            pass
    names |= {name.strip().strip("[]").lower() for name in extra if name.strip()}
    names.discard("0.0.0.0")
    names.discard("::")
    return frozenset(names)


def split_host(header: str) -> str:
    """The name of a `Host` header without its port ([::1]:8765 -> ::1)."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    name, _, port = header.rpartition(":")
    return name if name and port.isdigit() else header


@dataclass
class Bucket:
    tokens: float
    stamp: float


@dataclass
class RateLimit:
    """A token bucket per client address: `rate` per second, `burst` at once."""

    rate: float
    burst: int
    buckets: dict[str, Bucket] = field(default_factory=dict)

    def wait(self, client: str, now: float) -> float:
        """0 when the request may go now (and it is counted), else seconds to wait."""
        if self.rate <= 0:
            return 0.0
        bucket = self.buckets.get(client)
        if bucket is None:
            if len(self.buckets) >= MAX_CLIENTS:
                self._forget(now)
            bucket = self.buckets[client] = Bucket(float(self.burst), now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.stamp) * self.rate)
        bucket.stamp = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return 0.0
        return (1 - bucket.tokens) / self.rate

    def _forget(self, now: float) -> None:
        """Drop the buckets that have refilled (their clients are back to a full burst)."""
        full = [
            client
            for client, b in self.buckets.items()
            if b.tokens + (now - b.stamp) * self.rate >= self.burst
        ]
        for client in full or list(self.buckets)[: MAX_CLIENTS // 2]:
            del self.buckets[client]


@dataclass(frozen=True)
class Policy:
    """Who may ask what: the names this server answers to, the keys, the rate limit."""

    names: frozenset[str]
    keys: Keys
    limit: RateLimit
    secure_cookie: bool


def shown_path(scope: Scope) -> str:
    """The path and query for the log, with secret-looking parameters masked."""
    path = scope.get("path", "")
    query = scope.get("query_string", b"").decode("latin-1")
    if not query:
        return path
    pairs = [
        (k, "***" if k.lower() in SECRET_PARAMETERS else v)
        for k, v in parse_qsl(query, keep_blank_values=True)
    ]
    return f"{path}?{urlencode(pairs)}"


def _bearer(headers: Headers) -> str | None:
    scheme, _, value = headers.get("authorization", "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def _cookie(headers: Headers) -> str | None:
    for part in headers.get("cookie", "").split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE:
            return value
    return None


class Guard:
    """The pure ASGI middleware of this module's docstring."""

    def __init__(self, app: ASGIApp, policy: Policy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # no websockets here
            await send({"type": "websocket.close", "code": 1008})
            return
        started = time.perf_counter()
        status = {"code": 0}

        async def send_and_note(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            refusal = self.refusal(scope)
            if refusal is not None:
                await refusal(scope, receive, send_and_note)
            else:
                await self.app(scope, receive, send_and_note)
        finally:
            client = scope.get("client")
            log.info(
                "%s %s %s %s %.1f ms",
                client[0] if client else "-",
                scope.get("method", "-"),
                shown_path(scope),
                status["code"] or "-",
                (time.perf_counter() - started) * 1000,
            )

    def refusal(self, scope: Scope) -> Response | None:
        """The answer refusing this request, or None to let it through."""
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        if not host or split_host(host) not in self.policy.names:
            return PlainTextResponse(
                "Misdirected request: this server does not answer to that Host\n", 421
            )
        origin = headers.get("origin")
        if origin is not None and not same_origin(origin, host):
            return PlainTextResponse("Forbidden: cross-origin request\n", 403)
        client = scope.get("client")
        wait = self.policy.limit.wait(client[0] if client else "-", time.monotonic())
        if wait > 0:
            retry = str(max(1, math.ceil(wait)))
            return PlainTextResponse("Too many requests\n", 429, headers={"Retry-After": retry})
        return self.unauthenticated(scope, headers)

    def unauthenticated(self, scope: Scope, headers: Headers) -> Response | None:
        keys = self.policy.keys
        path: str = scope.get("path", "/")
        if not keys.required or path in OPEN_PATHS:
            return None
        bearer = _bearer(headers)
        if bearer is not None and keys.token_ok(bearer):
            return None
        challenge = {"WWW-Authenticate": 'Bearer realm="pdfindex"'}
        if path == "/mcp" or path.startswith("/mcp/"):
            return _json_error(401, "a valid `Authorization: Bearer TOKEN` is required", challenge)
        cookie = _cookie(headers)
        if cookie is not None and keys.cookie_ok(cookie):
            return None
        if path.startswith("/api/") or path == "/events" or scope.get("method") != "GET":
            return _json_error(401, "log in at /login or send the bearer token", challenge)
        return RedirectResponse(f"/login?next={quote(path)}", status_code=303)


def same_origin(origin: str, host: str) -> bool:
    """A browser's `Origin` names this server as the request's `Host` does."""
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host.strip().lower()


def _json_error(status: int, message: str, headers: dict[str, str]) -> Response:
    return JSONResponse({"error": message}, status, headers=headers)
