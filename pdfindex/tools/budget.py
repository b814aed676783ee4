"""Keeping responses under a size budget, cut on item boundaries, with a way to go on."""

from __future__ import annotations

import json
from typing import Any


def size_of(item: Any) -> int:
    """Characters an item adds to a JSON response."""
    return len(json.dumps(item, ensure_ascii=False, default=str))


def fit(items: list[Any], budget: int) -> tuple[list[Any], bool]:
    """The longest prefix of `items` within `budget` characters (at least one item,
    cut if it alone is too big), and whether anything was left out."""
    kept: list[Any] = []
    used = 0
    for item in items:
        size = size_of(item)
        if kept and used + size > budget:
            return kept, True
        kept.append(item)
        used += size
    return kept, False
