"""RTF with striprtf (pure Python, no XML): text in parts of about PART_CHARS characters
cut between paragraphs; the title from the info group's {\\title …}."""

from __future__ import annotations

import re
from importlib import metadata as distributions
from pathlib import Path

from pdfindex.extract.adapters.base import Extraction, finish, split_parts
from pdfindex.extract.adapters.containers import check_size

MAX_BYTES = 50 * 1024 * 1024  # RTF is text: this is thousands of pages
_INFO = re.compile(rb"\{\\(title|author|subject|keywords)\s+([^{}\\]*)\}")


class RtfAdapter:
    name = "rtf"
    description = "Rich Text Format (.rtf) with striprtf; a page is a part of ~3,000 characters"
    extensions: tuple[str, ...] = (".rtf",)

    @property
    def version(self) -> str:
        return f"striprtf-{distributions.version('striprtf')}"

    @property
    def binary(self) -> str:
        return f"striprtf {distributions.version('striprtf')}"

    def extract(self, path: Path) -> Extraction:
        check_size(path, MAX_BYTES)
        data = path.read_bytes()
        if not data.lstrip().startswith(b"{\\rtf"):
            raise ValueError("not an RTF file (no {\\rtf header)")
        from striprtf.striprtf import rtf_to_text  # loaded with the first file read

        text = rtf_to_text(data.decode("latin-1"), errors="ignore")
        meta = {}
        for key, value in _INFO.findall(data[:1_000_000]):
            meta.setdefault(key.decode(), value.decode("latin-1").strip())
        paragraphs = re.split(r"\n\s*\n|\n", text)
        return finish(split_parts(paragraphs), meta, self.version, unit="part")
