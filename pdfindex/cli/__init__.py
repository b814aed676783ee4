"""The `pdfindex` command (click): each command builds the library object, calls one
method and formats the result (text for people, --json for scripts).

Exit codes: 0 success, 1 a search found nothing, 2 an error (one line on stderr).

Only click and the settings load at start, and only the command that runs builds its
setting flags (options.SettingsGroup); the index engine, the indexer and the MCP SDK load
inside the commands that need them, so `--help`, `--version` and `search` start fast
(tests/test_cli_imports.py lists what a search must not load;
`python -m benchmarks.cli_startup ROOT` times it).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from pdfindex.cli import terminal
from pdfindex.cli.options import (
    CliError,
    Output,
    SettingsGroup,
    command_settings,
    common_options,
    echo_json,
    handle_errors,
    json_option,
    open_index,
    output,
    setting_options,
)
from pdfindex.cli.web import web
from pdfindex.models import FileStatus
from pdfindex.search.limits import MAX_LIMIT

if TYPE_CHECKING:
    from pdfindex.api import PdfIndex
    from pdfindex.indexer.progress import Step
    from pdfindex.models import FileRecord, Summary

EMPTY_HINT = "0 pages indexed in {index} — run `pdfindex reindex` (or `pdfindex serve`) first"
SNIPPET_LINES = 3  # a ranked result's snippet on a terminal: 6 results on a 24-line screen


def _exit_cleanly(_signum: int, _frame: object) -> None:
    raise SystemExit(0)


@click.group(cls=SettingsGroup, context_settings={"help_option_names": ["-h", "--help"]})
@common_options
@click.version_option(package_name="pdfindex", prog_name="pdfindex")
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
@setting_options("serve")
@click.option("--no-watch", is_flag=True, help="Do not follow changes in the files folder.")
@click.pass_context
@handle_errors
def serve(ctx: click.Context, no_watch: bool) -> None:
    """Serve the MCP tools over stdio; keeps the index in step with the files folder.

    \b
    Example (an MCP client's configuration):
      {"command": "pdfindex", "args": ["serve", "--root", "/path/to/project"]}
    """
    import signal  # serve and watch only: not loaded by a search

    # A SIGTERM while the MCP SDK loads (seconds on a busy machine) still exits cleanly;
    # run_server installs its own handler before it starts any thread.
    signal.signal(signal.SIGTERM, _exit_cleanly)
    settings = command_settings(ctx)  # a bad root is one line before the MCP SDK loads
    from pdfindex.logs import log_limits, setup_logging
    from pdfindex.server import serve as run_server  # the MCP SDK loads only when serving

    log_file = setup_logging(settings.log_dir, **log_limits(settings))
    click.echo(f"pdfindex: serving {settings.files_dir} over stdio; log {log_file}", err=True)
    from pdfindex.cli.resident import answering  # `pdfindex search` answered from here

    run_server(settings, watch=not no_watch, alongside=answering)


@main.command()
@common_options
@click.pass_context
@handle_errors
def watch(ctx: click.Context) -> None:
    """Keep the index in step with the files folder, in the foreground (Ctrl-C stops):
    a line per file indexed, a summary line per update. While it runs, `pdfindex search`
    with the same settings is answered from its open index, in milliseconds.

    \b
    Example:
      pdfindex watch --root ~/papers
    """
    from pdfindex.logs import log_limits, setup_logging

    settings = command_settings(ctx)
    setup_logging(settings.log_dir, **log_limits(settings))
    index = open_index(ctx)

    def show(summary: Summary) -> None:
        click.echo(f"{time.strftime('%H:%M:%S')} {summary.line()}")
        for path, reason in sorted(summary.failures.items()):
            click.echo(f"  failed: {path}: {reason}", err=True)

    def step(step: Step) -> None:
        if step.path:
            what = "text" if step.stage == "text" else "elements"
            click.echo(f"{time.strftime('%H:%M:%S')} {what} {step.done}/{step.total}: {step.path}")

    def terminate(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    import signal

    from pdfindex.cli.resident import ResidentSearch

    live = index.live(on_summary=show, on_step=step)
    resident = ResidentSearch(index, search)  # `pdfindex search` answered from here
    # Every start inside the try, so that a SIGTERM at any point stops what started.
    signal.signal(signal.SIGTERM, terminate)
    try:
        live.start()
        answering = resident.start()
        click.echo(
            f"watching {settings.files_dir} (Ctrl-C to stop)"
            + ("; answering `pdfindex search`" if answering else ""),
            err=True,
        )
        while True:
            # A short sleep: a signal the system hands to another thread (the watcher's,
            # the index's) is run here only when this sleep ends; an hour's made a
            # SIGTERM wait an hour.
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        resident.close()
        live.close()
        click.echo("stopped", err=True)


_STAGE_LABELS = {"text": "page text", "elements": "figures, tables, equations"}


def _progress_bar() -> tuple[Callable[[Step], None], Callable[[], None]]:
    """A progress callback drawing a line per pass (text, then elements) on a terminal
    (stderr), naming the file just done; silent otherwise."""
    state: dict[str, Any] = {}

    def finish() -> None:
        line = state.pop("line", None)
        if line is not None:
            line.close()

    def update(step: Step) -> None:
        if not sys.stderr.isatty():
            return
        if state.get("stage") != step.stage:
            finish()
            state["stage"] = step.stage
            label = _STAGE_LABELS.get(step.stage, step.stage)
            state["line"] = terminal.ProgressLine(sys.stderr, label, step.total)
        state["line"].update(step.done, step.path)

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
@json_option
@click.option(
    "--take-over-source",
    is_flag=True,
    help="Feed this folder's source although another folder fed it (it replaces that one).",
)
@click.option(
    "--elements-later",
    is_flag=True,
    help="Commit the text and stop: figures, tables and equations are found later "
    "(serve/watch, the next reindex, or a call about one document).",
)
@click.option(
    "--ocr-later",
    is_flag=True,
    help="Read no page by OCR now: pages without a text layer are read by the next "
    "reindex, serve or watch (the text layer is searchable sooner).",
)
@click.pass_context
@handle_errors
def reindex(
    ctx: click.Context,
    full: bool,
    commit_every: float,
    as_json: bool,
    take_over_source: bool,
    elements_later: bool,
    ocr_later: bool,
) -> None:
    """Bring the index up to date with the files folder.

    \b
    Example:
      pdfindex reindex            # only what changed
      pdfindex reindex --full     # rebuild; re-parses nothing already cached
      pdfindex reindex --elements-later   # text now, elements later
      pdfindex reindex --ocr-later        # text layers now, scanned pages later
    """
    from pdfindex.logs import setup_logging

    setup_logging(None)
    index = open_index(ctx, refilled_by="this reindex")
    update, finish = _progress_bar()
    from pdfindex.cli.interrupt import ElementsInterrupt

    stop = ElementsInterrupt(update)
    try:
        summary = index.reindex(
            full=full,
            progress=stop.progress,
            commit_interval=commit_every,
            should_stop=stop,
            take_over_source=take_over_source,
            elements_later=elements_later,
            ocr_later=ocr_later,
        )
    finally:
        stop.restore()
        finish()
    if stop.asked:
        click.echo(
            f"{summary.line()}\nstopped: the text is committed; the elements of "
            f"{summary.elements_pending} documents are found by the next reindex, serve "
            "or watch, or when asked for",
            err=True,
        )
        raise SystemExit(130)
    semantic = _embed_pending(index) if index.semantic is not None else None
    if as_json:
        from dataclasses import asdict

        echo_json(asdict(summary) | ({"semantic": semantic} if semantic else {}))
    else:
        _print_summary(summary)
        if semantic:
            click.echo(_semantic_line(semantic))


def _embed_pending(index: PdfIndex) -> dict[str, Any]:
    """Embed the pages that have no vector yet (semantic = true), with a progress bar on
    a terminal; Ctrl-C or a kill keeps every batch done, and the next run goes on."""
    semantic = index.semantic
    assert semantic is not None
    state: dict[str, Any] = {}

    def progress(done: int, total: int) -> None:
        if not sys.stderr.isatty():
            return
        if "bar" not in state:
            state["bar"] = terminal.ProgressLine(sys.stderr, "embedding", total)
        state["bar"].update(done)

    try:
        semantic.run(progress=progress)
    except KeyboardInterrupt:
        click.echo(f"\n{_semantic_line(semantic.status())}; stopped, run again to go on", err=True)
        raise SystemExit(130) from None
    finally:
        if "bar" in state:
            state["bar"].close()
    return semantic.status()


def _semantic_line(info: dict[str, Any]) -> str:
    return (
        f"semantic: {info['embedded_pages']:,} of {info['pages']:,} pages embedded "
        f"({info['model']})" + (f"; failed: {info['error']}" if info.get("error") else "")
    )


def _print_summary(summary: Summary) -> None:
    """The summary line (on a terminal, broken between its parts to fit), then a line
    per failed file (wrapped under its name)."""
    for line in terminal.parts(summary.line().split("; "), terminal.columns(sys.stdout)):
        click.echo(line)
    width = terminal.columns(sys.stderr)
    for path, reason in sorted(summary.failures.items()):
        for line in terminal.wrap(f"{path}: {reason}", width, " " * 4, "  failed: "):
            click.echo(line, err=True)


@main.command()
@common_options
@json_option
@click.pass_context
@handle_errors
def stats(ctx: click.Context, as_json: bool) -> None:
    """Documents, pages, problem files and index size.

    \b
    Example:
      pdfindex stats --json
    """
    index = open_index(ctx, one_shot=True)
    info = index.stats()
    if as_json:
        echo_json(info)
        return
    counts = ", ".join(f"{n} {status}" for status, n in info["by_status"].items())
    parts = "its tables in the database" if info["database"] else f"{info['segments']} segments"
    fields = [
        ("documents", f"{info['documents']} ({counts})"),
        ("pages", str(info["pages"])),
        ("index size", f"{info['index_bytes'] / 1e6:.1f} MB ({parts})"),
        ("cache size", f"{info['cache_bytes'] / 1e6:.1f} MB"),
        ("last update", str(info["last_update"] or "never")),
        ("files", str(info["files_dir"])),
    ]
    for folder in info["folders"][1:]:  # the `folders` setting's: NAME/... documents
        fields.append(("folder", f"{folder['name']} = {folder['path']} ({_counts(folder)})"))
    if info["database"]:
        fields.append(("index", f"{info['database']} ({info['engine']} engine)"))
        if info["read_database"]:
            fields.append(("reads from", f"{info['read_database']} (a replica)"))
        fields.append(("cache", str(info["index_dir"])))
    else:
        fields.append(("index", f"{info['index_dir']} ({info['engine']} engine)"))
    fields.append(("ocr", index.describe_ocr(info["ocr"])))
    elements = ", ".join(f"{n} {kind}" for kind, n in info["elements"].items())
    pending = ""
    if info["elements_pending"]:  # the pass runs after the text: how far it is
        done, of = info["elements_documents"] - info["elements_pending"], info["elements_documents"]
        pending = f" (in {done:,} of {of:,} documents; {info['elements_pending']:,} pending)"
    fields.append(("elements", f"{elements or 'none found'}{pending}"))
    semantic = info.get("semantic")
    ranking = f"hybrid, {_semantic_line(semantic)}" if semantic else "bm25 (semantic = false)"
    fields.append(("ranking", ranking))
    width = terminal.columns(sys.stdout)
    for label, value in fields:
        head = f"{label + ':':<13}"
        if label in _PATH_FIELDS and width is not None:  # a path: shortened in the middle
            path, paren, rest = value.partition(" (")  # what follows it kept whole
            room = max(8, width - len(head) - terminal.cells(paren + rest))
            click.echo(terminal.cut(head + terminal.shorten(path, room) + paren + rest, width))
            continue
        for line in terminal.wrap(value, width, indent=" " * len(head), first=head):
            click.echo(line)
    for problem in info["problems"]:
        what = f"{problem['path']}: {problem['reason']}"
        for line in terminal.wrap(what, width, " " * 4, f"  {problem['status']}: "):
            click.echo(line)
    if not info["documents"]:
        click.echo(EMPTY_HINT.format(index=info["index_dir"]), err=True)


_PATH_FIELDS = {"files", "folder", "index", "cache"}  # stats lines whose value is a path


@main.command(name="list")
@common_options
@json_option
@click.pass_context
@handle_errors
def list_documents(ctx: click.Context, as_json: bool) -> None:
    """The indexed documents: path, slug (the name library tools and --doc take), pages,
    status (ok, empty, encrypted, failed, unsupported: a type no adapter reads), in
    columns under a header; a problem's reason follows its row, indented. On a terminal
    the columns fit its width, long names shortened in the middle.

    \b
    Example:
      pdfindex list --json
    """
    index = open_index(ctx, one_shot=True)
    records = index.documents()
    folders = index.folders
    if as_json:
        rows = [_document_row(r) for r in records]
        for row in rows if folders else ():  # which folder: its first path part's
            head = row["path"].partition("/")[0]
            row["folder"] = head if head in folders and "/" in row["path"] else ""
        echo_json(rows)
    elif records:
        width = terminal.columns(sys.stdout)
        rows = [(r.path, r.slug, str(r.pages), r.status) for r in records]
        headers = ("PATH", "SLUG", "PAGES", "STATUS")
        lines = terminal.table(headers, rows, width, right=[2], flexible=[[0, 1]])
        click.echo(lines[0])
        for record, line in zip(records, lines[1:], strict=True):
            click.echo(line)
            reason = _reason(record)  # a problem's reason on lines of its own, indented
            for why in terminal.wrap(reason, width, " " * 4, " " * 4) if reason else []:
                click.echo(why)
    if not as_json:
        width = terminal.columns(sys.stderr)
        for name, folder in folders.items():
            click.echo(terminal.shorten(f"folder {name}/: {folder}", width or 10**6), err=True)
    if not records:
        click.echo(EMPTY_HINT.format(index=index.settings.index_dir), err=True)


def _reason(record: FileRecord) -> str:
    return (record.error or "") if record.status != FileStatus.OK else ""


def _counts(folder: dict[str, Any]) -> str:
    return f"{folder['documents']} documents, {folder['pages']} pages"


def _document_row(record: FileRecord) -> dict[str, Any]:
    return {
        "path": record.path,
        "slug": record.slug,
        "title": record.title,
        "pages": record.pages,
        "page_unit": record.page_unit,
        "status": record.status,
        "error": record.error,
        "elements": record.elements_state,
    }


@main.command()
@common_options
@click.argument("words", nargs=-1, required=True, metavar="QUERY...")
@click.option(
    "--doc", "document", help="Only this document (path, path without extension, or slug)."
)
@click.option("--pages", help="Only these pages, e.g. '3-7' (ranked search only).")
@click.option(
    "--limit",
    type=click.IntRange(1, MAX_LIMIT),
    default=10,
    show_default=True,
    help="Maximum results (pages; with --exact, occurrences).",
)
@click.option(
    "--exact",
    is_flag=True,
    help="Exact substring occurrences (search_pdf rules), grep-style: path:page:line.",
)
@click.option(
    "-l",
    "--files-with-matches",
    "files_only",
    is_flag=True,
    help="With --exact: print only the names of files with an occurrence.",
)
@json_option
@click.pass_context
@handle_errors
def search(
    ctx: click.Context,
    words: tuple[str, ...],
    document: str | None,
    pages: str | None,
    limit: int,
    exact: bool,
    files_only: bool,
    as_json: bool,
) -> None:
    """Search the index: words, "phrases", word~2 (fuzzy, at most 2), AND/OR/NOT, prefix*.

    The words of QUERY... are one query: `pdfindex search page margins` is
    `pdfindex search 'page margins'`; quote a "phrase" (inside single quotes) or
    operators the shell would read (* ? ( )); after `--` a word may start with `-`.

    Ranked search prints pages best first, as the MCP tools rank them: a question or
    list of words ranks pages holding more of its words first; a word on no page is
    corrected or given suggestions, and a question no page clearly answers is said to
    be so (stderr). --exact prints each line holding an occurrence as path:page:line
    (-l: file names only).

    \b
    Examples:
      pdfindex search transformer architecture
      pdfindex search 'how do I number lines from 5?'
      pdfindex search '"state of the art" OR sota' --doc papers/survey
      pdfindex search 'c++' --exact
      pdfindex search 'hyphenation' --exact -l
    """
    query = " ".join(words)
    if files_only and not exact:
        raise CliError("-l lists files with exact occurrences: add --exact")
    if exact and pages:
        raise CliError(
            "--pages works with ranked search only; --exact searches whole documents "
            "(narrow with --doc)"
        )
    index = open_index(ctx, one_shot=True)
    to = output(ctx)
    if document:
        _check_readable(index.find_record(document))
    if exact:
        found = _exact(index, query, document, limit, files_only, as_json, to)
    else:
        found = _ranked(index, query, document, pages, limit, as_json, to)
    # An index with pages has documents: the catalog (50 ms at 48,000 pages) is read only
    # when it has none, to tell an empty index from one of unreadable files.
    if not found and not index.pages() and not index.documents():
        to.echo(EMPTY_HINT.format(index=index.settings.index_dir), err=True)
    ctx.exit(0 if found else 1)


def _ranked(
    index: PdfIndex,
    query: str,
    document: str | None,
    pages: str | None,
    limit: int,
    as_json: bool,
    to: Output,
) -> bool:
    """Ranked pages as every front ranks them (`pdfindex.ranking`): the correction it
    searched and the ranking it used on stderr, and whether any page clearly answers."""
    from pdfindex.query import parse
    from pdfindex.ranking import notes, rank
    from pdfindex.search.pages import page_range
    from pdfindex.search.understand import is_natural

    if not is_natural(query):
        parse(query, any_word=True)  # a person is told what is wrong with their syntax
    slug = index.find_record(document).slug if document else None
    found = rank(index, query, limit, slug, page_range(pages) if pages else None)
    if as_json:
        from dataclasses import asdict

        rows = [{k: v for k, v in asdict(h).items() if k != "text"} for h in found.hits]
        echo_json(
            {
                "total": found.total,
                "query": found.query,
                "corrected": found.corrected,
                "suggestions": found.suggestions,
                "ranking": found.method,
                "confidence": found.confidence,
                "clear": found.clear,
                "hits": rows,
            },
            to,
        )
        return bool(found.hits)
    width = to.columns()
    for line in notes(found):
        to.echo(line, err=True)
    for n, hit in enumerate(found.hits, start=1):
        where = f"  page {hit.page}  (score {hit.score:.2f})"
        room = 10**6 if width is None else max(8, width - len(f"{n}. {where}"))
        to.echo(f"{n}. {terminal.shorten(hit.path, room)}{where}")
        lines = terminal.wrap(" ".join(hit.snippet.split()), width, "   ", "   ")
        if width is not None and len(lines) > SNIPPET_LINES:  # more results on a screen
            lines = [*lines[: SNIPPET_LINES - 1], lines[SNIPPET_LINES - 1].rstrip("…") + "…"]
        for line in lines:
            to.echo(line)
    to.echo(f"{len(found.hits)} of {found.total} pages (ranking: {found.method})")
    return bool(found.hits)


def _exact(
    index: PdfIndex,
    query: str,
    document: str | None,
    limit: int,
    files_only: bool,
    as_json: bool,
    to: Output,
) -> bool:
    """Exact occurrences: JSON, grep-style lines, or (-l) the files holding one."""
    if files_only:
        paths = index.files_with(query, document=document)
        if as_json:
            echo_json({"files": paths}, to)
        for path in paths if not as_json else []:
            to.echo(path)
        found = bool(paths)
    else:
        matches, more = index.exact(query, document=document, limit=limit)
        if as_json:
            from dataclasses import asdict

            echo_json({"matches": [asdict(m) for m in matches], "more": more}, to)
        else:
            for line in index.match_lines(matches):
                to.echo(line)
            if more:
                to.echo(f"(more occurrences: raise --limit above {limit})", err=True)
        found = bool(matches)
    if not found and not as_json:
        to.echo(f"no exact occurrence of {query!r}", err=True)
    return found


def _check_readable(record: FileRecord, doing: str = "searched") -> None:
    """A search in (or the text of) one document whose text could not be read says why
    (the wording of pdfindex.names, as the tools'), not 'no occurrence'."""
    from pdfindex.names import unreadable

    why = unreadable(record, empty=doing == "searched")
    if why is not None:
        raise CliError(f"{why}; it cannot be {doing}")


@main.command()
@common_options
@click.argument("file")
@click.option("--pages", help="Pages to print, e.g. '1-3,5' (default: all).")
@json_option
@click.pass_context
@handle_errors
def extract(ctx: click.Context, file: str, pages: str | None, as_json: bool) -> None:
    """Print the indexed text of a document's pages.

    \b
    Example:
      pdfindex extract getting-started --pages 1-2
    """
    index = open_index(ctx, one_shot=True)
    _check_readable(index.find_record(file), "printed")
    record, texts = index.page_texts(file, pages)
    if as_json:
        echo_json({"path": record.path, "pages": [{"page": n, "text": t} for n, t in texts]})
        return
    for number, text in texts:
        click.echo(f"--- {record.path} page {number} of {record.pages} ---")
        click.echo(text)


main.add_command(web)  # pdfindex/cli/web.py

if __name__ == "__main__":
    main()
