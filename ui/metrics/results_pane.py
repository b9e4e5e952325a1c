"""The right side of the Metrics workspace: Results (summary, table), Distributions and
Drill-down tabs, and what the summary line says.

:class:`ResultsPane` builds the widgets; the workspace fills them (it knows the project,
the selection and the settings) and, as with :class:`ui.metrics.run_panel.RunPanel`,
keeps them under the names it always had (``table``, ``model``, ``summary``, …).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.metrics.registry import all_metrics
from ui.metrics.drilldown import DrillDown
from ui.metrics.histograms import HistogramCanvas
from ui.metrics.results_model import DETAILS, ResultsModel


class ResultsPane(QTabWidget):
    """Results (summary, "Hide not applicable", the table), Distributions, Drill-down."""

    drill: DrillDown  # built after the table whose signals show it

    def __init__(self) -> None:
        super().__init__()
        self.model = ResultsModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSortingEnabled(True)
        # by sample, first to last: Qt's default indicator (descending) listed the demo
        # from its last sample up
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)  # one line a result; Details has its tooltip
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.table.horizontalHeader()
        # the metric column fits every local metric's title ("Structure distance (DINO)"
        # was cut to "Structure dis…"); a judge's longer title elides, its tooltip whole
        metric = max((m.title for m in all_metrics() if not m.is_judge),
                     key=self.fontMetrics().horizontalAdvance)
        for column, widest in enumerate(("demo-000000", "brushwork-2", metric,
                                         "↓ lower", "0.00000", "not applicable")):
            header.resizeSection(column, self.fontMetrics().horizontalAdvance(widest) + 28)
        header.setSectionResizeMode(DETAILS, QHeaderView.ResizeMode.Stretch)
        self.table.doubleClicked.connect(lambda _: self.setCurrentWidget(self.drill))
        self.table.activated.connect(lambda _: self.setCurrentWidget(self.drill))
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)  # a long summary wraps instead of widening the window
        self.hide_na = QCheckBox("Hide not applicable")
        self.hide_na.setChecked(True)
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.hide_na)
        results = QWidget()
        rv = QVBoxLayout(results)
        rv.addLayout(top)
        rv.addWidget(self.table, 1)
        self.hist = HistogramCanvas()
        self.drill = DrillDown()
        self.addTab(results, "Results")
        scroll = QScrollArea()
        scroll.setWidget(self.hist)
        scroll.setWidgetResizable(True)
        self.addTab(scroll, "Distributions")
        self.addTab(self.drill, "Drill-down")


def summary_text(shown: list[Any], visible: list[Any], n_na: int, others: list[str], *,
                 has_samples: bool, has_models: bool, titles: dict[str, str]) -> str:
    """What the results say, and what to do next: run when there is nothing yet, open
    the drill-down when there are rows; ``others`` are unticked metrics with stored
    results (named by their ``titles``)."""
    if not shown:
        if not has_samples:
            return ("No samples selected: choose samples in Curate (its filter is the "
                    "selection) or a rating session above.")
        if not has_models:
            return "No results: tick at least one model on the left."
        text = ("No results yet for the ticked metrics on this selection: press Run "
                "(Ctrl+Return).")
        if others:
            text += (" Stored results of " + ", ".join(titles.get(m, m) for m in others)
                     + " show when ticked.")
        return text
    ok = sum(r.status == "ok" for r in shown)
    text = (f"{len(shown):,} results: {ok:,} values, "
            f"{sum(r.status == 'error' for r in shown):,} errors, {n_na:,} not "
            "applicable. ↑ higher is better, ↓ lower is better (Better column).")
    if visible:
        return text + " Double-click a row (or press Enter) for the drill-down."
    return text + " Every result is not applicable: untick “Hide not applicable” to " \
        "list them."
