"""Archives (ZIP, TAR and its compressed forms, 7z): the documents they hold, nested
archives included, read through libarchive as one stream whose every byte is counted.

Nothing in an archive's headers is trusted: sizes are counted while the bytes come out,
against a budget per archive (total bytes, bytes per member, members, nesting depth and
the compression ratio), so a hostile archive costs no more than its budget. A member is
never written under its own name: its bytes go to a temporary file in the index
folder's scratch folder (`tmp/`), removed when it has been read. A member named with
`..`, an absolute path or a drive letter, and a link or device member, is never read;
the archive's own record says so.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any

from pdfindex.config import SETTINGS, Settings
from pdfindex.errors import ArchiveRefused
from pdfindex.models import FileStatus

# Longest first: `.tar.gz` before `.gz` would matter if `.gz` alone were one.
ARCHIVE_EXTENSIONS = (
    ".tar.bz2",
    ".tar.gz",
    ".tar.xz",
    ".tbz2",
    ".tgz",
    ".txz",
    ".tar",
    ".zip",
    ".7z",
)
VERSION = "archive-1"  # the cache key of a listing
SCRATCH = "tmp"  # the index folder's sub-folder for members being read
_DRIVE = re.compile(r"^[a-zA-Z]:")
STALE_SECONDS = 3600.0  # a scratch file this old was left by a crash
RATIO_FLOOR = 1 << 20  # the ratio limit applies once an archive gave out this many bytes
MAX_NOTES = 20  # an archive record's notes on members left out; the rest are counted


@dataclass(frozen=True)
class Limits:
    """What one archive (all its nested archives together) may cost (the settings
    `archive_*`)."""

    depth: int = SETTINGS["archive_depth"].default  # the outer archive is depth 1
    members: int = SETTINGS["archive_members"].default  # entries, nested ones included
    total_bytes: int = SETTINGS["archive_mb"].default << 20  # uncompressed, all levels
    member_bytes: int = SETTINGS["archive_member_mb"].default << 20
    ratio: float = SETTINGS["archive_ratio"].default  # out : in, past RATIO_FLOOR bytes

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        return cls(
            settings.archive_depth,
            settings.archive_members,
            settings.archive_mb << 20,
            settings.archive_member_mb << 20,
            settings.archive_ratio,
        )


@dataclass(frozen=True)
class Member:
    """A document inside an archive: its names from the outer archive inwards, its size
    and the sha256 of its bytes (counted, not read from a header)."""

    chain: tuple[str, ...]
    size: int
    sha256: str

    @property
    def name(self) -> str:
        return "/".join(self.chain)

    def to_dict(self) -> dict[str, Any]:
        return {"chain": list(self.chain), "size": self.size, "sha256": self.sha256}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Member:
        return cls(tuple(data["chain"]), int(data["size"]), str(data["sha256"]))


@dataclass
class Listing:
    """What reading an archive found: its documents, and what it left out and why."""

    members: list[Member] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    entries: int = 0  # every entry looked at (folders, links, other files included)
    nested: int = 0  # archives read inside it
    untold: int = 0  # notes past MAX_NOTES, counted only

    def note(self, text: str) -> None:
        """Tell what was left out, up to MAX_NOTES lines (a bomb has thousands)."""
        if len(self.notes) < MAX_NOTES:
            self.notes.append(text)
        else:
            self.untold += 1


def is_archive(name: str | Path) -> bool:
    return str(name).lower().endswith(ARCHIVE_EXTENSIONS)


def safe_name(name: str) -> str | None:
    """A member's name as a clean relative posix path, or None when it could lead out
    of the archive (`..`, absolute, a drive letter) or names nothing."""
    if not name or "\x00" in name or name.startswith(("/", "\\")) or _DRIVE.match(name):
        return None
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)


def split_chain(inside: str) -> tuple[str, ...]:
    """A member path under an archive (`inner.zip/a.pdf`) as the names at each level
    (`inner.zip`, `a.pdf`): a component named as an archive, not the last, is one."""
    chain, current = [], []
    parts = inside.split("/")
    for index, part in enumerate(parts):
        current.append(part)
        if is_archive(part) and index < len(parts) - 1:
            chain.append("/".join(current))
            current = []
    chain.append("/".join(current))
    return tuple(chain)


class _Budget:
    """The bytes and entries one top-level archive has cost so far."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.total = 0
        self.entries = 0

    def take(self, count: int) -> None:
        self.total += count
        if self.total > self.limits.total_bytes:
            raise ArchiveRefused(
                f"over the budget of {self.limits.total_bytes >> 20} MB uncompressed (a zip bomb?)"
            )


