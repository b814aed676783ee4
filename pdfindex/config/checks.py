"""The checks a setting's values pass, whatever their source (`setting(checks=...)`),
and the message that refuses one: `name=raw from source` and what is wrong."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

from pdfindex.errors import ConfigError

MAX_SECONDS = 86_400.0  # a time limit longer than a day is a mistake (and overflows waits)
MAX_MEMORY_MB = 1 << 20  # 1 TiB: more overflows the worker's address-space cap


class Origin(NamedTuple):
    """A value as it was given and where, for the message that refuses it."""

    name: str
    raw: Any
    source: str

    def refuse(self, complaint: str) -> ConfigError:
        return ConfigError(f"{self.name}={self.raw!r} from {self.source}{complaint}")


Check = Callable[[Any, Origin], Any]  # returns the value (brought within range) or raises


def require(test: Callable[[Any], bool], complaint: str) -> Check:
    """A check refusing a value that fails `test`: `name=raw from source` + `complaint`."""

    def check(value: Any, origin: Origin) -> Any:
        if not test(value):
            raise origin.refuse(complaint)
        return value

    return check


def at_least_zero(zero_means: str) -> Check:
    return require(lambda v: v >= 0, f" must be 0 ({zero_means}) or more")


POSITIVE = require(lambda v: v > 0, " must be positive")
AT_MOST_A_DAY = require(
    lambda v: v <= MAX_SECONDS, f" is over a day: at most {MAX_SECONDS:g} seconds"
)


def at_most_max_workers(value: int, origin: Origin) -> int:
    """More workers than make sense here are brought down to max_workers(), with a warning."""
    if value <= max_workers():
        return value
    print(
        f"pdfindex: warning: workers={origin.raw!r} from {origin.source} is more than "
        f"{max_workers()} (4 per core, at most 64, on {os.cpu_count() or 1} cores): "
        f"using {max_workers()}",
        file=sys.stderr,
    )
    return max_workers()


def max_workers() -> int:
    """The most extraction workers that make sense here: 4 per core, at most 64."""
    return min(64, 4 * (os.cpu_count() or 1))
