"""Photo canvas: zoom/pan, region rectangles/ellipses to add, move, resize and delete,
four draggable perspective corners, and a crop rubber band on the After view."""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QImage, QPainter, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import (
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsPixmapItem,
    QGraphicsPolygonItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsView,
)

KIND_COLOURS = {"face": QColor(230, 40, 60), "plate": QColor(30, 120, 255),
                "other": QColor(255, 150, 0)}
TOOLS = ("select", "rect", "ellipse", "corners", "crop")
HANDLE = 7.0  # px on screen


def to_qimage(rgb: np.ndarray) -> QImage:
    """A deep-copied QImage of an (h, w, 3) uint8 array."""
    rgb = np.ascontiguousarray(rgb)
    h, w = rgb.shape[:2]
    return QImage(rgb.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()


class RegionItem(QGraphicsRectItem):
    """One region: drag to move, drag a corner handle to resize."""

    def __init__(self, canvas: PhotoCanvas, region_id: int, kind: str, shape: str,
                 rect: QRectF, label: str) -> None:
        super().__init__(rect)
        self.canvas, self.region_id, self.kind, self.region_shape, self.label = \
            canvas, region_id, kind, shape, label
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemIsMovable)
        self.setAcceptHoverEvents(True)
        self._resize_corner: int | None = None
        self._press_rect = QRectF()
        #: the view scale the handles and label are sized for; boundingRect() depends on
        #: it, so it changes only in set_view_scale(), after prepareGeometryChange()
        self._scale = max(1e-6, canvas.transform().m11())

    def set_view_scale(self, scale: float) -> None:
        """Size the handles and label for a new zoom (keeps the scene index right)."""
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

    def paint(self, painter: QPainter, option: Any, widget: Any = None) -> None:  # noqa: ARG002
        colour = KIND_COLOURS.get(self.kind, KIND_COLOURS["other"])
        pen = QPen(colour, 2)
        pen.setCosmetic(True)
        if self.isSelected():
            pen.setWidth(3)
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        fill = QColor(colour)
        fill.setAlpha(50)
        painter.setBrush(QBrush(fill))
        if self.region_shape == "ellipse":
            painter.drawEllipse(self.rect())
        else:
            painter.drawRect(self.rect())
        scale = self._scale
        font = QFont()
        font.setPointSizeF(max(1.0, 8.5 / scale))
        painter.setFont(font)
        painter.setPen(QPen(QColor("white")))
        label_w = painter.fontMetrics().horizontalAdvance(self.label) + 6 / scale
        text_rect = QRectF(self.rect().left(), self.rect().top() - 14 / scale, label_w,
                           14 / scale)
        painter.fillRect(text_rect, colour)
        painter.drawText(text_rect.adjusted(3 / scale, 0, 0, 0),
                         Qt.AlignmentFlag.AlignVCenter, self.label)
        if self.isSelected():
            size = self._handle_size()
            painter.setBrush(QBrush(QColor("white")))
            painter.setPen(QPen(colour, 0))
            for corner in self._corners():
                painter.drawRect(QRectF(corner.x() - size / 2, corner.y() - size / 2,
                                        size, size))

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        size = self._handle_size()
        scale = self._scale
        return self.rect().adjusted(-size, -size - 16 / scale, size + 200 / scale, size)

    def mousePressEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
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

    def mouseMoveEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
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
        self.prepareGeometryChange()
        self.setRect(r.normalized())

    def mouseReleaseEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().mouseReleaseEvent(event)
        self._resize_corner = None
        final = self.scene_rect().normalized()
        self.prepareGeometryChange()
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

    def itemChange(self, change: Any, value: Any) -> Any:  # noqa: N802 - Qt override
        if change == QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged:
            self.canvas._update_quad_outline()
        return super().itemChange(change, value)

    def mouseReleaseEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().mouseReleaseEvent(event)
        self.canvas.later(self.canvas.quad_changed.emit, self.canvas.quad())


