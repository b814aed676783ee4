"""A short pattern cannot take the server's memory (issue 31, item 1): `regex` unrolls
counted repeats while compiling, outside any time limit, so search_in_file refuses by
name a pattern whose repeats compile too large, compiles nothing into `regex`'s cache,
and a real `pdfindex serve` stays small through a sequence of hostile patterns."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from pdfindex.errors import InvalidQuery
from pdfindex.search.regexsize import MAX_SIZE, compiled_size
from pdfindex.tools.grep import compile_pattern
from tests import pdfgen
from tests.mcpclient import stdio, text_of

HOSTILE = [
    "x{20000000}",
    "(?:(?:a{1000}){1000}){1000}",
    "(a|b){100000}",
    "[a-z]{30000}",
    r"\d{5000}\w{5000}\s{5000}x{6000}",
    "(?:x{1000}|y{1000}){100}",
    "(?i)(?:ab{2000}){20}",
]
ORDINARY = [
    r"\d{4}-\d{2}-\d{2}",
    "x{1,100000}",  # a loop, not copies: compiles small
    "a{0,20000}b",
    r"\p{L}{3}",
    r"\N{DIGIT ONE}{2}",
    "[{}]{2}",
    "(?:nodes){e<=1}",  # VERSION1's fuzzy constraint is no repeat
    "(?#a{99999999})node",  # a comment
    r"node\{99999999\}",  # escaped braces are letters
]
RSS_LIMIT_MB = 300


@pytest.mark.parametrize("pattern", HOSTILE)
def test_a_pattern_that_compiles_too_large_is_refused_by_name(pattern: str) -> None:
    assert compiled_size(pattern) > MAX_SIZE
    with pytest.raises(InvalidQuery, match=r"^pattern: .*the limit is 20,000"):
        compile_pattern(pattern, case_sensitive=False)


def test_ordinary_counted_repeats_are_accepted_and_compile_small() -> None:
    """Every accepted pattern, including ones just under the limit, compiles in a fresh
    process to little memory: the estimate is never below what `regex` builds."""
    near_limit = [
        f"x{{{MAX_SIZE - 10}}}",
        f"(?:ab{{{MAX_SIZE // 200 - 2}}}){{100}}",
        f"(a|b){{{MAX_SIZE // 2 - 1}}}",
    ]
    accepted = ORDINARY + near_limit
    for pattern in accepted:
        compile_pattern(pattern, case_sensitive=False)  # not refused
    script = (
        "import json, regex, resource, sys\n"
        "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "for p in json.loads(sys.argv[1]):\n"
        "    regex.compile(p, regex.VERSION1 | regex.IGNORECASE, cache_pattern=False)\n"
        "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) // 1024)\n"
    )
    grown = subprocess.run(
        [sys.executable, "-c", script, json.dumps(accepted)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert int(grown.stdout) < 64, f"compiling accepted patterns grew by {grown.stdout} MB"


def test_compiled_patterns_are_not_kept() -> None:
    import regex
    from regex import _main

    regex.purge()
    compile_pattern("unique-pattern-(?:kept){3}", case_sensitive=False)
    assert not any("unique-pattern" in str(key) for key in _main._cache)


def _server_pids(root: Path) -> list[int]:
    """The `pdfindex serve --root ROOT` processes (the server, not its workers)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"serve" in argv and str(root).encode() in argv:
            pids.append(int(proc.name))
    return pids


def _peak_rss_mb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    line = next(x for x in status.splitlines() if x.startswith("VmHWM:"))
    return int(line.split()[1]) // 1024


def test_the_server_stays_small_through_hostile_patterns(tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    pdfgen.write_pdf(files / "doc.pdf", ["alpha node distance\nbeta line", "gamma page two"])

    async def main() -> tuple[list[str], str, int]:
        async with stdio(tmp_path, "--workers", "1") as client:
            cheap = {"file": "doc.pdf", "pattern": r"node\s+dist"}
            with anyio.fail_after(120):
                while (await client.call_tool("search_in_file", cheap)).is_error:
                    await anyio.sleep(0.2)  # until the start-up scan has indexed it
            (pid,) = _server_pids(tmp_path)
            answers = []
            for pattern in HOSTILE * 3:
                result = await client.call_tool(
                    "search_in_file", {"file": "doc.pdf", "pattern": pattern}
                )
                assert result.is_error
                answers.append(text_of(result))
            found = await client.call_tool("search_in_file", cheap)
            return answers, text_of(found), _peak_rss_mb(pid)

    answers, cheap, peak = anyio.run(main)
    assert all("the limit is 20,000" in a for a in answers), answers[0]
    assert "alpha node distance" in cheap
    assert peak < RSS_LIMIT_MB, f"the server peaked at {peak} MB"
