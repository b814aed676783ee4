"""The `pdfindex` command (click): each command builds the library object, calls one
method and formats the result (text for people, --json for scripts).

Exit codes: 0 success, 1 a search found nothing, 2 an error (one line on stderr).
"""

from __future__ import annotations

import functools
import json
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import click

from pdfindex.api import PdfIndex
from pdfindex.config import EXTRACTORS, Settings, load_settings
from pdfindex.engine import engines
from pdfindex.errors import PdfIndexError
from pdfindex.logs import setup_logging
from pdfindex.models import Summary


class CliError(click.ClickException):
    """A pdfindex error shown as one line; exit code 2 as grep does."""

    exit_code = 2


_FLAGS = "pdfindex.flags"


def _remember(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Collect shared options given before or after the command name."""
    if value is not None:
        ctx.find_root().meta.setdefault(_FLAGS, {})[param.name] = value
    return value


def common_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Options every command accepts (`pdfindex serve --root X` and `pdfindex --root X serve`).

    They are not passed to the command: _remember collects them for _settings.
    """
    shared: dict[str, Any] = {"expose_value": False, "callback": _remember, "is_eager": True}
    options = [
        click.option(
            "--root", type=click.Path(file_okay=False), help="Project root (cwd).", **shared
        ),
        click.option("--files-dir", help="Folder of documents (default: ROOT/files).", **shared),
        click.option("--index-dir", help="Index folder (default: ROOT/index).", **shared),
        click.option("--log-dir", help="Folder for session logs (default: ROOT/logs).", **shared),
        click.option(
            "--engine",
            type=click.Choice(engines()),
            help="Index engine (default tantivy).",
            **shared,
        ),
        click.option(
            "--extractor",
            type=click.Choice(EXTRACTORS),
            help="Engine for index text.",
            **shared,
        ),
        click.option(
            "--timeout", type=float, help="Seconds to extract one file (default 120).", **shared
        ),
        click.option(
            "--workers", type=int, help="Extraction processes (default: all cores).", **shared
        ),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _settings(ctx: click.Context) -> Settings:
    meta = ctx.find_root().meta
    if "pdfindex.settings" not in meta:
        flags = dict(meta.get(_FLAGS, {}))
        root = flags.pop("root", None)
        try:
            meta["pdfindex.settings"] = load_settings(flags, root=root)
        except PdfIndexError as exc:
            raise CliError(str(exc)) from exc
    return meta["pdfindex.settings"]


def handle_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Map the library's errors to one clear line on stderr."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except PdfIndexError as exc:
            raise CliError(str(exc)) from exc

    return wrapper


def open_index(ctx: click.Context) -> PdfIndex:
    index = PdfIndex(_settings(ctx))
    ctx.call_on_close(index.close)
    return index


def _exit_cleanly(_signum: int, _frame: object) -> None:
    raise SystemExit(0)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@common_options
@click.version_option(package_name="pdfindex")
def main() -> None:
    """pdfindex: search a folder of PDFs from a persistent full-text index.

    Configuration, highest first: these options > PDFINDEX_* environment variables >
    pdfindex.toml in the root > defaults.

    \b
    Example:
      pdfindex reindex && pdfindex search '"transformer architecture"'
    """


@main.command()
@common_options
@click.option("--no-watch", is_flag=True, help="Do not follow changes in the files folder.")
@click.pass_context
@handle_errors
def serve(ctx: click.Context, no_watch: bool) -> None:
    """Serve the MCP tools over stdio; keeps the index in step with the files folder.

    \b
    Example (an MCP client's configuration):
      {"command": "pdfindex", "args": ["serve", "--root", "/path/to/project"]}
    """
    # A SIGTERM while the MCP SDK loads (seconds on a busy machine) still exits cleanly;
    # run_server installs its own handler before it starts any thread.
    signal.signal(signal.SIGTERM, _exit_cleanly)
    from pdfindex.server import serve as run_server  # the MCP SDK loads only when serving

    settings = _settings(ctx)
    log_file = setup_logging(settings.log_dir)
    click.echo(f"pdfindex: serving {settings.files_dir} over stdio; log {log_file}", err=True)
    run_server(settings, watch=not no_watch)


@main.command()
@common_options
@click.pass_context
@handle_errors
def watch(ctx: click.Context) -> None:
    """Keep the index in step with the files folder, in the foreground (Ctrl-C stops).

    \b
    Example:
      pdfindex watch --root ~/papers
    """

    settings = _settings(ctx)
    setup_logging(settings.log_dir)
    index = open_index(ctx)

    def show(summary: Summary) -> None:
        click.echo(f"{time.strftime('%H:%M:%S')} {summary.line()}")
        for path, reason in sorted(summary.failures.items()):
            click.echo(f"  failed: {path}: {reason}", err=True)

    def terminate(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    live = index.live(on_summary=show).start()
    click.echo(f"watching {settings.files_dir} (Ctrl-C to stop)", err=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        live.close()
        click.echo("stopped", err=True)


def _progress_bar() -> tuple[Callable[[int, int], None], Callable[[], None]]:
    """A progress callback drawing a bar on a terminal (stderr), silent otherwise."""
    state: dict[str, Any] = {}

    def update(done: int, total: int) -> None:
        if not sys.stderr.isatty():
            return
        if "bar" not in state:
            state["bar"] = click.progressbar(length=total, label="extracting", file=sys.stderr)
            state["bar"].__enter__()
        state["bar"].update(1)

    def finish() -> None:
        if "bar" in state:
            state["bar"].__exit__(None, None, None)

    return update, finish


@main.command()
@common_options
@click.option("--full", is_flag=True, help="Rebuild from scratch (cached text is reused).")
@click.option(
    "--commit-every",
    type=click.FloatRange(min=0.1),
    default=30.0,
    show_default=True,
    help="Commit at least this often (seconds), so an interrupted run keeps its work.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.pass_context
@handle_errors
def reindex(ctx: click.Context, full: bool, commit_every: float, as_json: bool) -> None:
    """Bring the index up to date with the files folder.

    \b
    Example:
      pdfindex reindex            # only what changed
      pdfindex reindex --full     # rebuild; re-parses nothing already cached
    """
    setup_logging(None)
    index = open_index(ctx)
    update, finish = _progress_bar()
    try:
        summary = index.reindex(full=full, progress=update, commit_interval=commit_every)
    finally:
        finish()
    if as_json:
        click.echo(json.dumps(asdict(summary), indent=2))
    else:
        _print_summary(summary)


def _print_summary(summary: Summary) -> None:
    click.echo(summary.line())
    for path, reason in sorted(summary.failures.items()):
        click.echo(f"  failed: {path}: {reason}", err=True)


@main.command()
@common_options
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_context
@handle_errors
def stats(ctx: click.Context, as_json: bool) -> None:
    """Documents, pages, problem files and index size.

    \b
    Example:
      pdfindex stats --json
    """
    index = open_index(ctx)
    info = index.stats()
    if as_json:
        click.echo(json.dumps(info, indent=2))
        return
    counts = ", ".join(f"{n} {status}" for status, n in info["by_status"].items())
    click.echo(f"documents:   {info['documents']} ({counts})")
    click.echo(f"pages:       {info['pages']}")
    click.echo(f"index size:  {info['index_bytes'] / 1e6:.1f} MB ({info['segments']} segments)")
    click.echo(f"cache size:  {info['cache_bytes'] / 1e6:.1f} MB")
    click.echo(f"last update: {info['last_update'] or 'never'}")
    click.echo(f"files:       {info['files_dir']}")
    click.echo(f"index:       {info['index_dir']} ({info['engine']} engine)")
    click.echo(f"ocr:         {index.describe_ocr(info['ocr'])}")
    elements = ", ".join(f"{n} {kind}" for kind, n in info["elements"].items())
    pending = f" ({info['elements_pending']} documents pending)" if info["elements_pending"] else ""
    click.echo(f"elements:    {elements or 'none found'}{pending}")
    for problem in info["problems"]:
        click.echo(f"  {problem['status']}: {problem['path']}: {problem['reason']}")


@main.command()
@common_options
@click.argument("query")
@click.option("--doc", "document", help="Only this document (path, name without .pdf, or slug).")
@click.option("--pages", help="Only these pages, e.g. '3-7' (ranked search).")
@click.option("--limit", default=10, show_default=True, help="Maximum results.")
@click.option("--exact", is_flag=True, help="Exact substring occurrences (search_pdf rules).")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_context
@handle_errors
def search(
    ctx: click.Context,
    query: str,
    document: str | None,
    pages: str | None,
    limit: int,
    exact: bool,
    as_json: bool,
) -> None:
    """Search the index: words, "phrases", word~2 (fuzzy), AND/OR/NOT, prefix*.

    \b
    Examples:
      pdfindex search 'transformer architecture'
      pdfindex search '"state of the art" OR sota' --doc papers/survey
      pdfindex search 'c++' --exact
    """
    index = open_index(ctx)
    if exact:
        matches, more = index.exact(query, document=document, limit=limit)
        if as_json:
            payload = {"matches": [asdict(m) for m in matches], "more": more}
            click.echo(json.dumps(payload, indent=2))
        for n, m in enumerate(matches if not as_json else [], start=1):
            context = " ".join(m.context.split())
            click.echo(f"{n}. {m.path}  page {m.page}\n   {context}")
        if more and not as_json:
            click.echo(f"(more matches: raise --limit above {limit})")
        if not matches and not as_json:
            click.echo(f"no exact occurrence of {query!r}", err=True)
        ctx.exit(0 if matches else 1)
    total, hits = index.search(query, limit=limit, document=document, pages=pages)
    if as_json:
        rows = [{k: v for k, v in asdict(h).items() if k != "text"} for h in hits]
        click.echo(json.dumps({"total": total, "hits": rows}, indent=2))
    else:
        for n, hit in enumerate(hits, start=1):
            snippet = " ".join(hit.snippet.split())
            click.echo(f"{n}. {hit.path}  page {hit.page}  (score {hit.score:.2f})\n   {snippet}")
        click.echo(f"{len(hits)} of {total} pages")
    ctx.exit(0 if hits else 1)


@main.command()
@common_options
@click.argument("file")
@click.option("--pages", help="Pages to print, e.g. '1-3,5' (default: all).")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_context
@handle_errors
def extract(ctx: click.Context, file: str, pages: str | None, as_json: bool) -> None:
    """Print the indexed text of a document's pages.

    \b
    Example:
      pdfindex extract getting-started --pages 1-2
    """
    record, texts = open_index(ctx).page_texts(file, pages)
    if as_json:
        payload = {"path": record.path, "pages": [{"page": n, "text": t} for n, t in texts]}
        click.echo(json.dumps(payload, indent=2))
        return
    for number, text in texts:
        click.echo(f"--- {record.path} page {number} of {record.pages} ---")
        click.echo(text)


if __name__ == "__main__":
    main()
