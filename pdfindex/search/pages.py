"""The page lists and ranges a user writes (`"1-3,5"`, `"3-7"`), read and checked."""

from __future__ import annotations

import re

from pdfindex.errors import InvalidQuery, PageOutOfRange

_PAGE_PART = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


def parse_pages(spec: str | list[int], page_count: int) -> list[int]:
    """`"1-3,5"` or [1, 2] -> sorted unique page numbers, checked against the document."""
    numbers: set[int] = set()
    parts = spec if isinstance(spec, list) else str(spec).split(",")
    for part in parts:
        if isinstance(part, int) and not isinstance(part, bool):
            first = last = part
        else:
            match = _PAGE_PART.match(str(part))
            if not match:
                raise InvalidQuery(f"bad page list {spec!r}: use numbers and ranges like '1-3,5'")
            first = int(match.group(1))
            last = int(match.group(2) or first)
        if first < 1 or last > page_count or last < first:
            raise PageOutOfRange(
                f"pages {first}-{last} are out of range: this document has pages 1-{page_count}"
            )
        numbers.update(range(first, last + 1))
    return sorted(numbers)


def page_range(spec: str) -> tuple[int, int]:
    match = _PAGE_PART.match(spec)
    if not match:
        raise InvalidQuery(f"bad page range {spec!r}: use a number or a range like '3-7'")
    first = int(match.group(1))
    return first, int(match.group(2) or first)
