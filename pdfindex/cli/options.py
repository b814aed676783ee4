"""What every command shares: the settings flags (from the settings table), --json, the
settings and index a command opens, and the one-line error with exit code 2."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import click

from pdfindex.config import EVERY_COMMAND, SETTINGS, Setting, Settings, load_settings
from pdfindex.errors import IndexWriteError, PdfIndexError
from pdfindex.paths import check_folders

if TYPE_CHECKING:
    from pdfindex.api import PdfIndex


@functools.cache
def _engine_names() -> list[str]:
    """The subpackages of pdfindex.engine (as `pdfindex.engine.engines()` finds them),
    found without importing any engine; once per process, not once per command's
    --engine (pkgutil lists each subpackage: 9 ms at every start)."""
    folder = Path(__file__).parents[1] / "engine"
    return sorted(
        entry.name
        for entry in os.scandir(folder)
        if entry.is_dir() and entry.name.isidentifier() and (Path(entry) / "__init__.py").exists()
    )


class CliError(click.ClickException):
    """A pdfindex error shown as one line; exit code 2 as grep does."""

    exit_code = 2


_FLAGS = "pdfindex.flags"
CommandFn = Callable[..., Any]


def _remember(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Collect shared options given before or after the command name."""
    if value is not None and value != ():  # () : a repeatable flag not given
        ctx.find_root().meta.setdefault(_FLAGS, {})[param.name] = value
    return value


def _option_type(row: Setting) -> Any:
    """The click type of a setting's flag: its choices, its number type, else text."""
    if row.name == "root":
        return click.Path(file_okay=False)
    if row.name == "engine":
        return click.Choice(_engine_names())
    if row.choices:
        return click.Choice(row.choices)
    return row.kind if row.kind in (int, float) else None


def _option_help(row: Setting) -> str:
    """The settings table's help, without its Markdown, and the default."""
    shown = f"  [default: {row.shown_default}]" if row.shown_default else ""
    return row.help.replace("`", "") + shown


def _setting_option(row: Setting) -> click.Option:
    """The flag of one setting: collected by _remember, not passed to the command."""
    return click.Option(
        [row.option, row.name],
        type=_option_type(row),
        multiple=row.kind is dict,  # folders: --folder once per folder
        help=_option_help(row),
        expose_value=False,
        callback=_remember,
        is_eager=True,
    )


class _SettingFlags:
    """Where a command's setting flags go among its parameters, until they are built."""

    def __init__(self, command: str) -> None:
        self.command = command

    def build(self) -> list[click.Parameter]:
        rows = [row for row in SETTINGS.values() if row.flag == self.command]
        return [_setting_option(row) for row in rows]


def setting_options(command: str) -> Callable[[CommandFn], CommandFn]:
    """The flags of the settings `command` takes (EVERY_COMMAND: those every command
    takes, before or after its name: `pdfindex serve --root X`, `pdfindex --root X serve`),
    from the settings table. They are not passed to the command: _remember collects them
    for _settings. They are built when their command (a SettingsCommand) first parses or
    shows help: building all commands' ~115 flags cost every `pdfindex search` ~8 ms."""

    def decorate(fn: CommandFn) -> CommandFn:
        if isinstance(fn, click.Command):
            fn.params.extend(_SettingFlags(command).build())
        else:  # as click.option does: the command decorator collects them, reversed
            fn.__dict__.setdefault("__click_params__", []).append(_SettingFlags(command))
        return fn

    return decorate


class _BuildsSettingFlags:
    """A click command whose setting flags (setting_options) are built on first use."""

    _params: list[Any]

    @property
    def params(self) -> list[click.Parameter]:
        if any(isinstance(p, _SettingFlags) for p in self._params):
            self._params = [
                built
                for p in self._params
                for built in (p.build() if isinstance(p, _SettingFlags) else [p])
            ]
        return self._params

    @params.setter
    def params(self, value: list[Any]) -> None:
        self._params = value


class SettingsCommand(_BuildsSettingFlags, click.Command):
    """A command with setting flags, built when it parses or shows help."""


class SettingsGroup(_BuildsSettingFlags, click.Group):
    """The `pdfindex` group: its own and its commands' setting flags built on first use,
    so only the command that runs builds its flags."""

    command_class = SettingsCommand


