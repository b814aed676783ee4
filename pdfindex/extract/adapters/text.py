"""Plain-text and Markdown files: the second and third adapters of the registry.

A text file has no pages: it is one page, or one page per form feed (\\f) when it has them,
so line numbers within a page are the file's line numbers.
"""

from __future__ import annotations

from pathlib import Path

from pdfindex.extract.adapters.base import Extraction, finish

_MAX_BYTES = 50 * 1024 * 1024


class TextAdapter:
    name = "text"
    description = "Plain text files, read as UTF-8 (invalid bytes replaced)"
    extensions: tuple[str, ...] = (".txt",)

    @property
    def version(self) -> str:
        return f"{self.name}-1"

    @property
    def binary(self) -> str:
        return "python (built-in)"

    def extract(self, path: Path) -> Extraction:
        size = path.stat().st_size
        if size > _MAX_BYTES:
            raise ValueError(f"file of {size} bytes is over the {_MAX_BYTES} byte limit")
        text = path.read_bytes().decode("utf-8", errors="replace")
        pages = text.split("\f") if "\f" in text else [text]
        return finish(pages, self._metadata(text), self.version)

    def _metadata(self, text: str) -> dict[str, str]:
        return {}


class MarkdownAdapter(TextAdapter):
    name = "markdown"
    description = "Markdown files; the first heading is the title"
    extensions = (".md", ".markdown")

    def _metadata(self, text: str) -> dict[str, str]:
        for line in text.splitlines():
            if line.startswith("#"):
                return {"title": line.lstrip("#").strip()}
        return {}
