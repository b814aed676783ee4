"""Page conversion (the `extract_pdf_page` tool): a few pages' layout -> markdown, html,
plain text, or latex/docx through pandoc.

Not search: the pages are parsed on demand with pdfminer's layout analysis, because the
index keeps only text. Markdown is the hub: pandoc turns it into latex and docx.
"""

from __future__ import annotations

import base64
import html
import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pdfindex.convert.blocks import Block, Heading, ListBlock, Paragraph, analyse, grid_text
from pdfindex.errors import ConversionError, EncryptedDocument, InvalidQuery, PdfIndexError
from pdfindex.extract.adapters.pdfminer import layout_pages
from pdfindex.layout.records import PageLayout, TextBlock, TextLine

FORMATS = ("markdown", "html", "plain", "latex", "docx")
PANDOC_FORMATS = ("latex", "docx")
DOCX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
PAGE_BREAK_PLAIN = "\n\f\n"  # between pages of plain text: a form feed on its own line
PAGE_BREAK_MARKDOWN = "\n\n---\n\n"

# (text, where: "block" | "heading" | "cell" | "inline") -> markdown
_Escape = Callable[[str, str], str]

_ASCII_PUNCTUATION = re.compile(r"""([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])""")


def convert_pages(
    path: Path,
    pages: list[int],
    output_format: str = "markdown",
    preserve_layout: bool = False,
    timeout: float = 60.0,
    ocr_texts: dict[int, str] | None = None,
) -> dict[str, object]:
    """-> {"content": str, "pages_extracted": [..], "format": output_format}.

    `pages` are 1-based; they are converted once each, in ascending order. docx content
    is base64 (with "encoding" and "media_type" keys). `timeout` bounds the whole call:
    checked between pages, and pandoc is killed when it runs past it. A page without a
    text layer whose OCR text is in `ocr_texts` is converted from that text (plain
    paragraphs) and listed under "ocr_pages".
    """
    fmt = _check_format(output_format)
    wanted = _check_pages(pages)
    if not timeout > 0:
        raise InvalidQuery(f"timeout must be a positive number of seconds, not {timeout!r}")
    pandoc = _find_pandoc(fmt) if fmt in PANDOC_FORMATS else ""
    deadline = time.monotonic() + timeout
    layouts = _read_layouts(path, wanted, deadline, timeout)
    from_ocr = [
        n
        for n, layout in enumerate(layouts)
        if not layout.blocks and (ocr_texts or {}).get(layout.number, "").strip()
    ]
    for n in from_ocr:
        layouts[n] = _layout_of_text(layouts[n], (ocr_texts or {})[layouts[n].number])
    result: dict[str, object] = {
        "content": "",
        "pages_extracted": [layout.number for layout in layouts],
        "format": fmt,
    }
    if from_ocr:
        result["ocr_pages"] = [layouts[n].number for n in from_ocr]
    if fmt == "markdown":
        result["content"] = to_markdown(layouts, preserve_layout)
    elif fmt == "html":
        result["content"] = to_html(layouts, preserve_layout)
    elif fmt == "plain":
        result["content"] = to_plain(layouts, preserve_layout)
    else:
        source = to_markdown(layouts, preserve_layout, for_pandoc=True)
        output = run_pandoc(pandoc, source, fmt, deadline, timeout)
        if fmt == "docx":
            result["content"] = base64.b64encode(output).decode("ascii")
            result["encoding"] = "base64"
            result["media_type"] = DOCX_MEDIA_TYPE
        else:
            result["content"] = output.decode("utf-8")
    return result


# -- renderers --------------------------------------------------------------------------


def to_markdown(
    layouts: list[PageLayout], preserve_layout: bool = False, for_pandoc: bool = False
) -> str:
    """Each page starts with `<!-- page N -->`; pages are separated by `---`.

    `for_pandoc` leaves the comments out and backslash-escapes every ASCII punctuation
    mark of the text, so nothing in a PDF can become pandoc markup (raw TeX, images that
    make pandoc read files or URLs, math, citations...).
    """
    escape = _escape_all if for_pandoc else _escape_min
    pages: list[str] = []
    for layout, elements in zip(layouts, _elements(layouts, preserve_layout), strict=True):
        parts = [] if for_pandoc else [f"<!-- page {layout.number} -->"]
        if preserve_layout:
            grid = grid_text(layout)
            if grid:
                fence = "`" * max(3, _longest_run(grid, "`") + 1)
                parts.append(f"{fence}\n{grid}\n{fence}")
        else:
            parts.extend(_markdown_element(element, escape) for element in elements)
        pages.append("\n\n".join(parts))
    return PAGE_BREAK_MARKDOWN.join(pages)


