"""The README's CLI part: its reference generated from `--help`, and its shell examples
collected so that `tests/test_readme.py` can run them through the real CLI.

The reference is the block between `<!-- cli:start -->` and `<!-- cli:end -->`:
`pdfindex --help` and each command's, rendered at a fixed width (what a terminal of 80
columns or more shows), so it does not depend on the machine. `python -m tests.docgen`
rewrites it with the README's other generated blocks.

Every fenced `sh`, `bash` or `console` block in the README is an example and is run. One
that cannot run in a temporary project (an install, a server waiting on stdin, a database)
says so on the line just above its fence: `<!-- not-tested: why -->`. In a `console` block
`$ ` starts a command and the lines under it are output it must print, in that order
(among others); `…` in them stands for any text. An `sh` or `bash` block is one script.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# click's help width on a terminal of 80 columns or more: max_content_width 80, less 2.
WIDTH = 78
SHELLS = ("sh", "bash", "console")
MARKER = re.compile(r"<!-- not-tested: (.*?) -->")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
PROMPT = "$ "
ANY = "…"


@dataclass(frozen=True)
class Example:
    """A fenced shell block of the README."""

    line: int  # the opening fence's line, 1-based
    language: str
    body: str
    skip: str | None  # why it is not run (its not-tested marker), or None

    def steps(self) -> list[tuple[str, list[str]]]:
        """(command, output lines it must print): a console block's commands, or the whole
        of an sh/bash block with no output to check."""
        if self.language != "console":
            return [(self.body, [])]
        steps: list[tuple[str, list[str]]] = []
        for line in self.body.splitlines():
            if line.startswith(PROMPT):
                steps.append((line[len(PROMPT) :], []))
            elif steps and line.strip() and line.strip() != ANY:
                steps[-1][1].append(line.rstrip())
        return steps


def examples(text: str) -> list[Example]:
    """The README's fenced shell blocks, in order, each with its not-tested reason."""
    found = []
    for fence in FENCE.finditer(text):
        if fence.group(1) not in SHELLS:
            continue
        line = text.count("\n", 0, fence.start()) + 1
        above = text[: fence.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = MARKER.fullmatch(above.strip())
        found.append(
            Example(line, fence.group(1), fence.group(2), marker.group(1) if marker else None)
        )
    return found


def first_missing(shown: list[str], output: str) -> str | None:
    """The first of the `shown` lines that `output` does not print (after the ones before
    it; `…` matches any text), or None when all are there."""
    lines = [line.rstrip() for line in output.splitlines()]
    at = 0
    for want in shown:
        pattern = re.compile(".*".join(re.escape(part) for part in want.split(ANY)))
        while at < len(lines) and not pattern.fullmatch(lines[at]):
            at += 1
        if at == len(lines):
            return want
        at += 1
    return None


def help_texts() -> list[tuple[str, str]]:
    """(command line, what it prints) for `pdfindex --help` and each command's `--help`."""
    from click.testing import CliRunner

    from pdfindex.cli import main

    runner = CliRunner()
    texts = []
    for args in [[], *([name] for name in main.commands)]:
        argv = [*args, "--help"]
        result = runner.invoke(main, argv, prog_name="pdfindex", terminal_width=WIDTH)
        if result.exit_code != 0:
            raise RuntimeError(f"pdfindex {' '.join(argv)} failed: {result.output}")
        texts.append((" ".join(["pdfindex", *argv]), result.output))
    return texts


def render_cli() -> str:
    """The CLI reference block: one text block, each command's help under its `$` line."""
    lines = ["```text"]
    for command, output in help_texts():
        lines += [f"{PROMPT}{command}", *(line.rstrip() for line in output.splitlines()), ""]
    lines[-1] = "```"
    return "\n".join(lines)