class PhotoCanvas(QGraphicsView):
    """Shows one image (Before: original + regions; After: the release preview)."""

    region_drawn = Signal(str, QRectF)  # shape, rect in photo pixels
    region_changed = Signal(int, QRectF)  # region id, new rect
    delete_requested = Signal(list)  # region ids
    quad_changed = Signal(list)  # four (x, y) points
    crop_drawn = Signal(QRectF)  # in the After view's pixels

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing
                            | QPainter.RenderHint.SmoothPixmapTransform)
        self.setBackgroundBrush(QBrush(QColor(48, 48, 52)))
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.pixmap_item = QGraphicsPixmapItem()
        self.pixmap_item.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
        self.scene().addItem(self.pixmap_item)
        self.tool = "select"
        self.region_items: dict[int, RegionItem] = {}
        self.outline_items: list[QGraphicsItem] = []
        self.corner_items: list[CornerHandle] = []
        self.quad_outline = QGraphicsPolygonItem()
        pen = QPen(QColor(255, 220, 0), 2, Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        self.quad_outline.setPen(pen)
        self.quad_outline.setZValue(9)
        self.scene().addItem(self.quad_outline)
        self._rubber: QGraphicsRectItem | None = None
        #: removed items live until the event loop is idle again: an item may be replaced
        #: from inside its own mouse handler (edit -> refresh), and Qt still uses it after
        self._graveyard: list[QGraphicsItem] = []
        self._rubber_origin = QPointF()
        self._fitted = True

    # -- content ------------------------------------------------------------------------
    def set_image(self, rgb: np.ndarray | None, keep_view: bool = False) -> None:
        """Show ``rgb`` (None = nothing)."""
        if rgb is None:
            self.pixmap_item.setPixmap(QPixmap())
            self.scene().setSceneRect(QRectF(0, 0, 1, 1))
            return
        self.pixmap_item.setPixmap(QPixmap.fromImage(to_qimage(rgb)))
        self.scene().setSceneRect(QRectF(0, 0, rgb.shape[1], rgb.shape[0]))
        if not keep_view or self._fitted:
            self.fit()

    def set_regions(self, regions: list[Any], editable: bool = True) -> None:
        """Replace the region items (objects with id, kind, shape, x, y, w, h, label)."""
        for item in [*self.region_items.values(), *self.outline_items]:
            self._bury(item)
        self.region_items.clear()
        self.outline_items.clear()
        for r in regions:
            item = RegionItem(self, r.id, r.kind, r.shape, QRectF(r.x, r.y, r.w, r.h),
                              r.label)
            if not editable:
                item.setFlags(QGraphicsItem.GraphicsItemFlag(0))
                item.setOpacity(0.8)
            item.setZValue(5)
            self.scene().addItem(item)
            self.region_items[r.id] = item

    def set_quad(self, quad: list[tuple[float, float]] | None, visible: bool) -> None:
        """Show the perspective corners (the same four handles are reused)."""
        if not self.corner_items:
            for i in range(4):
                handle = CornerHandle(self, i)
                handle.hide()
                self.scene().addItem(handle)
                self.corner_items.append(handle)
        show = quad is not None and visible
        for i, handle in enumerate(self.corner_items):
            if show:
                handle.setPos(*quad[i])  # type: ignore[index]
            handle.setVisible(show)
        self.quad_outline.setVisible(show)
        self._update_quad_outline()

    def quad(self) -> list[tuple[float, float]]:
        """Current corner positions."""
        return [(c.pos().x(), c.pos().y()) for c in self.corner_items]

    def _update_quad_outline(self) -> None:
        self.quad_outline.setPolygon(QPolygonF([c.pos() for c in self.corner_items]))

    def later(self, fn: Any, *args: Any) -> None:
        """Run ``fn(*args)`` once the current mouse event is fully handled.

        Edits rebuild the scene; doing that inside the scene's own event dispatch
        leaves Qt holding pointers to removed items.
        """
        QTimer.singleShot(0, lambda: fn(*args))

    def _bury(self, item: QGraphicsItem) -> None:
        self.scene().removeItem(item)
        if not self._graveyard:
            QTimer.singleShot(0, self._graveyard.clear)
        self._graveyard.append(item)

    def selected_ids(self) -> list[int]:
        """Ids of the selected regions."""
        return [rid for rid, item in self.region_items.items() if item.isSelected()]

    def select_region(self, region_id: int | None) -> None:
        """Select exactly this region (None = none)."""
        self.scene().clearSelection()
        item = self.region_items.get(region_id) if region_id is not None else None
        if item is not None:
            item.setSelected(True)
            self.ensureVisible(item.scene_rect(), 40, 40)

    # -- view ----------------------------------------------------------------------------
    def set_tool(self, tool: str) -> None:
        """select | rect | ellipse | corners | crop."""
        self.tool = tool
        drawing = tool in ("rect", "ellipse", "crop")
        self.setDragMode(QGraphicsView.DragMode.NoDrag if drawing
                         else QGraphicsView.DragMode.ScrollHandDrag)
        self.viewport().setCursor(Qt.CursorShape.CrossCursor if drawing
                                  else Qt.CursorShape.OpenHandCursor)

    def fit(self) -> None:
        """Fit the whole image in the view."""
        self.fitInView(self.scene().sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)
        self._fitted = True
        self._scale_changed()

    def zoom(self, factor: float) -> None:
        """Zoom by ``factor`` around the mouse."""
        self.scale(factor, factor)
        self._fitted = False
        self._scale_changed()

    def _scale_changed(self) -> None:
        scale = self.transform().m11()
        for item in self.region_items.values():
            item.set_view_scale(scale)

    def wheelEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        self.zoom(1.25 if event.angleDelta().y() > 0 else 0.8)
        event.accept()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if self._fitted:
            self.fit()

    def keyPressEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        key = event.key()
        if key in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and self.selected_ids():
            self.delete_requested.emit(self.selected_ids())
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom(1.25)
        elif key == Qt.Key.Key_Minus:
            self.zoom(0.8)
        elif key == Qt.Key.Key_0:
            self.fit()
        else:
            super().keyPressEvent(event)

    # -- drawing -------------------------------------------------------------------------
    def mousePressEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        if self.tool in ("rect", "ellipse", "crop") and \
                event.button() == Qt.MouseButton.LeftButton:
            self._rubber_origin = self.mapToScene(event.position().toPoint())
            self._rubber = QGraphicsRectItem(QRectF(self._rubber_origin, self._rubber_origin))
            pen = QPen(QColor(255, 255, 255), 2, Qt.PenStyle.DashLine)
            pen.setCosmetic(True)
            self._rubber.setPen(pen)
            self._rubber.setZValue(20)
            self.scene().addItem(self._rubber)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        if self._rubber is not None:
            point = self.mapToScene(event.position().toPoint())
            self._rubber.setRect(QRectF(self._rubber_origin, point).normalized())
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        if self._rubber is not None:
            rect = self._rubber.rect().intersected(self.scene().sceneRect())
            self.scene().removeItem(self._rubber)
            self._rubber = None
            if rect.width() >= 3 and rect.height() >= 3:
                if self.tool == "crop":
                    self.later(self.crop_drawn.emit, rect)
                else:
                    self.later(self.region_drawn.emit, self.tool, rect)
            event.accept()
            return
        super().mouseReleaseEvent(event)
