"""The Rate workspace's two tables (sessions, raters of the selected session): columns,
what each header means on hover, and how rows are written."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem

SESSION_COLUMNS = ["Session", "Protocol", "Raters", "Tasks", "Judgments merged", "Seed",
                   "Created"]
RATER_COLUMNS = ["Rater file", "Rater", "Completed", "Gold accuracy", "Median time",
                 "Flags", "Early answers", "Changed", "File"]
#: what a column header means, on hover (a new user met "Early answers" with no word)
COLUMN_TIPS = {
    "Raters": "Rater files the session wrote, one per rater",
    "Tasks": "Tasks in all rater files together, gold (validation) tasks included",
    "Judgments merged": "Answers merged from returned files; a changed answer is kept "
                        "beside the one it replaces, so this can exceed Tasks",
    "Seed": "The seed of the random design: the same seed gives the same session",
    "Rater file": "The file's slot; the rater files are named …-R1, …-R2",
    "Rater": "The name the rater typed when starting",
    "Completed": "Tasks answered / tasks in this rater's file",
    "Gold accuracy": "Gold (validation) tasks answered as expected / gold tasks answered",
    "Median time": "Median time on a task",
    "Flags": "Tasks flagged with a reason: a ranking impossible to make fairly, or an "
             "instruction marked not valid (Likert)",
    "Early answers": "Answers given before the minimum time per task; each was held "
                     "back for the penalty delay",
    "Changed": "Answers the rater changed afterwards (Backspace: the last answer; PgUp: an earlier one)",
}


def make_table(columns: list[str]) -> QTableWidget:
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(columns)
    for column, title in enumerate(columns):
        header = table.horizontalHeaderItem(column)
        if header is not None and title in COLUMN_TIPS:
            header.setToolTip(COLUMN_TIPS[title])
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
    table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
    table.verticalHeader().setVisible(False)
    table.setWordWrap(False)
    table.horizontalHeader().setSectionResizeMode(len(columns) - 1,
                                                  QHeaderView.ResizeMode.Stretch)
    return table


def fit_columns(table: QTableWidget) -> None:
    """Every column but the last as wide as its contents; the last (stretching) takes the
    rest.  ``resizeColumnsToContents`` also shrank the last one, leaving an empty band."""
    for column in range(table.columnCount() - 1):
        table.resizeColumnToContents(column)


def set_row(table: QTableWidget, row: int, values: list[Any], key: str | None = None,
             dim: bool = False) -> None:
    for col, value in enumerate(values):
        item = QTableWidgetItem("" if value is None else str(value))
        item.setToolTip(item.text())
        if col == 0 and key is not None:
            item.setData(Qt.ItemDataRole.UserRole, key)
        if dim:
            item.setForeground(table.palette().brush(QPalette.ColorGroup.Disabled,
                                                     QPalette.ColorRole.Text))
        table.setItem(row, col, item)