def to_html(layouts: list[PageLayout], preserve_layout: bool = False) -> str:
    """One `<section data-page="N">` per page; the layout grid goes in a `<pre>`."""
    pages: list[str] = []
    for layout, elements in zip(layouts, _elements(layouts, preserve_layout), strict=True):
        parts = [f'<section data-page="{layout.number}">']
        if preserve_layout:
            parts.append(f"<pre>{html.escape(grid_text(layout), quote=False)}</pre>")
        else:
            parts.extend(_html_element(element) for element in elements)
        parts.append("</section>")
        pages.append("\n".join(parts))
    return "\n".join(pages)


def to_plain(layouts: list[PageLayout], preserve_layout: bool = False) -> str:
    """The pages' text, blocks separated by blank lines and pages by a form feed line;
    lines as printed (hyphens kept), table rows tab-separated."""
    pages: list[str] = []
    for layout, elements in zip(layouts, _elements(layouts, preserve_layout), strict=True):
        if preserve_layout:
            pages.append(grid_text(layout))
        else:
            pages.append("\n\n".join(_plain_element(element) for element in elements))
    return PAGE_BREAK_PLAIN.join(pages)


def _elements(layouts: list[PageLayout], preserve_layout: bool) -> list[list[Block]]:
    return [[] for _ in layouts] if preserve_layout else analyse(layouts)


def _markdown_element(element: Block, escape: _Escape) -> str:
    if isinstance(element, Heading):
        return f"{'#' * element.level} {escape(element.text, 'heading')}"
    if isinstance(element, Paragraph):
        return escape(element.text, "block")
    if isinstance(element, ListBlock):
        lines = []
        for item in element.items:
            if element.ordered:
                lines.append(f"{item.marker[:-1]}. {escape(item.text, 'block')}")
            else:
                label = "" if _is_bullet(item.marker) else f"{escape(item.marker, 'inline')} "
                lines.append(f"- {label}{escape(item.text, 'block')}")
        return "\n".join(lines)
    width = len(element.rows[0])

    def row(cells: tuple[str, ...]) -> str:
        texts = [escape(cell, "cell") if cell else " " for cell in cells]
        return "| " + " | ".join(texts) + " |"

    lines = [row(element.rows[0]), "| " + " | ".join(["---"] * width) + " |"]
    lines.extend(row(cells) for cells in element.rows[1:])
    return "\n".join(lines)


def _html_element(element: Block) -> str:
    esc = html.escape
    if isinstance(element, Heading):
        return f"<h{element.level}>{esc(element.text)}</h{element.level}>"
    if isinstance(element, Paragraph):
        return f"<p>{esc(element.text)}</p>"
    if isinstance(element, ListBlock):
        items = []
        for item in element.items:
            label = "" if element.ordered or _is_bullet(item.marker) else f"{item.marker} "
            items.append(f"<li>{esc(label + item.text)}</li>")
        if element.ordered:
            start = int(element.items[0].marker[:-1])
            tag = "<ol>" if start == 1 else f'<ol start="{start}">'
            return "\n".join([tag, *items, "</ol>"])
        return "\n".join(["<ul>", *items, "</ul>"])
    head = "".join(f"<th>{esc(cell)}</th>" for cell in element.rows[0])
    body = [
        "<tr>" + "".join(f"<td>{esc(cell)}</td>" for cell in cells) + "</tr>"
        for cells in element.rows[1:]
    ]
    return "\n".join(
        ["<table>", "<thead>", f"<tr>{head}</tr>", "</thead>", "<tbody>", *body, "</tbody>"]
        + ["</table>"]
    )


def _plain_element(element: Block) -> str:
    if isinstance(element, Heading):
        return element.text
    if isinstance(element, Paragraph):
        return "\n".join(element.lines)
    if isinstance(element, ListBlock):
        return "\n".join(f"{item.marker} {item.text}" for item in element.items)
    return "\n".join("\t".join(cells) for cells in element.rows)


def _is_bullet(marker: str) -> bool:
    return not marker[0].isalnum()


# -- markdown escaping ------------------------------------------------------------------


_BLOCK_START = re.compile(r"^(?:[#>]|[-*+]\s|[-=_*]{3,}\s*$)")
_NUMBER_START = re.compile(r"^(\d{1,9})([.)])(\s)")
_CLOSING_HASHES = re.compile(r"(^|\s)(#+)$")


def _escape_min(text: str, where: str) -> str:
    """Only what would change the structure: a block's leading `#`, `>`, list marker or
    rule, a heading's trailing `#`s (read as a closing sequence), `|` in a table cell."""
    if where == "block":
        if _BLOCK_START.match(text):
            return "\\" + text
        return _NUMBER_START.sub(r"\1\\\2\3", text)
    if where == "heading":
        return _CLOSING_HASHES.sub(r"\1\\\2", text)
    if where == "cell":
        return text.replace("|", "\\|")
    return text


