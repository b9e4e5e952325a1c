"""Qt-free protocol for long-running work: progress, status text and cancellation.

A job function takes a :class:`JobState` and reports through it; the GUI (or the
CLI) watches the state without the function knowing who is watching.  Pattern after
Orange3's ``concurrent.TaskState`` and napari's ``progress``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field


class Cancelled(Exception):  # noqa: N818 - it is a signal, not an error
    """Raised inside a job when the user asked to cancel it."""


Listener = Callable[["JobState"], None]


@dataclass
class JobState:
    """Progress of one job; thread-safe to update from a worker and read from the UI."""

    title: str = ""
    total: int | None = None
    done: int = 0
    status: str = ""
    started: float = field(default_factory=time.monotonic)
    _cancel: threading.Event = field(default_factory=threading.Event, repr=False)
    _listeners: list[Listener] = field(default_factory=list, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    # -- reporting (worker side) ---------------------------------------------
    def set_total(self, total: int | None) -> None:
        """Declare the number of steps (None = indeterminate)."""
        with self._lock:
            self.total = total
        self._notify()

    def advance(self, steps: int = 1) -> None:
        """Mark ``steps`` more steps as done."""
        with self._lock:
            self.done += steps
        self._notify()

    def set_progress(self, done: int) -> None:
        """Set the absolute number of steps done."""
        with self._lock:
            self.done = done
        self._notify()

    def set_status(self, text: str) -> None:
        """Set a one-line human-readable status."""
        with self._lock:
            self.status = text
        self._notify()

    def check(self) -> None:
        """Raise :class:`Cancelled` if cancellation was requested (call between steps)."""
        if self._cancel.is_set():
            raise Cancelled(self.title or "job")

    # -- control (UI side) -----------------------------------------------------
    def cancel(self) -> None:
        """Ask the job to stop at its next check point."""
        self._cancel.set()
        self._notify()

    def cancelled(self) -> bool:
        """True once cancellation was requested."""
        return self._cancel.is_set()

    @property
    def fraction(self) -> float | None:
        """Done/total in [0, 1], or None when indeterminate."""
        if not self.total:
            return None
        return min(1.0, self.done / self.total)

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(state)`` after every change (from the reporting thread)."""
        self._listeners.append(listener)

    def _notify(self) -> None:
        for listener in list(self._listeners):
            listener(self)
