"""Custom adapters (seed 001's `custom_adapters`): a program that prints a file's text,
declared in pdfindex.toml. Here is only the declaration and its checks; running one is
`pdfindex.extract.adapters.command`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pdfindex.errors import ConfigError

ADAPTER_NAME = re.compile(r"[a-z0-9_-]+")
EXTENSION = re.compile(r"[A-Za-z0-9_+-]+(\.[A-Za-z0-9_+-]+)*")  # 'djvu', 'tar.gz'
INPUT = "$input"  # the one placeholder in `args`: the file's path
KEYS = {"name", "extensions", "command", "args", "description"}
EXAMPLE = (
    '[[custom_adapters]]\nname = "djvu"\nextensions = ["djvu"]\ncommand = "djvutxt"\n'
    'args = ["$input"]'
)


@dataclass(frozen=True)
class CustomAdapter:
    """One custom adapter: files with these extensions are read by running `command`
    with `args` ($input: the file), without a shell; its stdout is the text."""

    name: str
    extensions: tuple[str, ...]  # lower-case, with the leading dot: ('.djvu',)
    command: str
    args: tuple[str, ...] = (INPUT,)
    description: str = ""

    @property
    def version(self) -> str:
        """The extraction cache's key part: the command and args, so changing them reads
        the files again."""
        import hashlib  # here: loading OpenSSL's hashes cost every `pdfindex search` ~2 ms
        import json

        digest = hashlib.sha256(json.dumps([self.command, *self.args]).encode()).hexdigest()
        return f"custom-{self.name}-{digest[:12]}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "extensions": [e.lstrip(".") for e in self.extensions],
            "command": self.command,
            "args": list(self.args),
            "description": self.description,
        }


def custom_adapters(raw: Any, source: str) -> tuple[CustomAdapter, ...]:
    """The `[[custom_adapters]]` tables of pdfindex.toml, checked; ConfigError says what is
    wrong with which one."""
    if raw in ((), []):
        return ()
    if not isinstance(raw, list | tuple):
        raise ConfigError(
            f"custom_adapters from {source}: set them in pdfindex.toml as tables, e.g.\n{EXAMPLE}"
        )
    adapters = tuple(_adapter(n, entry, source) for n, entry in enumerate(raw, 1))
    names = [a.name for a in adapters]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ConfigError(f"custom_adapters from {source}: the name {twice[0]!r} is used twice")
    return adapters


def _adapter(number: int, entry: Any, source: str) -> CustomAdapter:
    where = f"custom_adapters #{number} from {source}"
    if isinstance(entry, CustomAdapter):
        return entry
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: a table with name, extensions and command, e.g.\n{EXAMPLE}")
    unknown = set(entry) - KEYS
    if unknown:
        raise ConfigError(
            f"{where}: unknown keys {', '.join(sorted(unknown))}; it takes "
            f"{', '.join(sorted(KEYS))}"
        )
    name = entry.get("name")
    if not isinstance(name, str) or not ADAPTER_NAME.fullmatch(name):
        raise ConfigError(
            f"{where}: name {name!r}: use lower-case letters, digits, '_' and '-' "
            '(e.g. name = "djvu")'
        )
    extensions = entry.get("extensions")
    if isinstance(extensions, str):
        extensions = [extensions]
    if not isinstance(extensions, list) or not extensions:
        raise ConfigError(f'{where}: extensions must be a list, e.g. extensions = ["djvu"]')
    checked = []
    for extension in extensions:
        bare = extension.strip().lstrip(".") if isinstance(extension, str) else ""
        if not EXTENSION.fullmatch(bare):
            raise ConfigError(
                f"{where}: extension {extension!r} is not a file extension "
                '(letters and digits, with or without the dot: "djvu" or ".djvu")'
            )
        checked.append("." + bare.lower())
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(f'{where}: command must name a program, e.g. command = "djvutxt"')
    args = entry.get("args", [INPUT])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ConfigError(f'{where}: args must be a list of strings, e.g. args = ["$input"]')
    description = entry.get("description", "")
    if not isinstance(description, str):
        raise ConfigError(f"{where}: description must be text")
    return CustomAdapter(
        name, tuple(dict.fromkeys(checked)), command.strip(), tuple(args), description
    )