common_options = setting_options(EVERY_COMMAND)


def json_option(fn: CommandFn) -> CommandFn:
    """--json: print the result as JSON, for scripts."""
    return click.option("--json", "as_json", is_flag=True, help="Print as JSON.")(fn)


class Elsewhere(Exception):
    """A search handed to a resident process resolved to settings other than its own:
    the process that asked searches itself (pdfindex.cli.resident)."""


class Output:
    """Where a command's lines go: this process's stdout and stderr, or, for a search a
    resident process answers (pdfindex.cli.resident), text kept for the process that
    asked, with the widths of its terminal."""

    def __init__(
        self,
        out: TextIO | None = None,
        err: TextIO | None = None,
        widths: tuple[int | None, int | None] | None = None,
    ) -> None:
        self.out, self.err, self.widths = out, err, widths

    def echo(self, message: str, err: bool = False) -> None:
        click.echo(message, file=self.err if err else self.out, err=err)

    def columns(self, err: bool = False) -> int | None:
        """The width lines to stdout (or stderr) should fit; None for a pipe or a file."""
        if self.widths is not None:
            return self.widths[err]
        from pdfindex.cli import terminal

        return terminal.columns(sys.stderr if err else sys.stdout)


class Resident:
    """What a resident process hands the search command it runs (as the click context's
    `obj`): its open index and where the answer's lines go."""

    def __init__(self, index: PdfIndex, output: Output) -> None:
        self.index, self.output = index, output


def output(ctx: click.Context) -> Output:
    """The command's Output: the resident process's for a search it answers."""
    obj = ctx.find_root().obj
    return obj.output if isinstance(obj, Resident) else Output()


def command_settings(ctx: click.Context) -> Settings:
    meta = ctx.find_root().meta
    if "pdfindex.settings" not in meta:
        flags = dict(meta.get(_FLAGS, {}))
        root = flags.pop("root", None)
        try:
            settings = load_settings(flags, root=root)
            # Before anything is created: no index or log folder under a mistyped root.
            check_folders(settings.root, settings.files_dir, settings.index_dir)
        except PdfIndexError as exc:
            raise CliError(str(exc)) from exc
        meta["pdfindex.settings"] = settings
    return meta["pdfindex.settings"]


def handle_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Map the library's errors to one clear line on stderr."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except PdfIndexError as exc:
            raise CliError(str(exc)) from exc
        except OSError as exc:  # a full disk outside the index writer (the text cache)
            failed = IndexWriteError.about(exc)
            if failed is None:
                raise
            raise CliError(str(failed)) from exc

    return wrapper


def searches_alike(mine: Settings, theirs: Settings) -> bool:
    """Whether a search of `mine` may be answered by a process opened with `theirs`:
    every setting but those of one command's own flags (`serve`'s request time-out and
    client roots, `web`'s address and certificates) is the same."""
    shared = [name for name, row in SETTINGS.items() if row.flag in ("", EVERY_COMMAND)]
    return all(getattr(mine, name) == getattr(theirs, name) for name in shared)


def open_index(
    ctx: click.Context, one_shot: bool = False, refilled_by: str | None = None
) -> PdfIndex:
    """The index of the command's settings, closed with the command. `one_shot`: the
    command answers once and its process ends (search, list, stats, extract), so it
    skips what only a lasting process needs (`pdfindex.memory.one_shot`). `refilled_by`:
    the command refills an index found damaged or older itself (reindex, with its own
    options), so opening it does not."""
    settings = command_settings(ctx)
    resident = ctx.find_root().obj
    if isinstance(resident, Resident):  # a search a resident process answers
        if not searches_alike(settings, resident.index.settings):
            raise Elsewhere(str(settings.index_dir))
        return resident.index
    from pdfindex.api import PdfIndex

    if one_shot:
        from pdfindex.memory import one_shot as answer_once

        ctx.with_resource(answer_once())
    index = PdfIndex(settings, rebuild=refilled_by is None, refilled_by=refilled_by)
    ctx.call_on_close(index.close)
    return index


def echo_json(payload: Any, to: Output | None = None) -> None:
    import json

    (to or Output()).echo(json.dumps(payload, indent=2, default=str))
