"""fuzzy_search against real oracles: Debian's `fzf --filter` for fzf matching and `rg`
for regex matching, over the stored text of real generated PDFs; and seed 001's two
examples (`hyphpat`, `hyphen.*pattern`) through the MCP client."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pdfindex.api import PdfIndex
from pdfindex.tools.fuzzy import fuzzy_search
from tests import pdfgen
from tests.conftest import make_settings
from tests.mcpclient import InMemory, open_app

pytestmark = pytest.mark.skipif(
    not (shutil.which("fzf") and shutil.which("rg")), reason="needs Debian's fzf and ripgrep"
)

WORDS = (
    "hyphenation patterns pattern Hyphen foo-bar fooBar the_quick brown fox: jumps/over "
    "a,lazy dog 123 v2 x|y café Straße naïve TeX LaTeX babel options trace package "
    "Hyphenation Patterns for-each camelCase snake_case 3.14 (see) [ref]"
).split()


def _page(rng: random.Random) -> str:
    lines = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8))) for _ in range(12)]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory, index_engine: str) -> Iterator[PdfIndex]:
    root = tmp_path_factory.mktemp("fzf")
    files = root / "files"
    files.mkdir()
    rng = random.Random(27)
    for n in range(4):
        pdfgen.write_pdf(files / f"doc{n}.pdf", [_page(rng) for _ in range(3)])
    pdfgen.write_pdf(
        files / "seed.pdf",
        ["Intro line\nLoading hyphenation patterns for English\nother", "Hyphen patterns: 2"],
    )
    index = PdfIndex(make_settings(root))
    index.reindex()
    yield index
    index.close()


def _documents(index: PdfIndex) -> list[tuple[str, list[str]]]:
    """Each file's stored lines, pages one after another, in library order."""
    found = index.engine.candidates()
    out: dict[str, list[str]] = {}
    for ref in found.refs:
        out.setdefault(ref.path, []).extend(found.text(ref).splitlines())
    return list(out.items())


def _all(index: PdfIndex, query: str, **arguments: Any) -> list[dict[str, Any]]:
    matches: list[dict[str, Any]] = []
    offset = 0
    while True:
        answer = fuzzy_search(
            index, query, preview=False, max_results=500, offset=offset, **arguments
        )
        matches += answer["matches"]
        if "next_offset" not in answer:
            return matches
        offset = answer["next_offset"]


def _queries(rng: random.Random, count: int) -> list[str]:
    """Subsequences of the library's words with fzf's extended syntax around them."""
    out = ["hyphpat", "hp", "'pattern", "^hy", "s$", "!foo fb", "HYP", "pat | dog", "^Loading$"]
    for _ in range(count):
        terms = []
        for _ in range(rng.randint(1, 3)):
            word = rng.choice(WORDS)
            sub = "".join(c for c in word if rng.random() < 0.6) or word[0]
            kind = rng.choice(["", "", "", "'", "^", "!", "$", "|"])
            if kind == "$":
                terms.append(sub + "$")
            elif kind == "|":
                terms.append(f"{sub} | {rng.choice(WORDS)[:3]}")
            else:
                terms.append(kind + sub)
        out.append(" ".join(terms))
    return out


def test_fzf_matching_equals_fzf_filter(library: PdfIndex) -> None:
    lines = [line for _, doc in _documents(library) for line in doc]
    for query in _queries(random.Random(1), 60):
        fzf = subprocess.run(
            ["fzf", "--filter", query],
            input="\n".join(lines) + "\n",
            capture_output=True,
            text=True,
            check=False,
        ).stdout.splitlines()
        ours = [m["content"] for m in _all(library, query, match="fzf")]
        assert ours == fzf, query


def test_regex_matching_equals_ripgrep(library: PdfIndex, tmp_path: Path) -> None:
    for number, (_path, doc) in enumerate(_documents(library)):
        (tmp_path / f"{number}.txt").write_text("\n".join(doc) + "\n")
    names = {f"{n}.txt": path for n, (path, _) in enumerate(_documents(library))}
    for pattern in ["hyphen.*pattern", r"fo+\w", r"\d+", "Hyphen", "a|dog", r"^Lo", r"e$"]:
        rg = subprocess.run(
            ["rg", "--smart-case", "--no-heading", "--line-number", pattern, "."],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.splitlines()
        expected = set()
        for row in rg:
            name, line, content = row.split(":", 2)
            expected.add((names[name.removeprefix("./")], int(line), content))
        found = _all(library, pattern, match="regex")
        assert {(m["file"], m["line_number"], m["content"]) for m in found} == expected, pattern


def test_the_seeds_examples_over_mcp(library: PdfIndex) -> None:
    with open_app(library.settings) as app:
        client = InMemory(app)
        fuzzy, regex, batch, words = (
            json.loads(r.content[0].text)
            for r in client.calls(
                ("fuzzy_search", {"query": "hyphpat", "path": "seed.pdf"}),
                ("fuzzy_search", {"query": "hyphen.*pattern", "path": "seed.pdf"}),
                ("fuzzy_search", {"query": "hyphen", "path": "seed.pdf", "interactive": False}),
                ("fuzzy_search", {"query": "hypenation", "path": "seed.pdf", "match": "words"}),
            )
        )
    assert fuzzy["matching"] == "fzf"
    assert [(m["page"], m["line_number"]) for m in fuzzy["matches"]] == [(2, 4), (1, 2)]
    assert regex["matching"] == "regex"
    assert [(m["page"], m["line_number"], m["line_in_page"]) for m in regex["matches"]] == [
        (1, 2, 2),
        (2, 4, 1),
    ]
    assert batch["matching"] == "regex"
    assert len(batch["matches"]) == 2
    assert words["matching"] == "words"
    assert words["matches"][0]["line_number"] == 2
