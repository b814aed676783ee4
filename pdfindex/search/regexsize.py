"""How large a regular expression becomes once compiled, told before compiling it.

The `regex` package unrolls a counted repeat into that many copies of what it repeats,
as it compiles, outside any time limit: `x{20000000}` takes 2.5 GB and
`(?:(?:a{1000}){1000}){1000}` more memory than a machine has. So a pattern's size is
estimated from its text first, and one past MAX_SIZE is refused by name. The estimate
is each item's copies: the product of the least counts of the repeats around it, added
up over the pattern (a repeat's upper count and `*`, `+`, `?` make loops, not copies;
measured: `x{1,100000}` compiles in no memory, `x{100000}` in 27 MB). Alternatives are
added up too, so the estimate never falls below what is compiled.
"""

from __future__ import annotations

import re

MAX_SIZE = 20_000  # copies of items: about 6 MB compiled (measured ~270 bytes a copy)
_COUNT = re.compile(r"\{(\d*)(?:,(\d*))?\}")
_BRACED_ESCAPES = "xuUNpPgk"  # \x{..}, \N{..}, \p{..}, \g{..}: braces that are no repeat


def compiled_size(pattern: str) -> int:
    """The estimated number of items `pattern` compiles to (see the module's docstring)."""
    stack: list[int] = [0]  # the size of each open group so far
    last = 0  # the size of the item just read: what a following {m} repeats
    position = 0
    while position < len(pattern):
        char = pattern[position]
        if char == "\\":
            position = _escape_end(pattern, position)
            last = 1
        elif char == "[":
            position = _set_end(pattern, position)
            last = 1
        elif char == "(":
            if pattern.startswith("(?#", position):
                end = pattern.find(")", position)
                position = len(pattern) if end < 0 else end + 1
                continue
            stack.append(0)
            position += 1
            last = 0
            continue
        elif char == ")" and len(stack) > 1:
            last = stack.pop()
            stack[-1] += last
            position += 1
            continue
        elif char == "{" and (count := _COUNT.match(pattern, position)):
            least = int(count.group(1) or 0)
            copies = max(least, 1)
            stack[-1] += last * (copies - 1)  # the item is already counted once
            last *= copies
            position = count.end()
            if stack[-1] > MAX_SIZE:
                return stack[-1]
            continue
        elif char in "|*+?":
            position += 1
            last = 0 if char == "|" else last
            continue
        else:
            position += 1
            last = 1
        stack[-1] += 1
        if stack[-1] > MAX_SIZE:
            return stack[-1]
    return sum(stack)


def _escape_end(pattern: str, position: int) -> int:
    """Where the escape at `position` (a backslash) ends."""
    end = position + 2
    if pattern[position + 1 : end] in tuple(_BRACED_ESCAPES) and pattern.startswith("{", end):
        close = pattern.find("}", end)
        return len(pattern) if close < 0 else close + 1
    return end


def _set_end(pattern: str, position: int) -> int:
    """Where the set `[...]` opened at `position` ends (sets nest in the `regex` package's
    VERSION1; a `]` first in a set is a member)."""
    depth = 0
    index = position
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if char == "[":
            depth += 1
            index += 1
            if pattern.startswith("^", index):
                index += 1
            if pattern.startswith("]", index):
                index += 1
            continue
        if char == "]":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return len(pattern)
