"""Widgets that show an analysis section: tables, matplotlib charts, summary and message."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.analysis.plots import figure_for
from core.analysis.results import Section, Table
from core.visible_text import NAME_MAX, cut_name, shown_name
from ui.widgets.figure_theme import style_figure
from ui.widgets.theme import set_tone
from ui.widgets.tooltips import wrapped_tooltip

#: a text column is at most about this many characters wide (longer text elides)
MAX_COLUMN_CHARS = 36
MAX_TABLE_ROWS = 14  # taller tables scroll inside themselves


def plain_label(text: str = "", *, wrap: bool = True, bold: bool = False) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if bold:
        font = label.font()
        font.setBold(True)
        label.setFont(font)
    return label


def _fitted(metrics: QFontMetrics, shown: str, name: str, room: int) -> str:
    """``shown`` (``name`` as shown), cut in the middle by :func:`cut_name` (start,
    ``⟨…hash⟩``, end) until it fits ``room`` pixels: Qt's elision kept only the start, so
    names differing past it looked the same (ADR 222)."""
    text, limit = shown, NAME_MAX
    while metrics.horizontalAdvance(text) > room and limit > 16:
        text, limit = cut_name(shown, name, limit), limit - 2
    return text


class TableView(QTableWidget):
    """A read-only table filled from a :class:`~core.analysis.results.Table`."""

    def __init__(self, table: Table, parent: QWidget | None = None) -> None:
        super().__init__(len(table.rows), len(table.columns), parent)
        self.table = table
        widest = self.fontMetrics().horizontalAdvance("n" * MAX_COLUMN_CHARS)
        heads = [table.header(j) for j in range(len(table.columns))]
        self.setHorizontalHeaderLabels([
            _fitted(self.horizontalHeader().fontMetrics(), whole, name, widest - 16)
            for whole, name in zip(heads, table.columns, strict=True)])
        for j, whole in enumerate(heads):  # a long name heading a column is cut
            if len(whole) > 40 and (head := self.horizontalHeaderItem(j)):
                head.setToolTip(wrapped_tooltip(whole, name=table.columns[j]))
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.verticalHeader().setVisible(False)
        self.setWordWrap(False)
        self.setAlternatingRowColors(True)
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        for i, row in enumerate(table.rows):
            for j, value in enumerate(row):
                text = table.display(i, j)
                item = QTableWidgetItem(text)
                if isinstance(value, int | float) and not isinstance(value, bool):
                    item.setTextAlignment(right)
                if isinstance(value, str) and (
                        len(value) > 40
                        or self.fontMetrics().horizontalAdvance(text) > widest - 16):
                    # the cell elided at the right: two long names differing only in the
                    # middle looked the same; cut in the middle with a hash (ADR 217, 222)
                    item.setText(_fitted(self.fontMetrics(), text, value, widest - 16))
                    item.setToolTip(wrapped_tooltip(shown_name(value), name=value))
                self.setItem(i, j, item)
        header = self.horizontalHeader()
        header.setStretchLastSection(False)
        self.resizeColumnsToContents()
        # a 120-character model name widened its column past the window: the numbers
        # went behind a scroll bar at 1920 pixels; it elides now (whole in its tooltip)
        # and the user can drag the column wider
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for j in range(self.columnCount()):
            self.setColumnWidth(j, min(self.columnWidth(j), widest))
        shown = min(len(table.rows), MAX_TABLE_ROWS)
        self._rows_height = max(header.sizeHint().height() + 2 * self.frameWidth() + 4
                                + sum(self.rowHeight(i) for i in range(shown)),
                                header.sizeHint().height() + 30)
        columns = sum(self.columnWidth(j) for j in range(self.columnCount()))
        self._scrolls = len(table.rows) > MAX_TABLE_ROWS
        scroll_width = self.verticalScrollBar().sizeHint().width()
        # narrower than this, the horizontal scroll bar shows (and needs its own height)
        self._columns_width = columns + 2 * self.frameWidth() + (
            scroll_width if self._scrolls else 0)
        self._fit_height(self._scrolls)
        self.setMaximumWidth(columns + 2 * self.frameWidth() + scroll_width + 4)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def _fit_height(self, bar: bool) -> None:
        """Every row (up to MAX_TABLE_ROWS) in view, plus the horizontal scroll bar's
        height when it shows: it covered the last row at 1024 pixels."""
        extra = self.horizontalScrollBar().sizeHint().height() if bar else 0
        self.setFixedHeight(self._rows_height + extra)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._fit_height(self._scrolls or event.size().width() < self._columns_width)

    def texts(self) -> list[list[str]]:
        """Every cell as shown (for tests and copy)."""
        return [[cell.text() if (cell := self.item(i, j)) is not None else ""
                 for j in range(self.columnCount())] for i in range(self.rowCount())]


class ChartView(QWidget):
    """A matplotlib figure in a Qt canvas, at least as tall as the figure was designed."""

    def __init__(self, chart: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # imported on first chart, not at start-up (~0.3 s; issue 15)
        from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg

        self.chart = chart
        self.figure_obj = figure_for(chart)
        style_figure(self.figure_obj)
        self.canvas = FigureCanvasQTAgg(self.figure_obj)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.canvas)
        width, height = self.figure_obj.get_size_inches() * self.figure_obj.dpi
        self.setMinimumSize(int(min(width, 320)), int(height))
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(int(height))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """A theme change recolours the chart."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            style_figure(self.figure_obj, self.palette())
            self.canvas.draw_idle()


