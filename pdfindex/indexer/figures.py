"""What `pdfindex stats` and get_library_status say of the catalog: documents by status
and by folder, problem files, elements, OCR. Kept apart from the library front, which a
search loads, as only those calls need it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from pdfindex.models import ElementsState, FileRecord, FileStatus


def catalog_figures(catalog: dict[str, FileRecord]) -> dict[str, Any]:
    """What `stats` says of the catalog (PdfIndex.per_generation keeps it for one index
    generation)."""
    records = catalog.values()
    # unsupported (listed, of a type not read) only when there are some
    by_status = {s: 0 for s in FileStatus if s != FileStatus.UNSUPPORTED}
    for record in records:
        by_status[record.status] = by_status.get(record.status, 0) + 1
    elements: Counter[str] = Counter()  # as summing Counter(r.elements) of each counted:
    for record in records:  # a kind in the order its first count above zero came
        elements.update({kind: n for kind, n in record.elements.items() if n > 0})
    by_folder: dict[str, tuple[int, int]] = {}
    for record in records:  # documents and pages by first path part: folders' sources
        head = record.path.partition("/")[0] if "/" in record.path else ""
        counted = record.pages if record.status in (FileStatus.OK, FileStatus.EMPTY) else 0
        documents, pages = by_folder.get(head, (0, 0))
        by_folder[head] = (documents + 1, pages + counted)
    return {
        "by_folder": by_folder,
        "documents": len(catalog),
        "pages": sum(r.pages for r in records if r.status in (FileStatus.OK, FileStatus.EMPTY)),
        "by_status": by_status,
        "problems": [
            {"path": r.path, "status": r.status, "reason": r.error}
            for r in sorted(records, key=lambda r: r.path)
            if r.status not in (FileStatus.OK, FileStatus.UNSUPPORTED)  # counted, not listed
        ],
        "last": max((r.indexed_at for r in records), default=None),
        "ocr": ocr_counts(records),
        "elements": dict(elements.most_common()),
        "elements_pending": sum(1 for r in records if r.elements_state == ElementsState.PENDING),
    }


def ocr_counts(records: Iterable[FileRecord]) -> tuple[int, int, int]:
    """(pages read by OCR, image pages not read, files with such pages)."""
    records = list(records)
    return (
        sum(r.ocr_pages for r in records),
        sum(r.ocr_missing for r in records),
        sum(1 for r in records if r.ocr_missing),
    )
