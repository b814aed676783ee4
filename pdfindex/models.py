"""Engine-neutral records: what the indexer writes, every engine stores and returns, and
the search and tool layers read. Nothing here knows an engine, a front or a file format."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, NotRequired, TypedDict


class FileStatus(StrEnum):
    """A file's catalog status."""

    OK = "ok"
    EMPTY = "empty"  # no text layer
    ENCRYPTED = "encrypted"
    FAILED = "failed"
    UNSUPPORTED = "unsupported"  # a type no adapter reads: listed, never extracted


class ElementsState(StrEnum):
    """Where a file stands in the elements pass."""

    NONE = "none"  # not a PDF, not readable, or the pass is off
    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"


class ElementRecord(TypedDict):
    """A figure, table or equation as engines store and return it: the keys of
    `pdfindex.elements.detect.Element.to_dict`, plus the owning file's slug and path once
    an engine holds it."""

    label: str
    kind: str  # one of pdfindex.elements.detect.ELEMENT_TYPES
    page: int  # 1-based
    bbox: list[float]  # (x0, top, x1, bottom) in points, from the page's top-left corner
    caption: str
    context: str
    cells: list[list[str]] | None
    latex: str | None
    slug: NotRequired[str]
    path: NotRequired[str]


@dataclass
class FileRecord:
    """The catalog entry of one file. `status` and `elements_state` are enum members
    whatever they were given (an engine's stored record holds their strings)."""

    path: str
    slug: str
    title: str
    pages: int
    size: int
    mtime: float
    sha256: str
    status: FileStatus
    error: str | None
    indexed_at: float
    extractor: str
    metadata: dict[str, str] = field(default_factory=dict)
    language: str = "unknown"
    stages: list[str] = field(default_factory=list)
    ocr_lang: str | None = None  # set when OCR read any page
    ocr_pages: int = 0
    ocr_confidence: float | None = None  # mean over OCR'd pages
    ocr_missing: int = 0  # pages without a text layer that OCR did not read
    elements: dict[str, int] = field(default_factory=dict)  # element type -> count
    elements_state: ElementsState = ElementsState.NONE
    image_pages: list[int] = field(default_factory=list)  # large images: element candidates
    element_pages: list[int] = field(default_factory=list)  # what the elements pass reads
    notes: list[str] = field(default_factory=list)
    # len(text.splitlines()) of each stored page: a regex search that reads only some
    # pages still numbers lines across the file (None: indexed before it was kept)
    page_lines: list[int] | None = None

    def __post_init__(self) -> None:
        self.status = FileStatus(self.status)
        self.elements_state = ElementsState(self.elements_state)

    @property
    def page_unit(self) -> str:
        """What one of its pages is: page (PDF, text), slide, sheet, part (of a document
        without pages: ~3,000 characters) or frame (of an image); set by its adapter."""
        return self.metadata.get("page_unit", "page")

    def to_dict(self) -> dict[str, Any]:
        """The record as plain data, what engines store (JSON, or Whoosh's pickled
        fields): its states as strings, so a stored index names no Python class."""
        states = {"status": str(self.status), "elements_state": str(self.elements_state)}
        return asdict(self) | states


@dataclass(frozen=True)
class PageRef:
    """A page found by the index, its text not loaded yet (PageCandidates loads it)."""

    path: str
    slug: str
    page: int


@dataclass
class PageHit:
    """One ranked page."""

    path: str
    slug: str
    page: int
    score: float
    snippet: str
    text: str = field(default="", repr=False)


@dataclass
class ExactMatch:
    """One occurrence: where it is, its offsets in the page text, and its context."""

    path: str
    slug: str
    page: int
    start: int
    end: int
    context: str


@dataclass
class Summary:
    """What one reindex did."""

    added: int = 0
    updated: int = 0
    moved: int = 0
    removed: int = 0
    failed: int = 0
    unchanged: int = 0
    touched: int = 0
    unsupported: int = 0  # files of a type no adapter reads, listed anew
    pages: int = 0
    parsed: int = 0
    from_cache: int = 0
    seconds: float = 0.0
    parsed_paths: list[str] = field(default_factory=list)
    failures: dict[str, str] = field(default_factory=dict)
    elements_files: int = 0  # files the elements pass finished
    elements_found: int = 0
    elements_seconds: float = 0.0  # of `seconds`, the elements pass after the text commit
    elements_pending: int = 0  # PDFs whose elements are left for later (deferred, stopped)
    ocr_pending: int = 0  # pages without a text layer left for a later run's OCR (ocr_later)
    ocr_pending_files: int = 0
    # The paths a run limited to what the watcher saw change looked at (files and
    # folders, each with what is under it); None: the run scanned every folder.
    scope: int | None = None
    finished: bool = True  # False: files (or their elements) left for the next run

    def line(self) -> str:
        elements = (
            f"; {self.elements_found} elements in {self.elements_files} files"
            if self.elements_files
            else ""
        )
        later = (
            f"; elements of {self.elements_pending} documents left for later"
            if self.elements_pending
            else ""
        )
        if self.ocr_pending:
            later += (
                f"; {self.ocr_pending} scanned pages of {self.ocr_pending_files} documents"
                " left for OCR later"
            )
        # The text is searchable once its pass commits: its time is said apart.
        took = (
            f"text {self.seconds - self.elements_seconds:.2f} s + elements "
            f"{self.elements_seconds:.2f} s = {self.seconds:.2f} s"
            if self.elements_seconds
            else f"{self.seconds:.2f} s"
        )
        return (
            f"added {self.added}, updated {self.updated}, moved {self.moved}, "
            f"removed {self.removed}, failed {self.failed}"
            + (f", {self.unsupported} of a type not read" if self.unsupported else "")
            + f"; {self.pages} pages, "
            f"{self.parsed} parsed, {self.from_cache} from cache{elements}{later}, {took}"
        )
