"""Fetch a corpus of published PDFs from Debian documentation packages, reproducibly.

Each package in `SELECTION` is downloaded with `apt-get download` (the version pinned in
`manifest.json` when there is one), unpacked with `dpkg-deb -x` into a temporary folder, and
the chosen `*.pdf` / `*.pdf.gz` files are copied (decompressed) into
`benchmarks/corpus/debian-doc/<package>/` (git-ignored). `manifest.json` beside this file
records package versions, file sha256, page counts and producers; a rerun fetches only what is
missing and checks every file against it.

python -m benchmarks.elements.corpus                 # fetch / verify (idempotent)
python -m benchmarks.elements.corpus --sample        # print the labelling sample's pages
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DEFAULT_CORPUS = ROOT / "benchmarks" / "corpus" / "debian-doc"
MANIFEST = HERE / "manifest.json"

# Debian release the manifest was made on (bookworm); packages and files inside them.
_TL = "usr/share/doc/texlive-doc/latex/"
SELECTION: dict[str, list[str]] = {
    "python-reportlab-doc": [
        "usr/share/doc/python-reportlab-doc/reportlab-userguide.pdf",
    ],
    "expeyes-doc-en": [
        "usr/share/expeyes/doc/en-eyes.pdf",
        "usr/share/expeyes/doc/en-eyesj.pdf",
        "usr/share/expeyes/doc/en-eyesj-progman.pdf",
    ],
    "why3-doc-pdf": ["usr/share/doc/why3-doc-pdf/manual.pdf"],
    "xfig-doc": ["usr/share/doc/xfig/xfig-howto.pdf", "usr/share/doc/xfig/xfig_ref_en.pdf"],
    "fasta3-doc": ["usr/share/doc/fasta3/fasta_guide.pdf"],
    "nauty-doc": ["usr/share/doc/nauty/nug28.pdf"],
    "music-doc": ["usr/share/doc/music-doc/music-manual.pdf.gz"],
    "maxima-doc": ["usr/share/doc/maxima-doc/maximabook-19-Sept-2004.pdf.gz"],
    "ghostscript-doc": ["usr/share/doc/ghostscript/GS9_Color_Management.pdf"],
    "gutenprint-doc": ["usr/share/doc/gutenprint-doc/gutenprint-users-manual.pdf"],
    "octave-doc": ["usr/share/doc/octave/octave.pdf"],
    "texlive-latex-recommended-doc": [
        _TL + "memoir/memman.pdf",
        _TL + "caption/caption.pdf",
        _TL + "caption/ltcaption.pdf",
        _TL + "subfig/subfig.pdf",
        _TL + "ctable/ctable.pdf",
        _TL + "xcolor/xcolor.pdf",
        _TL + "fontspec/fontspec.pdf",
        _TL + "float/float.pdf",
        _TL + "psfrag/pfgguide.pdf",
        _TL + "listings/listings.pdf",
        _TL + "polyglossia/polyglossia.pdf",
    ],
    "texlive-science-doc": [
        _TL + "euclideangeometry/euclideangeometry-man.pdf",
        _TL + "chemobabel/chemobabel-en.pdf",
        _TL + "isomath/isomath.pdf",
        _TL + "bodeplot/bodeplot.pdf",
        _TL + "bytefield/bytefield.pdf",
        _TL + "bosisio/graphfig.pdf",
        "usr/share/doc/texlive-doc/amstex/base/amsguide.pdf",
    ],
}

# Sampling for the hand labels, drawn in this order from one seeded generator (appending a
# stratum leaves the earlier ones unchanged): pages whose text names a figure or table, pages
# that name neither, then extra pages naming a table (tables are rarer than figures). Each
# stratum takes at most `cap` pages per file and skips pages already taken.
SAMPLE_SEED = 20261122
MENTION = re.compile(r"\b(?:Figure|Fig\.|Table|Tab\.)\s*[A-Z]?\d", re.IGNORECASE)
TABLE_MENTION = re.compile(r"\b(?:Table|Tab\.)\s*[A-Z]?\d", re.IGNORECASE)
STRATA: list[tuple[str, int, int]] = [("mention", 60, 5), ("other", 15, 5), ("table", 20, 4)]


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def output_name(package: str, member: str) -> str:
    """Corpus-relative path of a package member: `<package>/<basename without .gz>`."""
    name = Path(member).name
    return f"{package}/{name[:-3] if name.endswith('.gz') else name}"


def load_manifest(path: Path = MANIFEST) -> dict[str, Any]:
    """The manifest, or an empty one."""
    if path.exists():
        return json.loads(path.read_text(encoding="utf-8"))
    return {"packages": {}, "files": []}


def _apt_download(spec: str, cwd: Path) -> Path:
    """`apt-get download spec` into cwd (one `apt-get update` retry); the .deb's path."""
    for attempt in range(2):
        done = subprocess.run(
            ["apt-get", "download", "-q", spec], cwd=cwd, capture_output=True, text=True
        )
        debs = sorted(cwd.glob("*.deb"))
        if done.returncode == 0 and debs:
            return debs[-1]
        if attempt == 0:
            subprocess.run(["apt-get", "update", "-q"], capture_output=True, check=False)
    raise RuntimeError(f"apt-get download {spec} failed: {done.stderr.strip()}")


