"""The README is generated from the code where it can be, and tested against it where it
cannot: the tool reference, the settings table and the CLI reference (`--help`) are
rendered by `tests/docgen.py`; its shell examples run through the real CLI
(`tests/clidoc.py` says how); every CLI command, tool and resource is named; every local
link leads somewhere.

When the tools, settings or CLI options change, refresh the generated blocks with

    python -m tests.docgen                         # or
    UPDATE_README=1 pytest tests/test_readme.py
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pdfindex.cli import main
from pdfindex.config import SETTINGS, Settings
from tests import clidoc, docgen, pdfgen

# Read at import: the autouse fixture of conftest.py isolates the environment per test.
UPDATE = os.environ.get("UPDATE_README", "") not in ("", "0")
REFRESH = "run `python -m tests.docgen` (or UPDATE_README=1 pytest tests/test_readme.py)"
RESOURCES = ("tour://library", "adapters://list", "config://settings")


@pytest.fixture(scope="module")
def listing() -> tuple[list, list]:
    return docgen.server_listing()


def test_generated_blocks_match_the_code() -> None:
    text = docgen.README.read_text(encoding="utf-8")
    expected = docgen.regenerated(text)
    if expected != text and UPDATE:
        docgen.README.write_text(expected, encoding="utf-8")
        text = expected
    diff = "".join(
        difflib.unified_diff(
            text.splitlines(keepends=True),
            expected.splitlines(keepends=True),
            "README.md",
            "README.md as generated now",
            n=1,
        )
    )
    assert not diff, f"README.md's generated blocks are stale; {REFRESH}.\n{diff[:4000]}"


def test_every_cli_command_is_in_the_readme_with_an_example() -> None:
    text = docgen.README.read_text(encoding="utf-8")
    for name in main.commands:
        assert f"`pdfindex {name}" in text, f"no `pdfindex {name} ...` in README.md"
    assert "python -m pdfindex" in text


def test_every_tool_and_resource_is_in_the_readme(listing: tuple[list, list]) -> None:
    text = docgen.README.read_text(encoding="utf-8")
    tools, resources = listing
    assert len(tools) >= 19
    for tool in tools:
        assert f"#### `{tool.name}`" in text, f"{tool.name} has no entry in the tool reference"
    listed = {str(r.uri) for r in resources}
    assert set(RESOURCES) <= listed
    for uri in listed:
        assert f"`{uri}`" in text, uri


def test_every_setting_is_described() -> None:
    declared = {f.name for f in dataclasses.fields(Settings)} - {"sources"}
    assert set(SETTINGS) == declared, "declare each Settings field with config.setting()"
    for row in SETTINGS.values():
        assert row.help.strip(), f"{row.name} has no help text"


def test_the_two_commands_come_first() -> None:
    text = docgen.README.read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, re.DOTALL)
    assert blocks[:2] == [
        "pip install -e . && pdfindex serve\n",
        "pip install -e '.[test]' && pytest\n",
    ]
    assert text.index(blocks[1]) < text.index("\n## ")  # before the first section
    assert '"command": "pdfindex"' in text
    assert '"args": ["serve", "--root"' in text


def _local_links(path: Path) -> list[tuple[str, Path]]:
    text = path.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    return [
        (link, (path.parent / link.split("#")[0]).resolve())
        for link in links
        if not re.match(r"[a-z]+:", link) and not link.startswith("#")
    ]


NOTES = sorted((docgen.README.parent / "pdfindex").rglob("README.md"))


@pytest.mark.parametrize(
    "page", [docgen.README, *NOTES], ids=lambda p: str(p.relative_to(docgen.README.parent))
)
def test_local_links_lead_somewhere(page: Path) -> None:
    root = docgen.README.parent
    for link, target in _local_links(page):
        assert target.exists(), f"{page.relative_to(root)}: {link} does not exist"
        assert target.is_relative_to(root), f"{page.relative_to(root)}: {link} leaves the repo"


def test_in_page_anchors_exist() -> None:
    text = docgen.README.read_text(encoding="utf-8")
    headings = {
        re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
        for h in re.findall(r"(?m)^#+ (.+)$", text)
    }
    for anchor in re.findall(r"\]\(#([^)]+)\)", text):
        assert anchor in headings, f"README.md links to #{anchor}, which no heading makes"


# -- the shell examples -------------------------------------------------------------

REPO = docgen.README.parent
LONG_RUNNING = {"serve", "watch"}  # they wait on stdin or run until stopped
EXAMPLE_TIMEOUT = 120  # seconds for one command


def test_every_shell_example_runs_or_says_why_not() -> None:
    """Each not-tested marker sits on a shell block and gives a reason; every command that
    ends by itself is run by some example."""
    text = docgen.README.read_text(encoding="utf-8")
    examples = clidoc.examples(text)
    skipped = [e for e in examples if e.skip is not None]
    assert len(clidoc.MARKER.findall(text)) == len(skipped), (
        "a not-tested marker is not on the line just above a sh, bash or console fence"
    )
    for example in skipped:
        assert example.skip.strip(), f"README.md line {example.line}: say why it is not tested"
    for example in examples:
        if example.language == "console":
            assert example.body.startswith(clidoc.PROMPT), (
                f"README.md line {example.line}: a console block starts with `$ `"
            )
    commands = " ".join(c for e in examples if e.skip is None for c, _ in e.steps())
    for name in set(main.commands) - LONG_RUNNING:
        assert f"pdfindex {name}" in commands, f"no README example runs `pdfindex {name}`"


def _sample_project(folder: Path) -> tuple[Path, dict[str, str]]:
    """A project root holding the sample PDFs that `files/` ships, and the environment of a
    user there: `pdfindex` on PATH runs this checkout with this interpreter, and no
    PDFINDEX_* setting is set."""
    root = folder / "project"
    pdfgen.main(["samples", str(root / "files")])
    shim = folder / "bin" / "pdfindex"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m pdfindex "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PDFINDEX_")}
    paths = [shim.parent, Path(sys.executable).parent, env.get("PATH", "")]
    env["PATH"] = os.pathsep.join(map(str, paths))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return root, env


def test_shell_examples_run_in_a_sample_project(tmp_path: Path) -> None:
    """The README's runnable examples, in order, in one project (they build on each
    other): each command exits 0 and prints the lines the README shows."""
    root, env = _sample_project(tmp_path)
    for example in clidoc.examples(docgen.README.read_text(encoding="utf-8")):
        if example.skip is not None:
            continue
        for command, shown in example.steps():
            done = subprocess.run(
                ["bash", "-e", "-c", command],
                cwd=root,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=EXAMPLE_TIMEOUT,
            )
            where = f"README.md line {example.line}: `{command.strip()}`"
            printed = done.stdout[-4000:]
            assert done.returncode == 0, f"{where} exited {done.returncode}:\n{printed}"
            missing = clidoc.first_missing(shown, done.stdout)
            assert missing is None, f"{where} did not print\n  {missing}\nit printed:\n{printed}"
