"""What every command shares: the settings flags (from the settings table), --json, the
settings and index a command opens, and the one-line error with exit code 2."""

from __future__ import annotations

import functools
import pkgutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from pdfindex.config import EVERY_COMMAND, SETTINGS, Setting, Settings, load_settings
from pdfindex.errors import IndexWriteError, PdfIndexError
from pdfindex.paths import check_folders

if TYPE_CHECKING:
    from pdfindex.api import PdfIndex


def _engine_names() -> list[str]:
    """The subpackages of pdfindex.engine, found without importing any engine."""
    folder = Path(__file__).parents[1] / "engine"
    return sorted(m.name for m in pkgutil.iter_modules([str(folder)]) if m.ispkg)


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


def setting_options(command: str) -> Callable[[CommandFn], CommandFn]:
    """The flags of the settings `command` takes (EVERY_COMMAND: those every command
    takes, before or after its name: `pdfindex serve --root X`, `pdfindex --root X serve`),
    from the settings table. They are not passed to the command: _remember collects them
    for _settings."""
    rows = [row for row in SETTINGS.values() if row.flag == command]

    def decorate(fn: CommandFn) -> CommandFn:
        for row in reversed(rows):
            fn = click.option(
                row.option,
                row.name,
                type=_option_type(row),
                multiple=row.kind is dict,  # folders: --folder once per folder
                help=_option_help(row),
                expose_value=False,
                callback=_remember,
                is_eager=True,
            )(fn)
        return fn

    return decorate


common_options = setting_options(EVERY_COMMAND)


def json_option(fn: CommandFn) -> CommandFn:
    """--json: print the result as JSON, for scripts."""
    return click.option("--json", "as_json", is_flag=True, help="Print as JSON.")(fn)


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


def open_index(ctx: click.Context) -> PdfIndex:
    settings = command_settings(ctx)
    from pdfindex.api import PdfIndex

    index = PdfIndex(settings)
    ctx.call_on_close(index.close)
    return index


def echo_json(payload: Any) -> None:
    import json

    click.echo(json.dumps(payload, indent=2, default=str))