class _Level:
    """One archive being read (the outer one or a nested one), counting what it gives
    out against what it read from its file, for the ratio limit."""

    def __init__(self, archive: Any, budget: _Budget, depth: int, where: str) -> None:
        self.archive, self.budget, self.depth, self.where = archive, budget, depth, where
        self.out = 0

    def blocks(self, entry: Any) -> Iterator[bytes]:
        """The entry's bytes, each block counted before it is handed on."""
        limits = self.budget.limits
        for block in entry.get_blocks():
            self.out += len(block)
            self.budget.take(len(block))
            read = max(self.archive.bytes_read, 1)
            if self.out > RATIO_FLOOR and self.out > limits.ratio * read:
                raise ArchiveRefused(
                    f"{self.where or 'the archive'}: compression ratio over "
                    f"{limits.ratio:g}:1 ({self.out:,} bytes out of {read:,}; a zip bomb?)"
                )
            yield block


Visit = Callable[[tuple[str, ...], Any, "_Level"], None]
Wanted = Callable[[tuple[str, ...]], bool]  # which members (by chain) to read


def _walk(
    fd: int,
    budget: _Budget,
    listing: Listing,
    visit: Visit,
    wanted: Wanted,
    outer: tuple[str, ...] = (),
    depth: int = 1,
    scratch: Path | None = None,
) -> None:
    """Read the archive open on `fd` entry by entry, calling `visit(chain, entry,
    level)` for each regular member `wanted` names (an archive it names is read in turn,
    up to the depth limit); nested archives are read through a
    scratch file, each refused entry told in `listing.notes`. Every byte of every entry
    is read through the budget (skipping a compressed stream's entry still inflates it)."""
    import libarchive  # loads the C library: only where an archive is read

    where = "/".join(outer)
    with libarchive.fd_reader(fd) as archive:
        level = _Level(archive, budget, depth, where)
        for entry in archive:
            budget.entries += 1
            listing.entries += 1
            if budget.entries > budget.limits.members:
                listing.notes.append(
                    f"more than {budget.limits.members:,} entries: the rest are not read"
                )
                raise _Enough
            raw = entry.pathname or ""
            if entry.isdir:
                continue
            name = safe_name(raw)
            shown = f"{where}/{raw}" if where else raw
            if name is None:
                listing.note(f"refused member {shown!r}: its name leads out of the archive")
                _drain(level, entry)
                continue
            if not entry.isreg:
                kind = "link" if entry.issym or entry.islnk else "device or special file"
                listing.note(f"refused member {shown!r}: a {kind}, not read")
                continue
            chain = (*outer, name)
            if not wanted(chain):
                _drain(level, entry)
            elif is_archive(name):
                if depth >= budget.limits.depth:
                    listing.note(
                        f"not read {shown!r}: archives nested deeper than "
                        f"{budget.limits.depth} levels"
                    )
                    _drain(level, entry)
                    continue
                _nested(level, entry, chain, budget, listing, visit, wanted, scratch)
            else:
                visit(chain, entry, level)


class _Enough(Exception):
    """The member limit is reached: stop reading, keep what was found."""


def _drain(level: _Level, entry: Any) -> None:
    for _block in level.blocks(entry):
        pass


def _nested(
    level: _Level,
    entry: Any,
    chain: tuple[str, ...],
    budget: _Budget,
    listing: Listing,
    visit: Visit,
    wanted: Wanted,
    scratch: Path | None,
) -> None:
    """Read an archive inside an archive from a scratch copy of its bytes."""
    shown = "/".join(chain)
    if scratch is None:
        listing.note(f"not read {shown!r}: no scratch folder for nested archives")
        _drain(level, entry)
        return
    with scratch_file(scratch) as handle:
        size = _copy(level, entry, handle, budget.limits, shown)
        if size is None:
            listing.note(_too_large(shown, budget.limits))
            return
        listing.nested += 1
        handle.flush()
        handle.seek(0)
        try:
            _walk(handle.fileno(), budget, listing, visit, wanted, chain, level.depth + 1, scratch)
        except _archive_error() as exc:
            listing.note(f"not read {shown!r}: {_reason(exc)}")


def _copy(
    level: _Level, entry: Any, handle: IO[bytes] | None, limits: Limits, shown: str
) -> int | None:
    """Write the entry's bytes to `handle` (or only count them); None when it is over
    the member limit (the rest is still read through the budget, never kept)."""
    size = 0
    for block in level.blocks(entry):
        size += len(block)
        if size > limits.member_bytes:
            handle = None
            continue
        if handle is not None:
            handle.write(block)
    return None if size > limits.member_bytes else size


def _too_large(shown: str, limits: Limits) -> str:
    return f"not read {shown!r}: over the {limits.member_bytes >> 20} MB limit for one member"


