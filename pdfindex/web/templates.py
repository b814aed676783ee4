"""The search page's HTML, written as strings: every value from the library (a title, a
path, a snippet, a query) goes through `html.escape` first, so a document titled
`<script>` shows as text. No inline script or style: the page's Content-Security-Policy
allows only its own files (static/app.js, static/style.css)."""

from __future__ import annotations

import re
from html import escape
from urllib.parse import quote, urlencode

from pdfindex.elements.detect import ELEMENT_TYPES
from pdfindex.models import FileRecord
from pdfindex.tools.highlight import MODES
from pdfindex.web.search import ElementResult, Params, Result, Results

THUMB_DPI = 40  # a result's thumbnail
PAGE_DPI = 110  # the page view
HINT = escape('Type a query: words, a question, "a phrase", word~1, AND / OR / NOT.')
_MARK = re.compile(r"\*\*(.+?)\*\*", re.S)
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)


def marked(snippet: str) -> str:
    """A snippet as HTML: escaped, then its **marks** as <mark>."""
    return _MARK.sub(r"<mark>\1</mark>", escape(snippet, quote=True))


def link(path: str, **query: str | int) -> str:
    """A URL of this site with the non-empty query values, escaped for an attribute."""
    kept = {k: v for k, v in query.items() if v not in ("", None)}
    return escape(path + ("?" + urlencode(kept) if kept else ""))


def page_url(slug: str, page: int, dpi: int) -> str:
    return link(f"/page/{quote(slug, safe='')}/{page}.png", dpi=dpi)


def layout(title: str, body: str, status: str, query: str = "") -> str:
    """The frame of every view: header with the search box's home, status line, body."""
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<link rel="stylesheet" href="/static/style.css">
<script src="/static/app.js" defer></script>
</head>
<body>
<header class="top">
<a class="home" href="/">pdfindex</a>
<p id="status" class="status" role="status" aria-live="polite">{escape(status)}</p>
</header>
<main>
{body}
</main>
</body>
</html>
"""


def _options(values: list[tuple[str, str]], chosen: str) -> str:
    return "".join(
        f'<option value="{escape(v)}"{" selected" if v == chosen else ""}>{escape(label)}</option>'
        for v, label in values
    )


def search_form(params: Params, documents: list[FileRecord], folders: list[str]) -> str:
    """The query box and its filters; a GET form, so its URL is the search (deep link)."""
    docs = [("", "all documents")] + [(r.slug, f"{r.title} ({r.path})") for r in documents]
    dirs = [("", "all folders")] + [(f, f + "/") for f in folders]
    kinds = [("", "pages")] + [(k, k + "s") for k in ELEMENT_TYPES]
    modes = [(m, m) for m in MODES]
    return f"""<form class="search" action="/" method="get" role="search">
<input id="q" name="q" type="search" value="{escape(params.q)}" autocomplete="off"
 placeholder="Search the library (press / to focus)" aria-label="query">
<button type="submit">Search</button>
<div class="filters">
<label>mode <select id="mode" name="mode">{_options(modes, params.mode)}</select></label>
<label>document <select id="doc" name="doc">{_options(docs, params.doc)}</select></label>
<label>folder <select id="folder" name="folder">{_options(dirs, params.folder)}</select></label>
<label>show <select id="kind" name="kind">{_options(kinds, params.kind)}</select></label>
</div>
</form>"""


def results_view(found: Results) -> str:
    """The notes, then the results (pages, or a gallery of elements)."""
    params = found.params
    if not params.q and not params.kind:
        return (
            '<p class="hint">Type a query: words, a question, "a phrase", word~1, AND/OR/NOT.</p>'
        )
    notes = "".join(f'<p class="note">{escape(n)}</p>' for n in found.notes)
    if params.kind:
        shown = len(found.elements)
        head = f'<p class="count">{found.total} {escape(params.kind)}s, showing {shown}</p>'
        cards = "".join(_element(e, params) for e in found.elements)
        return f'{head}{notes}<ol class="gallery" id="results">{cards}</ol>'
    if not found.results:
        return f'{notes}<p class="count">No results for “{escape(params.q)}”.</p>'
    more = " (more: narrow the search)" if found.more else ""
    head = f'<p class="count">{found.total} pages, showing {len(found.results)}{more}</p>'
    items = "".join(_result(r, params, n) for n, r in enumerate(found.results))
    return f'{head}{notes}<ol class="results" id="results">{items}</ol>'


def _result(hit: Result, params: Params, n: int) -> str:
    href = link(f"/doc/{quote(hit.slug, safe='')}/{hit.page}", q=params.q, mode=params.mode)
    boxes = link(f"/api/boxes/{quote(hit.slug, safe='')}/{hit.page}", q=params.q, mode=params.mode)
    score = f" · score {hit.score:.2f}" if hit.score is not None else ""
    return f"""<li class="result" data-n="{n}">
