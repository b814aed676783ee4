"""Where a document's title comes from. A title given by `process_document(file_name=...)`
is kept beside the index (`titles.json` in the index folder), so that every reindex, a
full one included, gives the record that title again. Otherwise the file's own: its PDF
metadata title when that looks like a title, else its first heading, else its file name
(`own_title`)."""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)
MAX_TITLE = 300  # characters kept of a title
LONGEST_HEADING = 200  # a longer line is a paragraph, not a title
HEADING_LINES = 10  # lines of the first page with text where a heading is looked for
# A run of three letters (any script): "0", "1", "x", "a0;0", "1 ⟨∗OT2⟩" have none.
_WORD = re.compile(r"[^\W\d_]{3,}")
# A file name, as TeX tools write it for a title: "youngtab.dvi", "R2-CH=CH-R1.eps".
_FILE_NAME = re.compile(
    r"^\S+\.(dvi|ps|eps|pdf|tex|ltx|dtx|sty|cls|fig|mps|svg|png|jpe?g|tiff?|txt|md|html?"
    r"|rtf|docx?|odt|pptx?|odp|xlsx?|ods|indd|qxd|pub|wpd)$",
    re.IGNORECASE,
)
# A TeX length glued to the text, left by a title's \vspace*{-1cm}: "*-1cmThe xkeyval".
_TEX_LENGTH = re.compile(r"(^|\s)\*?[-+]?\d*\.?\d+(cm|mm|pt|em|ex|bp|pc|sp|in)(?=[^\s\d])")
_PLACEHOLDERS = {"untitled", "(unknown)", "unknown", "title", "(untitled)", "no title"}
_MARKS = "∗*†‡§¶ "  # footnote marks a heading carries ("The graphics package∗")


def looks_like_title(text: str, file_name_ok: bool = False) -> bool:
    """Words of a reasonable length, not a number, a placeholder or TeX's leftovers, nor a
    file name (which a heading may be: "edfnotes.sty" names its package, while a metadata
    title "youngtab.dvi" only names the file TeX wrote)."""
    text = " ".join(text.split())
    return (
        0 < len(text) <= LONGEST_HEADING
        and _WORD.search(text) is not None
        and (file_name_ok or _FILE_NAME.match(text) is None)
        and _TEX_LENGTH.search(text) is None
        and text.lower() not in _PLACEHOLDERS
    )


def first_heading(pages: Iterable[str]) -> str | None:
    """The first line that looks like a title among the first lines of the first page
    with text (a page number or a figure's labels before it are passed over)."""
    for page in pages:
        lines = [" ".join(line.split()) for line in page.splitlines() if line.strip()]
        if not lines:
            continue
        for line in lines[:HEADING_LINES]:
            heading = line.rstrip(_MARKS)
            if looks_like_title(heading, file_name_ok=True):
                return heading
        return None
    return None


def own_title(metadata_title: str, pages: Iterable[str], path: str) -> str:
    """The PDF's metadata title when it looks like a title, else its first heading (from
    the first three pages), else the file name without extension."""
    title = " ".join(metadata_title.split())
    if looks_like_title(title):
        return title[:MAX_TITLE]
    heading = first_heading(list(pages)[:3])
    return heading[:MAX_TITLE] if heading else Path(path).stem


class Titles:
    """{library path: title}, read once and rewritten whole (atomically) on each change."""

    def __init__(self, index_dir: Path) -> None:
        self.file = index_dir / "titles.json"
        self._lock = threading.Lock()
        self._titles: dict[str, str] | None = None
        self._mtime: float | None = None

    def _load(self) -> dict[str, str]:
        """The titles as the file holds them now (another process may have written it)."""
        try:
            mtime = self.file.stat().st_mtime
        except OSError:
            return {}
        if self._titles is None or mtime != self._mtime:
            try:
                data = json.loads(self.file.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                log.warning("cannot read %s: %s", self.file, exc)
                data = {}
            self._titles = (
                {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}
            )
            self._mtime = mtime
        return self._titles

    def get(self, path: str) -> str | None:
        with self._lock:
            return self._load().get(path)

    def set(self, path: str, title: str) -> None:
        title = " ".join(title.split())[:MAX_TITLE]
        with self._lock:
            titles = dict(self._load())
            if not title or titles.get(path) == title:
                return
            titles[path] = title
            temporary = self.file.with_suffix(".tmp")
            temporary.write_text(json.dumps(titles, ensure_ascii=False, indent=0), "utf-8")
            os.replace(temporary, self.file)
            self._titles, self._mtime = titles, self.file.stat().st_mtime