@contextmanager
def scratch_file(scratch: Path) -> Iterator[IO[bytes]]:
    """A file of its own in `scratch` (the index folder's), removed when closed. It has
    a name (pypdfium2 opens a path as the name it resolves to); one left by a crash is
    removed by the next scratch file made after STALE_SECONDS."""
    scratch.mkdir(parents=True, exist_ok=True)
    _remove_stale(scratch)
    with tempfile.NamedTemporaryFile(dir=scratch, prefix="member-") as handle:
        yield handle


def _remove_stale(scratch: Path) -> None:
    now = time.time()
    for entry in os.scandir(scratch):
        try:
            if entry.name.startswith("member-") and now - entry.stat().st_mtime > STALE_SECONDS:
                os.unlink(entry.path)
        except OSError:
            pass  # another process's, removed meanwhile


def _archive_error() -> type[Exception]:
    from libarchive.exception import ArchiveError

    return ArchiveError


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"encrypted ({text})" if "ncrypt" in text or "assphrase" in text else text


def list_archive(fd: int, wanted: Wanted, limits: Limits, scratch: Path | None) -> Listing:
    """Every document (`wanted`, by its chain of names) in the archive open on `fd`,
    nested archives included, each with its sha256 and size as counted. Raises
    ArchiveRefused when the archive as a whole cannot be read within its budget or at all
    (corrupt, encrypted)."""
    listing = Listing()
    budget = _Budget(limits)

    def visit(chain: tuple[str, ...], entry: Any, level: _Level) -> None:
        digest = hashlib.sha256()
        size = 0
        for block in level.blocks(entry):
            size += len(block)
            if size <= limits.member_bytes:
                digest.update(block)
        if size > limits.member_bytes:
            listing.note(_too_large("/".join(chain), limits))
        else:
            listing.members.append(Member(chain, size, digest.hexdigest()))

    _read(fd, budget, listing, visit, wanted, scratch)
    if listing.untold:
        listing.notes.append(f"... and {listing.untold:,} more members left out")
    return listing


def _read(
    fd: int,
    budget: _Budget,
    listing: Listing,
    visit: Visit,
    wanted: Wanted,
    scratch: Path | None,
) -> None:
    try:
        _walk(fd, budget, listing, visit, wanted, scratch=scratch)
    except _Enough:
        pass
    except _archive_error() as exc:
        raise ArchiveRefused(_reason(exc)) from None


@contextmanager
def member_file(fd: int, member: Member, limits: Limits, scratch: Path) -> Iterator[IO[bytes]]:
    """The bytes of `member` of the archive open on `fd`, in an anonymous scratch file
    (read through the same budget as the listing). Raises ArchiveRefused when the member
    is not there, or its bytes are not the ones indexed (the archive changed)."""
    listing = Listing()
    budget = _Budget(limits)
    with scratch_file(scratch) as handle:
        found: list[str] = []

        def visit(chain: tuple[str, ...], entry: Any, level: _Level) -> None:
            if chain != member.chain or found:
                _drain(level, entry)
                return
            digest = hashlib.sha256()
            size = 0
            for block in level.blocks(entry):
                size += len(block)
                if size > limits.member_bytes:
                    raise ArchiveRefused(_too_large(member.name, limits))
                digest.update(block)
                handle.write(block)
            found.append(digest.hexdigest())

        def wanted(chain: tuple[str, ...]) -> bool:
            return chain == member.chain[: len(chain)]

        _read(fd, budget, listing, visit, wanted, scratch)
        if not found:
            raise ArchiveRefused(f"{member.name!r} is not in the archive (any more)")
        if member.sha256 and found[0] != member.sha256:
            raise ArchiveRefused(f"{member.name!r} changed since it was indexed")
        handle.flush()
        handle.seek(0)
        yield handle


def listing_text(listing: Listing) -> str:
    """The archive's own page (its title is the first line): the documents it holds."""
    lines = [f"An archive of {len(listing.members)} document(s)"]
    lines += [member.name for member in listing.members]
    return "\n".join(lines)


def refused_status(reason: str) -> FileStatus:
    return FileStatus.ENCRYPTED if reason.startswith("encrypted") else FileStatus.FAILED


def member_path(archive: str, member: Member) -> str:
    """The library path of a member: the archive's path, then the member's names."""
    return str(PurePosixPath(archive, *member.chain))


def in_archive(base: Path, real: Path) -> tuple[Path, tuple[str, ...]] | None:
    """(the archive file, the member chain) when `real` (a path under `base`) names a
    member of an archive file under `base` rather than a file; None otherwise."""
    for parent in real.parents:
        if parent == base or not parent.is_relative_to(base):
            return None
        if is_archive(parent.name) and os.path.isfile(parent):
            return parent, split_chain(real.relative_to(parent).as_posix())
    return None
