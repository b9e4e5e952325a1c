"""The left side of the Metrics workspace: what will be scored, Run / Cancel, progress;
and how a finished run reports its failed items to the job state."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.metrics.registry import all_metrics

if TYPE_CHECKING:
    from core.jobs import JobState
    from core.metrics.runner import RunSummary

DEVICES = (("Automatic (GPU if present)", "auto"), ("CPU", "cpu"), ("CUDA GPU", "cuda"))


class RunPanel(QWidget):
    """Selection source, models, metrics, device, the run buttons and the progress."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.selection_label = QLabel()
        self.selection_label.setWordWrap(True)
        self.selection_label.setTextFormat(Qt.TextFormat.PlainText)
        self.models = QListWidget()
        self.models.setToolTip("Which outputs to score; @sample = the sample's own output image")
        # long model names elide (full name in the item's tooltip) instead of scrolling
        self.models.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.models.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.metrics = QListWidget()
        for m in all_metrics():
            item = QListWidgetItem(m.title)
            item.setData(Qt.ItemDataRole.UserRole, m.name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked)
            item.setToolTip(f"{m.name} (v{m.version}, "
                            f"{'higher' if m.higher_is_better else 'lower'} is better)\n\n"
                            + "\n".join(textwrap.wrap(m.definition, 70)))
            self.metrics.addItem(item)
        self.metrics.item(0).setCheckState(Qt.CheckState.Checked)
        self.device = QComboBox()
        for label, key in DEVICES:
            self.device.addItem(label, key)
        self.run_button = QPushButton("Run")
        self.run_button.setToolTip("Score the selection (Ctrl+Return)")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.settings_button = QPushButton("Settings…")
        self.progress = QProgressBar()
        self.progress.setFormat("%v / %m")
        self.status = QLabel("Ready")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.source = QComboBox()
        self.source.setToolTip("Score the samples of the Curate filter, or exactly the "
                               "samples and models of a rating session")
        self._lay_out()

    def _lay_out(self) -> None:
        sel_box = QGroupBox("Selection")
        sv = QVBoxLayout(sel_box)
        sv.addWidget(self.source)
        sv.addWidget(self.selection_label)
        model_box = QGroupBox("Models")
        QVBoxLayout(model_box).addWidget(self.models)
        metric_box = QGroupBox("Metrics")
        QVBoxLayout(metric_box).addWidget(self.metrics)
        run_box = QWidget()
        form = QFormLayout(run_box)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Device:", self.device)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.settings_button)
        lv = QVBoxLayout(self)
        lv.addWidget(sel_box)
        lv.addWidget(model_box, 2)
        lv.addWidget(metric_box, 3)
        lv.addWidget(run_box)
        lv.addLayout(buttons)
        lv.addWidget(self.progress)
        lv.addWidget(self.status)
        self.setMinimumWidth(280)
        self.setMaximumWidth(380)


def report_items(state: JobState, summary: RunSummary, n_items: int, titles: dict[str, str]) -> None:
    """Tell the job state which (item × metric) results failed, so a run in which
    everything failed reads as failed in the Jobs panel, not "Finished" (ADR 081)."""
    state.item_done(summary.computed + summary.cached + summary.not_applicable)
    if summary.errors:
        state.item_failed("", f"{summary.errors:,} result(s) are errors (Status column)",
                          count=summary.errors)
    for name, reason in summary.failed_metrics.items():
        counts = summary.per_metric.get(name, {})
        lost = n_items - counts.get("cached", 0) - counts.get("not_applicable", 0)
        state.item_failed(titles.get(name, name), reason, count=max(1, lost))
