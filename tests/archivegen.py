"""Real archives for the tests: ZIP and TAR written by the standard library, 7z by
libarchive's writer, and hostile ones (a zip bomb, a 42.zip-style nested bomb, members
named to escape, link members, 100,000 members)."""

from __future__ import annotations

import gzip
import io
import tarfile
import zipfile
from pathlib import Path


def write_zip(path: Path, members: dict[str, bytes], compress: bool = True) -> Path:
    """A ZIP of `members` (name -> bytes), written in name order as given."""
    path.parent.mkdir(parents=True, exist_ok=True)
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(zipfile.ZipInfo(name, (2024, 1, 2, 3, 4, 6)), data, method)
    return path


def write_tar(path: Path, members: dict[str, bytes], mode: str = "w:gz") -> Path:
    """A TAR (`mode` "w", "w:gz", "w:bz2", "w:xz") of regular members."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, mode) as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 1_700_000_000
            archive.addfile(info, io.BytesIO(data))
    return path


def write_tar_with_links(path: Path, members: dict[str, bytes], links: dict[str, str]) -> Path:
    """A TAR.GZ of regular members, then symlink members (`links`: name -> target), a
    hard link and a character device."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for name, target in links.items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            archive.addfile(info)
        hard = tarfile.TarInfo("hard.pdf")
        hard.type, hard.linkname = tarfile.LNKTYPE, next(iter(members))
        archive.addfile(hard)
        device = tarfile.TarInfo("device.pdf")
        device.type, device.devmajor, device.devminor = tarfile.CHRTYPE, 1, 3
        archive.addfile(device)
    return path


def write_7z(path: Path, members: dict[str, bytes]) -> Path:
    """A 7z archive, by libarchive's writer (the standard library writes none)."""
    import libarchive

    path.parent.mkdir(parents=True, exist_ok=True)
    with libarchive.file_writer(str(path), "7zip") as archive:
        for name, data in members.items():
            archive.add_file_from_memory(name, len(data), data)
    return path


def write_targz_bomb(path: Path, gigabytes: int) -> Path:
    """A TAR.GZ whose one member, `bomb.pdf`, inflates to `gigabytes` GB of zeros (about
    1 MB on disk per GB): gzip members may follow one another in one file, so 64 MB of
    zeros is compressed once and repeated."""
    chunk = 64 << 20
    info = tarfile.TarInfo("bomb.pdf")
    info.size = (gigabytes << 30) // chunk * chunk
    zeros = gzip.compress(bytes(chunk), compresslevel=9)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        out.write(gzip.compress(info.tobuf(tarfile.PAX_FORMAT)))
        for _ in range(info.size // chunk):
            out.write(zeros)
        out.write(gzip.compress(bytes(2 * tarfile.BLOCKSIZE)))  # the end-of-archive blocks
    return path


def write_nested_bomb(path: Path, levels: int = 5, copies: int = 16) -> Path:
    """42.zip's shape: a 64 MB zero member, zipped `copies` times per level, `levels`
    deep (16**5 * 64 MB = 64 TB claimed)."""
    data = write_zip_bytes({"zeros.pdf": bytes(64 << 20)})
    for level in range(levels):
        data = write_zip_bytes({f"level{level}-{i}.zip": data for i in range(copies)})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def write_zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def write_many_members(
    path: Path, count: int, first: dict[str, bytes], last: dict[str, bytes]
) -> Path:
    """A ZIP of `first`, then `count` tiny `.dat` members, then `last`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name, data in first.items():
            archive.writestr(name, data)
        for number in range(count):
            archive.writestr(f"many/{number}.dat", b"x")
        for name, data in last.items():
            archive.writestr(name, data)
    return path
