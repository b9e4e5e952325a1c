"""The thumbnail strip of a sample's images, with drag-and-drop reordering.

Dragging a thumbnail shows a drop indicator between thumbnails with what the drop
would do ("input 2", "no change"); releasing emits a :class:`DropPlan` that the
workspace turns into the same undoable core commands the keys use: ``move_image``
within a role (Ctrl+←/→), ``set_image_role`` into another role's group (I/O/U).
The drag is handled inside the strip with plain mouse events (no ``QDrag``), see
docs/adr/035-strip-drag-and-drop.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPoint, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFontMetrics, QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QAbstractItemView, QApplication, QListWidget, QWidget

from core.curate.detail import ImageItem

ROLE_ORDER = {"input": 0, "output": 1, "unused": 2}
ROLE_COLOURS = {"input": "#1f6fd1", "output": "#1e8a3c", "unused": "#6d6d6d"}
EDGE = 24          # px from a side of the strip where a drag scrolls it
SCROLL_STEP = 14   # px per auto-scroll tick

#: (role, position, row id) of one ``sample_images`` row shown in the strip
RowKey = tuple[str, int, int]


@dataclass(frozen=True)
class DropPlan:
    """What dropping a thumbnail does.

    ``kind`` is "move" (``delta`` places within ``role``, row ``row_id``), "role" (the
    image becomes ``role`` at ``index``), or "refuse" (``reason`` says why).
    """

    kind: str
    role: str = ""
    index: int = 0
    delta: int = 0
    row_id: int | None = None
    reason: str = ""

    @property
    def text(self) -> str:
        """Short text for the drop indicator."""
        if self.kind == "refuse":
            return "✕ " + self.reason.split(";")[0]
        return f"{self.role} {self.index + 1}"


def _rows(item: ImageItem) -> list[RowKey]:
    rows = [(b.role, b.position, b.row_id) for b in item.boxes]
    if item.row_id is not None and item.role:
        rows.append((item.role, item.position, item.row_id))
    return sorted(rows, key=lambda r: (ROLE_ORDER.get(r[0], 9), r[1], r[2]))


def plan_drop(items: list[ImageItem], src: int, target: int, after: bool) -> DropPlan | None:
    """Dropping strip item ``src`` before (or ``after``) strip item ``target``.

    None when the drop changes nothing (same place, or a post image dropped among the
    post's unused images).
    """
    if not (0 <= src < len(items) and 0 <= target < len(items)) or src == target:
        return None
    dragged, over = items[src], items[target]
    own = _rows(dragged)
    if dragged.row_id is not None and dragged.role:
        drag_row: RowKey | None = (dragged.role, dragged.position, dragged.row_id)
    else:
        drag_row = own[0] if own else None
    boxes_only = dragged.row_id is None and bool(dragged.boxes)
    anchors = _rows(over)
    role = anchors[0][0] if anchors else "unused"
    shown = sorted((r for it in items for r in _rows(it) if r[0] == role and r != drag_row),
                   key=lambda r: (r[1], r[2]))
    if not anchors:
        if drag_row is None:
            return None
        index = len(shown)
    elif after:
        index = max(shown.index(r) for r in anchors if r[0] == role) + 1
    else:
        index = shown.index(anchors[0])
    if drag_row is not None and drag_row[0] == role:
        current = sorted((*shown, drag_row), key=lambda r: (r[1], r[2])).index(drag_row)
        if index == current:
            return None
        return DropPlan("move", role, index, index - current, drag_row[2])
    if boxes_only:
        return DropPlan("refuse", role, index, reason="a screenshot's boxes keep their roles "
                        "here; select a box in the viewer and press I or O")
    return DropPlan("role", role, index, row_id=dragged.row_id)


class ImageStrip(QListWidget):
    """Thumbnails left to right; drag one to reorder it or move it to another role."""

    drop_requested = Signal(int, object)   # source row, DropPlan

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.images: list[ImageItem] = []  # not "items": that is QListWidget.items()
        self.setViewMode(QListWidget.ViewMode.IconMode)
        self.setFlow(QListWidget.Flow.LeftToRight)
        self.setWrapping(False)
        self.setMovement(QListWidget.Movement.Static)
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setDragEnabled(False)          # the drag below replaces Qt's item drag
        self._press: tuple[int, QPoint] | None = None
        self.dragging = False
        self.drop_at: tuple[int, bool] | None = None   # (target row, after)
        self.plan: DropPlan | None = None
        self._last = QPoint()
        self._scroll = QTimer(self)
        self._scroll.setInterval(40)
        self._scroll.timeout.connect(self._auto_scroll)

    def set_entries(self, items: list[ImageItem]) -> None:
        """The items behind the rows (set before adding the rows); ends any drag."""
        self.cancel_drag()
        self.images = items

    # -- mouse ------------------------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        """Remember a left press on a thumbnail (it may become a drag)."""
        pos = event.position().toPoint()
        item = self.itemAt(pos)
        self._press = None
        if event.button() == Qt.MouseButton.LeftButton and item is not None and not self.dragging:
            self._press = (self.row(item), pos)
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        """Start the drag past the drag distance, then follow it with the indicator."""
        if self._press is None or not event.buttons() & Qt.MouseButton.LeftButton:
            super().mouseMoveEvent(event)
            return
        pos = event.position().toPoint()
        if not self.dragging:
            if (pos - self._press[1]).manhattanLength() < QApplication.startDragDistance():
                return
            self.dragging = True
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            self._scroll.start()
        self._follow(pos)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        """Drop: emit the plan (nothing when it changes nothing or is outside the strip)."""
        if not self.dragging:
            self._press = None
            super().mouseReleaseEvent(event)
            return
        self._follow(event.position().toPoint())
        src = self._press[0] if self._press else -1
        plan = self.plan
        self.cancel_drag()
        self.setState(QAbstractItemView.State.NoState)
        event.accept()
        if plan is not None:
            self.drop_requested.emit(src, plan)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        """Escape cancels a drag."""
        if self.dragging and event.key() == Qt.Key.Key_Escape:
            self.cancel_drag()
            event.accept()
            return
        super().keyPressEvent(event)

    def cancel_drag(self) -> None:
        """Stop dragging without dropping."""
        was = self.dragging
        self.dragging = False
        self._press = None
        self.drop_at = None
        self.plan = None
        self._scroll.stop()
        if was:
            self.viewport().unsetCursor()
            self.viewport().update()

    # -- drop target -------------------------------------------------------------------------
    def drop_target(self, pos: QPoint) -> tuple[int, bool] | None:
        """(row, after) of the thumbnail nearest ``pos`` horizontally; None off the strip."""
        if not -EDGE <= pos.y() <= self.viewport().height() + EDGE or self.count() == 0:
            return None
        best: tuple[int, int, bool] | None = None
        for row in range(self.count()):
            rect = self.visualItemRect(self.item(row))
            distance = 0 if rect.left() <= pos.x() <= rect.right() else min(
                abs(pos.x() - rect.left()), abs(pos.x() - rect.right()))
            if best is None or distance < best[0]:
                best = (distance, row, pos.x() > rect.center().x())
        assert best is not None
        return best[1], best[2]

    def _follow(self, pos: QPoint) -> None:
        self._last = pos
        self.drop_at = self.drop_target(pos)
        src = self._press[0] if self._press else -1
        self.plan = plan_drop(self.images, src, *self.drop_at) if self.drop_at else None
        self.viewport().update()

    def _auto_scroll(self) -> None:
        bar = self.horizontalScrollBar()
        x = self._last.x()
        step = -SCROLL_STEP if x < EDGE else SCROLL_STEP if x > self.viewport().width() - EDGE \
            else 0
        old = bar.value()
        bar.setValue(old + step)
        if bar.value() != old:
            self._follow(self._last)

    # -- indicator ---------------------------------------------------------------------------
    def indicator_x(self) -> int | None:
        """Viewport x of the drop indicator (None when not dragging over the strip)."""
        if not self.dragging or self.drop_at is None:
            return None
        row, after = self.drop_at
        rect = self.visualItemRect(self.item(row))
        other = row + 1 if after else row - 1
        if 0 <= other < self.count():     # the middle of the gap between two thumbnails
            near = self.visualItemRect(self.item(other))
            return (rect.right() + near.left()) // 2 if after else (near.right() + rect.left()) // 2
        return rect.right() + 4 if after else rect.left() - 4

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        """The thumbnails, then (while dragging) the source dimmed and the drop line."""
        super().paintEvent(event)
        x = self.indicator_x()
        if x is None or self._press is None:
            return
        painter = QPainter(self.viewport())
        painter.fillRect(self.visualItemRect(self.item(self._press[0])),
                         QColor(255, 255, 255, 150))
        plan = self.plan
        colour = QColor("#c0392b" if plan is not None and plan.kind == "refuse" else
                        ROLE_COLOURS.get(plan.role, "#6d6d6d") if plan is not None else
                        "#9a9a9a")
        height = self.viewport().height()
        painter.setPen(QPen(colour, 3))
        painter.drawLine(x, 4, x, height - 4)
        painter.setBrush(colour)
        painter.drawEllipse(QPoint(x, 5), 4, 4)
        painter.drawEllipse(QPoint(x, height - 5), 4, 4)
        text = plan.text if plan is not None else "no change"
        metrics = QFontMetrics(painter.font())
        width = min(metrics.horizontalAdvance(text) + 10, self.viewport().width() - 4)
        left = max(2, min(x - width // 2, self.viewport().width() - width - 2))
        badge = QRect(left, height // 2 - metrics.height() // 2 - 2, width,
                      metrics.height() + 4)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.drawRoundedRect(badge, 4, 4)
        painter.setPen(QColor("white"))
        painter.drawText(badge, int(Qt.AlignmentFlag.AlignCenter), metrics.elidedText(
            text, Qt.TextElideMode.ElideRight, width - 6))
        painter.end()
