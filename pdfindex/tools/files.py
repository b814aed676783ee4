"""Seed 001's list_searchable_files and seed 003's read_pdf, answered from the index."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pdfindex.api import PdfIndex, parse_pages
from pdfindex.errors import InvalidQuery, PageOutOfRange, PdfIndexError
from pdfindex.extract.adapters import adapter_name_for
from pdfindex.extract.archives import is_archive
from pdfindex.indexer.scan import DiskFile, scan_folder
from pdfindex.models import FileRecord, FileStatus
from pdfindex.names import NAMING
from pdfindex.tools.budget import cut_text, fit, items_budget, size_of
from pdfindex.tools.names import find_document, readable, resolve_scope
from pdfindex.tools.results import ListSearchableFilesResult, ReadPdfResult, ReadPdfSource

PENDING = "pending"  # on disk, not (or not yet in its current state) in the index
SKIPPED = "skipped"  # on disk, never read: not a regular file, or a name not UTF-8
PAGE_ENVELOPE = 200  # the source's own keys around its pages


def normalize_types(file_types: list[str] | None) -> set[str] | None:
    """["pdf", ".MD"] -> {".pdf", ".md"}; None means every supported type."""
    if not file_types:
        return None
    return {"." + t.strip().lower().lstrip(".") for t in file_types if t.strip()}


def files_under(index: PdfIndex, path: str, file_types: list[str] | None) -> list[dict[str, Any]]:
    """The files under `path` (a folder, or one file by any of its names), with their
    index status: those of a type no adapter reads are `unsupported`, saying why."""
    _, rel = resolve_scope(index, path)
    types = normalize_types(file_types)
    skipped: dict[str, str] = {}
    s = index.settings
    disk = scan_folder(s.files_dir, skipped, leave_out=(s.index_dir, s.log_dir))
    scope = index.scope()  # this host's files, by library path (`SOURCE/…` when named)
    disk = {scope.library_path(name): file for name, file in disk.items()}
    skipped = {scope.library_path(name): reason for name, reason in skipped.items()}
    for source, folder in index.folders.items():  # the `folders` setting's: `NAME/…`
        more: dict[str, str] = {}
        found = scan_folder(folder, more, leave_out=(s.index_dir, s.log_dir))
        disk.update({f"{source}/{name}": file for name, file in found.items()})
        skipped.update({f"{source}/{name}": reason for name, reason in more.items()})
    catalog = index.engine.catalog()
    disk.update(_members(disk, catalog))
    rows = []
    for name, reason in sorted(skipped.items()):  # FIFOs, devices, names not UTF-8
        inside = rel == "." or name == rel or name.startswith(rel.rstrip("/") + "/")
        base = name.rsplit("/", 1)[-1]
        suffix = "." + base.rsplit(".", 1)[-1].lower() if "." in base else ""  # "": a folder
        if inside and (types is None or suffix in types):
            rows.append(
                {
                    "path": name,
                    "type": suffix.lstrip("."),
                    "size": None,
                    "adapter": None,
                    "status": SKIPPED,
                    "pages": None,
                    "error": reason,
                }
            )
    for name, file in sorted(disk.items()):
        inside = rel == "." or name == rel or name.startswith(rel.rstrip("/") + "/")
        base = name.rsplit("/", 1)[-1]
        suffix = "." + base.rsplit(".", 1)[-1].lower() if "." in base else ""
        if not inside or (types is not None and suffix not in types):
            continue
        record = catalog.get(name)
        adapter = adapter_name_for(name, s.extractor, s.custom_adapters)
        current = record is not None and (record.size, record.mtime) == (file.size, file.mtime)
        current = current and (adapter is None) == (record.status == FileStatus.UNSUPPORTED)
        row: dict[str, Any] = {
            "path": name,
            "type": suffix.lstrip("."),
            "size": file.size,
            "adapter": adapter,
            "status": record.status if current and record else PENDING,
            "pages": record.pages if current and record else None,
        }
        if adapter is None:  # never read: said at once, listed or not yet
            row.update(status=FileStatus.UNSUPPORTED, pages=0, error=index.not_read(name))
        elif current and record and record.status not in (FileStatus.OK,):
            row["error"] = record.error
        if current and record:
            row["slug"] = record.slug
        rows.append(row)
    return rows


def _members(disk: dict[str, DiskFile], catalog: dict[str, FileRecord]) -> dict[str, DiskFile]:
    """The documents indexed inside the archives on disk (`a.zip/b.pdf`) as the files
    they are read as: those of an archive unchanged since it was indexed."""
    found: dict[str, DiskFile] = {}
    for name, file in disk.items():
        record = catalog.get(name)
        if not is_archive(name) or record is None or record.mtime != file.mtime:
            continue
        for path, member in catalog.items():
            if path.startswith(name + "/"):
                found[path] = replace(file, path=path, size=member.size, mtime=member.mtime)
    return found


def list_searchable_files(
    index: PdfIndex, path: str = ".", file_types: list[str] | None = None, offset: int = 0
) -> ListSearchableFilesResult:
    rows = files_under(index, path, file_types)
    kept, truncated = fit(rows[offset:], items_budget(index.settings.max_response_chars))
    result: dict[str, Any] = {"path": path, "files": kept, "total": len(rows)}
    if index.folders:  # several folders: which one each first path part names
        result["folders"] = {name: str(folder) for name, folder in index.folders.items()}
    if truncated:
        result.update(truncated=True, next_offset=offset + len(kept))
    return result


def read_pdf(
    index: PdfIndex,
    sources: list[dict[str, Any]],
    include_full_text: bool = False,
    include_metadata: bool = True,
    include_page_count: bool = True,
) -> ReadPdfResult:
    """Seed 003: several sources in one call, each with its own success flag and error."""
    budget = items_budget(index.settings.max_response_chars)
    results = []
    for source in sources:
        try:
            entry = _read_one(
                index, source, include_full_text, include_metadata, include_page_count, budget
            )
        except PdfIndexError as exc:  # a page out of range: blamed on `pages`, as in seed 003
            cause = f"pages: {exc}" if isinstance(exc, PageOutOfRange) else str(exc)
            entry = {"source": _label(source), "success": False, "error": cause}
        budget -= size_of(entry)
        results.append(entry)
    return {"results": results}


def _label(source: dict[str, Any]) -> str:
    return str(source.get("path") or source.get("url") or "")


def _read_one(
    index: PdfIndex,
    source: dict[str, Any],
    include_full_text: bool,
    include_metadata: bool,
    include_page_count: bool,
    budget: int,
) -> ReadPdfSource:
    if source.get("url"):
        raise InvalidQuery("URLs are not read: give a path under the files folder")
    path = source.get("path")
    if not path:
        raise InvalidQuery(f"each source needs a 'path': {NAMING}")
    record = find_document(index, path)
    readable(record)  # failed and encrypted files say so
    data: dict[str, Any] = {}
    if include_page_count:
        data["num_pages"] = record.pages
    if include_metadata:
        data["info"] = dict(record.metadata) | {"title": record.title}
        data["metadata"] = {
            "path": record.path,
            "slug": record.slug,
            "size": record.size,
            "sha256": record.sha256,
            "extractor": record.extractor,
            "indexed_at": record.indexed_at,
        }
    if record.status == FileStatus.EMPTY:
        data["warnings"] = ["no text layer (image-only or blank pages)"]
    wanted = source.get("pages")
    if wanted is not None or include_full_text:
        texts = index.engine.page_texts(record.slug)
        numbers = parse_pages(wanted, len(texts)) if wanted else list(range(1, len(texts) + 1))
        pages = [{"page": n, "text": texts[n - 1]} for n in numbers]
        room = max(budget - size_of(data) - PAGE_ENVELOPE, 0)
        kept, truncated = fit(pages, room)
        cut_page = kept and size_of(kept[0]) > room  # one page alone is too big
        if cut_page:
            kept = [kept[0] | {"text": cut_text(kept[0]["text"], room)}]
            truncated = True
        if wanted is not None:
            data["page_texts"] = kept
        else:
            data["full_text"] = "\n\n".join(p["text"] for p in kept)
        if truncated:
            rest = numbers[len(kept) :]
            data["truncated"] = True
            warning = "response size limit reached"
            if cut_page:
                warning += f": page {kept[0]['page']} was cut (search_in_file finds lines in it)"
            if rest:
                data["next_pages"] = f"{rest[0]}-{rest[-1]}"
                warning += f"; ask for pages {rest[0]}-{rest[-1]} next"
            data.setdefault("warnings", []).append(warning)
    return {"source": _label(source), "success": True, "data": data}
