"""The small interface every text extractor implements, and the result it returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from pdfindex.extract.text import TEXT_VERSION, clean_metadata_value, normalize_text
from pdfindex.models import FileStatus

# Catalog statuses of a file, as plain strings (what the catalog stores).


# PDF document-information keys -> the metadata names pdfindex shows (both PDF adapters).
PDF_METADATA_KEYS = {
    "Title": "title",
    "Author": "author",
    "Subject": "subject",
    "Keywords": "keywords",
    "Creator": "creator",
    "Producer": "producer",
    "CreationDate": "created",
    "ModDate": "modified",
}


@dataclass
class Extraction:
    """What one extractor made of one file: page texts (as `pdfindex.extract.text` stores
    them) and metadata, plus what the PDF enrichment added (OCR'd pages, visual elements)."""

    status: str
    pages: list[str] = field(default_factory=list)
    metadata: dict[str, str] = field(default_factory=dict)
    error: str | None = None
    engine: str = ""
    ocr_lang: str | None = None  # the language OCR ran in, if it ran on any page
    ocr_pages: dict[int, float] = field(default_factory=dict)  # page -> mean confidence
    ocr_missing: list[int] = field(default_factory=list)  # no text layer, not OCR'd
    elements: list[dict] = field(default_factory=list)  # pdfindex.elements.Element dicts
    image_pages: list[int] = field(default_factory=list)  # pages showing a large image
    notes: list[str] = field(default_factory=list)  # what went wrong in enrichment
    members: list[dict] = field(default_factory=list)  # an archive's: archives.Member dicts

    def to_dict(self) -> dict[str, object]:
        return {
            "status": self.status,
            "pages": self.pages,
            "metadata": self.metadata,
            "error": self.error,
            "engine": self.engine,
            "ocr_lang": self.ocr_lang,
            "ocr_pages": {str(k): v for k, v in self.ocr_pages.items()},
            "ocr_missing": self.ocr_missing,
            "elements": self.elements,
            "image_pages": self.image_pages,
            "notes": self.notes,
            "members": self.members,
            "text_version": TEXT_VERSION,  # the normalize_text rules the texts follow
        }

    @classmethod
    def from_dict(cls, data: dict) -> Extraction:
        return cls(
            status=data["status"],
            pages=list(data.get("pages", [])),
            metadata=dict(data.get("metadata", {})),
            error=data.get("error"),
            engine=data.get("engine", ""),
            ocr_lang=data.get("ocr_lang"),
            ocr_pages={int(k): float(v) for k, v in (data.get("ocr_pages") or {}).items()},
            ocr_missing=[int(n) for n in data.get("ocr_missing") or []],
            elements=list(data.get("elements") or []),
            image_pages=[int(n) for n in data.get("image_pages") or []],
            notes=list(data.get("notes") or []),
            members=list(data.get("members") or []),
        )


class Adapter(Protocol):
    """A text extractor for some file types."""

    name: str
    extensions: tuple[str, ...]

    @property
    def version(self) -> str: ...

    @property
    def binary(self) -> str:
        """The library or program it runs, as adapters://list shows it."""
        ...

    def extract(self, path: Path) -> Extraction:
        """Return the file's page texts; raise EncryptedDocument or any error on failure."""
        ...


def clean_metadata(metadata: dict[str, str]) -> dict[str, str]:
    """Metadata fields as clean single lines (no control bytes); empty ones dropped."""
    cleaned = {key: clean_metadata_value(str(value)) for key, value in metadata.items() if value}
    return {key: value for key, value in cleaned.items() if value}


def status_of(pages: list[str]) -> str:
    return FileStatus.OK if any(t.strip() for t in pages) else FileStatus.EMPTY


def finish(
    pages: list[str], metadata: dict[str, str], engine: str, unit: str | None = None
) -> Extraction:
    """Normalise page texts and decide between `ok` and `empty` (no text layer); `unit`
    (slide, sheet, part, frame) is what a page is in a format without printed pages."""
    texts = [normalize_text(p) for p in pages]
    if unit:
        metadata = {**metadata, "page_unit": unit}
    status = status_of(texts)
    error = None if status == FileStatus.OK else "no text layer (image-only or blank pages)"
    clean_meta = clean_metadata(metadata)
    return Extraction(status=status, pages=texts, metadata=clean_meta, error=error, engine=engine)


def office_metadata(properties: object) -> dict[str, str]:
    """Core properties of an Office file (python-docx, python-pptx and openpyxl all carry
    them under the same names) as pdfindex's metadata names."""
    found = {}
    for key, attribute in (
        ("title", "title"),
        ("author", "author"),
        ("author", "creator"),  # openpyxl's name for the author
        ("subject", "subject"),
        ("keywords", "keywords"),
        ("created", "created"),
        ("modified", "modified"),
    ):
        value = getattr(properties, attribute, None)
        if value and key not in found:
            found[key] = value.isoformat() if hasattr(value, "isoformat") else str(value)
    return found


MAX_TEXT_CHARS = 25_000_000  # a file's text past this is cut (a 1,300-page manual: ~4 M)
PART_CHARS = 3_000  # a "page" of a format without pages: about a printed page of text


def split_parts(paragraphs: list[str], size: int = PART_CHARS) -> list[str]:
    """Paragraphs gathered into parts of about `size` characters, cut between paragraphs
    (a paragraph longer than `size` alone is cut at a space), so a hit's page number points
    at a page-sized stretch of a document that has no pages of its own."""
    parts: list[str] = []
    current: list[str] = []
    length = 0
    for paragraph in (p.strip("\n") for p in paragraphs):
        if not paragraph.strip():
            continue
        while len(paragraph) > size:  # one huge paragraph: cut at the last space
            cut = paragraph.rfind(" ", size // 2, size)
            cut = cut if cut > 0 else size
            if current:
                parts.append("\n\n".join(current))
                current, length = [], 0
            parts.append(paragraph[:cut])
            paragraph = paragraph[cut:].lstrip(" ")
        if current and length + len(paragraph) > size:
            parts.append("\n\n".join(current))
            current, length = [], 0
        current.append(paragraph)
        length += len(paragraph) + 2
    if current:
        parts.append("\n\n".join(current))
    return parts or [""]
