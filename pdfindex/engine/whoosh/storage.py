"""Whoosh's file storage with segment files read in place from a memory map.

Whoosh maps each segment file, then copies every part it opens (terms, postings, stored
fields) into a BytesIO (`BufferFile`): opening a searcher on 48,000 pages held ~250 MB
of copies plus ~240 MB of mapped pages, 450 MB in all. Here the parts are views of one
map per segment file, read through a small file object that copies only what is read;
the kernel's page cache holds the bytes, shared by every process that reads the index.
"""

from __future__ import annotations

import mmap
from typing import Any

from whoosh.filedb.filestore import FileStorage
from whoosh.filedb.structfile import BufferFile, StructFile


class _View:
    """read / readline / peek / seek / tell over a memoryview (what BufferFile asks of
    its file, and pickle.load of a file), without copying the view."""

    def __init__(self, buf: memoryview) -> None:
        self._buf = buf
        self._pos = 0

    def read(self, size: int = -1) -> bytes:
        start = self._pos
        end = len(self._buf) if size is None or size < 0 else min(start + size, len(self._buf))
        self._pos = end
        return self._buf[start:end].tobytes()

    def peek(self, size: int = 1) -> bytes:
        """Lets pickle.load prefetch instead of calling read() per opcode."""
        return self._buf[self._pos : self._pos + max(size, 8192)].tobytes()

    def readline(self, size: int = -1) -> bytes:
        end = len(self._buf) if size is None or size < 0 else min(self._pos + size, len(self._buf))
        chunk = 256  # grows: a line is looked for without copying the rest of the file
        while True:
            stop = min(self._pos + chunk, end)
            rest = self._buf[self._pos : stop].tobytes()
            newline = rest.find(b"\n")
            if newline >= 0 or stop == end:
                break
            chunk *= 4
        line = rest if newline < 0 else rest[: newline + 1]
        self._pos += len(line)
        return line

    def seek(self, pos: int, whence: int = 0) -> int:
        base = (0, self._pos, len(self._buf))[whence]
        self._pos = base + pos
        return self._pos

    def tell(self) -> int:
        return self._pos

    def close(self) -> None:
        self._buf = memoryview(b"")


class _ViewFile(BufferFile):
    """A BufferFile reading its buffer in place (BufferFile copies it into a BytesIO)."""

    def __init__(self, buf: memoryview, name: str | None = None) -> None:
        self._buf = buf
        self._name = name
        self.file = _View(buf)
        self.onclose = None
        self.is_real = False
        self.is_closed = False


class _MappedFile(StructFile):
    """A segment (compound) file: parts are views of one read-only map of it, made when
    the first part is opened."""

    _map: mmap.mmap | None = None

    def subset(self, position: int, length: int, name: str | None = None) -> _ViewFile:
        if self._map is None:
            self._map = mmap.mmap(self.file.fileno(), 0, access=mmap.ACCESS_READ)
        return _ViewFile(memoryview(self._map)[position : position + length], name or self._name)

    def close(self) -> None:
        if self._map is not None:
            try:
                self._map.close()
            except BufferError:  # a view is still open: the map goes with the last one
                pass
            self._map = None
        super().close()


class MappedStorage(FileStorage):
    """A FileStorage whose files open as `_MappedFile`: with `supports_mmap` off, Whoosh's
    CompoundStorage asks the file for its parts (`subset`) instead of copying them."""

    def __init__(self, path: str) -> None:
        super().__init__(path, supports_mmap=False)

    def open_file(self, name: str, **kwargs: Any) -> _MappedFile:
        return _MappedFile(open(self._fpath(name), "rb"), name=name, **kwargs)