def _deb_field(deb: Path, field: str) -> str:
    """One control field of a .deb."""
    return subprocess.run(
        ["dpkg-deb", "-f", str(deb), field], capture_output=True, text=True, check=True
    ).stdout.strip()


def pdf_info(path: Path) -> dict[str, Any]:
    """Page count and producer/creator of a PDF (pypdfium2)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(path))
    try:
        meta = doc.get_metadata_dict()
        return {
            "pages": len(doc),
            "producer": meta.get("Producer", ""),
            "creator": meta.get("Creator", ""),
        }
    finally:
        doc.close()


def fetch_package(package: str, members: list[str], out: Path, version: str | None) -> dict:
    """Download one package, copy its chosen PDFs into out/<package>/; its manifest entries."""
    with tempfile.TemporaryDirectory(prefix="pdfindex-deb-") as tmp:
        tmpdir = Path(tmp)
        os.chmod(tmpdir, 0o777)  # so apt's sandbox user may write there
        spec = f"{package}={version}" if version else package
        try:
            deb = _apt_download(spec, tmpdir)
        except RuntimeError:
            if not version:
                raise
            print(f"  {spec} not available; taking the current version", file=sys.stderr)
            deb = _apt_download(package, tmpdir)
        tree = tmpdir / "tree"
        subprocess.run(["dpkg-deb", "-x", str(deb), str(tree)], check=True)
        entry = {
            "version": _deb_field(deb, "Version"),
            "deb": deb.name,
            "deb_sha256": sha256_file(deb),
        }
        files = []
        for member in members:
            src = (tree / member).resolve()
            if not src.is_file():
                raise FileNotFoundError(f"{package}: {member} not in the package")
            rel = output_name(package, member)
            dest = out / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            if member.endswith(".gz"):
                with gzip.open(src, "rb") as fin, dest.open("wb") as fout:
                    shutil.copyfileobj(fin, fout)
            else:
                shutil.copyfile(src, dest)
            files.append({"file": rel, "package": package, "member": member})
        return {"package": entry, "files": files}


ABOUT = (
    "Debian *-doc PDFs for the element-detection benchmark "
    "(python -m benchmarks.elements.corpus); fetched files are not committed."
)


def fetch(
    out: Path = DEFAULT_CORPUS,
    manifest_path: Path = MANIFEST,
    selection: dict[str, list[str]] | None = None,
    about: str = ABOUT,
) -> dict[str, Any]:
    """Fetch what is missing of `selection` (package -> PDFs in it), verify every file,
    write the manifest; the manifest."""
    selection = SELECTION if selection is None else selection
    manifest = load_manifest(manifest_path)
    known = {f["file"]: f for f in manifest.get("files", [])}
    packages: dict[str, Any] = dict(manifest.get("packages", {}))
    files: list[dict[str, Any]] = []
    mismatches: list[str] = []
    out.mkdir(parents=True, exist_ok=True)
    for package, members in selection.items():
        rels = [output_name(package, m) for m in members]
        ok = package in packages and all(
            (out / r).is_file() and r in known and sha256_file(out / r) == known[r]["sha256"]
            for r in rels
        )
        if ok:
            print(f"ok      {package} {packages[package]['version']}")
            files.extend(known[r] for r in rels)
            continue
        pinned = packages.get(package, {}).get("version")
        print(f"fetch   {package}{' ' + pinned if pinned else ''}")
        got = fetch_package(package, members, out, pinned)
        packages[package] = got["package"]
        for f in got["files"]:
            path = out / f["file"]
            f["sha256"] = sha256_file(path)
            f["bytes"] = path.stat().st_size
            f.update(pdf_info(path))
            old = known.get(f["file"])
            if old and old.get("sha256") != f["sha256"]:
                mismatches.append(f["file"])
            files.append(f)
    manifest = {
        "about": about,
        "distribution": _distribution(),
        "packages": {p: packages[p] for p in selection},
        "files": files,
        "total_pages": sum(f["pages"] for f in files),
    }
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(f"{len(files)} PDFs, {manifest['total_pages']} pages in {out}")
    if mismatches:
        print("sha256 differs from the manifest (labels may not apply):", *mismatches, sep="\n  ")
    return manifest


def _distribution() -> str:
    """PRETTY_NAME of the running system (the manifest's Debian release)."""
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    return ""


def page_texts(path: Path) -> list[str]:
    """Text of every page (pypdfium2)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(path))
    try:
        texts = []
        for page in doc:
            textpage = page.get_textpage()
            texts.append(textpage.get_text_range())
            textpage.close()
            page.close()
        return texts
    finally:
        doc.close()


def _stratum(name: str, text: str) -> bool:
    """Whether a page's text belongs to a sampling stratum."""
    if name == "mention":
        return bool(MENTION.search(text))
    if name == "other":
        return not MENTION.search(text)
    return bool(TABLE_MENTION.search(text))


def sample_pages(
    out: Path = DEFAULT_CORPUS,
    manifest_path: Path = MANIFEST,
    seed: int = SAMPLE_SEED,
    strata: list[tuple[str, int, int]] | None = None,
) -> list[dict[str, Any]]:
    """The pages to label: for each (stratum, count, per-file cap) in `strata`, `count` pages
    of that stratum drawn with `seed`, sorted by file and page."""
    files = [f["file"] for f in load_manifest(manifest_path)["files"]]
    texts = {rel: page_texts(out / rel) for rel in files}
    rng = random.Random(seed)
    taken: set[tuple[str, int]] = set()
    chosen: list[dict[str, Any]] = []
    for name, want, cap in strata or STRATA:
        pool = [
            (rel, number)
            for rel in files
            for number, text in enumerate(texts[rel], start=1)
            if _stratum(name, text)
        ]
        rng.shuffle(pool)
        per_file: dict[str, int] = {}
        count = 0
        for rel, number in pool:
            if count == want:
                break
            if (rel, number) in taken or per_file.get(rel, 0) >= cap:
                continue
            per_file[rel] = per_file.get(rel, 0) + 1
            taken.add((rel, number))
            chosen.append({"file": rel, "page": number, "stratum": name})
            count += 1
    chosen.sort(key=lambda s: (s["file"], s["page"]))
    return chosen


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.elements.corpus", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_CORPUS, help="corpus folder")
    parser.add_argument(
        "--sample", action="store_true", help="print the labelling sample (JSON) and exit"
    )
    args = parser.parse_args(argv)
    if args.sample:
        print(json.dumps(sample_pages(args.out), indent=1))
        return 0
    fetch(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
