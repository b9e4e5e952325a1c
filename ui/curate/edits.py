"""Runs Curate's edit commands on the undo stack: small edits at once, big ones off the
GUI thread (ADR 036).

A bulk edit (labelling 30,000 selected samples) is one set-based transaction, but it
still writes tens of megabytes; run on the GUI thread it would freeze the window for
a few hundred milliseconds.  From :data:`BACKGROUND_AT` samples on, the command runs as
a job on a second connection (``project.worker_view()``) and is booked on the undo
stack when it is done; edits asked for meanwhile wait in order, and Undo/Redo wait
for it.  Either way one command is one transaction and one undo step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.curate.commands import Command, EditConflict, UndoStack
from core.jobs import Job, JobState
from core.store.errors import ProjectError

#: edits touching this many samples or more run in the background
BACKGROUND_AT = 2000
_REFUSALS = (EditConflict, KeyError, ValueError, ProjectError)


def refusal_text(exc: BaseException) -> str:
    """What a user reads about a refused edit (KeyError's repr quotes stripped)."""
    return str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)


class Editor:
    """Does, undoes and redoes commands for one workspace.

    ``context`` is the app context (messages, status, jobs); ``changed(command, what)``
    is called after every booked step, ``refused()`` after a refusal, ``busy_changed()``
    when a background edit starts or ends.
    """

    def __init__(self, context: Any, changed: Callable[[Command, str], None],
                 refused: Callable[[], None],
                 busy_changed: Callable[[], None] = lambda: None) -> None:
        self.context = context
        self.stack: UndoStack | None = None
        self._changed = changed
        self._refused = refused
        self._busy_changed = busy_changed
        self.job: Job | None = None  # the background step running now
        self._waiting: list[Command] = []

    def bind(self, project: Any) -> None:
        """Start a fresh history for ``project`` (None: no project)."""
        self.stack = UndoStack(project) if project is not None else None
        self.job = None
        self._waiting.clear()
        if self.stack is not None:
            self.stack.listeners.append(self._changed)

    @property
    def busy(self) -> bool:
        """Whether a background edit is running."""
        return self.job is not None

    def run(self, command: Command) -> bool:
        """Do ``command``; a refusal is shown, never raised.  False when it was refused or
        changed nothing; True when done, started in the background, or queued behind it."""
        if self.stack is None:
            return False
        if self.busy:
            self._waiting.append(command)
            return True
        if len(command.sample_ids) >= BACKGROUND_AT:
            self._in_background(command, "do")
            return True
        try:
            return self.stack.push(command)
        except _REFUSALS as exc:
            self._refuse(command.label, exc)
            return False

    def run_built(self, label: str, build: Callable[[], Command]) -> bool:
        """:meth:`run` the command ``build()`` makes from what the user asked; a refusal
        while building it (a box of no size) is shown as ``label``'s, never raised."""
        try:
            command = build()
        except _REFUSALS as exc:
            self._refuse(label, exc)
            return False
        return self.run(command)

    def _refuse(self, label: str, exc: BaseException) -> None:
        self.context.message("Edit not saved", f"{label}: {refusal_text(exc)}")
        self._refused()

    def step(self, undo: bool) -> Command | None:
        """Undo (or redo) the last step; returns the command when it was done here."""
        if self.stack is None:
            return None
        if self.job is not None:  # busy
            self.context.status("Wait: " + self.job.state.title + " is still being saved.")
            return None
        command = self.stack.next_undo() if undo else self.stack.next_redo()
        if command is None:
            return None
        what = "undo" if undo else "redo"
        if len(command.sample_ids) >= BACKGROUND_AT:
            self._in_background(command, what)
            return None
        try:
            command.undo(self.stack.project) if undo else command.do(self.stack.project)
        except _REFUSALS as exc:
            self.context.message("Cannot " + what, refusal_text(exc))
            return None
        self.stack.record(command, what)
        return command

    def _in_background(self, command: Command, what: str) -> None:
        stack = self.stack
        assert stack is not None
        view = stack.project.worker_view()
        title = {"do": "", "undo": "Undo: ", "redo": "Redo: "}[what] + command.label

        def work(state: JobState) -> None:
            state.set_status(f"{len(command.sample_ids):,} samples")
            try:
                (command.undo if what == "undo" else command.do)(view)
            finally:
                view.close()

        finished = False

        def done(job: Job) -> None:
            nonlocal finished
            finished = True
            if stack is not self.stack:  # the project was closed meanwhile: saved, unbooked
                return
            self.job = None
            if job.outcome == "done":
                stack.record(command, what)
                if what != "do":
                    self.context.status(("Undid: " if what == "undo" else "Redid: ")
                                        + command.label, 3000)
            else:
                head = "Edit not saved" if what == "do" else "Cannot " + what
                exc = job.future.exception() if job.outcome == "failed" else None
                why = refusal_text(exc) if isinstance(exc, _REFUSALS) else (job.error
                                                                         or job.outcome)
                self.context.message(head, f"{command.label}: {why}")
                self._refused()
            self._busy_changed()
            waiting, self._waiting = self._waiting, []
            for queued in waiting:
                self.run(queued)

        job = self.context.start_job(title, work, done)
        # busy until ``done`` has run (at once with a synchronous runner): a job that has
        # finished but whose ``done`` is still queued is not yet booked
        self.job = None if finished else job
        self._busy_changed()
