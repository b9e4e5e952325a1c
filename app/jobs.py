"""Run core functions in the background with a :class:`core.jobs.JobState`.

A job is a plain function ``fn(state, *args)``; it runs on a thread pool and its
result comes back to the event loop as an awaitable future. The submitted
:class:`core.jobs.Job` is Qt-free and lives in core, so ui can type it. The UI watches
``JobRunner.jobs`` (see ``ui.jobs_panel``) and cancels through the state.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable
from typing import Any

from core.jobs import Cancelled, Job, JobState


def describe_error(exc: BaseException) -> str:
    """What a user reads about a failed job.

    Winnow's own errors and I/O or value errors carry a message written for people
    (it names the item), shown as is; anything else is unexpected and keeps its type,
    which helps a bug report.
    """
    own = type(exc).__module__.split(".")[0] in ("core", "ui", "app")
    if own and str(exc):  # before OSError: WriteError's "cannot write FILE: …; note"
        return str(exc)
    if isinstance(exc, OSError) and exc.strerror:  # "FILE: words", not "[Errno 17] …: 'FILE'"
        return f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    if isinstance(exc, (OSError, ValueError)) and str(exc):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


class JobRunner:
    """A small thread pool whose jobs are visible and cancellable."""

    def __init__(self, max_workers: int = 2) -> None:
        self.executor = concurrent.futures.ThreadPoolExecutor(max_workers=max_workers,
                                                              thread_name_prefix="winnow-job")
        self.jobs: list[Job] = []
        self.listeners: list[Callable[[Job], None]] = []
        #: after :meth:`shutdown`, new jobs are cancelled at once (never left "running")
        self._closed = False

    def submit(self, title: str, fn: Callable[..., Any], *args: Any,
               on_finished: Callable[[Job], None] | None = None, **kwargs: Any) -> Job:
        """Start ``fn(state, *args, **kwargs)`` in the background.

        ``on_finished(job)`` is attached before the work starts, so it is called exactly
        once (from the worker thread, or from this one if the work is already over).
        After :meth:`shutdown` the job is cancelled at once instead of raising.
        """
        state = JobState(title=title)
        job = Job(state, concurrent.futures.Future())
        if on_finished is not None:
            job.done_callbacks.append(on_finished)
        self.jobs.append(job)
        for listener in list(self.listeners):
            listener(job)
        if self._closed:  # e.g. a debounce timer firing while the app quits
            state.cancel()
            job.future.cancel()
            job.future.set_running_or_notify_cancel()
            self._finished(job)
            return job
        job.future = self.executor.submit(fn, state, *args, **kwargs)
        job.future.add_done_callback(lambda _future: self._finished(job))
        return job

    def _finished(self, job: Job) -> None:
        exc = job.future.exception() if not job.future.cancelled() else Cancelled()
        if exc is None:
            job.outcome = "done"
        elif isinstance(exc, Cancelled):
            job.outcome = "cancelled"
        else:
            job.outcome = "failed"
            job.error = describe_error(exc)
        for callback in list(job.done_callbacks):
            callback(job)

    @property
    def active(self) -> list[Job]:
        """Jobs still running."""
        return [job for job in self.jobs if job.outcome == "running"]

    def shutdown(self, timeout: float = 10.0) -> None:
        """Cancel everything, then wait for the workers to stop (no hanging threads)."""
        self._closed = True
        for job in self.active:
            job.state.cancel()
        self.executor.shutdown(wait=True, cancel_futures=True)
