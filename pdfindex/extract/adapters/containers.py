"""The checks a document in a ZIP of XML (DOCX, PPTX, XLSX, ODT, ODS, EPUB) passes before
a library opens it, and the one XML parser the adapters use themselves.

A 100 KB ZIP can unpack to gigabytes (a zip bomb), and XML can expand an entity a
billion times (billion laughs) or name an outside file (XXE). So: the file's size is
capped, the ZIP's directory is read first and refused when its members would unpack past
MAX_UNPACKED or number more than MAX_MEMBERS, a member is read only up to its declared
size, and XML is parsed with entities unresolved, no DTD and no network (lxml, which
python-docx and python-pptx also use with resolve_entities=False).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from lxml import etree

from pdfindex.errors import UnsafeDocument

MAX_FILE_BYTES = 200 * 1024 * 1024  # an office file or e-book larger than this is refused
MAX_UNPACKED = 1024 * 1024 * 1024  # what a document's ZIP members may unpack to, in all
MAX_MEMBERS = 20_000  # a 1,000-slide deck has ~5,000 members
MAX_RATIO = 200  # unpacked / packed for the whole file: XML packs ~10x, bombs ~1000x

_PARSER = etree.XMLParser(
    resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, recover=False
)


def check_size(path: Path, limit: int = MAX_FILE_BYTES) -> int:
    """The file's size; raises UnsafeDocument past `limit`."""
    size = path.stat().st_size
    if size > limit:
        raise UnsafeDocument(f"file of {size:,} bytes is over the {limit:,} byte limit")
    return size


def check_zip(path: Path) -> None:
    """Refuse a ZIP whose directory promises too much (members, unpacked bytes, ratio)
    before a library unpacks it. Raises UnsafeDocument, or BadZipFile for a non-ZIP."""
    size = check_size(path)
    with zipfile.ZipFile(path) as archive:
        members = archive.infolist()
    if len(members) > MAX_MEMBERS:
        raise UnsafeDocument(f"{len(members):,} ZIP members, over the limit of {MAX_MEMBERS:,}")
    unpacked = sum(m.file_size for m in members)
    if unpacked > MAX_UNPACKED or unpacked > MAX_RATIO * max(size, 64 * 1024):
        raise UnsafeDocument(
            f"its ZIP members unpack to {unpacked:,} bytes from {size:,}: refused as a zip bomb"
        )


def read_member(archive: zipfile.ZipFile, name: str) -> bytes:
    """A member's bytes, never more than it declares (a lying header cannot grow it)."""
    info = archive.getinfo(name)
    if info.file_size > MAX_UNPACKED:
        raise UnsafeDocument(f"{name}: {info.file_size:,} bytes unpacked, over the limit")
    with archive.open(info) as member:
        data = member.read(info.file_size + 1)
    if len(data) > info.file_size:
        raise UnsafeDocument(f"{name}: unpacks past its declared size")
    return data


def parse_xml(data: bytes) -> etree._Element:
    """XML with no entity expansion, DTD or network access; raises ValueError if broken."""
    try:
        return etree.fromstring(data, _PARSER)
    except etree.XMLSyntaxError as exc:
        raise ValueError(f"broken XML: {exc}") from None


def local(tag: object) -> str:
    """An element's name without its namespace ('{urn:…}p' -> 'p'); '' for comments."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""
