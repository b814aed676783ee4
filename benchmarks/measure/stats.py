"""Summaries of repeated timings, and the one latency sampler every query figure uses."""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from benchmarks.measure.common import Plan

T = TypeVar("T")


def summary(values: list[float], digits: int = 3) -> dict[str, Any]:
    """min/median/max and the number of runs."""
    return {
        "min": round(min(values), digits),
        "median": round(statistics.median(values), digits),
        "max": round(max(values), digits),
        "runs": len(values),
    }


def percentile(sorted_values: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (q in 0..1)."""
    pos = (len(sorted_values) - 1) * q
    low, high = math.floor(pos), math.ceil(pos)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (pos - low)


def latency(seconds: list[float], first: float | None = None) -> dict[str, Any]:
    """p50/p95/p99/min/max in ms over warm runs; `first_ms` is the untimed warm-up run."""
    ms = sorted(s * 1000 for s in seconds)
    out = {
        "p50_ms": round(percentile(ms, 0.50), 2),
        "p95_ms": round(percentile(ms, 0.95), 2),
        "p99_ms": round(percentile(ms, 0.99), 2),
        "min_ms": round(ms[0], 2),
        "max_ms": round(ms[-1], 2),
        "n": len(ms),
    }
    if first is not None:
        out["first_ms"] = round(first * 1000, 2)
    return out


class Sampler:
    """Times the body of a `for` loop over it: one warm-up pass (`first_ms`), then passes
    until the plan's run count and time budget are met.

    A loop rather than a callback so that the same sampler serves the library (plain
    calls) and MCP (the body awaits a tool call inside the event loop).
    """

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.first: float | None = None
        self.times: list[float] = []

    def __iter__(self) -> Iterator[int]:
        plan = self.plan
        start = time.perf_counter()
        yield 0
        self.first = time.perf_counter() - start
        began = time.perf_counter()
        while len(self.times) < plan.query_max_runs and (
            len(self.times) < plan.query_min_runs
            or time.perf_counter() - began < plan.query_budget_s
        ):
            start = time.perf_counter()
            yield len(self.times) + 1
            self.times.append(time.perf_counter() - start)

    def latency(self) -> dict[str, Any]:
        return latency(self.times, self.first)


def sample_call(fn: Callable[[], T], plan: Plan) -> tuple[dict[str, Any], T]:
    """The Sampler around a plain call: its latency and the warm-up call's result."""
    sampler = Sampler(plan)
    results = [fn() for _ in sampler]
    return sampler.latency(), results[0]
