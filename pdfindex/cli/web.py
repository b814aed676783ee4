"""`pdfindex web`: the search page and MCP over Streamable HTTP, in one process
(pdfindex/web); `--new-token` makes the token it asks for off the loopback address."""

from __future__ import annotations

import click

from pdfindex.cli.options import (
    SettingsCommand,
    command_settings,
    common_options,
    handle_errors,
    setting_options,
)


@click.command(cls=SettingsCommand)
@common_options
@setting_options("web")
@click.option(
    "--new-token",
    is_flag=True,
    help="Print a new token (the old one stops working) and keep only its hash; then exit.",
)
@click.pass_context
@handle_errors
def web(ctx: click.Context, new_token: bool) -> None:
    """Serve the search page at / and the MCP tools over Streamable HTTP at /mcp, over
    the live index (as `serve` does), until Ctrl-C or SIGTERM.

    \b
    Example:
      pdfindex web --root ~/papers            # http://127.0.0.1:8765/
      pdfindex web --new-token                # then, on the network:
      pdfindex web --host 0.0.0.0 --web-hosts pdfs.example.org
    """
    settings = command_settings(ctx)
    if new_token:
        from pdfindex.web.tokens import new_token as make_token
        from pdfindex.web.tokens import token_file

        token = make_token(settings.index_dir)
        click.echo(token)
        click.echo(
            f"pdfindex: its SHA-256 is in {token_file(settings.index_dir)}; the token is "
            "shown only now (restart a running `pdfindex web` to use it)",
            err=True,
        )
        return
    from pdfindex.cli.resident import answering  # `pdfindex search` answered from here
    from pdfindex.logs import log_limits, setup_logging
    from pdfindex.web.serve import check_start, page_routes, serve

    keys = check_start(settings)  # one line before the index and the MCP SDK load
    log_file = setup_logging(settings.log_dir, **log_limits(settings))

    def announce(url: str) -> None:
        guarded = "token required" if keys.required else "no token (loopback only)"
        click.echo(
            f"pdfindex: serving {settings.files_dir} at {url} (MCP at {url}mcp; "
            f"{guarded}); log {log_file}",
            err=True,
        )

    try:
        serve(settings, page_routes(), announce, alongside=answering)
    except KeyboardInterrupt:
        pass
    click.echo("pdfindex: stopped", err=True)
