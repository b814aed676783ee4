"""Fetch the held-out corpus for the element-detection benchmark, reproducibly.

Same procedure as `benchmarks.elements.corpus` (apt-get download of the pinned version,
dpkg-deb -x, copy the chosen PDFs) but for Debian packages that are not in the labelled
development corpus, into `benchmarks/corpus/debian-doc-heldout/` (git-ignored). The manifest
beside this file records package versions, .deb and file sha256, page counts and producers.

python -m benchmarks.elements.heldout.fetch            # fetch / verify (idempotent)
python -m benchmarks.elements.heldout.fetch --sample   # print the labelling sample's pages
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from benchmarks.elements.corpus import ROOT, sample_pages
from benchmarks.elements.corpus import fetch as fetch_corpus

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = ROOT / "benchmarks" / "corpus" / "debian-doc-heldout"
MANIFEST = HERE / "manifest.json"
ABOUT = (
    "Held-out Debian PDFs for the element-detection benchmark "
    "(python -m benchmarks.elements.heldout.fetch); none of these packages is in "
    "benchmarks/elements/manifest.json. Fetched files are not committed."
)

_ERL = "usr/share/doc/erlang-doc/"
_MP = "usr/share/doc/texlive-doc/metapost/"
_ABI = "usr/share/doc/abinit/html/theory/"
SELECTION: dict[str, list[str]] = {
    "erlang-doc": [
        _ERL + "erts-13.1.5/doc/pdf/erts-13.1.5.pdf",
        _ERL + "doc/pdf/otp-system-documentation-13.1.5.pdf",
        _ERL + "lib/et-1.6.5/doc/pdf/et-1.6.5.pdf",
        _ERL + "lib/snmp-5.13.3/doc/pdf/snmp-5.13.3.pdf",
        _ERL + "lib/megaco-4.4.2/doc/pdf/megaco-4.4.2.pdf",
    ],
    "gpsbabel-doc": ["usr/share/doc/gpsbabel/gpsbabel.pdf.gz"],
    "ngspice-doc": ["usr/share/doc/ngspice-doc/manual.pdf.gz"],
    "infernal-doc": ["usr/share/doc/infernal/Userguide.pdf"],
    "phyml": ["usr/share/doc/phyml/phyml_manual.pdf"],
    "mummer-doc": ["usr/share/doc/mummer/maxmat3src.pdf"],
    "abinit-doc": [
        _ABI + "ELF/wf_elecden_kinden_elf.pdf",
        _ABI + "MGGA/report_MGGA.pdf",
    ],
    "texlive-metapost-doc": [
        _MP + "base/mpman.pdf",
        _MP + "metaobj/momanual.pdf",
        "usr/share/doc/texlive-doc/generic/mfpic/mfpguide.pdf",
        _MP + "featpost/doc/featpostmanual.pdf",
        _MP + "featpost/doc/otherinfo/BezierApprox.pdf",
        _MP + "textpath/textpath.pdf",
        _MP + "mp3d/tb57roeg.pdf",
        _MP + "mp3d/paper1997corrected.pdf",
    ],
}

# Sampling, as in benchmarks.elements.corpus (one seeded generator, strata in order, a
# per-file cap per stratum) with its own seed and sizes.
SAMPLE_SEED = 20261123
STRATA: list[tuple[str, int, int]] = [("mention", 45, 4), ("other", 12, 2), ("table", 15, 3)]


def fetch(out: Path = DEFAULT_CORPUS) -> dict[str, Any]:
    """Fetch what is missing, verify every file, write the manifest beside this file."""
    return fetch_corpus(out, MANIFEST, SELECTION, ABOUT)


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.elements.heldout.fetch", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_CORPUS, help="corpus folder")
    parser.add_argument(
        "--sample", action="store_true", help="print the labelling sample (JSON) and exit"
    )
    args = parser.parse_args(argv)
    if args.sample:
        chosen = sample_pages(args.out, MANIFEST, SAMPLE_SEED, STRATA)
        print(json.dumps(chosen, indent=1))
        return 0
    fetch(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
