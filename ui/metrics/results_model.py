"""Table model over stored metric results (one row per sample × model × metric)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from core.metrics.store import ResultRow, sub_values

Index = QModelIndex | QPersistentModelIndex
COLUMNS = ("Sample", "Model", "Metric", "Value", "Status", "Details")


def details_text(row: ResultRow) -> str:
    """One line: secondary values, the error, or why it does not apply."""
    if row.status == "error":
        return row.error or "error"
    if row.status == "not_applicable":
        return str(row.details.get("reason", "not applicable"))
    parts = [f"{k} {v:.4g}" for k, v in sub_values(row).items()]
    for key in ("target", "ocr", "output_faces"):
        if key in row.details:
            parts.append(f"{key} {row.details[key]!s}"[:60])
    return ", ".join(parts)


class ResultsModel(QAbstractTableModel):
    """Read-only, sortable view of :class:`ResultRow` objects."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[ResultRow] = []
        self.titles: dict[str, str] = {}
        #: the view's last sort request, re-applied when the rows are replaced
        self._sort: tuple[int, Qt.SortOrder] | None = None

    def set_rows(self, rows: list[ResultRow], titles: dict[str, str]) -> None:
        """Replace the rows, keeping the order the user last sorted by."""
        self.beginResetModel()
        self.rows = list(rows)
        self.titles = titles
        if self._sort is not None:
            self.rows.sort(key=self._key(self._sort[0]),
                           reverse=self._sort[1] == Qt.SortOrder.DescendingOrder)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (row.sample_id, row.model, self.titles.get(row.metric, row.metric),
                    "" if row.value is None else f"{row.value:.4f}",
                    row.status.replace("_", " "), details_text(row))[col]
        if role == Qt.ItemDataRole.UserRole:  # sort key
            if col == 3:
                return float("inf") if row.value is None else row.value
            return self.data(index, Qt.ItemDataRole.DisplayRole)
        if role == Qt.ItemDataRole.ToolTipRole and col == 5:
            return details_text(row)
        if role == Qt.ItemDataRole.TextAlignmentRole and col == 3:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _key(self, column: int) -> Any:
        def key(r: ResultRow) -> Any:
            if column == 3:
                return (r.value is None, r.value or 0.0)
            if column == 2:  # the title the column shows, not the internal name
                return self.titles.get(r.metric, r.metric)
            return (r.sample_id, r.model, "", 0, r.status, details_text(r))[column]
        return key

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort by ``column``; the selected row stays selected (persistent indexes move)."""
        self._sort = (column, order)
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        before = [self.rows[i.row()] if i.isValid() else None for i in old]
        self.rows.sort(key=self._key(column), reverse=order == Qt.SortOrder.DescendingOrder)
        position = {id(r): k for k, r in enumerate(self.rows)}
        new = [self.index(position[id(r)], i.column()) if r is not None else QModelIndex()
               for r, i in zip(before, old, strict=True)]
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()
