"""Time on task and the minimum-time penalty (Rapidata §2.3), without any GUI.

A :class:`TaskClock` measures the time a task was on screen, not counting pauses.
An answer given before the session's minimum time is still saved at once, but the
next task is held back for the penalty delay (the rater sees a countdown).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime


class TaskClock:
    """Active time on the current task; ``clock`` is injectable for tests."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._started: float | None = None
        self._accumulated = 0.0
        self._paused_at: float | None = None

    def start(self) -> None:
        """Start timing a freshly shown task."""
        self._accumulated = 0.0
        self._started = self._clock()
        self._paused_at = None

    def pause(self) -> None:
        if self._started is not None and self._paused_at is None:
            self._paused_at = self._clock()
            self._accumulated += self._paused_at - self._started

    def resume(self) -> None:
        if self._paused_at is not None:
            self._started = self._clock()
            self._paused_at = None

    @property
    def paused(self) -> bool:
        return self._paused_at is not None

    def elapsed(self) -> float:
        """Seconds on task so far (pauses excluded)."""
        if self._started is None:
            return 0.0
        if self._paused_at is not None:
            return self._accumulated
        return self._accumulated + self._clock() - self._started


def penalty_for(elapsed_s: float, min_time_s: float, penalty_s: float) -> float:
    """The delay (seconds) before the next task after an answer at ``elapsed_s``."""
    return penalty_s if min_time_s > 0 and elapsed_s < min_time_s else 0.0


def hold_left_ms(penalty_ms: int, submitted_at: str, now: str) -> int:
    """What is left of the hold after an answer saved at ``submitted_at`` (ISO times),
    when the file is opened again at ``now``: the window that held it was closed.

    A time that cannot be read, or a clock put back, holds the whole delay (never more).
    """
    if penalty_ms <= 0:
        return 0
    try:
        passed = (datetime.fromisoformat(now) - datetime.fromisoformat(submitted_at))
    except (TypeError, ValueError):
        return penalty_ms
    passed_ms = passed.total_seconds() * 1000
    return penalty_ms if passed_ms < 0 else max(0, round(penalty_ms - passed_ms))
