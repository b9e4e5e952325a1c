"""Analyze → Curator Agreement…: how well curators agree on the samples a split gave to
two of them, per field and per curator against the adjudicated result (ADR 134)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.teamwork.agreement import Agreement, agreement, splits
from ui.widgets.screen import fitted_size
from ui.widgets.theme import set_tone

FIELD_NAMES = {"quality": "Quality label", "split": "Split", "roles": "Image roles"}


LEGEND = ("α: Krippendorff's alpha (nominal)   ·   κ: Cohen's kappa per pair   ·   "
          "1 = perfect agreement, 0 = chance")


def _count(n: int, word: str, plural: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else plural or word + 's'}"


def summary_text(r: Agreement) -> str:
    """The facts line above the tables: overlap, packages merged, conflicts open."""
    return (f"{_count(r.overlap_samples, 'sample')} curated by two curators   ·   "
            f"{r.packages_merged} of {_count(len(r.curators), 'package')} merged   ·   "
            f"{_count(r.open_conflicts, 'conflict')} still open")


def _num(value: Any, percent: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:.0%}" if percent else f"{value:.3f}"


def _table(headers: list[str], rows: list[list[str]]) -> QTableWidget:
    table = QTableWidget(len(rows), len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            item = QTableWidgetItem(text)
            item.setToolTip(text)  # a long "per pair" cell is elided, never lost
            table.setItem(r, c, item)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    table.resizeRowsToContents()
    rows_height = sum(table.rowHeight(r) for r in range(len(rows)))
    # as tall as its rows, no empty band below them; the window scrolls instead
    table.setFixedHeight(rows_height + table.horizontalHeader().sizeHint().height()
                         + 2 * table.frameWidth())
    table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    return table


class AgreementWindow(QDialog):
    """A split chooser and three tables: fields, boxes and prompts, curators."""

    def __init__(self, context: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.setWindowTitle("Curator agreement")
        self.choice = QComboBox()
        self.choice.currentIndexChanged.connect(lambda _i: self.show_split())
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        font = self.summary.font()
        font.setBold(True)
        self.summary.setFont(font)
        self.legend = QLabel(LEGEND)
        self.legend.setTextFormat(Qt.TextFormat.PlainText)
        self.legend.setWordWrap(True)
        set_tone(self.legend, "muted", text_only=True)
        page = QWidget()
        self.body = QVBoxLayout(page)
        self.body.setContentsMargins(0, 0, 0, 0)
        area = self.area = QScrollArea()
        area.setWidgetResizable(True)
        area.setFrameShape(QFrame.Shape.NoFrame)
        area.setWidget(page)
        top = QHBoxLayout()
        label = QLabel("&Split:")
        label.setBuddy(self.choice)
        top.addWidget(label)
        top.addWidget(self.choice, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.legend)
        layout.addWidget(area, 1)
        layout.addWidget(buttons)
        self.agreement: Agreement | None = None
        self.chart: Any = None
        self.tables: dict[str, QTableWidget] = {}
        self._shown: list[QWidget] = []
        self.resize(*fitted_size(960, 860))
        self.reload()

    def reload(self) -> None:
        """List the project's splits, newest first."""
        project = self.context.project
        known = splits(project) if project is not None else []
        self.choice.blockSignals(True)
        self.choice.clear()
        for name, merged in known:
            self.choice.addItem(f"{name} ({merged} package(s) merged)", name)
        self.choice.blockSignals(False)
        self.show_split()

    def show_split(self) -> None:
        while self.body.count():  # the tables, note, chart and stretch of the last split
            item = self.body.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.setParent(None)
        self._shown = []
        self.tables = {}
        name = self.choice.currentData()
        project = self.context.project
        self.legend.setVisible(name is not None and project is not None)
        if name is None or project is None:
            self.agreement = None
            self.summary.setText("This project has no split yet: Curate → Team → Share Work… "
                                 "gives samples to curators, some to two of them, and their "
                                 "agreement shows here once their packages are merged.")
            return
        r = self.agreement = agreement(project, name)
        self.summary.setText(summary_text(r))
        rows = []
        for f in r.fields:
            kappas = "; ".join(f"{k['a']}–{k['b']}: {_num(k['kappa'])} (n={k['n']})"
                               for k in f.kappa)
            rows.append([FIELD_NAMES.get(f.field, f.field), str(f.units), _num(f.alpha),
                         _num(f.percent, True), kappas or f.note or "—"])
        b, p = r.boxes, r.prompts
        rows.append(["Screenshot boxes", str(b.get("pairs", 0)),
                     f"mean IoU {_num(b.get('mean_iou'))}",
                     _num(b.get("share_iou_50"), True) + " with IoU ≥ 0.5", ""])
        rate = ", ".join(f"{c} {_num(v, True)}" for c, v in p.get("edit_rate", {}).items())
        rows.append(["Prompts", str(p.get("pairs_with_an_edit", 0)),
                     f"mean distance {_num(p.get('mean_distance'))}",
                     _num(p.get("same_result"), True) + " same text", f"edited: {rate}"])
        self._add("fields", ["Field", "Units", "α / score", "Agree", "Per pair / notes"], rows)
        curators = [[c["curator"], str(c["samples"]), _num(c.get("quality"), True),
                     _num(c.get("quality_kappa")), _num(c.get("split"), True),
                     _num(c.get("roles"), True), _num(c.get("prompt"), True),
                     _num(c.get("box_iou"))] for c in r.per_curator]
        note = QLabel("Each curator against the adjudicated result (the project's values "
                      "now):")
        self._shown.append(note)
        self.body.addWidget(note)
        self._add("curators", ["Curator", "Samples", "Quality", "κ", "Split", "Roles",
                               "Prompt", "Box IoU"], curators)
        if r.per_curator:
            self._chart(r)
        self.body.addStretch(1)

    def _chart(self, r: Agreement) -> None:
        """Curators × fields, coloured by agreement with the adjudicated result: who needs
        guidance on what, at a glance."""
        import numpy as np

        from core.analysis.results import HeatmapChart, HeatPanel
        from ui.analyze.views import ChartView

        keys = [("quality", "Quality"), ("split", "Split"), ("roles", "Roles"),
                ("prompt", "Prompt"), ("box_iou", "Box IoU")]
        values = np.array([[np.nan if c.get(k) is None else float(c[k]) for k, _t in keys]
                           for c in r.per_curator])
        chart = HeatmapChart([HeatPanel("Agreement with the adjudicated result",
                                        [c["curator"] for c in r.per_curator],
                                        [t for _k, t in keys], values)],
                             "share agreeing (box: mean IoU)", fmt="%", vmin=0.0, vmax=1.0)
        view = self.chart = ChartView(chart)
        self._shown.append(view)
        self.body.addWidget(view)

    def _add(self, key: str, headers: list[str], rows: list[list[str]]) -> None:
        table = _table(headers, rows)
        self.tables[key] = table
        self._shown.append(table)
        self.body.addWidget(table)
