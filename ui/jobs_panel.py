"""A panel listing background jobs with progress bars and Cancel buttons.

It polls each job's Qt-free :class:`core.jobs.JobState` on a timer (10 Hz), so
workers never touch widgets and never emit signals across threads.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
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


class JobRow(QWidget):
    """One job: title, status line, progress bar, Cancel."""

    def __init__(self, job: Any, parent: QWidget | None = None) -> None:
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
            self.bar.setRange(0, 100)
            self.bar.setValue(100 if self.job.outcome == "done" else self.bar.value())
            self.cancel.setEnabled(False)
            text = {"done": "Finished", "cancelled": "Cancelled",
                    "failed": f"Failed — {self.job.error}"}[self.job.outcome]
            self.status.setText(text)
            return
        if fraction is None:
            self.bar.setRange(0, 0)  # busy indicator
        else:
            self.bar.setRange(0, 1000)
            self.bar.setValue(int(fraction * 1000))
        self.status.setText("Cancelling…" if state.cancelled() else state.status)
        self.cancel.setEnabled(not state.cancelled())


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
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        inner = QWidget()
        self.scroll.setWidget(inner)
        outer.addWidget(self.scroll)
        self._layout = QVBoxLayout(inner)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.placeholder = QLabel("No background jobs yet. Imports, detections and metric "
                                  "runs appear here with their progress.")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setStyleSheet("color: palette(mid); padding: 8px;")
        self._layout.addWidget(self.placeholder)
        self._layout.addStretch(1)
        self.timer = QTimer(self)
        self.timer.setInterval(100)
        self.timer.timeout.connect(self.refresh)
        self.timer.start()

    def add_job(self, job: Any) -> JobRow:
        """Show a newly submitted job."""
        self.placeholder.hide()
        row = JobRow(job, self)
        self.rows.insert(0, row)
        self._layout.insertWidget(0, row)
        finished = [r for r in self.rows if r.job.outcome != "running"]
        for old in finished[MAX_FINISHED_ROWS:]:
            self.rows.remove(old)
            self._layout.removeWidget(old)
            old.deleteLater()
        self.scroll.verticalScrollBar().setValue(0)
        self.job_added.emit()
        return row

    def refresh(self) -> None:
        """Update every row from its job state."""
        for row in self.rows:
            row.refresh()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
