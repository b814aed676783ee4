"""Ctrl-C during `pdfindex reindex`: the elements pass stops at the next file."""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pdfindex.indexer.progress import Step


class ElementsInterrupt:
    """Ctrl-C once the text is committed (the elements pass runs) stops that pass at the
    next file: what it found is committed, the rest stays pending. A second Ctrl-C, or
    one during the text pass, interrupts at once (the last commit stands)."""

    def __init__(self, progress: Callable[[Step], None]) -> None:
        self._progress, self.asked = progress, False
        self._previous: Any = None

    def progress(self, step: Step) -> None:
        if step.stage == "elements" and self._previous is None:
            self._previous = signal.signal(signal.SIGINT, self._interrupted)
        self._progress(step)

    def _interrupted(self, signum: int, frame: object) -> None:
        if self.asked:
            raise KeyboardInterrupt
        self.asked = True

    def __call__(self) -> bool:
        return self.asked

    def restore(self) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
