"""Who writes query_documents' answer in this call: the client's model through MCP
sampling (`sampling/createMessage`) when the client declared the capability, else the
`llm_url` endpoint when configured, else nobody (the extractive answer).

The tool runs in a worker thread; the sampling request goes back to the event loop
(`anyio.from_thread`) on the call's own channel, under what is left of its time limit."""

from __future__ import annotations

import logging

import anyio
import anyio.from_thread
from mcp.server.mcpserver import Context
from mcp.shared.message import ServerMessageMetadata
from mcp.types import (
    ClientCapabilities,
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    ModelPreferences,
    SamplingCapability,
    SamplingMessage,
    TextContent,
)

from pdfindex.errors import AnswerNotWritten
from pdfindex.server.context import app_of
from pdfindex.tools import answers
from pdfindex.tools.answers import Prompt, Writer, Written

log = logging.getLogger(__name__)
CLIENT_MODEL = "the client's model (MCP sampling)"
# A short, faithful answer: speed and cost count as much as cleverness.
PREFERENCES = ModelPreferences(intelligence_priority=0.5, speed_priority=0.6, cost_priority=0.5)


def writer(ctx: Context | None) -> Writer | None:
    """The client's model when it declared sampling and this call can reach it; else the
    `llm_url` writer (None when not configured)."""
    if ctx is None:
        return None
    settings = app_of(ctx).index.settings
    try:
        session = ctx.session
        scoped = ServerMessageMetadata(related_request_id=ctx.request_context.request_id)
        declared = session.check_client_capability(
            ClientCapabilities(sampling=SamplingCapability())
        )
        reachable = declared and session.can_send_request
    except (AttributeError, LookupError, ValueError):
        reachable = False
    if not reachable:
        return answers.http_writer(settings)

    async def ask(asked: Prompt, seconds: float) -> CreateMessageResult:
        request = CreateMessageRequest(
            params=CreateMessageRequestParams(
                messages=[SamplingMessage(role="user", content=TextContent(text=asked.user))],
                system_prompt=asked.system,
                max_tokens=asked.max_tokens,
                temperature=0.2,
                model_preferences=PREFERENCES,
                include_context="none",
            )
        )
        with anyio.fail_after(seconds):
            # send_request, not the deprecated create_message: as roots.py asks for roots.
            return await session.send_request(request, CreateMessageResult, metadata=scoped)

    def write(asked: Prompt) -> Written:
        seconds = answers.time_left()
        try:
            result = anyio.from_thread.run(ask, asked, seconds)
        except TimeoutError:
            raise AnswerNotWritten(f"the client's model took longer than {seconds:.1f} s") from None
        except Exception as exc:  # the client refused or failed the request
            log.info("sampling failed: %s", exc)
            raise AnswerNotWritten(f"the client's model failed: {exc}"[:500]) from None
        content = result.content
        if not isinstance(content, TextContent) or not content.text.strip():
            raise AnswerNotWritten("the client's model answered no text")
        return Written(content.text, result.model or "the client's model")

    return Writer(CLIENT_MODEL, write)
