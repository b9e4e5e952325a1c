"""The items drawn over a photo: regions (move, resize), their labels, perspective corners.

Geometry rule (issue 14 item 1): an item's ``boundingRect()`` may depend on the zoom
(handles are a fixed number of screen pixels), but then it changes only inside
:meth:`RegionItem.set_view_scale`, after ``prepareGeometryChange()``; otherwise the
scene's BSP index keeps the item under its old bounds, and Qt paints a freed item once
it is removed. Labels ignore the view transform, so their size never depends on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import (
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsRectItem,
    QGraphicsSceneMouseEvent,
    QStyleOptionGraphicsItem,
    QWidget,
)

if TYPE_CHECKING:
    from ui.anonymize.canvas import PhotoCanvas

KIND_COLOURS = {"face": QColor(230, 40, 60), "plate": QColor(30, 120, 255),
                "other": QColor(255, 150, 0)}
HANDLE = 7.0  # px on screen


class LabelItem(QGraphicsItem):
    """A region's label ("#12 face"): a fixed size in screen pixels, placed by the canvas
    so that no two labels overlap (:mod:`ui.anonymize.labels`)."""

    def __init__(self, parent: RegionItem, text: str, colour: QColor) -> None:
        super().__init__(parent)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.text, self.colour = text, colour
        self.font = QFont()
        self.font.setPointSizeF(8.5)
        metrics = QFontMetricsF(self.font)
        self._rect = QRectF(0, 0, metrics.horizontalAdvance(text) + 8, metrics.height() + 2)

    def size(self) -> tuple[float, float]:
        """(width, height) in screen pixels."""
        return self._rect.width(), self._rect.height()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._rect

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:  # noqa: ARG002
        painter.fillRect(self._rect, self.colour)
        painter.setPen(QPen(QColor("white")))
        painter.setFont(self.font)
        painter.drawText(self._rect.adjusted(4, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter,
                         self.text)


class RegionItem(QGraphicsRectItem):
    """One region: drag to move, drag a corner handle to resize."""

    def __init__(self, canvas: PhotoCanvas, region_id: int, kind: str, shape: str,
                 rect: QRectF, label: str) -> None:
        super().__init__(rect)
        self.canvas, self.region_id, self.kind, self.region_shape = \
            canvas, region_id, kind, shape
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemIsMovable)
        self.setAcceptHoverEvents(True)
        self.setToolTip(label)
        self.colour = KIND_COLOURS.get(kind, KIND_COLOURS["other"])
        self.label = LabelItem(self, label, self.colour)
        self._resize_corner: int | None = None
        self._press_rect = QRectF()
        #: the view scale the handles are sized for; boundingRect() depends on it, so it
        #: changes only in set_view_scale(), after prepareGeometryChange()
        self._scale = max(1e-6, canvas.transform().m11())

    def set_view_scale(self, scale: float) -> None:
        """Size the handles for a new zoom (keeps the scene index right)."""
        scale = max(1e-6, scale)
        if scale != self._scale:
            self.prepareGeometryChange()
            self._scale = scale

    def scene_rect(self) -> QRectF:
        """The region's rectangle in photo pixels."""
        return self.rect().translated(self.pos())

    def _handle_size(self) -> float:
        return HANDLE / self._scale

    def _corners(self) -> list[QPointF]:
        r = self.rect()
        return [r.topLeft(), r.topRight(), r.bottomRight(), r.bottomLeft()]

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:  # noqa: ARG002
        pen = QPen(self.colour, 2)
        pen.setCosmetic(True)
        if self.isSelected():
            pen.setWidth(3)
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        fill = QColor(self.colour)
        fill.setAlpha(50)
        painter.setBrush(QBrush(fill))
        if self.region_shape == "ellipse":
            painter.drawEllipse(self.rect())
        else:
            painter.drawRect(self.rect())
        if self.isSelected():
            size = self._handle_size()
            painter.setBrush(QBrush(QColor("white")))
            painter.setPen(QPen(self.colour, 0))
            for corner in self._corners():
                painter.drawRect(QRectF(corner.x() - size / 2, corner.y() - size / 2,
                                        size, size))

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        margin = self._handle_size() + 3 / self._scale  # handles and the 3-px pen
        return self.rect().adjusted(-margin, -margin, margin, margin)

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        self._press_rect = self.scene_rect()
        self._resize_corner = None
        if self.isSelected():
            size = self._handle_size() * 1.5
            for i, corner in enumerate(self._corners()):
                if (event.pos() - corner).manhattanLength() <= size:
                    self._resize_corner = i
                    event.accept()
                    return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        if self._resize_corner is None:
            super().mouseMoveEvent(event)
            return
        r = QRectF(self.rect())
        p = event.pos()
        if self._resize_corner == 0:
            r.setTopLeft(p)
        elif self._resize_corner == 1:
            r.setTopRight(p)
        elif self._resize_corner == 2:
            r.setBottomRight(p)
        else:
            r.setBottomLeft(p)
        self.setRect(r.normalized())

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        super().mouseReleaseEvent(event)
        self._resize_corner = None
        final = self.scene_rect().normalized()
        self.setPos(0, 0)
        self.setRect(final)
        if final != self._press_rect and final.width() >= 1 and final.height() >= 1:
            self.canvas.later(self.canvas.region_changed.emit, self.region_id, final)


class CornerHandle(QGraphicsEllipseItem):
    """A draggable perspective corner."""

    def __init__(self, canvas: PhotoCanvas, index: int) -> None:
        super().__init__(-8, -8, 16, 16)
        self.canvas, self.index = canvas, index
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsMovable
                      | QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations
                      | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges)
        self.setBrush(QBrush(QColor(255, 220, 0)))
        self.setPen(QPen(QColor("black"), 1.5))
        self.setZValue(10)
        self.setToolTip(("top-left", "top-right", "bottom-right", "bottom-left")[index])

    def itemChange(self, change: QGraphicsItem.GraphicsItemChange, value: object
                   ) -> object:  # noqa: N802 - Qt override
        if change == QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged:
            self.canvas.update_quad_outline()
        return super().itemChange(change, value)

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        super().mouseReleaseEvent(event)
        self.canvas.later(self.canvas.quad_changed.emit, self.canvas.quad())