<a class="thumb" href="{href}" tabindex="-1">
<span class="frame" data-boxes="{boxes}">
<img src="{page_url(hit.slug, hit.page, THUMB_DPI)}" alt="page {hit.page} of {escape(hit.title)}"
 loading="lazy"></span></a>
<div class="text">
<a class="title" href="{href}">{escape(hit.title)}</a>
<p class="where"><span class="path">{escape(hit.path)}</span>
 · page {hit.page} of {hit.pages}{score}</p>
<p class="snippet">{marked(hit.snippet)}</p>
</div>
</li>"""


def _element(element: ElementResult, params: Params) -> str:
    slug = quote(element.slug, safe="")
    image = link(f"/element/{slug}/{element.page}/{quote(element.label, safe='')}.png")
    href = link(f"/doc/{slug}/{element.page}", q=params.q)
    caption = escape(element.caption[:200])
    return f"""<li class="element result">
<a class="title" href="{href}"><img src="{image}" alt="{escape(element.label)}" loading="lazy">
<strong>{escape(element.label)}</strong></a>
<p class="where">{escape(element.title)} · page {element.page}</p>
<p class="caption">{caption}</p>
</li>"""


def search_page(found: Results, form: str, status: str) -> str:
    title = f"{found.params.q} — pdfindex" if found.params.q else "pdfindex"
    return layout(title, form + results_view(found), status)


def document_page(
    record: FileRecord,
    page: int,
    params: Params,
    outline: list[tuple[int, str, int]],
    status: str,
) -> str:
    """One page at full size, the hits boxed, previous/next and the document's outline."""
    slug = quote(record.slug, safe="")
    keep = {"q": params.q, "mode": params.mode if params.q else ""}
    before, after = link(f"/doc/{slug}/{page - 1}", **keep), link(f"/doc/{slug}/{page + 1}", **keep)
    prev = (
        f'<a id="prev" rel="prev" href="{before}">← page {page - 1}</a>'
        if page > 1
        else '<span class="off">←</span>'
    )
    nxt = (
        f'<a id="next" rel="next" href="{after}">page {page + 1} →</a>'
        if page < record.pages
        else '<span class="off">→</span>'
    )
    boxes = link(f"/api/boxes/{slug}/{page}", **keep) if params.q else ""
    back = link("/", q=params.q, mode=params.mode) if params.q else "/"
    toc = "".join(
        f'<li class="level{min(level, 5)}"><a href="{link(f"/doc/{slug}/{target}", **keep)}"'
        f"{' aria-current=page' if target == page else ''}>{escape(title)}</a> "
        f'<span class="where">p. {target}</span></li>'
        for level, title, target in outline
    )
    aside = f'<nav class="outline"><h2>Outline</h2><ol>{toc}</ol></nav>' if outline else ""
    body = f"""<div class="docbar">
<a href="{back}">← results</a>
<h1>{escape(record.title)}</h1>
<p class="where"><span class="path">{escape(record.path)}</span></p>
<nav class="pager">{prev} <span id="pageno">page {page} of {record.pages}</span> {nxt}</nav>
</div>
<div class="docview">
{aside}
<div class="pageview"><span class="frame" data-boxes="{boxes}">
<img id="page" src="{page_url(record.slug, page, PAGE_DPI)}"
 alt="page {page} of {escape(record.title)}">
</span></div>
</div>"""
    return layout(f"{record.title}, page {page} — pdfindex", body, status)


def error_page(message: str, status: str) -> str:
    return layout("pdfindex", error_body(message), status)


def error_body(message: str) -> str:
    return f'<p class="error">{escape(message)}</p>'
