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
from hypothesis import given, settings
from hypothesis import strategies as st

from pdfindex import deadline
from pdfindex.api import PdfIndex
from pdfindex.tools import fzf, linesearch
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


def _all(
    index: PdfIndex, query: str, page_size: int = 500, **arguments: Any
) -> list[dict[str, Any]]:
    matches: list[dict[str, Any]] = []
    offset = 0
    while True:
        answer = fuzzy_search(
            index, query, preview=False, max_results=page_size, offset=offset, **arguments
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
        # A few at a time: only the lines a page of answers shows are kept, and a line
        # is scored only when the bound of its score could rank it among them.
        paged = [m["content"] for m in _all(library, query, page_size=3, match="fzf")]
        assert paged == fzf, query


@settings(max_examples=400, deadline=None)
@given(
    st.text(alphabet="abcdehnpty -_/:.AB1", max_size=60),
    st.text(alphabet="abcdehnpty", min_size=1, max_size=6),
)
def test_a_lines_score_bound_holds_and_its_gaps_are_the_fewest(line: str, pattern: str) -> None:
    sets = fzf.parse(pattern)
    patterns = fzf.score_bound(sets)
    assert patterns == [pattern]
    score = fzf.score_line(line, sets)
    most = fzf.bound(line.lower(), patterns)
    assert (score is None) == (most is None)
    if score is not None and most is not None:
        assert score <= most
    # the fewest gaps, by brute force over every way to place the pattern in order
    windows = [
        end - start + 1 - len(pattern)
        for start in range(len(line))
        for end in range(start, len(line))
        if line.lower()[start] == pattern[0]
        and line.lower()[end] == pattern[-1]
        and _in_order(pattern, line.lower()[start : end + 1])
    ]
    assert fzf.fewest_gaps(line.lower(), pattern) == (min(windows) if windows else None)


def _in_order(pattern: str, text: str) -> bool:
    letters = iter(text)
    return all(char in letters for char in pattern)


def test_a_scan_out_of_time_answers_with_the_pages_it_read(
    library: PdfIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(linesearch, "SCAN_SHARE", 0.0)  # answer after the first page
    first = library.engine.candidates().refs[0]
    lines = library.engine.candidates().text(first).splitlines()
    for match, query in [("fzf", "e"), ("regex", "e"), ("words", "hyphenation")]:
        with deadline.limit(60):
            answer = fuzzy_search(library, query, match=match, max_results=500, preview=False)
        assert answer["partial"] is True, match
        assert "only the first 1 pages" in answer["note"], match
        assert {(m["file"], m["page"]) for m in answer["matches"]} <= {(first.path, first.page)}
        if match != "words":
            expected = [line for line in lines if "e" in line.lower()]
            assert sorted(m["content"] for m in answer["matches"]) == sorted(expected), match
            assert answer["total_matches"] == len(expected)
        whole = fuzzy_search(library, query, match=match, max_results=500)  # no time limit
        assert "partial" not in whole
        assert whole["total_matches"] >= answer["total_matches"]


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


def test_a_library_too_large_to_list_is_read_in_batches_with_the_same_answers(
    library: PdfIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    if library.engine.name != "tantivy":
        pytest.skip("Tantivy lists a query's pages at once up to a size, then reads groups")
    from pdfindex.engine.tantivy import candidates, engine

    queries = [("fzf", "hyphpat"), ("fzf", "e"), ("regex", r"fo+\w"), ("words", "patern")]
    listed = [_all(library, query, page_size=4, match=match) for match, query in queries]
    monkeypatch.setattr(engine, "LISTED_UP_TO", 0)  # every query past it: groups of files
    monkeypatch.setattr(candidates, "FILES_PER_GROUP", 2)
    refs = library.engine.candidates().refs
    assert isinstance(refs, candidates.GroupedRefs)
    batched = [_all(library, query, page_size=4, match=match) for match, query in queries]
    assert batched == listed
    found = library.engine.candidates()
    assert [found.text(ref) for ref in found.refs]
    assert _mapped_kb(library.settings.index_dir, ".store") > 0
    found.finished()  # the pages' stored texts a scan mapped are let go of
    assert _mapped_kb(library.settings.index_dir, ".store") == 0
    everything = [(ref.path, ref.page) for ref in refs]
    assert everything == sorted(everything)
    assert len(everything) == sum(r.pages for r in library.engine.records())
    assert len(refs.addresses) <= max(r.pages for r in library.engine.records()) * 2


def _mapped_kb(folder: Path, suffix: str) -> int:
    """This process's resident KB of the files in `folder` (at any depth) ending in `suffix`."""
    total, inside = 0, False
    prefix = str(folder.resolve())
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if fields and "-" in fields[0] and len(fields) >= 5 and not fields[0].endswith(":"):
            inside = len(fields) > 5 and fields[5].startswith(prefix) and fields[5].endswith(suffix)
        elif inside and fields and fields[0] == "Rss:":
            total += int(fields[1])
    return total
