"""A panel listing background jobs with progress bars and Cancel buttons.

It polls each job's Qt-free :class:`core.jobs.JobState` on a timer (10 Hz), so
workers never touch widgets and never emit signals across threads. A job that ran to
its end but reported failed items reads "Failed" (every item failed) or "Finished with
failures", never a plain "Finished" (ADR 081).
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from core.jobs import Job
from ui.widgets.theme import set_tone


class JobRow(QWidget):
    """One job: title, status line, progress bar, Cancel."""

    def __init__(self, job: Job, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.job = job
        self.title = QLabel(f"<b>{_escape(job.state.title)}</b>")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setMinimumWidth(200)
        self.bar = QProgressBar()
        self.bar.setMinimumWidth(220)
        self.cancel = QPushButton("Cancel")
        self.cancel.setToolTip("Stop this job at its next safe point")
        self.cancel.clicked.connect(job.state.cancel)
        self._ended = False
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        layout.addWidget(self.title)
        layout.addWidget(self.status, 1)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel)
        self.refresh()

    def refresh(self) -> None:
        """Copy the job's state into the widgets."""
        state = self.job.state
        fraction = state.fraction
        if self.job.outcome != "running":
            self._show_end()
            return
        if fraction is None:
            self.bar.setRange(0, 0)  # busy indicator
        else:
            self.bar.setRange(0, 1000)
            self.bar.setValue(int(fraction * 1000))
        self.status.setText("Cancelling…" if state.cancelled() else state.status)
        self.cancel.setEnabled(not state.cancelled())

    def verdict(self) -> str:
        """How the job ended: "done", "partial", "failed" or "cancelled" ("running" before)."""
        outcome = self.job.outcome
        if outcome == "done":
            verdict = self.job.state.verdict
            return {"ok": "done", "partial": "partial", "failed": "failed"}[verdict]
        return str(outcome)

    def _show_end(self) -> None:
        if self._ended:
            return
        self._ended = True
        state, verdict = self.job.state, self.verdict()
        self.cancel.setEnabled(False)
        self.bar.setRange(0, 100)
        first = f": {state.failures[0]}" if state.failures else ""
        if verdict == "done":
            self.bar.setValue(100)
            text = "Finished"
        elif verdict == "partial":
            self.bar.setValue(100)
            text = (f"Finished with failures — {state.items_failed:,} of "
                    f"{state.items_failed + state.items_ok:,} failed{first}")
        elif verdict == "failed" and self.job.outcome == "done":
            text = f"Failed — every item failed ({state.items_failed:,}){first}"
        elif verdict == "failed":
            text = f"Failed — {self.job.error}"
        else:
            text = "Cancelled"
        self.bar.setFormat({"done": "%p%", "partial": "done", "failed": "failed",
                            "cancelled": "cancelled"}[verdict])
        self.status.setText(text)
        self.status.setToolTip("\n".join(state.failures) or text)
        if verdict in ("failed", "partial"):
            set_tone(self.status, "danger" if verdict == "failed" else "warning",
                     text_only=True)


#: finished jobs kept in the panel (older finished rows are dropped; running ones stay)
MAX_FINISHED_ROWS = 50


class JobsPanel(QWidget):
    """The session's jobs, newest on top, in a scroll area (the dock never grows)."""

    job_added = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[JobRow] = []
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.clear_button = QPushButton("Clear Finished")
        self.clear_button.setToolTip("Remove the jobs that have ended from this list")
        self.clear_button.clicked.connect(self.clear_finished)
        self.clear_button.setEnabled(False)
        top = QHBoxLayout()
        top.setContentsMargins(6, 2, 6, 0)
        top.addStretch(1)
        top.addWidget(self.clear_button)
        outer.addLayout(top)
        self.scroll_area = QScrollArea()  # not "scroll": that is QWidget.scroll()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        inner = QWidget()
        self.scroll_area.setWidget(inner)
        outer.addWidget(self.scroll_area)
        self._layout = QVBoxLayout(inner)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.placeholder = QLabel("No background jobs. Imports, detections and metric "
                                  "runs appear here with their progress.")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        set_tone(self.placeholder, "muted", "padding: 8px;", text_only=True)
        self._layout.addWidget(self.placeholder)
        self._layout.addStretch(1)
        self.timer = QTimer(self)
        self.timer.setInterval(100)
        self.timer.timeout.connect(self.refresh)
        self.timer.start()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """Room for about three rows: the dock opens compact."""
        return QSize(640, 110)

    def add_job(self, job: Job) -> JobRow:
        """Show a newly submitted job."""
        self.placeholder.hide()
        row = JobRow(job, self)
        self.rows.insert(0, row)
        self._layout.insertWidget(0, row)
        finished = [r for r in self.rows if r.job.outcome != "running"]
        for old in finished[MAX_FINISHED_ROWS:]:
            self.rows.remove(old)
            self._layout.removeWidget(old)
            old.hide()  # at once: deleteLater waits for the event loop
            old.deleteLater()
        self.scroll_area.verticalScrollBar().setValue(0)
        self.job_added.emit()
        return row

    def refresh(self) -> None:
        """Update every row from its job state."""
        for row in self.rows:
            row.refresh()
        self.clear_button.setEnabled(any(r.job.outcome != "running" for r in self.rows))

    def clear_finished(self) -> int:
        """Drop every row whose job has ended; returns how many went."""
        finished = [r for r in self.rows if r.job.outcome != "running"]
        for row in finished:
            self.rows.remove(row)
            self._layout.removeWidget(row)
            row.hide()  # at once, not when the deferred delete runs
            row.deleteLater()
        self.placeholder.setVisible(not self.rows)
        self.clear_button.setEnabled(False)
        return len(finished)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
