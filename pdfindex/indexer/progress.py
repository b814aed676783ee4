"""Where a reindex is: its two passes, a step after each file, and the counter that tells
the caller (the CLI's bar, get_library_status) and checks whether to stop."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

TEXT, ELEMENTS_STAGE = "text", "elements"  # the two passes of a reindex, in order
TICK_SECONDS = 0.5  # no file finished for this long: commit what is written, check stops


@dataclass(frozen=True)
class Step:
    """Where a reindex is, after each file: for the CLI's bar and get_library_status."""

    stage: str  # TEXT (page text, searchable once committed) or ELEMENTS_STAGE
    done: int
    total: int
    path: str = ""  # the file just finished ("" when a pass starts)


Progress = Callable[[Step], None]


class PassProgress:
    """Progress of one pass over the files it works on (told once at its start, then
    after each file)."""

    def __init__(
        self,
        stage: str,
        total: int,
        progress: Progress | None,
        should_stop: Callable[[], bool] | None,
    ) -> None:
        self.stage, self.total, self.done = stage, total, 0
        self.progress, self.should_stop = progress, should_stop
        self.yielded = False  # the run ended for new changes, with files still being read
        if progress and total:
            progress(Step(stage, 0, total))

    def stopped(self) -> bool:
        return bool(self.should_stop and self.should_stop())

    def step(self, path: str) -> None:
        self.done += 1
        if self.progress:
            self.progress(Step(self.stage, self.done, self.total, path))
