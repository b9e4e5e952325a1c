"""Dialog showing what an import did and, line by line, what failed and why."""

from __future__ import annotations

from pathlib import Path
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


def _where(entry: dict[str, Any]) -> str:
    """"12" for a JSON Lines line; "train row 3" (or the file) for a dataset row."""
    if "line" in entry:
        return str(entry["line"])
    if entry.get("row") is None:
        return str(entry.get("file", ""))
    return f"{entry.get('split', '')} row {entry['row']}".strip()


def _kind(report: dict[str, Any]) -> str:
    """"folder" for a dataset folder (the usual case), else "file"."""
    return "folder" if Path(str(report.get("source", ""))).is_dir() else "file"


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
        rows = "rows" in report  # a dataset import names split and row, not lines
        unit = "row" if rows else "line"
        summary = (f"{report.get('imported', 0)} imported, {report.get('updated', 0)} updated, "
                   f"{report.get('unchanged', 0)} unchanged. "
                   f"{len(errors) + report.get('errors_not_listed', 0)} {unit}(s) could not be "
                   f"imported. Images: {images.get('fetched', 0)} stored, "
                   f"{images.get('failed', 0)} failed.")
        stored = sum(report.get(k, 0) for k in ("imported", "updated", "unchanged"))
        if not errors and not image_errors:  # a dataset is a folder (or one file) of rows
            summary += ("\nEverything in the file was imported." if not rows else
                        f"\nEvery row in the dataset {_kind(report)} was imported.")
        elif stored == 0:
            summary += (f"\nNothing in {file_name} could be imported. " + (
                "Each problem below names the row and column." if rows else "Is it a JSON Lines file "
                "of posts or samples (one JSON object per line, UTF-8)?"))
        else:
            summary += (f"\nEverything valid was imported; fix the {unit}s below and import "
                        f"again (unchanged {unit}s are skipped).")
        self.summary = QLabel(summary)
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.tabs = QTabWidget()
        self.line_table = _table(["Row" if rows else "Line", "Problem"],
                                 [[_where(e), e["error"]] for e in errors])
        self.image_table = _table(["Image", "Rows" if rows else "Lines", "Problem"],
                                  [[e.get("column") or e["url"], _where(e)
                                    if rows else ", ".join(map(str, e.get("lines", []))),
                                    e["error"]] for e in image_errors])
        self.tabs.addTab(self.line_table, f"{'Rows' if rows else 'Lines'} with errors "
                                          f"({len(errors)})")
        self.tabs.addTab(self.image_table, f"Images that failed ({len(image_errors)})")
        notes = report.get("notes", [])
        if notes:
            self.tabs.addTab(_table(["Row" if rows else "Line", "Note"],
                                    [[_where(n), n["note"]] for n in notes]),
                             f"Notes ({len(notes)})")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(buttons)