def _scroll(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(widget)
    return area


class SectionView(QWidget):
    """One tab: its own controls row, then summary, message, tables and charts.

    Side by side (tables left, charts right) for compact charts; ``stacked`` puts wide
    charts above the tables at full width.
    """

    def __init__(self, key: str, stacked: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.key = key
        self.stacked = stacked
        self.section: Section | None = None
        self.tables: list[TableView] = []
        self.charts: list[ChartView] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        self.controls = QHBoxLayout()
        layout.addLayout(self.controls)
        self.summary = plain_label()
        self.message = plain_label()
        self.message.setObjectName("analyzeMessage")
        set_tone(self.message, "muted", "padding: 16px; font-size: 11pt;", text_only=True)
        layout.addWidget(self.summary)
        layout.addWidget(self.message)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        layout.addWidget(self.splitter, 1)
        self._left = QWidget()
        self._left_layout = QVBoxLayout(self._left)
        self._right = QWidget()
        self._right_layout = QVBoxLayout(self._right)
        if stacked:  # one scrolling column: charts, then tables
            column = QWidget()
            col_layout = QVBoxLayout(column)
            col_layout.setContentsMargins(0, 0, 0, 0)
            col_layout.addWidget(self._right)
            col_layout.addWidget(self._left)
            col_layout.addStretch(1)
            self.splitter.addWidget(_scroll(column))
        else:
            self.splitter.addWidget(_scroll(self._left))
            self.splitter.addWidget(_scroll(self._right))
        self.show_section(None)

    def _clear(self) -> None:
        for lay in (self._left_layout, self._right_layout):
            while lay.count():
                item = lay.takeAt(0)
                widget = item.widget() if item is not None else None
                if widget is not None:
                    # hidden now: deleteLater waits for the event loop (a nested one, a
                    # file dialog open, waits for it to close), and the old notes and
                    # charts were painted over the new ones until then
                    widget.hide()
                    widget.deleteLater()
        self.tables, self.charts = [], []

    def show_section(self, section: Section | None, waiting: str = "") -> None:
        """Fill the tab (None = nothing computed yet; ``waiting`` says why)."""
        self._clear()
        self.section = section
        self.summary.setText("\n".join(section.summary) if section else "")
        self.summary.setVisible(bool(section and section.summary))
        text = waiting if section is None else (section.message or "")
        self.message.setText(text)
        self.message.setVisible(bool(text))
        has_content = bool(section and (section.tables or section.charts))
        self.splitter.setVisible(has_content)
        if not has_content or section is None:
            return
        for table in section.tables:
            self._left_layout.addWidget(plain_label(table.title, bold=True))
            view = TableView(table)
            self.tables.append(view)
            self._left_layout.addWidget(view)
            if table.note:
                note = plain_label(table.note)
                set_tone(note, "muted", text_only=True)
                self._left_layout.addWidget(note)
            self._left_layout.addSpacing(10)
        if not self.stacked:
            self._left_layout.addStretch(1)
        for chart in section.charts:
            chart_view = ChartView(chart)
            self.charts.append(chart_view)
            self._right_layout.addWidget(chart_view)
        if not self.stacked:
            self._right_layout.addStretch(1)
        self._left.setVisible(bool(section.tables))
        self._right.setVisible(bool(section.charts))
        if self.stacked:
            return
        for index, shown in enumerate((bool(section.tables), bool(section.charts))):
            side = self.splitter.widget(index)
            if side is not None:
                side.setVisible(shown)
        if section.tables and section.charts:
            total = max(self.splitter.width(), 1000)
            left = min(max(t.maximumWidth() for t in self.tables) + 40, int(total * 0.6))
            self.splitter.setSizes([left, total - left])

    def table_titled(self, prefix: str) -> TableView | None:
        return next((t for t in self.tables if t.table.title.startswith(prefix)), None)
