"""The ASGI app of `pdfindex web`: MCP over Streamable HTTP at `/mcp`, the login form
at `/login`, and the search page's routes (pdfindex/web/pages.py) at `/`, all behind
one guard (pdfindex/web/guard.py) and over one AppContext: the index, its writer and
watcher, as `pdfindex serve` has them.
"""

from __future__ import annotations

import html
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from pdfindex.config import Settings
from pdfindex.server.context import AppContext
from pdfindex.server.http import MCP_PATH, http_transport
from pdfindex.web.guard import COOKIE, Guard, Policy, RateLimit, host_names, is_loopback
from pdfindex.web.tokens import COOKIE_SECONDS, Keys, stored_hash

LOGIN_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>pdfindex: log in</title>
<style>body{{font:16px system-ui,sans-serif;max-width:24em;margin:4em auto;padding:0 1em}}
input{{font:inherit;width:100%;box-sizing:border-box;margin:.4em 0;padding:.4em}}
.error{{color:#b00020}}</style></head>
<body><h1>pdfindex</h1>{message}
<form method="post" action="/login">
<label for="token">Token (from <code>pdfindex web --new-token</code>)</label>
<input id="token" name="token" type="password" autocomplete="current-password" autofocus required>
<input type="hidden" name="next" value="{next}">
<input type="submit" value="Log in"></form></body></html>
"""


def safe_next(target: str | None) -> str:
    """Where to go after logging in: a path of this server only (no `//host`, no URL)."""
    target = unquote(target or "/")
    if not target.startswith("/") or target.startswith(("//", "/\\")):
        return "/"
    return target


def _login_form(next_path: str, message: str = "", status: int = 200) -> HTMLResponse:
    shown = f'<p class="error">{html.escape(message)}</p>' if message else ""
    page = LOGIN_PAGE.format(message=shown, next=html.escape(safe_next(next_path), quote=True))
    return HTMLResponse(page, status, headers={"Cache-Control": "no-store"})


async def login(request: Request) -> Response:
    """GET: the form. POST: the token checked; a good one sets the session cookie (a
    signed expiry, never the token) and goes on to `next`."""
    keys: Keys = request.app.state.keys
    if request.method == "GET":
        return _login_form(request.query_params.get("next", "/"))
    form = await request.form()
    token, next_path = str(form.get("token", "")), str(form.get("next", "/"))
    if not keys.required:
        return RedirectResponse(safe_next(next_path), status_code=303)
    if not keys.token_ok(token):
        return _login_form(next_path, "That token is not the server's.", 401)
    response = RedirectResponse(safe_next(next_path), status_code=303)
    response.set_cookie(
        COOKIE,
        keys.new_cookie(),
        max_age=COOKIE_SECONDS,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.app.state.secure_cookie,
    )
    return response


async def logout(request: Request) -> Response:
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response


def build_app(
    ctx: AppContext,
    settings: Settings,
    page_routes: Sequence[BaseRoute],
    *,
    keys: Keys | None = None,
) -> Starlette:
    """The web server's app over the open `ctx`. Page routes read it from
    `request.app.state.ctx`; whether a request may reach them is decided here."""
    transport = http_transport(settings, ctx)
    keys = keys if keys is not None else Keys(stored_hash(settings.index_dir))
    tls = bool(settings.web_certfile)
    secure_cookie = tls or not is_loopback(settings.web_host)
    policy = Policy(
        names=host_names(settings.web_host, settings.web_hosts.split(",")),
        keys=keys,
        limit=RateLimit(settings.web_rate, settings.web_burst),
        secure_cookie=secure_cookie,
    )

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        async with transport.lifespan():  # the MCP sessions' task group
            yield

    routes: list[BaseRoute] = [
        Route(MCP_PATH, endpoint=transport.endpoint),
        Route("/login", login, methods=["GET", "POST"]),
        Route("/logout", logout, methods=["POST"]),
        *page_routes,
    ]
    app = Starlette(routes=routes, lifespan=lifespan, middleware=[Middleware(Guard, policy=policy)])
    app.state.ctx = ctx
    app.state.keys = keys
    app.state.secure_cookie = secure_cookie
    return app
