"""What `pdfindex stats` and get_library_status say of the catalog: documents by status
and by folder, problem files, elements, OCR. Kept apart from the library front, which a
search loads, as only those calls need it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from pdfindex.models import ElementsState, FileRecord, FileStatus


def catalog_figures(records: Iterable[FileRecord]) -> dict[str, Any]:
    """What `stats` says of the catalog (PdfIndex.per_generation keeps it for one index
    generation), in one pass over the records: the engine hands them over one at a time
    (Engine.records), so no caller holds them all (at 40,000 files, ~200 MB that the
    heap kept after they were dropped)."""
    # unsupported (listed, of a type not read) only when there are some
    by_status = {s: 0 for s in FileStatus if s != FileStatus.UNSUPPORTED}
    elements: Counter[str] = Counter()  # as summing Counter(r.elements) of each counted:
    by_folder: dict[str, tuple[int, int]] = {}  # a kind in the order its first count came
    problems: list[dict[str, Any]] = []
    documents = pages = pending = analysed = 0
    ocr_pages = ocr_missing = ocr_files = ocr_waiting = 0
    last: float | None = None
    for record in records:
        documents += 1
        by_status[record.status] = by_status.get(record.status, 0) + 1
        elements.update({kind: n for kind, n in record.elements.items() if n > 0})
        head = record.path.partition("/")[0] if "/" in record.path else ""  # folders' sources
        counted = record.pages if record.status in (FileStatus.OK, FileStatus.EMPTY) else 0
        folder_documents, folder_pages = by_folder.get(head, (0, 0))
        by_folder[head] = (folder_documents + 1, folder_pages + counted)
        pages += counted
        if record.status not in (FileStatus.OK, FileStatus.UNSUPPORTED):  # counted, not listed
            problems.append({"path": record.path, "status": record.status, "reason": record.error})
        last = record.indexed_at if last is None else max(last, record.indexed_at)
        ocr_pages += record.ocr_pages
        ocr_missing += record.ocr_missing
        ocr_files += 1 if record.ocr_missing else 0
        ocr_waiting += 0 if record.ocr_lang else record.ocr_missing
        pending += record.elements_state == ElementsState.PENDING
        analysed += record.elements_state != ElementsState.NONE
    return {
        "by_folder": by_folder,
        "documents": documents,
        "pages": pages,
        "by_status": by_status,
        "problems": sorted(problems, key=lambda p: p["path"]),
        "last": last,
        "ocr": (ocr_pages, ocr_missing, ocr_files, ocr_waiting),
        "elements": dict(elements.most_common()),
        "elements_pending": pending,
        "elements_documents": analysed,
    }


def ocr_counts(records: Iterable[FileRecord]) -> tuple[int, int, int, int]:
    """(pages read by OCR, image pages not read, files with such pages, those of them OCR
    never ran on: off, unavailable or left for later, which the next run with OCR reads)."""
    records = list(records)
    return (
        sum(r.ocr_pages for r in records),
        sum(r.ocr_missing for r in records),
        sum(1 for r in records if r.ocr_missing),
        sum(r.ocr_missing for r in records if not r.ocr_lang),
    )
