"""The corpora a benchmark run measures: any folder of PDFs, or a synthetic one.

Shaped like Whoosh's benchmarks: one small class per corpus whose `documents()` yields
what the harness (`python -m benchmarks`) indexes, here the PDFs under its folder.

The synthetic corpus is deterministic real PDFs (fpdf2), for benchmarks anyone can rerun.
Text has Zipf word frequencies over common English words followed by a few thousand
generated pseudo-words (some with accents, some Greek), plus a trickle of one-off words
so rare terms exist; documents are 5-200 pages in topic sub-folders; a share of line
ends hyphenate a long word. Same N (and seed), same bytes. Files are written by a
process pool (all cores).
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from itertools import accumulate
from pathlib import Path
from typing import Any

from fpdf import FPDF

from benchmarks.pdfwriter import FIXED_DATE, VOCABULARY, unicode_font

GENERATOR_VERSION = 1
SEED = 2026
MIN_PAGES, MAX_PAGES = 5, 200
TOPICS = 12
PSEUDO_WORDS = 3000
ZIPF_S = 1.0
ONE_OFF_RATE = 0.002  # share of tokens that are freshly made, near-unique words
HYPHENATE_RATE = 0.35  # share of overflowing long words that are split with a hyphen
FONT_SIZE = 10.5
PAGE_W, PAGE_H, MARGIN = 595.28, 841.89, 56.0
LINE_H = FONT_SIZE * 1.4
MANIFEST = "manifest.json"

_ONSETS = "b c d f g h j k l m n p r s t v w z br cr dr fr gr pl pr st tr ch sh th".split()
_VOWELS = "a e i o u a e i o ai ou ea".split()
_CODAS = ["", "", "", "", "", "n", "r", "s", "l", "m", "t", "nd", "st", "rk"]
_ACCENTED = {"a": "á", "e": "é", "i": "í", "o": "ö", "u": "ü", "s": "ß", "n": "ñ", "c": "ç"}
_GREEK = "α β γ δ ε ζ η θ ι κ λ μ ν ξ ο π ρ σ τ υ φ χ ψ ω".split()


@dataclass(frozen=True)
class DocSpec:
    """One document to write: where, how many pages, and its own seed."""

    number: int
    rel_path: str
    pages: int
    seed: int


def pseudo_word(rng: random.Random) -> str:
    """A pronounceable made-up word of 2-4 syllables."""
    syllables = rng.choice((2, 2, 2, 3, 3))
    return "".join(
        rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(syllables)
    )


def vocabulary(seed: int = SEED) -> list[str]:
    """Common English words (most frequent first), then unique pseudo-words; about 10%
    of the pseudo-words carry an accented letter and 1% are Greek."""
    rng = random.Random(seed)
    words: list[str] = list(dict.fromkeys(VOCABULARY))
    seen = set(words)
    while len(words) < len(VOCABULARY) + PSEUDO_WORDS:
        roll = rng.random()
        if roll < 0.01:
            word = "".join(rng.choice(_GREEK) for _ in range(rng.randint(4, 9)))
        else:
            word = pseudo_word(rng)
            if roll < 0.11:
                at = rng.randrange(len(word))
                word = word[:at] + _ACCENTED.get(word[at], word[at]) + word[at + 1 :]
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


_VOCAB: list[str] = vocabulary()
_CUM: list[float] = list(accumulate(1.0 / (rank**ZIPF_S) for rank in range(1, len(_VOCAB) + 1)))


def page_paragraphs(rng: random.Random) -> list[str]:
    """Enough paragraphs (Zipf words, sentences, commas) to fill more than one page."""
    paragraphs: list[str] = []
    total = 0
    while total < 5200:
        sentences = []
        for _ in range(rng.randint(2, 7)):
            count = rng.randint(6, 22)
            words = rng.choices(_VOCAB, cum_weights=_CUM, k=count)
            for i in range(count):
                if rng.random() < ONE_OFF_RATE:
                    words[i] = pseudo_word(rng) + rng.choice(("ix", "uk", "oz", "ev"))
            if count > 9 and rng.random() < 0.4:
                words[rng.randint(2, count - 3)] += ","
            words[0] = words[0][:1].upper() + words[0][1:]
            sentences.append(" ".join(words) + ("?" if rng.random() < 0.06 else "."))
        paragraph = " ".join(sentences)
        paragraphs.append(paragraph)
        total += len(paragraph)
    return paragraphs


class _Layout:
    """Greedy line breaking with cached word widths and occasional hyphenation."""

    def __init__(self, pdf: FPDF, rng: random.Random) -> None:
        self.pdf, self.rng = pdf, rng
        self.widths: dict[str, float] = {}
        self.space = self.width(" ")
        self.max_w = PAGE_W - 2 * MARGIN

    def width(self, text: str) -> float:
        w = self.widths.get(text)
        if w is None:
            w = self.widths[text] = self.pdf.get_string_width(text)
        return w

    def lines(self, paragraph: str) -> list[str]:
        out: list[str] = []
        current: list[str] = []
        used = 0.0
        for word in paragraph.split():
            w = self.width(word)
            if not current or used + self.space + w <= self.max_w:
                used = used + self.space + w if current else w
                current.append(word)
                continue
            if len(word) >= 8 and word.isalpha() and self.rng.random() < HYPHENATE_RATE:
                for cut in range(len(word) - 3, 2, -1):
                    head = word[:cut] + "-"
                    if used + self.space + self.width(head) <= self.max_w:
                        current.append(head)
                        word = word[cut:]
                        w = self.width(word)
                        break
            out.append(" ".join(current))
            current, used = [word], w
        if current:
            out.append(" ".join(current))
        return out


def render_document(pages: int, seed: int, title: str) -> bytes:
    """A PDF of `pages` pages of generated text; the last page is partly filled."""
    rng = random.Random(seed)
    pdf = FPDF(unit="pt", format="A4")
    pdf.set_creation_date(FIXED_DATE)
    pdf.set_creator("pdfindex benchmarks/corpus.py")
    pdf.set_title(title)
    pdf.set_auto_page_break(False)
    pdf.add_font("Sans", fname=str(unicode_font()))
    pdf.set_font("Sans", size=FONT_SIZE)
    layout = _Layout(pdf, rng)
    max_lines = int((PAGE_H - 2 * MARGIN) // LINE_H)
    for number in range(1, pages + 1):
        lines = [title if number == 1 else f"{title} — page {number}", ""]
        for paragraph in page_paragraphs(rng):
            lines.extend(layout.lines(paragraph))
            lines.append("")
        fill = 0.35 if number == pages else rng.uniform(0.75, 1.0)
        lines = lines[: max(3, int(max_lines * fill))]
        pdf.add_page()
        y = MARGIN + FONT_SIZE
        for line in lines:
            if line:
                pdf.text(MARGIN, y, line)
            y += LINE_H
    return bytes(pdf.output())


def plan(total_pages: int, max_pages: int = MAX_PAGES, seed: int = SEED) -> list[DocSpec]:
    """Documents whose page counts (log-uniform in 5..max_pages) add up to total_pages."""
    rng = random.Random(seed)
    specs: list[DocSpec] = []
    left = total_pages
    low = min(MIN_PAGES, max_pages)
    while left > 0:
        pages = round(math.exp(rng.uniform(math.log(low), math.log(max_pages))))
        if left - pages < low:
            pages = left
        number = len(specs)
        name = pseudo_word(rng)
        topic = f"topic-{rng.randrange(TOPICS):02d}"
        specs.append(
            DocSpec(number, f"{topic}/{number:05d}-{name}.pdf", pages, seed * 7919 + number)
        )
        left -= pages
    return specs


def _write(folder: str, spec: DocSpec) -> tuple[str, int, int]:
    target = Path(folder) / spec.rel_path
    target.parent.mkdir(parents=True, exist_ok=True)
    title = f"Synthetic document {spec.number:05d}"
    data = render_document(spec.pages, spec.seed, title)
    tmp = target.with_suffix(".tmp")
    tmp.write_bytes(data)
    tmp.replace(target)
    return spec.rel_path, spec.pages, len(data)


def generate(
    folder: Path, total_pages: int, max_pages: int = MAX_PAGES, workers: int | None = None
) -> dict:
    """Write the corpus into `folder` (reused when its manifest matches); return the manifest."""
    manifest_file = folder / MANIFEST
    wanted = {
        "generator": GENERATOR_VERSION,
        "seed": SEED,
        "pages": total_pages,
        "max_pages_per_document": max_pages,
    }
    if manifest_file.is_file():
        manifest = json.loads(manifest_file.read_text())
        if all(manifest.get(k) == v for k, v in wanted.items()):
            return {**manifest, "reused": True}
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    specs = plan(total_pages, max_pages)
    workers = workers or os.cpu_count() or 1
    started = time.perf_counter()
    order = sorted(specs, key=lambda s: -s.pages)  # big ones first: better load balance
    with ProcessPoolExecutor(max_workers=workers) as pool:
        written = list(pool.map(_write, [str(folder)] * len(order), order, chunksize=1))
    seconds = time.perf_counter() - started
    manifest = {
        **wanted,
        "files": len(written),
        "bytes": sum(size for _, _, size in written),
        "seconds": round(seconds, 2),
        "reused": False,
        "workers": workers,
        "documents": [asdict(s) for s in specs],
    }
    manifest_file.write_text(json.dumps(manifest, indent=1))
    return manifest


# -- the corpora ------------------------------------------------------------------------------


class FolderCorpus:
    """Any folder of PDFs (`--corpus DIR`), measured as it is: it is never modified."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder.resolve()
        self.generated: dict[str, Any] | None = None  # the manifest, for generated corpora

    @property
    def name(self) -> str:
        return self.folder.name

    def prepare(self) -> None:
        """Make the folder ready to measure; a given folder must already exist."""
        if not self.folder.is_dir():
            raise SystemExit(f"--corpus {self.folder}: not a folder")

    def documents(self) -> Iterator[str]:
        """The PDFs as pdfindex sees them (hidden files and folders skipped), posix paths
        under the folder, sorted."""
        found = []
        for folder, dirs, names in os.walk(self.folder):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in names:
                if not name.startswith(".") and name.lower().endswith(".pdf"):
                    found.append((Path(folder) / name).relative_to(self.folder).as_posix())
        yield from sorted(found)


class SyntheticCorpus(FolderCorpus):
    """`pages` generated pages (`--generate N`, `--quick`), written once and then reused."""

    def __init__(self, root: Path, pages: int, max_pages: int = MAX_PAGES, tag: str = "") -> None:
        super().__init__(root / f"synthetic-{pages}{tag}")
        self.pages, self.max_pages = pages, max_pages

    def prepare(self) -> None:
        manifest = generate(self.folder, self.pages, max_pages=self.max_pages)
        self.generated = {k: v for k, v in manifest.items() if k != "documents"}
