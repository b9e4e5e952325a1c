"""Photo canvas: zoom/pan, region rectangles/ellipses to add, move, resize and delete,
four draggable perspective corners, and a crop rubber band on the After view.

Scene units are full-resolution pixels of the image shown (the upright photo in the
Before view, the released file in the After view); the image itself is painted from a
pyramid (:class:`ui.anonymize.image_item.PyramidItem`), so a 10,000-px photo costs no
more to show than a small one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPen,
    QPolygonF,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPolygonItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsView,
    QWidget,
)

from core.imaging.photo_values import clip_box
from core.imaging.photos import Region
from core.imaging.pyramid import Pyramid
from ui.anonymize.image_item import PyramidItem
from ui.anonymize.labels import place_labels
from ui.anonymize.region_items import KIND_COLOURS, CornerHandle, RegionItem

__all__ = ["KIND_COLOURS", "MAX_ZOOM", "TOOLS", "PhotoCanvas", "RegionItem"]

#: the closest zoom: screen pixels per photo pixel (ADR 188); the farthest is half the
#: fitted view (or half of 1:1 for a photo smaller than the view)
MAX_ZOOM = 32.0
TOOLS = ("select", "rect", "ellipse", "corners", "crop")


class PhotoCanvas(QGraphicsView):
    """Shows one image (Before: original + regions; After: the release preview)."""

    region_drawn = Signal(str, QRectF)  # shape, rect in photo pixels
    region_changed = Signal(int, QRectF)  # region id, new rect
    delete_requested = Signal(list)  # region ids
    quad_changed = Signal(list)  # four (x, y) points
    crop_drawn = Signal(QRectF)  # in the After view's pixels
    tool_requested = Signal(str)  # Esc in a drawing tool: back to "select"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing
                            | QPainter.RenderHint.SmoothPixmapTransform)
        self.setBackgroundBrush(QBrush(QColor(48, 48, 52)))
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.image_item = PyramidItem()
        self.scene().addItem(self.image_item)
        self.tool = "select"
        self.region_items: dict[int, RegionItem] = {}
        self.corner_items: list[CornerHandle] = []
        self.quad_outline = QGraphicsPolygonItem()
        pen = QPen(QColor(255, 220, 0), 2, Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        self.quad_outline.setPen(pen)
        self.quad_outline.setZValue(9)
        self.scene().addItem(self.quad_outline)
        self.scene().selectionChanged.connect(self.layout_labels)
        self._rubber: QGraphicsRectItem | None = None
        #: removed items live until the event loop is idle again: an item may be replaced
        #: from inside its own mouse handler (edit -> refresh), and Qt still uses it after
        self._graveyard: list[QGraphicsItem] = []
        self._rubber_origin = QPointF()
        self._fitted = True

    # -- content ------------------------------------------------------------------------
    def show_image(self, width: int, height: int, keep_view: bool = False) -> None:
        """Show a ``width`` × ``height`` image (pixels follow with :meth:`set_pyramid`)."""
        self.image_item.set_size(width, height)
        self.scene().setSceneRect(QRectF(0, 0, max(1, width), max(1, height)))
        if not keep_view or self._fitted:
            self.fit()

    def set_pyramid(self, pyramid: Pyramid | None) -> None:
        """The pixels of the image shown (None = a placeholder until they arrive)."""
        self.image_item.set_pyramid(pyramid)

    def clear_image(self) -> None:
        """Show nothing."""
        self.image_item.set_size(1, 1)
        self.scene().setSceneRect(QRectF(0, 0, 1, 1))

    def set_regions(self, regions: Sequence[Region], editable: bool = True) -> None:
        """Replace the region items (labels "#id kind"; none in the After view)."""
        for item in list(self.region_items.values()):
            self._bury(item)
        self.region_items.clear()
        scene = self.scene().sceneRect()
        for r in regions:  # (a region an earlier version stored off the photo: clipped)
            if r.unreadable:  # text for a coordinate (sqlite3): listed, not drawn (ADR 211)
                continue
            box = clip_box((r.x, r.y, r.w, r.h), (scene.width(), scene.height()))
            item = RegionItem(self, r.id, r.kind, r.shape, QRectF(*box), f"#{r.id} {r.kind}")
            if not editable:
                item.setFlags(QGraphicsItem.GraphicsItemFlag(0))
            item.setZValue(5)
            self.scene().addItem(item)
            self.region_items[r.id] = item
        self.layout_labels()

    def layout_labels(self) -> None:
        """Place the labels so that none overlaps another (screen pixels)."""
        items = [item for item in self.region_items.values() if item.scene() is not None]
        if not items:
            return
        to_view = self.viewportTransform()
        boxes = []
        for item in items:
            r = to_view.mapRect(item.scene_rect())
            boxes.append((r.x(), r.y(), r.width(), r.height()))
        photo = to_view.mapRect(self.scene().sceneRect())
        selected = next((i for i, item in enumerate(items) if item.isSelected()), None)
        spots = place_labels(boxes, [item.label.size() for item in items],
                             (photo.x(), photo.y(), photo.width(), photo.height()), selected)
        to_scene = to_view.inverted()[0]
        for item, spot in zip(items, spots, strict=True):
            item.label.setVisible(spot is not None)
            if spot is not None:
                item.label.setPos(item.mapFromScene(to_scene.map(QPointF(*spot))))

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
            if show and quad is not None:
                handle.setPos(*quad[i])
            handle.setVisible(show)
        self.quad_outline.setVisible(show)
        self.update_quad_outline()

    def quad(self) -> list[tuple[float, float]]:
        """Current corner positions."""
        return [(c.pos().x(), c.pos().y()) for c in self.corner_items]

    def update_quad_outline(self) -> None:
        """Redraw the dashed outline through the four corners."""
        self.quad_outline.setPolygon(QPolygonF([c.pos() for c in self.corner_items]))

    def later(self, fn: Callable[..., Any], *args: Any) -> None:
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
        """Zoom by ``factor`` around the mouse, within :meth:`zoom_range`."""
        low, high = self.zoom_range()
        scale = self.view_scale()
        target = min(high, max(low, scale * factor))
        if abs(target - scale) <= 1e-9 * scale:
            return
        self.scale(target / scale, target / scale)
        self._fitted = False
        self._scale_changed()

    def zoom_range(self) -> tuple[float, float]:
        """(farthest, closest) scale: half the fitted one or of 1:1 … :data:`MAX_ZOOM`
        (or the fitted scale, for a photo so small it fits closer than that)."""
        scene, view = self.scene().sceneRect(), self.viewport().rect()
        fitted = min(view.width() / max(1.0, scene.width()),
                     view.height() / max(1.0, scene.height()))
        return min(fitted, 1.0) / 2, max(MAX_ZOOM, fitted)

    def view_scale(self) -> float:
        """Screen pixels per scene (full-resolution) pixel."""
        return self.transform().m11()

    def _scale_changed(self) -> None:
        scale = self.view_scale()
        for item in self.region_items.values():
            item.set_view_scale(scale)
        self.layout_labels()

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 - Qt override
        self.zoom(1.25 if event.angleDelta().y() > 0 else 0.8)
        event.accept()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if self._fitted:
            self.fit()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        key = event.key()
        if key in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and self.selected_ids():
            self.delete_requested.emit(self.selected_ids())
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom(1.25)
        elif key == Qt.Key.Key_Minus:
            self.zoom(0.8)
        elif key == Qt.Key.Key_0:
            self.fit()
        elif key == Qt.Key.Key_Escape and self._rubber is not None:
            self.scene().removeItem(self._rubber)  # a rectangle half drawn: dropped
            self._rubber = None
        elif key == Qt.Key.Key_Escape and self.tool != "select":
            self.tool_requested.emit("select")  # a drawing tool is never a trap
        else:
            super().keyPressEvent(event)

    # -- drawing -------------------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
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

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        if self._rubber is not None:
            point = self.mapToScene(event.position().toPoint())
            self._rubber.setRect(QRectF(self._rubber_origin, point).normalized())
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        if self._rubber is not None:
            drawn = self._rubber.rect()
            scene = self.scene().sceneRect()
            rect = drawn.intersected(scene)
            self.scene().removeItem(self._rubber)
            self._rubber = None
            if rect.width() >= 3 and rect.height() >= 3:
                if self.tool == "crop":
                    self.later(self.crop_drawn.emit, rect)
                elif self.tool == "ellipse":  # kept whole past the edge (ADR 188, 201)
                    box = clip_box((drawn.x(), drawn.y(), drawn.width(), drawn.height()),
                                   (scene.width(), scene.height()))
                    self.later(self.region_drawn.emit, self.tool, QRectF(*box))
                else:
                    self.later(self.region_drawn.emit, self.tool, rect)
            event.accept()
            return
        super().mouseReleaseEvent(event)
