"""Archives in the files folder: each member document becomes a file of its own, named
`ARCHIVE/MEMBER` (`bundle.zip/papers/a.pdf`, `outer.zip/inner.zip/a.pdf`).

An archive unchanged since it was indexed (size and mtime) keeps the members its records
name, unread. A new or changed one is listed (from the extraction cache, else by a
worker, within the archive budget: `pdfindex.extract.archives`), and each member gets the
archive's mtime and its own size and sha256, so the planner re-reads only the members
whose bytes changed; a member gone from the archive, or a deleted archive, leaves.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from pdfindex.extract.adapters.base import Extraction
from pdfindex.extract.archives import Member, is_archive, member_path
from pdfindex.extract.cache import file_sha256
from pdfindex.indexer.scan import DiskFile
from pdfindex.models import FileRecord

if TYPE_CHECKING:
    from pdfindex.indexer.update import Indexer


def expand_archives(
    indexer: Indexer, disk: dict[str, DiskFile], catalog: dict[str, FileRecord]
) -> dict[str, DiskFile]:
    """`disk` with the member documents of its archives added; the listings made now
    are kept in `indexer.listed` (by the archive's sha256) for the archive's own record."""
    indexer.listed = {}
    archives = [file for path, file in disk.items() if is_archive(path)]
    if not archives:
        return disk
    expanded = dict(disk)
    to_list: list[tuple[DiskFile, str]] = []
    for file in archives:
        record = catalog.get(file.path)
        prefix = file.path + "/"
        members = [r for path, r in catalog.items() if path.startswith(prefix)]
        same = record is not None and (record.size, record.mtime) == (file.size, file.mtime)
        if same and not any(indexer.ocr_stale(r) for r in members):
            for r in members:  # what the index holds is what the archive holds
                expanded[r.path] = _member_file(file, r.path, Member((), r.size, r.sha256))
            continue
        try:
            sha = file_sha256(file.opened_path(), file.identity, indexer.base_of(file.path))
        except OSError:
            continue  # unreadable now: the planner says so for the archive itself
        listing = indexer.cache.get(sha, indexer.version_for(file.path))
        if listing is None:
            to_list.append((file, sha))
        else:
            _add_members(expanded, file, listing)
    if to_list:
        with indexer.pool_for(len(to_list)) as pool:
            tasks = [
                (i, (str(f.opened_path()), f.identity, sha)) for i, (f, sha) in enumerate(to_list)
            ]
            for index, listing in pool.run(tasks):  # type: ignore[misc]
                file, sha = to_list[index]
                indexer.cache.put(sha, indexer.version_for(file.path), listing)
                indexer.listed[sha] = listing
                _add_members(expanded, file, listing)
    return expanded


def _add_members(expanded: dict[str, DiskFile], file: DiskFile, listing: Extraction) -> None:
    for data in listing.members:
        member = Member.from_dict(data)
        path = member_path(file.path, member)
        expanded[path] = _member_file(file, path, member)


def _member_file(archive: DiskFile, path: str, member: Member) -> DiskFile:
    """A member as the planner sees a file: the archive's mtime, its own size; read
    through the archive (its path and identity)."""
    return replace(archive, path=path, size=member.size, archive=archive, member=member)


def member_task(file: DiskFile) -> dict[str, object] | None:
    """What a worker needs to find a member in its archive (None: not a member)."""
    return file.member.to_dict() if file.member is not None else None
