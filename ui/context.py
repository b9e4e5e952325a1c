"""What a workspace page may use of the application, without importing ``app``.

The main window (in ``app``) owns one :class:`AppContext` and hands it to every
workspace page. Pages read ``context.project``, start background work with
``context.start_job``, and listen to the signals.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from core.jobs import Job, JobState
from core.selection import SampleFilter


class AppContext(QObject):
    """Shared state of the running app: open project, selection, job starter, messages."""

    #: the project was opened, closed or replaced
    project_changed = Signal()
    #: the project is about to close: save anything still being typed
    project_closing = Signal()
    #: samples/outputs/etc. changed in bulk (after an import): views should reload
    data_changed = Signal()
    #: the Curate filter (the selection other workspaces take) changed
    selection_changed = Signal()
    #: (workspace key, item): show ``item`` in that workspace (e.g. a sample in Curate)
    reveal_requested = Signal(str, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project: Any = None  # core.store.Project | None
        self.selection: SampleFilter = SampleFilter()
        self._start_job: Callable[..., Job] | None = None
        self._message: Callable[[str, str], None] | None = None
        self._status: Callable[[str, int], None] | None = None
        self._inform: Callable[[str, str], None] | None = None
        self._refuse: Callable[[str, str], None] | None = None
        #: file suffix (".winnow-session") -> opener, offered by File → Open
        self.file_handlers: dict[str, Callable[[Any], object]] = {}

    def bind(self, start_job: Callable[..., Job], message: Callable[[str, str], None],
             status: Callable[[str, int], None], *,
             inform: Callable[[str, str], None] | None = None,
             refuse: Callable[[str, str], None] | None = None) -> None:
        """Called once by the main window to provide the implementations (``inform`` and
        ``refuse`` default to ``message``)."""
        self._start_job, self._message, self._status = start_job, message, status
        self._inform, self._refuse = inform, refuse

    def start_job(self, title: str, fn: Callable[[JobState], Any],
                  on_done: Callable[[Job], None] | None = None, *, quiet: bool = False) -> Job:
        """Run ``fn(state)`` in the background; ``on_done(job)`` runs on the GUI thread.

        ``job.outcome`` is "done", "cancelled" or "failed"; ``job.future.result()`` is the
        return value. Workers must not touch widgets; use ``project.worker_view()`` for
        database access off the GUI thread. ``quiet``: a recompute the user did not ask
        for (it never opens the Jobs panel). Item failures go to ``state.item_failed``.
        """
        if self._start_job is None:
            raise RuntimeError("AppContext is not bound to a main window")
        if quiet:
            return self._start_job(title, fn, on_done, quiet=True)
        return self._start_job(title, fn, on_done)

    def message(self, title: str, text: str) -> None:
        """Show a non-modal warning to the user: something failed."""
        if self._message is not None:
            self._message(title, text)

    def refuse(self, title: str, text: str) -> None:
        """Show a non-modal warning that an action was not started (nothing to do, not
        possible here): nothing failed, so it is not reported as an error (ADR 228)."""
        if self._refuse is not None:
            self._refuse(title, text)
        else:
            self.message(title, text)

    def inform(self, title: str, text: str) -> None:
        """Show a non-modal report of work that succeeded (the information icon: a
        warning is for what went wrong or was refused)."""
        if self._inform is not None:
            self._inform(title, text)
        else:
            self.message(title, text)

    def refuse_in_package(self, title: str, takes: str = "imports",
                          instead: str = "Import into {project} and share again") -> bool:
        """In a curator package, say why ``title`` is not possible there (naming the
        package and the project to use, :func:`core.teamwork.package.package_refusal`)
        and return True, before any file is asked for or anything is written."""
        from core.teamwork.package import package_refusal

        text = package_refusal(self.project, takes, instead)
        if text is not None:
            self.refuse(title, text)
        return text is not None

    def status(self, text: str, msecs: int = 5000) -> None:
        """Show a transient status-bar message."""
        if self._status is not None:
            self._status(text, msecs)

    def register_file_handler(self, suffix: str, opener: Callable[[Any], object]) -> None:
        """Let File → Open (and ``winnow FILE``) open files ending in ``suffix``;
        ``opener`` returns None when it refused the file (it says why)."""
        self.file_handlers[suffix.lower()] = opener

    def reveal(self, workspace: str, item: object) -> None:
        """Ask the window to switch to ``workspace`` and show ``item`` there (the page's
        ``reveal(item)`` hook, e.g. Curate selects the sample with that id)."""
        self.reveal_requested.emit(workspace, item)

    def set_selection(self, selection: SampleFilter) -> None:
        """Publish the current Curate filter."""
        self.selection = selection
        self.selection_changed.emit()
