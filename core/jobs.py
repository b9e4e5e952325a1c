"""Qt-free protocol for long-running work: progress, status text and cancellation.

A job function takes a :class:`JobState` and reports through it; the GUI (or the
CLI) watches the state without the function knowing who is watching.  Pattern after
Orange3's ``concurrent.TaskState`` and napari's ``progress``.  A submitted job is a
:class:`Job`; the runner that makes them (a thread pool) is ``app.jobs.JobRunner``.
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class Cancelled(Exception):  # noqa: N818 - it is a signal, not an error
    """Raised inside a job when the user asked to cancel it."""


#: failures kept per job with their reason (the count goes on beyond it)
MAX_FAILURES_KEPT = 20


Listener = Callable[["JobState"], None]


@dataclass
class JobState:
    """Progress of one job; thread-safe to update from a worker and read from the UI."""

    title: str = ""
    total: int | None = None
    done: int = 0
    status: str = ""
    started: float = field(default_factory=time.monotonic)
    #: items the job finished / could not do (reported with :meth:`item_done` /
    #: :meth:`item_failed`); a job that reports neither has no item verdict
    items_ok: int = 0
    items_failed: int = 0
    #: the first failures as "item: reason" (at most ``MAX_FAILURES_KEPT``)
    failures: list[str] = field(default_factory=list)
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

    def item_done(self, count: int = 1) -> None:
        """Report ``count`` items done successfully (see :attr:`verdict`)."""
        with self._lock:
            self.items_ok += count
        self._notify()

    def item_failed(self, item: str, reason: str, count: int = 1) -> None:
        """Report that ``item`` could not be done and why; the job goes on with the rest.

        ``count`` > 1 reports a group that failed for one reason (e.g. every item of a
        metric whose model could not load).
        """
        with self._lock:
            self.items_failed += count
            if len(self.failures) < MAX_FAILURES_KEPT:
                self.failures.append(f"{item}: {reason}" if item else reason)
        self._notify()

    @property
    def verdict(self) -> str:
        """``"ok"`` (no failure reported), ``"partial"`` (some items failed) or
        ``"failed"`` (items failed and none succeeded): how a finished job reads."""
        if not self.items_failed:
            return "ok"
        return "partial" if self.items_ok else "failed"

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


@dataclass
class Job:
    """One submitted piece of work: its state, its future result, and how it ended."""

    state: JobState
    future: concurrent.futures.Future[Any]
    outcome: str = "running"  # running | done | cancelled | failed
    error: str = ""
    done_callbacks: list[Callable[[Job], None]] = field(default_factory=list)
