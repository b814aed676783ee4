"""process_document on a file outside every indexed folder, with `import_outside = true`:
that one regular file is copied into the files folder's `imported/` (size-capped, never
through a final symlink, never a FIFO or device) and indexed there. Nothing else outside
the folders is read."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path, PurePosixPath

from pdfindex.api import PdfIndex
from pdfindex.errors import PdfIndexError, UnsafeFile
from pdfindex.paths import open_regular, resolve_inside

IMPORTED = "imported"  # the files folder's sub-folder that imported files go to
_CHUNK = 1 << 20


def import_file(index: PdfIndex, user_path: str) -> tuple[Path, str]:
    """Copy the file `user_path` names (absolute, `~`, or relative to the files folder)
    into `files/imported/` and return its (real path, library path) there; the same
    bytes imported before are not copied again, another file of that name gets `-2`."""
    s = index.settings
    given = Path(user_path).expanduser()
    source = given if given.is_absolute() else s.files_dir / given
    name = source.name
    if not name or name.startswith("."):
        raise PdfIndexError(f"{user_path!r}: not a file name that can be indexed (hidden or empty)")
    why = index.not_read(name)
    if why is not None:
        raise PdfIndexError(why)
    cap = s.import_mb * 1_000_000
    try:
        fd = open_regular(source)  # no final link, no FIFO or device
    except UnsafeFile as exc:
        raise PdfIndexError(f"{user_path!r} is not imported: {exc}") from None
    except OSError as exc:
        raise PdfIndexError(f"{user_path!r} cannot be read: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as handle:
        if os.fstat(handle.fileno()).st_size > cap:
            raise PdfIndexError(
                f"{user_path!r} is larger than import_mb = {s.import_mb} MB: not imported"
            )
        folder = _imported_folder(index)
        temporary = folder / f".import-{os.getpid()}-{id(handle)}.part"
        digest = hashlib.sha256()
        try:
            with open(temporary, "xb") as out:
                copied = 0
                while chunk := handle.read(_CHUNK):
                    copied += len(chunk)
                    if copied > cap:  # it grew while it was copied
                        raise PdfIndexError(
                            f"{user_path!r} is larger than import_mb = {s.import_mb} MB: "
                            "not imported"
                        )
                    digest.update(chunk)
                    out.write(chunk)
            target = _target(folder, name, digest.hexdigest())
            if target.exists():
                temporary.unlink()
            else:
                os.replace(temporary, target)
        finally:
            temporary.unlink(missing_ok=True)
    return index.resolve(str(target))


def _imported_folder(index: PdfIndex) -> Path:
    """The files folder's `imported/`, made if missing; refused if it is a link or a
    file (it must stay inside the files folder)."""
    files = index.settings.files_dir
    folder = files / IMPORTED
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise PdfIndexError(f"{folder} is not a folder of the files folder: nothing imported")
    folder.mkdir(exist_ok=True)
    resolve_inside(files, str(folder))  # raises if it leads out
    return folder


def _target(folder: Path, name: str, sha: str) -> Path:
    """Where the bytes hashing to `sha` go: `name`, or the first `stem-N.ext` free or
    holding those very bytes."""
    path, n = PurePosixPath(name), 1
    while True:
        candidate = folder / (name if n == 1 else f"{path.stem}-{n}{path.suffix}")
        if not candidate.exists() or _sha256(candidate) == sha:
            return candidate
        n += 1


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with os.fdopen(open_regular(path), "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
