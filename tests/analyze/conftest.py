"""Fixtures for the Analyze tests: an AppContext whose jobs run synchronously."""

from __future__ import annotations

import concurrent.futures
from typing import Any

import pytest

from core.jobs import Cancelled, JobState


class SyncJob:
    """Runs ``fn(state)`` at once; mirrors ``app.jobs.Job`` (outcome, future, error)."""

    def __init__(self, title: str, fn: Any) -> None:
        self.state = JobState(title=title)
        self.future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.error = ""
        try:
            self.future.set_result(fn(self.state))
            self.outcome = "done"
        except Cancelled as exc:
            self.future.set_exception(exc)
            self.outcome = "cancelled"
        except Exception as exc:
            self.future.set_exception(exc)
            self.outcome, self.error = "failed", f"{type(exc).__name__}: {exc}"


@pytest.fixture
def context(qtbot):  # type: ignore[no-untyped-def]
    from ui.context import AppContext

    ctx = AppContext()
    ctx.messages = []  # type: ignore[attr-defined]
    ctx.statuses = []  # type: ignore[attr-defined]
    ctx.jobs = []  # type: ignore[attr-defined]

    def start_job(title: str, fn: Any, on_done: Any = None, quiet: bool = False) -> SyncJob:
        job = SyncJob(title, fn)
        ctx.jobs.append(job)  # type: ignore[attr-defined]
        if on_done is not None:
            on_done(job)
        return job

    ctx.bind(start_job, lambda t, m: ctx.messages.append((t, m)),  # type: ignore[attr-defined]
             lambda text, ms=0: ctx.statuses.append(text))  # type: ignore[attr-defined]
    return ctx


@pytest.fixture
def page(qtbot, context):  # type: ignore[no-untyped-def]
    """The Analyze workspace, shown at 1300 x 850, on the synchronous ``context``."""
    from ui.analyze.workspace import AnalyzeWorkspace

    w = AnalyzeWorkspace(context)
    qtbot.addWidget(w)
    w.resize(1300, 850)
    w.show()
    return w
