"""The README is generated from the code where it can be, and tested against it where it
cannot: the tool reference and the settings table are rendered by `tests/docgen.py`;
every CLI command, tool and resource is named; every local link leads somewhere.

When the tools or settings change, refresh the generated blocks with

    python -m tests.docgen                         # or
    UPDATE_README=1 pytest tests/test_readme.py
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path

import pytest

from pdfindex.cli import main
from pdfindex.config import DEFAULTS, DESCRIPTIONS
from tests import docgen

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
    assert set(DESCRIPTIONS) == {"root", *DEFAULTS}, (
        "describe each setting in pdfindex.config.DESCRIPTIONS"
    )


def test_the_two_commands_come_first() -> None:
    text = docgen.README.read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, re.DOTALL)
    assert blocks[:2] == [
        "pip install -e . && pdfindex serve\n",
        "pip install -e '.[test]' && pytest\n",
    ]
    assert text.index(blocks[1]) < text.index("\n## ")  # before the first section
    assert '"command": "pdfindex"' in text and '"args": ["serve", "--root"' in text


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
