"""HTML with selectolax (the lexbor parser, C, never fetches anything): the visible text,
paragraph by paragraph, in parts of about PART_CHARS characters; `<title>` is the title.

Script, style, template and noscript content is dropped; block elements (p, div,
headings, list items, table rows, …) end a paragraph, `<br>` a line, and a table cell is
followed by a tab. Whitespace collapses as a browser shows it (`<pre>` included: its
line breaks become spaces). EPUB chapters (XHTML) are read the same way.
"""

from __future__ import annotations

import re
from importlib import metadata as distributions
from pathlib import Path

from pdfindex.extract.adapters.base import Extraction, finish, split_parts
from pdfindex.extract.adapters.containers import check_size

MAX_BYTES = 50 * 1024 * 1024
_HIDDEN = "script, style, template, noscript, head, svg, math, iframe, object"
_BLOCKS = (
    "p, div, section, article, aside, header, footer, nav, main, h1, h2, h3, h4, h5, h6, "
    "li, dt, dd, blockquote, pre, figure, figcaption, table, tr, caption, hr, address, "
    "form, fieldset, ul, ol, dl, body"
)
_PARAGRAPH, _LINE, _CELL = "\ue000", "\ue001", "\ue002"  # private-use marks, then replaced
_SPACES = re.compile(r"[ \t\n\r\f\v]+")


def html_text(markup: str | bytes) -> tuple[list[str], str]:
    """The paragraphs of visible text of an HTML or XHTML document, and its title."""
    from selectolax.lexbor import LexborHTMLParser  # loaded with the first page read

    tree = LexborHTMLParser(markup)
    title_node = tree.css_first("title")
    title = " ".join(title_node.text().split()) if title_node is not None else ""
    for node in tree.css(_HIDDEN):
        node.decompose()
    for node in tree.css(_BLOCKS):
        node.insert_before(_PARAGRAPH)
        node.insert_after(_PARAGRAPH)
    for node in tree.css("br"):
        node.insert_after(_LINE)
    for node in tree.css("td, th"):
        node.insert_after(_CELL)
    root = tree.body or tree.root
    text = root.text(separator="") if root is not None else ""
    text = _SPACES.sub(" ", text).replace(_LINE, "\n").replace(_CELL, "\t")
    paragraphs = [
        "\n".join(line.strip(" ") for line in part.split("\n")).strip()
        for part in text.split(_PARAGRAPH)
    ]
    return [p for p in paragraphs if p], title


class HtmlAdapter:
    name = "html"
    description = "Web pages (.html, .htm) with selectolax; a page is a part of ~3,000 characters"
    extensions: tuple[str, ...] = (".html", ".htm", ".xhtml")

    @property
    def version(self) -> str:
        return f"selectolax-{distributions.version('selectolax')}"

    @property
    def binary(self) -> str:
        return f"selectolax {distributions.version('selectolax')}"

    def extract(self, path: Path) -> Extraction:
        check_size(path, MAX_BYTES)
        data = path.read_bytes()
        if b"\x00" in data[:65536]:
            raise ValueError("binary data, not HTML text (NUL bytes)")
        paragraphs, title = html_text(data)
        meta = {"title": title} if title else {}
        return finish(split_parts(paragraphs), meta, self.version, unit="part")
