"""The bounds of search arguments that ranked and exact search share, apart from exact
search's matching code, so a ranked search loads none of it."""

from __future__ import annotations

from pdfindex.errors import InvalidQuery

MAX_LIMIT = 1000


def check_range(name: str, value: int, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidQuery(f"{name} must be an integer from {low} to {high}, got {value!r}")
