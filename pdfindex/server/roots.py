"""The MCP client's roots (its `roots` capability): which of them are indexed folders,
for get_library_status, and, with `index_client_roots`, indexed as more `folders`.

Roots are asked once per session, at its first tool call, and again by each
get_library_status; a client without the capability is never asked."""

from __future__ import annotations

import logging
from pathlib import Path
from urllib.parse import unquote, urlparse

import anyio
from mcp.server.mcpserver import Context
from mcp.shared.message import ServerMessageMetadata
from mcp.types import ClientCapabilities, ListRootsRequest, ListRootsResult, RootsCapability

from pdfindex.config.folders import base_name, refuse_pseudo_fs, unique_name
from pdfindex.errors import ConfigError
from pdfindex.paths import check_extra_folders
from pdfindex.server.context import ClientRoots, app_of

log = logging.getLogger(__name__)
ASK_SECONDS = 3.0  # how long a client may take to list its roots


async def refresh(ctx: Context | None, again: bool = False) -> None:
    """Ask the client for its roots once per session (`again`: each time), and with
    index_client_roots add the new ones to the indexed folders."""
    if ctx is None:
        return
    try:
        app = app_of(ctx)
        session = ctx.session
    except (AttributeError, LookupError, ValueError):
        return
    known: ClientRoots = app.client_roots
    if known.session is session and not again:
        return
    known.session = session
    declared = session.check_client_capability(ClientCapabilities(roots=RootsCapability()))
    if not declared or not session.can_send_request:  # (a modern per-request transport)
        known.roots = None
        return
    # Asked on this call's own channel: the one a transport without a standing
    # back-channel (in-memory, HTTP) still has.
    scoped = ServerMessageMetadata(related_request_id=ctx.request_context.request_id)
    with anyio.move_on_after(ASK_SECONDS):
        try:
            listed = await session.send_request(
                ListRootsRequest(), ListRootsResult, metadata=scoped
            )
        except Exception as exc:  # a client that declared roots but fails the request
            log.warning("the client's roots could not be listed: %s", exc)
            return
        known.roots = [(str(root.uri), _local(str(root.uri))) for root in listed.roots]
    if app.index.settings.index_client_roots and known.roots:
        _index(app, known)


def _local(uri: str) -> Path | None:
    """The local folder a `file://` root names, or None."""
    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    return Path(unquote(parsed.path))


def _index(app: object, known: ClientRoots) -> None:
    """Add the client's folders that are not indexed yet, each under a new source name;
    one that overlaps an indexed folder, the index, or a files-folder entry is left out
    with its reason in `notes`."""
    index, live = app.index, app.live  # type: ignore[attr-defined]
    settings = index.settings
    folders = dict(index.folders)
    added: dict[str, Path] = {}
    for uri, folder in known.roots or []:
        if folder is None or _indexed(index, folder) is not None:
            continue
        name = unique_name(base_name(str(folder)), {**folders, **added})
        try:
            refuse_pseudo_fs(f"root {uri}", folder, "the client's roots")
            check_extra_folders(settings.files_dir, settings.index_dir, {**folders, name: folder})
        except ConfigError as exc:
            known.notes[uri] = str(exc)
            continue
        added[name] = folder
        folders[name] = folder
    if added:
        log.info("indexing the client's roots: %s", ", ".join(f"{n}={f}" for n, f in added.items()))
        live.add_folders(added)


def _indexed(index: object, folder: Path) -> str | None:
    """The source name of the indexed folder holding `folder` ('' the files folder's,
    or `source`), or None."""
    settings = index.settings  # type: ignore[attr-defined]
    real = folder.resolve()
    rows = [(settings.source, settings.files_dir), *index.folders.items()]  # type: ignore[attr-defined]
    for name, indexed in rows:
        if real.is_relative_to(indexed.resolve()):
            return name
    return None


def status_lines(app: object) -> list[str]:
    """get_library_status's lines on the client's roots: each one, and whether it is an
    indexed folder (and which), or why not."""
    known: ClientRoots = app.client_roots  # type: ignore[attr-defined]
    if known.roots is None:
        return []
    lines = [f"Client roots: {len(known.roots)}"]
    for uri, folder in known.roots:
        name = _indexed(app.index, folder) if folder is not None else None  # type: ignore[attr-defined]
        if name is not None:
            where = f"folder '{name}'" if name else "the files folder"
            state = f"indexed ({where})"
        elif uri in known.notes:
            state = f"not indexed: {known.notes[uri]}"
        elif folder is None:
            state = "not indexed: not a local folder"
        else:
            state = "not indexed (index_client_roots = true indexes it as a folder)"
        lines.append(f"- {uri}: {state}")
    return lines
