"""query_documents' generated answers: the prompt built from the numbered passages, the
`llm_url` writer (an OpenAI-compatible chat-completions endpoint, through urllib), and
the check that every citation [n] names a passage.

A writer is a plain callable, so query_documents stays testable without MCP: the server
hands it the client's model (MCP sampling, `pdfindex/server/sampling.py`), this module's
`llm_url` writer, or none (the extractive answer).
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pdfindex import deadline
from pdfindex.config import Settings
from pdfindex.errors import AnswerNotWritten

ANSWER_TOKENS = 800  # the answer's max_tokens: a paragraph or two with citations
PROMPT_SHARE = 4  # the passages take at most max_response_chars / 4 (10,000 by default)
MIN_SECONDS = 1.0  # less time left than this to the request: the model is not asked
NO_LIMIT_SECONDS = 120.0  # how long a model may write when the request has no limit
SYSTEM = (
    "You answer questions about a library of documents using only the numbered passages "
    "you are given. Cite every statement with the number of the passage it comes from, in "
    "square brackets, like [1] or [2][3]. Cite only numbers that appear before a passage. "
    "If the passages do not answer the question, say so in one sentence. Do not use "
    "outside knowledge. Answer in the language of the question."
)
_BRACKET = re.compile(r"\[(\s*\d+(?:\s*,\s*\d+)*\s*)\]")  # [1] or [1, 2]
_CITATIONS = re.compile(rf"(\s?)((?:{_BRACKET.pattern})+)")  # a run of them: [1][2]


@dataclass(frozen=True)
class Prompt:
    """What a model is asked: the system prompt, the numbered passages and the question
    (`user`), the answer's max_tokens, and how many passages may be cited."""

    system: str
    user: str
    max_tokens: int
    passages: int


@dataclass(frozen=True)
class Written:
    """A model's answer, the model that wrote it, and the tokens it took (0: not said)."""

    text: str
    model: str
    tokens: int = 0


@dataclass(frozen=True)
class Writer:
    """Who writes answers (`via`, for query_metadata) and how (`write`; raises
    AnswerNotWritten, with why, when it cannot)."""

    via: str
    write: Callable[[Prompt], Written]


def prompt(question: str, passages: Sequence[tuple[str, str, int, str]], budget: int) -> Prompt:
    """The prompt for `question` over (document id, title, page, text) passages numbered
    from 1 in the order of `sources`; the passages' text together within `budget`
    characters (each cut to its share)."""
    share = max(200, budget // max(1, len(passages)))
    blocks = []
    for number, (slug, title, page, text) in enumerate(passages, 1):
        cut = text if len(text) <= share else text[: share - 1].rstrip() + "…"
        blocks.append(f"[{number}] {title} ({slug}), page {page}:\n{cut}")
    user = "Passages:\n\n" + "\n\n".join(blocks) + f"\n\nQuestion: {question}"
    return Prompt(SYSTEM, user, ANSWER_TOKENS, len(passages))


def checked_citations(text: str, passages: int) -> tuple[str, list[int]]:
    """The answer with every citation outside 1..`passages` dropped (a bracket citing none
    left goes whole, with its space when the run of brackets goes), and the numbers
    dropped."""
    dropped: list[int] = []

    def keep(run: re.Match[str]) -> str:
        brackets = []
        for bracket in _BRACKET.finditer(run.group(2)):
            numbers = [int(n) for n in bracket.group(1).split(",")]
            kept = [n for n in numbers if 1 <= n <= passages]
            dropped.extend(n for n in numbers if n not in kept)
            if kept:
                brackets.append(f"[{', '.join(map(str, kept))}]")
        return run.group(1) + "".join(brackets) if brackets else ""

    return _CITATIONS.sub(keep, text).strip(), dropped


def cited(text: str) -> set[int]:
    """The passage numbers an answer cites."""
    return {int(n) for m in _BRACKET.finditer(text) for n in m.group(1).split(",")}


def time_left() -> float:
    """Seconds a model may take: what is left of the request's limit."""
    left = deadline.remaining(NO_LIMIT_SECONDS)
    if left < MIN_SECONDS:
        raise AnswerNotWritten(f"only {left:.1f} s were left of the request's time limit")
    return left


def endpoint(url: str) -> str:
    """`llm_url` as the chat-completions URL: a base (`…/v1`) gets `/chat/completions`."""
    base = url.rstrip("/")
    return base if base.endswith("/chat/completions") else base + "/chat/completions"


def http_writer(settings: Settings) -> Writer | None:
    """The `llm_url` writer, or None when `llm_url` or `llm_model` is not set."""
    if not settings.llm_url or not settings.llm_model:
        return None
    url, key, model = endpoint(settings.llm_url), settings.llm_api_key, settings.llm_model

    def write(asked: Prompt) -> Written:
        body = {
            "model": model,
            "messages": [
                {"role": "system", "content": asked.system},
                {"role": "user", "content": asked.user},
            ],
            "max_tokens": asked.max_tokens,
            "temperature": 0.2,
            "stream": False,
        }
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        request = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=time_left()) as response:  # noqa: S310
                answer = json.loads(response.read(4_000_000))
            text = answer["choices"][0]["message"]["content"]
        except urllib.error.HTTPError as exc:
            raise AnswerNotWritten(
                _hidden(f"llm_url answered HTTP {exc.code} {exc.reason}", key)
            ) from None
        except (urllib.error.URLError, OSError) as exc:  # refused, unreachable, timed out
            why = getattr(exc, "reason", exc)
            raise AnswerNotWritten(_hidden(f"llm_url could not be reached: {why}", key)) from None
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise AnswerNotWritten(
                f"llm_url's answer is not a chat completion ({exc!r:.200})"
            ) from None
        if not isinstance(text, str) or not text.strip():
            raise AnswerNotWritten("llm_url's answer is empty")
        usage = answer.get("usage") or {}
        tokens = usage.get("total_tokens", 0) if isinstance(usage, dict) else 0
        named = answer.get("model")
        return Written(text, named if isinstance(named, str) and named else model, int(tokens))

    return Writer("llm_url (an OpenAI-compatible endpoint)", write)


def _hidden(message: str, key: str) -> str:
    """A message with the key (should an endpoint echo it) hidden."""
    return message.replace(key, "***") if key else message
