"""What every tool reads (AppContext: the open index, its live updater, query_documents
sessions) and how a call finds it in its MCP context."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from mcp.server.mcpserver import Context

from pdfindex.api import PdfIndex
from pdfindex.config import Settings
from pdfindex.indexer.live import LiveIndex
from pdfindex.tools import topic
from pdfindex.tools.sessions import SessionStore


@dataclass
class ClientRoots:
    """The roots the client of the current session declared (None: none asked yet)."""

    session: object | None = None
    roots: list[tuple[str, Path | None]] | None = None  # (uri, local folder or None)
    notes: dict[str, str] = field(default_factory=dict)  # uri -> why it was not indexed


@dataclass
class AppContext:
    """What every tool reads: the open index, its live updater, query_documents sessions."""

    index: PdfIndex
    live: LiveIndex
    sessions: SessionStore
    client_roots: ClientRoots = field(default_factory=ClientRoots)  # server/roots.py

    @classmethod
    def open(cls, settings: Settings, watch: bool = True) -> AppContext:
        """Open the index and start its writer thread (catch-up scan, then the watcher)."""
        index = PdfIndex(settings, rebuild=False)  # a damaged index refills in the background
        semantic = index.semantic  # semantic = true without its extra: one line, at once
        _ = index.reranker  # likewise rerank_model (its model loads at the first question)
        warmed = threading.Event()

        def after_run(_summary: object) -> None:
            # Pages are embedded in the background after the start-up scan and each commit.
            if semantic is not None:
                semantic.start()
            # The document names a question may use, found once the start-up scan is done
            # (every record, 2.6 s at a million pages), not by the first query_documents;
            # after a commit they are found again in the background when next asked for.
            if not warmed.is_set():
                warmed.set()
                threading.Thread(
                    target=topic.warm, args=(index,), name="pdfindex-topic-names", daemon=True
                ).start()

        live = index.live(watch=watch, on_summary=after_run)
        return cls(index, live, SessionStore.for_settings(settings))

    def start(self) -> AppContext:
        self.live.start()
        return self

    def close(self) -> None:
        self.live.close()
        self.index.close()


def app_of(ctx: Context) -> AppContext:
    """The lifespan context, at once: tools answer from what is indexed now, even while
    the start-up scan runs (get_library_status says how far it is)."""
    app: AppContext = ctx.request_context.lifespan_context
    return app


def settings_of(ctx: Context | None) -> Settings | None:
    """The open index's settings, without waiting for anything (None outside a call)."""
    try:
        return ctx.request_context.lifespan_context.index.settings  # type: ignore[union-attr]
    except (AttributeError, LookupError, ValueError):
        return None
