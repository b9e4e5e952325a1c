"""How good are the proposals? A window with the report of core.propose.report: rates per
field and template version, confusion matrices, box IoU, runs, failures, keywords."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)


def _pct(x: Any) -> str:
    return "—" if x is None else f"{100 * x:.0f}%"


def table(columns: list[str], rows: list[list[Any]]) -> QTableWidget:
    """A read-only table of plain text cells."""
    t = QTableWidget(len(rows), len(columns))
    t.setHorizontalHeaderLabels(columns)
    t.verticalHeader().hide()
    t.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            item = QTableWidgetItem("—" if value is None else str(value))
            if isinstance(value, int | float):
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            t.setItem(r, c, item)
    t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    t.horizontalHeader().setStretchLastSection(True)
    return t


def _confusion(data: dict[str, Any]) -> QWidget:
    labels = data["labels"]
    box = QWidget()
    lay = QVBoxLayout(box)
    lay.setContentsMargins(0, 0, 0, 0)
    note = QLabel(f"Rows: proposed · columns: what the field holds now · {data['total']} "
                  f"decided · agreement {_pct(data['agreement'])}")
    note.setTextFormat(Qt.TextFormat.PlainText)
    lay.addWidget(note)
    rows = [[f"proposed {a}", *row] for a, row in zip(labels, data["matrix"], strict=True)]
    lay.addWidget(table(["", *labels], rows), 1)
    return box


class ProposalReportDialog(QDialog):
    """Shows one :class:`core.propose.report.Report` (as JSON data)."""

    def __init__(self, data: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("How good are the proposals?")
        self.data = data
        tabs = QTabWidget()
        self.tabs = tabs
        rates = [[r["field"], r["kind"], f"v{r['template_version']}", r["model"], r["fields"],
                  r["proposed"], r["accepted"], r["corrected"], _pct(r["accepted_rate"]),
                  _pct(r["corrected_rate"])] for r in data["rates"]]
        tabs.addTab(table(["Field", "Kind", "Template", "Model", "Fields", "To review",
                           "Accepted", "Corrected", "Accepted %", "Corrected %"], rates),
                    "Accepted vs corrected")
        for key, title in (("quality", "Quality labels"), ("roles", "Image roles"),
                           ("feedback", "Feedback labels")):
            tabs.addTab(_confusion(data["confusion"][key]), title)
        iou = data["box_iou"]
        tabs.addTab(table(["Boxes compared", "Mean IoU", "Median IoU", "IoU ≥ 0.5"], [[
            iou["boxes"], _fmt(iou["mean"]), _fmt(iou["median"]), _pct(iou["at_least_0_5"])]]),
            "Box IoU")
        tabs.addTab(table(["Keyword", "Count"], [[k["keyword"], k["count"]]
                                                 for k in data["failure_keywords"]]),
                    "Failure keywords")
        tabs.addTab(table(["Post", "Kind", "Model", "Reason", "When"], [
            [f["post"], f["kind"], f["model"], f["reason"], f["at"]]
            for f in data["failures"]]), f"Failed ({len(data['failures'])})")
        runs = []
        for r in data["runs"]:
            t = r["totals"] or {}
            runs.append([r["run"], r["started"][:19].replace("T", " "), r["model"], r["kinds"],
                         r["outcome"], t.get("ok"), t.get("failed"), t.get("cached"),
                         (t.get("tokens") or {}).get("prompt"), t.get("cost")])
        tabs.addTab(table(["Run", "Started", "Model", "Kinds", "Outcome", "OK", "Failed",
                           "Cached", "Prompt tokens", "Cost"], runs), "Runs")
        tot = data["totals"]
        summary = QLabel(f"{tot['answers']:,} answers ({tot['ok']:,} usable, {tot['failed']:,} "
                         f"failed) · {tot['prompt_tokens']:,} prompt + "
                         f"{tot['completion_tokens']:,} completion tokens"
                         + (f" · cost {tot['cost']:.4f}" if tot["cost"] else ""))
        summary.setTextFormat(Qt.TextFormat.PlainText)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(summary)
        layout.addWidget(tabs, 1)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignRight)
        self.resize(900, 520)


def _fmt(x: Any) -> str:
    return "—" if x is None else f"{x:.3f}"
