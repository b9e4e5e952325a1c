"""The sample list's table view: columns that fit narrow windows, and a header that
stays fast with 30,000 rows selected.

- The Prompt column stretches; the small columns have widths from the font.  When the
  Prompt column would drop below :data:`MIN_PROMPT` px, the least useful columns are
  hidden in turn (Ed., #In, #Out, Split) and come back when there is room.  Right-click
  the header to show or hide any column yourself: that choice is kept.
- IDs are elided in the middle (the distinguishing end stays visible), the rest at the
  right; the full prompt is the tooltip.
- :class:`ListHeader` paints its sections itself: Qt's own header asks the selection
  model "is this whole column selected?" for every section on every repaint, which
  walks every selected row through the (Python) model — 0.3 s after selecting 30,000
  rows, every time.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPoint, QRect, Qt
from PySide6.QtGui import QPainter, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QMenu,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionHeaderV2,
    QStyleOptionViewItem,
    QTableView,
    QWidget,
)

from core.curate.queries import COLUMN_KEYS, COLUMNS

#: the Prompt column never gets narrower than this while other columns can give way
MIN_PROMPT = 160
#: the sample for each small column's width (header or widest value, whichever is wider)
_WIDTH_TEXT = {"id": "demo-000", "quality": "Benchmark", "split": "i2i", "review_status": "✓",
               "n_inputs": "9", "n_outputs": "9", "modified": "✎"}
#: hidden first when the window is narrow
HIDE_ORDER = ("modified", "n_inputs", "n_outputs", "split")


class ListHeader(QHeaderView):
    """A horizontal header that draws its sections without asking the selection model
    about whole columns (see the module docstring); sort indicator and eliding kept."""

    def paintSection(self, painter: QPainter, rect: QRect, logical: int) -> None:  # noqa: N802
        if not rect.isValid():
            return
        opt = QStyleOptionHeaderV2()
        self.initStyleOption(opt)
        opt.rect = rect
        opt.section = logical
        opt.textAlignment = self.defaultAlignment()
        opt.textElideMode = Qt.TextElideMode.ElideRight
        model = self.model()
        text = model.headerData(logical, self.orientation(),
                                Qt.ItemDataRole.DisplayRole) if model is not None else None
        opt.text = "" if text is None else str(text)
        if self.isSortIndicatorShown() and self.sortIndicatorSection() == logical:
            opt.sortIndicator = (QStyleOptionHeaderV2.SortIndicator.SortDown
                                 if self.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
                                 else QStyleOptionHeaderV2.SortIndicator.SortUp)
        visual = self.visualIndex(logical)
        first, last = visual == 0, visual == self.count() - 1
        opt.position = (QStyleOptionHeaderV2.SectionPosition.OnlyOneSection if first and last
                        else QStyleOptionHeaderV2.SectionPosition.Beginning if first
                        else QStyleOptionHeaderV2.SectionPosition.End if last
                        else QStyleOptionHeaderV2.SectionPosition.Middle)
        painter.save()
        self.style().drawControl(QStyle.ControlElement.CE_Header, opt, painter, self)
        painter.restore()


class _ElideDelegate(QStyledItemDelegate):
    """The ID column's delegate: elides in the middle (only there: a Python delegate on
    every cell would double the cost of painting the list)."""

    def initStyleOption(self, option: QStyleOptionViewItem,  # noqa: N802
                        index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideMiddle


class SampleTable(QTableView):
    """The sample list view; see the module docstring for its column behaviour."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHorizontalHeader(ListHeader(Qt.Orientation.Horizontal, self))
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setItemDelegateForColumn(COLUMN_KEYS.index("id"), _ElideDelegate(self))
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWordWrap(False)
        self.setAlternatingRowColors(True)
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(22)
        header = self.horizontalHeader()
        header.setMinimumSectionSize(18)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._header_menu)
        #: columns the user showed (True) or hid (False) from the header menu
        self.user_choice: dict[str, bool] = {}
        #: what the empty list says (e.g. that the search found nothing)
        self.placeholder = ""

    def setModel(self, model: Any) -> None:  # noqa: N802
        super().setModel(model)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(COLUMN_KEYS.index("prompt"), QHeaderView.ResizeMode.Stretch)
        for key, width in self.natural_widths().items():
            header.resizeSection(COLUMN_KEYS.index(key), width)
        self.fit_columns()

    def natural_widths(self) -> dict[str, int]:
        """The width each small column needs for its header and values (from the font)."""
        fm = self.fontMetrics()
        widths = {}
        for key, header, _sql in COLUMNS:
            if key != "prompt":
                text = max(header, _WIDTH_TEXT.get(key, header), key=fm.horizontalAdvance)
                widths[key] = fm.horizontalAdvance(text) + 16
        widths["id"] = max(widths["id"], fm.horizontalAdvance("s000000") + 14)
        return widths

    def width_needed(self, every_column: bool = False) -> int:
        """Width the view needs for ID, Quality, Rev. (or ``every_column``) and a Prompt
        of :data:`MIN_PROMPT`."""
        widths = self.natural_widths()
        kept = [k for k in COLUMN_KEYS
                if k != "prompt" and (every_column or k not in HIDE_ORDER)]
        return (sum(widths[k] for k in kept) + MIN_PROMPT + 2 * self.frameWidth()
                + self.verticalScrollBar().sizeHint().width())

    def prompt_width(self) -> int:
        """How wide the Prompt column is now."""
        return self.horizontalHeader().sectionSize(COLUMN_KEYS.index("prompt"))

    def fit_columns(self) -> None:
        """Hide (or bring back) the optional columns so Prompt keeps :data:`MIN_PROMPT`."""
        header = self.horizontalHeader()
        room = self.viewport().width()
        if room <= 0:
            return
        widths = self.natural_widths()
        shown = {key: self.user_choice.get(key, True) for key in COLUMN_KEYS}
        for key in HIDE_ORDER:  # hide in order until Prompt has its minimum
            used = sum(header.sectionSize(COLUMN_KEYS.index(k)) or widths.get(k, 0)
                       for k in COLUMN_KEYS if k != "prompt" and shown[k])
            if room - used >= MIN_PROMPT:
                break
            if key not in self.user_choice:
                shown[key] = False
        for k, key in enumerate(COLUMN_KEYS):
            if header.isSectionHidden(k) == shown[key]:
                header.setSectionHidden(k, not shown[key])
                if shown[key] and key != "prompt":
                    header.resizeSection(k, widths[key])

    def resizeEvent(self, event: Any) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.fit_columns()

    def paintEvent(self, event: Any) -> None:  # noqa: N802
        """The rows, or the placeholder when there are none."""
        super().paintEvent(event)
        model = self.model()
        if self.placeholder and model is not None and model.rowCount() == 0:
            painter = QPainter(self.viewport())
            painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(self.viewport().rect().adjusted(12, 12, -12, -12),
                             int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop
                                 | Qt.TextFlag.TextWordWrap), self.placeholder)
            painter.end()

    def _header_menu(self, pos: QPoint) -> QMenu:
        menu = QMenu(self)
        header = self.horizontalHeader()
        for k, (key, title, _sql) in enumerate(COLUMNS):
            if key in ("id", "prompt"):
                continue
            action = menu.addAction(title)
            action.setCheckable(True)
            action.setChecked(not header.isSectionHidden(k))
            action.toggled.connect(lambda on, key=key: self.choose_column(key, on))
        menu.addSeparator()
        menu.addAction("Fit Columns to Width", self.reset_columns)
        menu.popup(header.mapToGlobal(pos))
        self._menu = menu
        return menu

    def choose_column(self, key: str, shown: bool) -> None:
        """Show or hide column ``key`` for good (the automatic fitting leaves it alone)."""
        self.user_choice[key] = shown
        self.fit_columns()

    def reset_columns(self) -> None:
        """Forget the user's column choices and fit the columns to the width again."""
        self.user_choice.clear()
        self.fit_columns()
