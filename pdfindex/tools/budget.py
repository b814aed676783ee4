"""Keeping responses under a size budget, cut on item boundaries, with a way to go on.

Sizes are counted on the answer as it goes out: compact JSON (`serialise`), escapes
included, so a budget of N characters really bounds the text the client receives.
`ENVELOPE` is kept aside for the keys around a list; `cap` is the last guard the
server applies to every answer, whatever a tool did.
"""

from __future__ import annotations

import json
from typing import Any

ENVELOPE = 1_000  # characters kept for the keys around the items a tool pages through
WHOLE_UP_TO = 500  # items of a list measured at once by `fit`
CUT_NOTE = " [… cut at {limit} characters: {hint}]"


def serialise(answer: Any) -> str:
    """An answer as the client receives it: compact JSON, non-ASCII kept as is."""
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":"), default=str)


def size_of(item: Any) -> int:
    """Characters an item adds to a JSON response (its separator included)."""
    return len(serialise(item)) + 1


def items_budget(total: int) -> int:
    """The characters a tool may spend on its list of items under a `total` cap."""
    return max(total - ENVELOPE, total // 2)


def fit(items: list[Any], budget: int) -> tuple[list[Any], bool]:
    """The longest prefix of `items` within `budget` characters (at least one item,
    cut if it alone is too big), and whether anything was left out."""
    # Most lists fit whole: one serialisation of a short list says so (its brackets and
    # commas are the items' separators), where one per item cost `search_in_file`'s 76
    # matches ~0.3 ms more. A long one is measured item by item, up to the budget only.
    if len(items) <= WHOLE_UP_TO and len(serialise(items)) - 1 <= budget:
        return list(items), False
    kept: list[Any] = []
    used = 0
    for item in items:
        size = size_of(item)
        if kept and used + size > budget:
            return kept, True
        kept.append(item)
        used += size
    return kept, False


def cut_text(text: str, budget: int) -> str:
    """The longest prefix of `text` whose JSON string form stays within `budget`
    characters (quotes and escapes counted)."""
    if len(serialise(text)) <= budget:
        return text
    low, high = 0, min(len(text), budget)
    while low < high:  # the longest prefix that fits: escapes make it shorter than budget
        middle = (low + high + 1) // 2
        if len(serialise(text[:middle])) <= budget:
            low = middle
        else:
            high = middle - 1
    return text[:low]


def cap_text(text: str, limit: int, hint: str) -> str:
    """Plain text cut to `limit` characters, saying where and how to get the rest."""
    if len(text) <= limit:
        return text
    note = CUT_NOTE.format(limit=limit, hint=hint)
    return text[: max(0, limit - len(note))] + note


def cap(answer: dict[str, Any], limit: int) -> tuple[dict[str, Any], bool]:
    """The last guard: a JSON answer shortened until its serialised form fits `limit`:
    items dropped from the end of its largest list, else its longest string cut. Tools
    page on their own (`next_offset`, `next_pages`) well before this; it only keeps the
    promise when one of them misjudged. Returns (answer, whether it was cut)."""
    if len(serialise(answer)) <= limit:
        return answer, False
    answer = json.loads(serialise(answer))  # a deep copy the tool does not hold
    note = (
        f"cut to {limit} characters (the max_response_chars setting); ask for less: "
        "fewer items, pages or a smaller context"
    )
    answer["truncated"] = True
    answer["note"] = note
    while len(serialise(answer)) > limit:
        if not _shrink(answer, len(serialise(answer)) - limit):
            break
    return answer, True


def _shrink(node: Any, excess: int) -> bool:
    """Shorten the largest list (by dropping its last item) or the longest string under
    `node`; False when nothing is left to shorten."""
    best: tuple[int, Any, Any] | None = None  # (size, container, key)
    stack: list[Any] = [node]
    while stack:
        current = stack.pop()
        pairs = current.items() if isinstance(current, dict) else enumerate(current)
        for key, value in pairs:
            if key in ("truncated", "note"):
                continue
            if isinstance(value, (dict, list)):
                stack.append(value)
            if isinstance(value, (list, str)) and len(value) > (
                1 if isinstance(value, list) else 0
            ):
                size = len(serialise(value))
                if best is None or size > best[0]:
                    best = (size, current, key)
    if best is None:
        return False
    _, container, key = best
    value = container[key]
    if isinstance(value, list):
        value.pop()
    else:
        container[key] = cut_text(value, max(0, len(serialise(value)) - excess - 2))
    return True
