"""Dialog showing what an import did and, line by line, what failed and why."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)


def _table(headers: list[str], rows: list[list[str]]) -> QTableWidget:
    table = QTableWidget(len(rows), len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            item = QTableWidgetItem(value)
            item.setToolTip(value)
            table.setItem(r, c, item)
    table.horizontalHeader().setSectionResizeMode(len(headers) - 1,
                                                  QHeaderView.ResizeMode.Stretch)
    table.resizeColumnsToContents()
    return table


class ImportReportDialog(QDialog):
    """Summary line plus tabs for failing lines and failing images."""

    def __init__(self, file_name: str, report: dict[str, Any],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Import report — {file_name}")
        self.resize(820, 480)
        errors = report.get("errors", [])
        images = report.get("images", {})
        image_errors = images.get("errors", [])
        summary = (f"{report.get('imported', 0)} imported, {report.get('updated', 0)} updated, "
                   f"{report.get('unchanged', 0)} unchanged. "
                   f"{len(errors) + report.get('errors_not_listed', 0)} line(s) could not be "
                   f"imported. Images: {images.get('fetched', 0)} stored, "
                   f"{images.get('failed', 0)} failed.")
        stored = sum(report.get(k, 0) for k in ("imported", "updated", "unchanged"))
        if not errors and not image_errors:
            summary += "\nEverything in the file was imported."
        elif stored == 0:
            summary += (f"\nNothing in {file_name} could be imported. Is it a JSON Lines file "
                        "of posts or samples (one JSON object per line, UTF-8)?")
        else:
            summary += ("\nEverything valid was imported; fix the lines below and import the "
                        "file again (unchanged lines are skipped).")
        self.summary = QLabel(summary)
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.tabs = QTabWidget()
        self.line_table = _table(["Line", "Problem"],
                                 [[str(e["line"]), e["error"]] for e in errors])
        self.image_table = _table(["Image", "Lines", "Problem"],
                                  [[e["url"], ", ".join(map(str, e.get("lines", []))),
                                    e["error"]] for e in image_errors])
        self.tabs.addTab(self.line_table, f"Lines with errors ({len(errors)})")
        self.tabs.addTab(self.image_table, f"Images that failed ({len(image_errors)})")
        notes = report.get("notes", [])
        if notes:
            self.tabs.addTab(_table(["Line", "Note"],
                                    [[str(n["line"]), n["note"]] for n in notes]),
                             f"Notes ({len(notes)})")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(buttons)
