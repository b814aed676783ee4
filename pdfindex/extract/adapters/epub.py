"""EPUB (2 and 3) from its ZIP: the package document's spine gives the chapters in
reading order, each read as HTML (htmlpage.html_text) and split into parts of about
PART_CHARS characters, a part never spanning two chapters. dc:title, dc:creator,
dc:subject and dc:date are the metadata. (Not ebooklib: it is AGPL, and it reads every
member into memory; the ZIP and XML checks of `containers` apply here.)
"""

from __future__ import annotations

import posixpath
import zipfile
from importlib import metadata as distributions
from pathlib import Path
from urllib.parse import unquote

from pdfindex.extract.adapters.base import Extraction, finish, split_parts
from pdfindex.extract.adapters.containers import check_zip, local, parse_xml, read_member
from pdfindex.extract.adapters.htmlpage import html_text

VERSION = "epub-1"
_TEXT_TYPES = ("application/xhtml+xml", "text/html", "application/x-dtbook+xml")
_DC = {"title": "title", "creator": "author", "subject": "subject", "date": "created"}


def _package(archive: zipfile.ZipFile) -> str:
    """The package document's name, from META-INF/container.xml (else the first .opf)."""
    names = archive.namelist()
    if "META-INF/container.xml" in names:
        container = parse_xml(read_member(archive, "META-INF/container.xml"))
        for element in container.iter():
            if local(element.tag) == "rootfile" and element.get("full-path"):
                return str(element.get("full-path"))
    found = [n for n in names if n.lower().endswith(".opf")]
    if not found:
        raise ValueError("not an EPUB: no package document (.opf)")
    return found[0]


class EpubAdapter:
    name = "epub"
    description = "E-books (.epub); a page is a part of ~3,000 characters of one chapter"
    extensions: tuple[str, ...] = (".epub",)

    @property
    def version(self) -> str:
        return VERSION

    @property
    def binary(self) -> str:
        lxml, selectolax = (distributions.version(d) for d in ("lxml", "selectolax"))
        return f"lxml {lxml}, selectolax {selectolax}"

    def extract(self, path: Path) -> Extraction:
        check_zip(path)
        with zipfile.ZipFile(path) as archive:
            opf_name = _package(archive)
            opf = parse_xml(read_member(archive, opf_name))
            base = posixpath.dirname(opf_name)
            manifest, spine, meta = {}, [], {}
            for element in opf.iter():
                name = local(element.tag)
                if name == "item" and element.get("id") and element.get("href"):
                    href = posixpath.normpath(posixpath.join(base, unquote(element.get("href"))))
                    manifest[element.get("id")] = (href, element.get("media-type", ""))
                elif name == "itemref" and element.get("idref"):
                    spine.append(element.get("idref"))
                elif name in _DC and (element.text or "").strip():
                    meta.setdefault(_DC[name], " ".join(element.text.split()))
            members = set(archive.namelist())
            pages: list[str] = []
            for idref in spine:
                href, media_type = manifest.get(idref, ("", ""))
                if href not in members or media_type not in _TEXT_TYPES:
                    continue  # a missing or non-text item: images, fonts, a broken link
                paragraphs, _title = html_text(read_member(archive, href))
                if paragraphs:
                    pages.extend(split_parts(paragraphs))
        if not spine:
            raise ValueError("not an EPUB: the package document has no spine")
        return finish(pages, meta, self.version, unit="part")
