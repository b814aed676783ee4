"""The search page's routes (`routes()`, mounted at "/" by the web app): the page at `/`,
a page at full size at `/doc/{slug}/{n}`, page images, element crops, the JSON under
`/api/` and the live status at `/events` (server-sent events).

Every handler reads the open library from `request.app.state.ctx` (the AppContext of
`pdfindex serve`) and names documents only by what the tools accept, through their
resolver (`pdfindex.tools.names`): no path in a URL is ever opened as a file. Whether a
request may come in at all (token, Origin, Host) is the app's middleware's to decide."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from pdfindex.errors import (
    DocumentNotFound,
    InvalidQuery,
    PageOutOfRange,
    PathOutsideFiles,
    PdfIndexError,
    RequestTimeout,
)
from pdfindex.tools.highlight import document_outline, page_boxes, pdf_page
from pdfindex.tools.pages import get_page_image
from pdfindex.tools.visual import element_image
from pdfindex.web import templates
from pdfindex.web.search import Params, documents, folders, search, status

STATIC = Path(__file__).parent / "static"
EVENTS_EVERY = 0.5  # seconds between two looks at the status for /events
KEEPALIVE = 15.0  # seconds of silence after which /events sends a comment line
IMAGE_CACHE = "private, max-age=300"  # a page image changes only when its PDF does

# What each error of the library is over HTTP.
_HTTP_STATUS: list[tuple[type[Exception], int]] = [
    (DocumentNotFound, 404),
    (PathOutsideFiles, 404),
    (PageOutOfRange, 404),
    (InvalidQuery, 400),
    (RequestTimeout, 503),
    (PdfIndexError, 500),
]


def routes() -> list[BaseRoute]:
    """The page's routes, for `Starlette(routes=...)` or the web app's "/" mount."""
    return [
        Route("/", home),
        Route("/doc/{slug}/{page:int}", document),
        Route("/page/{slug}/{page:int}.png", page_image),
        Route("/element/{slug}/{page:int}/{label}.png", element_crop),
        Route("/api/search", api_search),
        Route("/api/boxes/{slug}/{page:int}", api_boxes),
        Route("/api/status", api_status),
        Route("/events", events),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]


def _ctx(request: Request) -> Any:
    return request.app.state.ctx


def _http_status(exc: Exception) -> int:
    return next(code for kind, code in _HTTP_STATUS if isinstance(exc, kind))


def _html(body: str, code: int = 200) -> HTMLResponse:
    return HTMLResponse(body, code, headers={"Content-Security-Policy": templates.CSP})


def _answer(
    request: Request, make: Callable[[], Response], html: bool
) -> Response:  # every handler's errors, mapped once
    try:
        return make()
    except PdfIndexError as exc:
        code = _http_status(exc)
        if html:
            now = status(_ctx(request).index)["text"]
            return _html(templates.error_page(str(exc), now), code)
        return JSONResponse({"error": str(exc)}, code)


def home(request: Request) -> Response:
    """`/?q=&mode=&doc=&folder=&kind=`: the form, and the results of the search it names."""
    index = _ctx(request).index

    def make() -> Response:
        params = Params.of(request.query_params)
        form = templates.search_form(params, documents(index), folders(index))
        try:
            found = search(index, params)
        except InvalidQuery as exc:  # a query's mistake is said under the box, kept in it
            return _html(
                templates.layout("pdfindex", form + templates.error_body(str(exc)), _now(index)),
                400,
            )
        return _html(templates.search_page(found, form, _now(index)))

    return _answer(request, make, html=True)


def document(request: Request) -> Response:
    """`/doc/{slug}/{n}?q=`: page n at full size, its hits boxed, previous/next, outline."""
    index = _ctx(request).index
    slug, page = request.path_params["slug"], request.path_params["page"]

    def make() -> Response:
        params = Params.of(request.query_params)
        record = pdf_page(index, slug, page)
        outline = document_outline(index, record.slug)
        return _html(templates.document_page(record, page, params, outline, _now(index)))

    return _answer(request, make, html=True)


def page_image(request: Request) -> Response:
    """`/page/{slug}/{n}.png?dpi=`: the page as the get_page_image tool renders it (its
    cache, its DPI limits, its byte budget)."""
    index = _ctx(request).index

    def make() -> Response:
        dpi = _int(request.query_params.get("dpi"), templates.PAGE_DPI, "dpi")
        slug, page = request.path_params["slug"], request.path_params["page"]
        _, png = get_page_image(index, slug, page, dpi)
        return Response(png, media_type="image/png", headers={"Cache-Control": IMAGE_CACHE})

    return _answer(request, make, html=False)


def element_crop(request: Request) -> Response:
    """`/element/{slug}/{page}/{label}.png`: a figure, table or equation's region."""
    index = _ctx(request).index

    def make() -> Response:
        params = request.path_params
        _, png = element_image(index, params["slug"], params["label"], params["page"], 72)
        return Response(png, media_type="image/png", headers={"Cache-Control": IMAGE_CACHE})

    return _answer(request, make, html=False)


def api_search(request: Request) -> Response:
    """`/api/search?q=&mode=&doc=&folder=&kind=&limit=`: the page's results as JSON."""
    index = _ctx(request).index
    return _answer(
        request,
        lambda: JSONResponse(search(index, Params.of(request.query_params)).as_json()),
        html=False,
    )


def api_boxes(request: Request) -> Response:
    """`/api/boxes/{slug}/{n}?q=&mode=`: where the query's words are on the page, as
    fractions of its width and height from the top-left corner."""
    index = _ctx(request).index

    def make() -> Response:
        params = Params.of(request.query_params)
        slug, page = request.path_params["slug"], request.path_params["page"]
        return JSONResponse(asdict(page_boxes(index, slug, page, params.q, params.mode)))

    return _answer(request, make, html=False)


def api_status(request: Request) -> Response:
    """`/api/status`: files searchable of all, pages, what the live updater is doing."""
    return JSONResponse(status(_ctx(request).index))


async def events(request: Request) -> Response:
    """`/events`: the status as server-sent events, one each time it changes."""
    index = _ctx(request).index

    async def stream() -> AsyncIterator[str]:
        last: dict[str, Any] | None = None
        quiet = 0.0
        while not await request.is_disconnected():
            now = await run_in_threadpool(status, index)
            if now != last:
                yield f"event: status\ndata: {json.dumps(now)}\n\n"
                last, quiet = now, 0.0
            elif quiet >= KEEPALIVE:
                yield ": still here\n\n"
                quiet = 0.0
            await asyncio.sleep(EVENTS_EVERY)
            quiet += EVENTS_EVERY

    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)


def _now(index: Any) -> str:
    return str(status(index)["text"])


def _int(value: str | None, default: int, name: str) -> int:
    if value in (None, ""):
        return default
    try:
        return int(value)
    except ValueError:
        raise InvalidQuery(f"{name} must be a whole number") from None
