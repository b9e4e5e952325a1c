"""The sample list as a virtual table: ids of the filter in order, rows fetched by page."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QGuiApplication, QPalette

from core.curate.queries import COLUMNS, SampleLister, SampleRow, fetch_rows
from core.selection import SampleFilter
from core.store.errors import ProjectError
from ui.widgets.theme import tone_text
from ui.widgets.tooltips import plain_tooltip

PAGE = 200
MAX_PAGES = 40
_SCANS = 4  # row lookups by scanning the id list before a map of it pays
QUALITY_TONES = {"Benchmark": "success", "Analysis": "warning", "Trash": "danger"}
_Index = QModelIndex | QPersistentModelIndex


class SampleListModel(QAbstractTableModel):
    """Columns id, prompt, quality, split, review, #in, #out, modified; sortable."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.project: Any = None
        self.lister: SampleLister | None = None
        self.selection = SampleFilter()
        self.sort_key = "id"
        self.descending = False
        self.ids: list[str] = []
        self._rows_of: dict[str, int] | None = None
        self._scans = 0  # lookups by scanning since the list changed
        self._pages: OrderedDict[int, dict[str, SampleRow]] = OrderedDict()

    # -- query -----------------------------------------------------------------------
    def set_project(self, project: Any) -> None:
        """Show ``project`` (None = empty list)."""
        self.project = project
        self.lister = SampleLister(project) if project is not None else None
        self.reload()

    def set_filter(self, selection: SampleFilter) -> None:
        """Show the samples ``selection`` selects.  When they are exactly the samples
        shown (a keystroke that narrows nothing: a space, a letter of a word all of them
        hold) nothing is reset, so the list keeps its selection and is not repainted;
        edits refresh rows through :meth:`refresh_ids` and :meth:`reload`, not here."""
        self.selection = selection
        if self.lister is None:
            self.reload()
            return
        ids = self.lister.ordered_ids(selection, self.sort_key, self.descending)
        if ids == self.ids:
            return
        self.beginResetModel()
        self._set_ids(ids)
        self.endResetModel()

    def reload(self) -> None:
        """Re-run the query (after a filter/sort change or new samples)."""
        self.beginResetModel()
        self._set_ids(self.lister.ordered_ids(self.selection, self.sort_key, self.descending)
                      if self.lister is not None else [])
        self.endResetModel()

    def _set_ids(self, ids: list[str]) -> None:
        self.ids = ids
        self._rows_of = None
        self._scans = 0
        self._pages.clear()

    def refresh_ids(self, ids: tuple[str, ...] | list[str]) -> None:
        """Re-read the rows of ``ids`` (after an edit) without re-filtering."""
        if len(ids) > PAGE:  # a bulk edit: forget every page, one signal for the lot
            self._pages.clear()
            if self.ids:
                self.dataChanged.emit(self.index(0, 0),
                                      self.index(len(self.ids) - 1, len(COLUMNS) - 1))
            return
        rows = [self.row_of(i) for i in ids]
        for page in {r // PAGE for r in rows if r is not None}:
            self._pages.pop(page, None)
        for r in rows:
            if r is not None:
                self.dataChanged.emit(self.index(r, 0), self.index(r, len(COLUMNS) - 1))

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Qt's sort hook: re-query ordered by ``column``."""
        self.sort_key = COLUMNS[column][0]
        self.descending = order == Qt.SortOrder.DescendingOrder
        self.reload()

    # -- lookup --------------------------------------------------------------------------
    def id_at(self, row: int) -> str | None:
        """Sample id of ``row`` (None when out of range)."""
        return self.ids[row] if 0 <= row < len(self.ids) else None

    def row_of(self, sample_id: str) -> int | None:
        """Row of ``sample_id`` in the current list, or None."""
        if self._rows_of is None:
            # after a keystroke in the search box the workspace asks once or twice (the
            # sample kept, a typed id): a scan in C beats mapping 30,000 ids each time
            self._scans += 1
            if self._scans <= _SCANS:
                try:
                    return self.ids.index(sample_id)
                except ValueError:
                    return None
            self._rows_of = {sid: k for k, sid in enumerate(self.ids)}
        return self._rows_of.get(sample_id)

    def row_data(self, row: int) -> SampleRow | None:
        """The fetched row (fetching its page if needed)."""
        sid = self.id_at(row)
        if sid is None or self.project is None:
            return None
        page = row // PAGE
        rows = self._pages.get(page)
        if rows is None:
            rows = fetch_rows(self.project, self.ids[page * PAGE:(page + 1) * PAGE])
            self._pages[page] = rows
            while len(self._pages) > MAX_PAGES:
                self._pages.popitem(last=False)
        else:
            self._pages.move_to_end(page)
        return rows.get(sid)

    # -- Qt model API ----------------------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.ids)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][1]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.UserRole:
            return self.id_at(index.row())
        if role not in _ROLES:
            return None
        row = self._row_or_none(index.row())
        return None if row is None else _cell(row, COLUMNS[index.column()][0], role)

    def multiData(self, index: _Index, roles: Any) -> None:  # noqa: N802
        """Every role of a cell in one call (what the view's delegate asks for when it
        paints): one Python call per cell instead of one per role.  Painting asks for
        seven roles of every visible cell after each keystroke in the search box, so
        the roles are compared as plain ints and the alignment is looked up."""
        if not index.isValid():
            return
        r, column = index.row(), index.column()
        row = self._row_or_none(r)
        key = _KEYS[column]
        for data in roles:
            role = data.role()
            if role == _DISPLAY:
                value = None if row is None else _display(key, row.value(key))
            elif role == _ALIGN:
                value = None if row is None else _ALIGNMENTS[column]
            elif role == _FOREGROUND:
                value = None if row is None else _cell(row, key, role)
            elif role == _USER:
                value = self.id_at(r)
            elif role == _TOOLTIP:
                value = None if row is None else _cell(row, key, role)
            else:
                data.clearData()
                continue
            data.setData(value)

    def _row_or_none(self, row: int) -> SampleRow | None:
        try:
            return self.row_data(row)
        except ProjectError:  # the project was closed under us: show nothing, never raise
            return None


_ROLES = frozenset({Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole,
                    Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.TextAlignmentRole})
_CENTRED = frozenset({"n_inputs", "n_outputs", "modified", "review_status", "split"})
_KEYS = tuple(column[0] for column in COLUMNS)
_DISPLAY, _ALIGN, _FOREGROUND, _TOOLTIP, _USER = (int(r) for r in (
    Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.TextAlignmentRole,
    Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.UserRole))


def _cell(row: SampleRow, key: str, role: int) -> Any:
    """What cell ``key`` of ``row`` shows for ``role``."""
    if role == Qt.ItemDataRole.TextAlignmentRole:
        return (Qt.AlignmentFlag.AlignCenter if key in _CENTRED
                else Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    if role == Qt.ItemDataRole.ForegroundRole:
        tone = QUALITY_TONES.get(row.quality or "") if key == "quality" else None
        return _tone_brush(tone) if tone else None
    if role == Qt.ItemDataRole.ToolTipRole:
        return {"prompt": plain_tooltip(row.prompt) if row.prompt else None,
                "review_status": row.review_status,
                "modified": "prompt edited" if row.modified else "original prompt",
                "split": row.split}.get(key)
    return _display(key, row.value(key))


_BRUSHES: dict[tuple[str, int], QBrush] = {}


def _tone_brush(tone: str) -> QBrush:
    """The text brush of ``tone`` on list rows, worked out once per palette (finding a
    readable shade takes ~15 contrast computations; painting asks for it on every
    visible quality cell)."""
    key = (tone, QGuiApplication.palette().cacheKey())
    brush = _BRUSHES.get(key)
    if brush is None:
        if len(_BRUSHES) > 32:  # palettes come and go with themes: keep only recent ones
            _BRUSHES.clear()
        brush = _BRUSHES[key] = QBrush(tone_text(tone, role=QPalette.ColorRole.Base))
    return brush


#: each column's alignment (what ``_cell`` answers for TextAlignmentRole)
_ALIGNMENTS = tuple(_cell(None, key, Qt.ItemDataRole.TextAlignmentRole)  # type: ignore[arg-type]
                    for key in _KEYS)


def _display(key: str, value: Any) -> str:
    if key == "modified":
        return "✎" if value else ""
    if key == "review_status":
        return "✓" if value == "reviewed" else ""
    if key == "split":
        return {"text-to-image": "t2i", "image-to-image": "i2i"}.get(value or "", "")
    if key == "prompt":
        return " ".join(str(value).split())
    if value is None:
        return ""
    return str(value)
