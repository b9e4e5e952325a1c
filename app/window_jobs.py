"""The main window's background jobs: start them, bring results back to the GUI thread,
show them in the Jobs panel (without popping it open for every job), ask before quitting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import QDockWidget, QMessageBox, QToolButton

from app.errors import router
from app.jobs import JobRunner
from core.jobs import Job
from ui.jobs_panel import JobsPanel

if TYPE_CHECKING:
    from app.main_window import MainWindow

#: a job still running this long after it started opens the Jobs panel (once a session)
SHOW_PANEL_AFTER_MS = 1500


class _JobBridge(QObject):
    """Carries 'job finished' from worker threads to the GUI thread (queued signal)."""

    finished = Signal(object)


class WindowJobs(QObject):
    """Job runner, Jobs dock and status-bar indicator of one main window.

    The panel opens by itself at most once per session, for the first job that is still
    running after :data:`SHOW_PANEL_AFTER_MS` and was not started ``quiet`` (background
    recomputes); after that, and once the user closed it, a status-bar button shows that
    work is running and opens the panel (Ctrl+J does too).
    """

    def __init__(self, window: MainWindow, runner: JobRunner | None = None) -> None:
        super().__init__(window)
        self.window = window
        self.runner = runner or JobRunner()
        self._on_done: dict[int, Callable[[Job], None]] = {}
        self._quiet: set[int] = set()
        self._next_quiet = False
        self.auto_shown = False
        self.quit_box: QMessageBox | None = None  # the "jobs still running" question
        self.quit_confirmed = False
        self._bridge = _JobBridge(self)
        # queued even when emitted on the GUI thread: on_done never runs inside start_job
        self._bridge.finished.connect(self._job_finished, Qt.ConnectionType.QueuedConnection)
        self.panel = JobsPanel()
        self.dock = QDockWidget("Jobs", window)
        self.dock.setObjectName("jobsDock")
        self.dock.setWidget(self.panel)
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.dock)
        self.dock.hide()
        self.indicator = QToolButton()
        self.indicator.setAutoRaise(True)
        self.indicator.setToolTip("Background jobs are running: show the Jobs panel (Ctrl+J)")
        self.indicator.clicked.connect(self.show_panel)
        self.indicator.hide()
        window.statusBar().addPermanentWidget(self.indicator)
        self.panel.timer.timeout.connect(self._update_indicator)
        self.runner.listeners.append(self._job_added)

    # -- starting -------------------------------------------------------------------------
    def start_job(self, title: str, fn: Callable[..., Any],
                  on_done: Callable[[Job], None] | None = None, *, quiet: bool = False) -> Job:
        """Run ``fn(state)`` in the background; ``on_done(job)`` runs on the GUI thread.

        ``quiet`` jobs (recomputes the user did not ask for) never open the Jobs panel.
        """
        self._next_quiet = quiet
        try:
            job = self.runner.submit(title, fn, on_finished=self._bridge.finished.emit)
        finally:
            self._next_quiet = False
        if on_done is not None:
            self._on_done[id(job)] = on_done
        return job

    def _job_added(self, job: Job) -> None:
        self.panel.add_job(job)
        self._update_indicator()
        if self._next_quiet:
            self._quiet.add(id(job))
        elif not self.auto_shown:
            QTimer.singleShot(SHOW_PANEL_AFTER_MS, lambda job=job: self._maybe_show(job))

    def _maybe_show(self, job: Job) -> None:
        if job.outcome == "running" and not self.auto_shown and not self.dock.isVisible():
            self.auto_shown = True
            self.dock.show()

    @Slot(object)
    def _job_finished(self, job: Job) -> None:
        callback = self._on_done.pop(id(job), None)
        self._quiet.discard(id(job))
        self.panel.refresh()
        self._update_indicator()
        error = job.future.exception() if job.outcome == "failed" else None
        if error is not None and callback is None:
            router.report_exception(error, job.state.title)
        if callback is not None:
            callback(job)

    def _update_indicator(self) -> None:
        running = len(self.runner.active)
        self.indicator.setVisible(running > 0 and not self.dock.isVisible())
        if running:
            self.indicator.setText(f"{running} job{'s' if running > 1 else ''} running…")

    @Slot()
    def show_panel(self) -> None:
        """Show the Jobs panel."""
        self.dock.show()
        self.dock.raise_()
        self._update_indicator()

    # -- quitting -------------------------------------------------------------------------
    def ask_before_quitting(self) -> None:
        """Non-modal question (no nested event loop under qasync): quit and cancel the
        running jobs, or keep working. Quitting closes the window again, confirmed."""
        if self.quit_box is not None:
            self.quit_box.raise_()
            return
        titles = [job.state.title for job in self.runner.active]
        shown = "\n".join(f"• {t}" for t in titles[:5]) + \
            (f"\n… and {len(titles) - 5} more" if len(titles) > 5 else "")
        box = QMessageBox(QMessageBox.Icon.Question, "Jobs are still running",
                          f"{len(titles)} background job(s) still running:\n{shown}",
                          QMessageBox.StandardButton.Cancel, self.window)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setInformativeText("Quitting cancels them; what they already saved is kept.")
        quit_button = box.addButton("Cancel Jobs and Quit", QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)

        def answered(*_: Any) -> None:
            self.quit_box = None
            if box.clickedButton() is quit_button:
                self.quit_confirmed = True
                self.window.close()

        box.finished.connect(answered)
        self.quit_box = box
        self.window.keep(box)
        box.open()
