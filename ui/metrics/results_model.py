"""Table model over stored metric results (one row per sample × model × metric)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from core.metrics.detail_labels import detail_label, detail_unit
from core.metrics.store import ResultRow, sub_values
from core.visible_text import shown_name

Index = QModelIndex | QPersistentModelIndex
COLUMNS = ("Sample", "Model", "Metric", "Better", "Value", "Status", "Details")
VALUE, DETAILS = COLUMNS.index("Value"), COLUMNS.index("Details")


def better_text(higher_is_better: bool | None) -> str:
    """What the "Better" column says: which way a metric's values improve."""
    if higher_is_better is None:
        return ""
    return "↑ higher" if higher_is_better else "↓ lower"


def details_text(row: ResultRow) -> str:
    """One line: secondary values, the error, or why it does not apply."""
    if row.status == "error":
        return row.error or "error"
    if row.status == "not_applicable":
        return str(row.details.get("reason", "not applicable"))
    parts = [f"{detail_label(k)} {v:.4g}{detail_unit(k)}" for k, v in sub_values(row).items()]
    for key in ("target", "ocr", "output_faces"):
        if key in row.details:
            parts.append(f"{detail_label(key)} {row.details[key]!s}"[:60])
    return ", ".join(parts)


class ResultsModel(QAbstractTableModel):
    """Read-only, sortable view of :class:`ResultRow` objects."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[ResultRow] = []
        self.titles: dict[str, str] = {}
        self.higher: dict[str, bool] = {}
        #: the view's last sort request, re-applied when the rows are replaced
        self._sort: tuple[int, Qt.SortOrder] | None = None

    def set_rows(self, rows: list[ResultRow], titles: dict[str, str],
                 higher: dict[str, bool] | None = None) -> None:
        """Replace the rows, keeping the order the user last sorted by; ``higher`` says
        per metric whether higher values are better (the "Better" column)."""
        self.beginResetModel()
        self.rows = list(rows)
        self.titles = titles
        self.higher = higher or {}
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
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole and COLUMNS[section] == "Better":
            return "Whether higher or lower values of the metric are better"
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._cells(row)[col]
        if role == Qt.ItemDataRole.UserRole:  # sort key
            if col == VALUE:
                return float("inf") if row.value is None else row.value
            return self.data(index, Qt.ItemDataRole.DisplayRole)
        if role == Qt.ItemDataRole.ToolTipRole:  # a long model name or title elides
            return details_text(row) if col == DETAILS else self._cells(row)[col] or None
        if role == Qt.ItemDataRole.TextAlignmentRole and col == VALUE:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _cells(self, row: ResultRow) -> tuple[str, ...]:
        # a model "A " must not look like "A", nor a hidden character vanish (ADR 215, 217)
        return (shown_name(row.sample_id), shown_name(row.model),
                self.titles.get(row.metric, row.metric),
                better_text(self.higher.get(row.metric)),
                "" if row.value is None else f"{row.value:.4f}",
                row.status.replace("_", " "), details_text(row))

    def _key(self, column: int) -> Any:
        def key(r: ResultRow) -> Any:
            if column == VALUE:
                return (r.value is None, r.value or 0.0)
            return self._cells(r)[column]  # what the column shows (titles, not names)
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
