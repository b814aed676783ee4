"""`pdfindex web`: one process serving the search page (pages.py) and MCP over
Streamable HTTP (`/mcp`) over the live index, behind one guard (guard.py: Host, Origin,
rate limit, token, request log). `app.build_app` makes the ASGI app, `serve.serve` runs
it, `tokens` keeps the token's hash. Nothing is imported here: `--new-token` needs
neither the MCP SDK nor Starlette."""
