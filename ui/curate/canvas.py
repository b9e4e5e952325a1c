"""Zoomable, pannable image viewer that draws, moves, resizes and nudges boxes.

Boxes are kept and reported in source-image pixels (x, y, w, h); the canvas only
emits signals, and the workspace turns them into undoable core commands.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRect, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QImage,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

ROLE_COLOURS = {"input": QColor("#2e86de"), "output": QColor("#e67e22")}
HANDLE = 7
MIN_SCALE, MAX_SCALE = 0.05, 32.0


@dataclass
class CanvasBox:
    """A box as the canvas shows it."""

    row_id: int
    role: str
    rect: QRect  # source pixels


class ImageCanvas(QWidget):
    """Shows one image; with ``draw_mode`` on, a left drag draws a box."""

    box_drawn = Signal(QRect, str)          # new box (source pixels), role
    box_changed = Signal(int, QRect, bool)  # row id, new rect, is a keyboard nudge
    box_deleted = Signal(int)
    box_selected = Signal(object)           # row id or None
    preview_changed = Signal(object)        # QRect being drawn/moved, or None

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.setMinimumSize(240, 200)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.image: QImage | None = None
        self.message = "No image"
        self.boxes: list[CanvasBox] = []
        self.selected: int | None = None
        self.draw_mode = False
        #: boxes can be selected but not moved, resized, drawn or deleted (read-only project)
        self.locked = False
        self.draw_role = "output"
        self.scale = 1.0
        self.offset = QPointF(0, 0)
        self._fit = True
        self._drag: str | None = None      # "draw" | "move" | "resize" | "pan"
        self._start = QPointF()
        self._origin = QRect()
        self._corner = 0
        self._temp: QRect | None = None

    # -- content -----------------------------------------------------------------------
    def set_image(self, image: QImage | None, message: str = "") -> None:
        """Show ``image`` fitted to the widget, or ``message`` when it is None."""
        self.image = image
        self.message = message or "No image"
        self.boxes, self.selected, self._temp, self._drag = [], None, None, None
        self.fit()

    def set_boxes(self, boxes: list[CanvasBox]) -> None:
        """Replace the boxes (the selection is kept when that box still exists)."""
        self.boxes = boxes
        if self.selected not in {b.row_id for b in boxes}:
            self.selected = None
        self.update()

    def select(self, row_id: int | None) -> None:
        """Select a box (None = none)."""
        self.selected = row_id
        self.box_selected.emit(row_id)
        self.update()

    def selected_box(self) -> CanvasBox | None:
        """The selected box, if any."""
        return next((b for b in self.boxes if b.row_id == self.selected), None)

    # -- geometry ------------------------------------------------------------------------
    def fit(self) -> None:
        """Fit the whole image into the widget."""
        self._fit = True
        if self.image is not None and not self.image.isNull():
            iw, ih = self.image.width(), self.image.height()
            self.scale = max(MIN_SCALE, min(self.width() / iw, self.height() / ih, 8.0))
            self.offset = QPointF((self.width() - iw * self.scale) / 2,
                                  (self.height() - ih * self.scale) / 2)
        self.update()

    def set_zoom(self, scale: float, anchor: QPointF | None = None) -> None:
        """Zoom to ``scale`` keeping ``anchor`` (widget point; default centre) in place."""
        scale = max(MIN_SCALE, min(MAX_SCALE, scale))
        anchor = anchor if anchor is not None else QPointF(self.width() / 2, self.height() / 2)
        at = self.to_image(anchor)
        self.scale = scale
        self.offset = QPointF(anchor.x() - at.x() * scale, anchor.y() - at.y() * scale)
        self._fit = False
        self.update()

    def to_image(self, p: QPointF) -> QPointF:
        """Widget point → source-image coordinates."""
        return QPointF((p.x() - self.offset.x()) / self.scale,
                       (p.y() - self.offset.y()) / self.scale)

    def to_widget(self, p: QPointF) -> QPointF:
        """Source-image coordinates → widget point."""
        return QPointF(self.offset.x() + p.x() * self.scale, self.offset.y() + p.y() * self.scale)

    def widget_rect(self, r: QRect) -> QRectF:
        """A source-pixel rectangle in widget coordinates."""
        tl = self.to_widget(QPointF(r.x(), r.y()))
        return QRectF(tl.x(), tl.y(), r.width() * self.scale, r.height() * self.scale)

    def _clip(self, r: QRect) -> QRect:
        if self.image is None:
            return r
        return r.intersected(QRect(0, 0, self.image.width(), self.image.height()))

    def _rect_between(self, a: QPointF, b: QPointF) -> QRect:
        x0, x1 = sorted((_px(a.x()), _px(b.x())))
        y0, y1 = sorted((_px(a.y()), _px(b.y())))
        return self._clip(QRect(x0, y0, x1 - x0, y1 - y0))

    def _hit(self, pos: QPointF) -> tuple[CanvasBox | None, int]:
        """(box under ``pos``, corner 1-4 or 0 for inside)."""
        order = sorted(self.boxes, key=lambda b: b.row_id != self.selected)
        for box in order:
            wr = self.widget_rect(box.rect)
            corners = [wr.topLeft(), wr.topRight(), wr.bottomLeft(), wr.bottomRight()]
            for k, c in enumerate(corners, 1):
                if abs(c.x() - pos.x()) <= HANDLE and abs(c.y() - pos.y()) <= HANDLE:
                    return box, k
        for box in order:
            if self.widget_rect(box.rect).contains(pos):
                return box, 0
        return None, 0

    # -- mouse ---------------------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        pos = event.position()
        self._start = pos
        if self.image is None:
            return
        if event.button() in (Qt.MouseButton.MiddleButton, Qt.MouseButton.RightButton):
            self._drag = "pan"
            return
        if event.button() != Qt.MouseButton.LeftButton:
            return
        box, corner = self._hit(pos)
        if box is not None and self.locked:
            self.select(box.row_id)
            self._drag = "pan"
        elif box is not None:
            self.select(box.row_id)
            self._drag = "resize" if corner else "move"
            self._corner = corner
            self._origin = QRect(box.rect)
            self._temp = QRect(box.rect)
        elif self.draw_mode and not self.locked:
            self.select(None)
            self._drag = "draw"
            self._temp = None
        else:
            self.select(None)
            self._drag = "pan"

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        pos = event.position()
        if self._drag is None:
            box, corner = self._hit(pos) if self.boxes else (None, 0)
            shape = (Qt.CursorShape.SizeFDiagCursor if corner in (1, 4) else
                     Qt.CursorShape.SizeBDiagCursor if corner in (2, 3) else
                     Qt.CursorShape.SizeAllCursor if box is not None else
                     Qt.CursorShape.CrossCursor if self.draw_mode else
                     Qt.CursorShape.OpenHandCursor)
            self.setCursor(shape)
            return
        if self._drag == "pan":
            self.offset += pos - self._start
            self._start = pos
            self._fit = False
        elif self._drag == "draw":
            self._temp = self._rect_between(self.to_image(self._start), self.to_image(pos))
        elif self._drag == "move":
            d = (pos - self._start) / self.scale
            r = QRect(self._origin)
            r.translate(_px(d.x()), _px(d.y()))
            self._temp = self._keep_inside(r)
        elif self._drag == "resize":
            self._temp = self._resized(self.to_image(pos))
        if self._drag != "pan":
            self.preview_changed.emit(self._temp)
        self.update()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        drag, temp = self._drag, self._temp
        self._drag, self._temp = None, None
        if drag == "draw":
            temp = self._rect_between(self.to_image(self._start), self.to_image(event.position()))
            if temp.width() >= 2 and temp.height() >= 2:
                self.box_drawn.emit(temp, self.draw_role)
        elif drag in ("move", "resize") and temp is not None and temp != self._origin \
                and self.selected is not None and temp.width() >= 1 and temp.height() >= 1:
            self.box_changed.emit(self.selected, temp, False)
        if drag != "pan":
            self.preview_changed.emit(None)
        self.update()

    def _keep_inside(self, r: QRect) -> QRect:
        if self.image is None:
            return r
        r.moveLeft(max(0, min(r.left(), self.image.width() - r.width())))
        r.moveTop(max(0, min(r.top(), self.image.height() - r.height())))
        return r

    def _resized(self, p: QPointF) -> QRect:
        o = self._origin
        left, top, right, bottom = o.left(), o.top(), o.left() + o.width(), o.top() + o.height()
        x, y = _px(p.x()), _px(p.y())
        if self._corner in (1, 3):
            left = x
        else:
            right = x
        if self._corner in (1, 2):
            top = y
        else:
            bottom = y
        return self._rect_between(QPointF(left, top), QPointF(right, bottom))

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802
        if self.image is None:
            return
        steps = event.angleDelta().y() / 120
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.set_zoom(self.scale * (1.25 ** steps), event.position())
        else:
            self.offset += QPointF(event.angleDelta().x() / 2, event.angleDelta().y() / 2)
            self._fit = False
            self.update()

    # -- keys ------------------------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        key, mods = event.key(), event.modifiers()
        step = 10 if mods & Qt.KeyboardModifier.ShiftModifier else 1
        moves: dict[int, tuple[int, int]] = {
            Qt.Key.Key_Left: (-step, 0), Qt.Key.Key_Right: (step, 0),
            Qt.Key.Key_Up: (0, -step), Qt.Key.Key_Down: (0, step)}
        box = None if self.locked else self.selected_box()
        if key in moves and box is not None:
            dx, dy = moves[key]
            r = QRect(box.rect)
            if mods & Qt.KeyboardModifier.AltModifier:  # Alt+arrows resize
                r.setWidth(max(1, r.width() + dx))
                r.setHeight(max(1, r.height() + dy))
                r = self._clip(r)
            else:
                r = self._keep_inside(r.translated(dx, dy))
            if r != box.rect:
                self.box_changed.emit(box.row_id, r, True)
        elif key in moves:
            dx, dy = moves[key]
            self.offset -= QPointF(dx * 40 / step, dy * 40 / step)
            self._fit = False
            self.update()
        elif key in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and box is not None:
            self.box_deleted.emit(box.row_id)
        elif key == Qt.Key.Key_Tab and self.boxes and not mods:
            ids = [b.row_id for b in self.boxes]
            k = ids.index(self.selected) + 1 if self.selected in ids else 0
            self.select(ids[k % len(ids)])
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.set_zoom(self.scale * 1.25)
        elif key == Qt.Key.Key_Minus:
            self.set_zoom(self.scale / 1.25)
        elif key == Qt.Key.Key_0:
            self.fit()
        elif key == Qt.Key.Key_Escape and (self._drag or self.selected is not None):
            self._drag, self._temp = None, None
            self.select(None)
        else:
            super().keyPressEvent(event)

    def focusNextPrevChild(self, next: bool) -> bool:  # noqa: N802, A002
        return False if self.boxes else super().focusNextPrevChild(next)

    # -- painting ----------------------------------------------------------------------------
    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        if self._fit:
            self.fit()
        super().resizeEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        p = QPainter(self)
        p.fillRect(self.rect(), QColor("#2b2b2b"))
        if self.image is None:
            p.setPen(QColor("#f0f0f0"))
            p.drawText(self.rect().adjusted(16, 16, -16, -16),
                       int(Qt.AlignmentFlag.AlignCenter) | int(Qt.TextFlag.TextWordWrap),
                       self.message)
            return
        target = self.widget_rect(QRect(0, 0, self.image.width(), self.image.height()))
        p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, self.scale < 1)
        p.drawImage(target, self.image)
        counts = {"input": 0, "output": 0}
        for box in self.boxes:
            rect = self._temp if (box.row_id == self.selected and self._temp is not None
                                  and self._drag in ("move", "resize")) else box.rect
            counts[box.role] = counts.get(box.role, 0) + 1
            self._paint_box(p, rect, box.role, f"{box.role} {counts[box.role]}",
                            box.row_id == self.selected)
        if self._drag == "draw" and self._temp is not None:
            self._paint_box(p, self._temp, self.draw_role, f"new {self.draw_role}", True)

    def _paint_box(self, p: QPainter, rect: QRect, role: str, label: str, selected: bool) -> None:
        colour = ROLE_COLOURS.get(role, QColor("#aaaaaa"))
        wr = self.widget_rect(rect)
        p.setPen(QPen(colour, 3 if selected else 2,
                      Qt.PenStyle.SolidLine if selected else Qt.PenStyle.DashLine))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(wr)
        p.fillRect(QRectF(wr.x(), wr.y() - 16, 8 + 7 * len(label), 16), colour)
        p.setPen(QColor("white"))
        p.drawText(QRectF(wr.x() + 4, wr.y() - 16, 7 * len(label), 16),
                   int(Qt.AlignmentFlag.AlignVCenter), label)
        if selected:
            for c in (wr.topLeft(), wr.topRight(), wr.bottomLeft(), wr.bottomRight()):
                p.fillRect(QRectF(c.x() - 4, c.y() - 4, 8, 8), colour)


def _px(v: float) -> int:
    """Nearest pixel edge (0.5 rounds up, unlike Python's round)."""
    return int(math.floor(v + 0.5))