def _escape_all(text: str, where: str) -> str:
    """Every ASCII punctuation mark escaped: literal text for pandoc, whatever it says."""
    return _ASCII_PUNCTUATION.sub(r"\\\1", text)


def _longest_run(text: str, char: str) -> int:
    return max((len(m) for m in re.findall(f"{re.escape(char)}+", text)), default=0)


# -- reading and pandoc -----------------------------------------------------------------


def _check_format(output_format: object) -> str:
    fmt = output_format.strip().lower() if isinstance(output_format, str) else ""
    if fmt not in FORMATS:
        raise InvalidQuery(
            f"unknown output_format {output_format!r}: use one of {', '.join(FORMATS)}"
        )
    return fmt


def _check_pages(pages: list[int]) -> list[int]:
    if not pages:
        raise InvalidQuery("pages must name at least one page")
    if any(isinstance(n, bool) or not isinstance(n, int) for n in pages):
        raise InvalidQuery(f"pages must be whole page numbers, not {pages!r}")
    return sorted(set(pages))


def _read_layouts(
    path: Path, pages: list[int], deadline: float, timeout: float
) -> list[PageLayout]:
    """pdfminer's layout of the pages; its many failure types become ConversionError."""
    try:
        return layout_pages(path, pages, deadline=deadline)
    except EncryptedDocument as exc:
        raise ConversionError(f"Failed to parse PDF: {exc}") from exc
    except PdfIndexError:
        raise
    except TimeoutError as exc:
        raise ConversionError(f"conversion took longer than {timeout:g} s ({exc})") from exc
    except OSError as exc:
        raise ConversionError(f"cannot read {path.name}: {exc.strerror or exc}") from exc
    except Exception as exc:  # pdfminer raises many types on damaged files
        raise ConversionError(f"Failed to parse PDF: {type(exc).__name__}: {exc}") from exc


def _layout_of_text(page: PageLayout, text: str) -> PageLayout:
    """A page of OCR text as layout records: one block per paragraph, one line per line,
    all in the body size (OCR gives no fonts), so every renderer can use it."""
    size, pitch = 11.0, 14.0
    blocks: list[TextBlock] = []
    top = 72.0
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        lines = []
        for raw in paragraph.splitlines():
            if raw.strip():
                bbox = (72.0, top, page.width - 72.0, top + size)
                lines.append(TextLine(text=raw.strip(), bbox=bbox, font_size=size, bold=False))
                top += pitch
        if lines:
            box = (72.0, lines[0].top, page.width - 72.0, lines[-1].bottom)
            blocks.append(TextBlock("\n".join(li.text for li in lines), box, lines))
            top += pitch
    return PageLayout(page.number, page.width, page.height, blocks)


def _find_pandoc(fmt: str) -> str:
    """The pandoc on PATH, else the one the pypandoc-binary wheel ships (a dependency, so
    `pip install` alone gives latex and docx). Found without importing pypandoc, which
    would run pandoc to learn its version."""
    program = shutil.which("pandoc")
    if program is not None:
        return program
    spec = importlib.util.find_spec("pypandoc")
    if spec is not None and spec.origin is not None:
        for name in ("pandoc", "pandoc.exe"):
            bundled = Path(spec.origin).parent / "files" / name
            if bundled.is_file() and os.access(bundled, os.X_OK):
                return str(bundled)
    raise ConversionError(
        f"output_format {fmt!r} needs pandoc, which is not installed "
        "(pip install pypandoc-binary, or Debian: apt-get install pandoc)"
    )


def run_pandoc(program: str, markdown: str, fmt: str, deadline: float, timeout: float) -> bytes:
    """Markdown -> latex body fragment or docx bytes, in a scratch folder, no shell."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise ConversionError(f"conversion took longer than {timeout:g} s (before pandoc)")
    with tempfile.TemporaryDirectory(prefix="pdfindex-pandoc-") as scratch:
        target = Path(scratch) / ("out.docx" if fmt == "docx" else "out.tex")
        command = [program, "--from=markdown", f"--to={fmt}", f"--output={target}"]
        try:
            done = subprocess.run(
                command,
                input=markdown.encode("utf-8"),
                capture_output=True,
                cwd=scratch,
                timeout=remaining,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise ConversionError(f"pandoc took longer than {timeout:g} s") from exc
        except OSError as exc:
            raise ConversionError(f"cannot run pandoc: {exc}") from exc
        if done.returncode != 0 or not target.is_file():
            message = done.stderr.decode("utf-8", errors="replace").strip()
            raise ConversionError(
                f"pandoc failed (exit {done.returncode}): {message[:500] or 'no message'}"
            )
        return target.read_bytes()
