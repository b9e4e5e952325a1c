"""A large, zoomable image with a caption and a selection frame (no keyboard focus:
the rater window owns every key)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPixmap, QWheelEvent
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsPixmapItem,
    QGraphicsScene,
    QGraphicsView,
    QLabel,
    QVBoxLayout,
    QWidget,
)


def pixmap_from_bytes(data: bytes) -> QPixmap:
    """Decode image bytes (GUI thread); a broken image gives an empty pixmap."""
    image = QImage.fromData(data)
    return QPixmap.fromImage(image) if not image.isNull() else QPixmap()


class ZoomView(QGraphicsView):
    """Fits the image to the view until zoomed; wheel or +/- zoom, drag pans."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.item = QGraphicsPixmapItem()
        self.item.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
        self.scene().addItem(self.item)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setBackgroundBrush(QColor("#2e2e2e"))
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.zoom = 1.0  # relative to "fit"

    def set_pixmap(self, pixmap: QPixmap) -> None:
        self.item.setPixmap(pixmap)
        self.scene().setSceneRect(self.item.boundingRect())
        self.zoom = 1.0
        self.fit()

    def fit(self) -> None:
        if self.item.pixmap().isNull():
            return
        self.resetTransform()
        self.fitInView(self.item, Qt.AspectRatioMode.KeepAspectRatio)
        if self.zoom != 1.0:
            self.scale(self.zoom, self.zoom)

    def zoom_by(self, factor: float) -> None:
        self.zoom = max(1.0, min(16.0, self.zoom * factor))
        self.fit()

    def reset_zoom(self) -> None:
        self.zoom = 1.0
        self.fit()

    def resizeEvent(self, event) -> None:  # noqa: N802, ANN001 - Qt override
        super().resizeEvent(event)
        self.fit()

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 - Qt override
        self.zoom_by(1.25 if event.angleDelta().y() > 0 else 0.8)


class ImageTile(QFrame):
    """Caption above a :class:`ZoomView`; a thick frame marks the selected tile."""

    def __init__(self, caption: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("imageTile")
        self.caption = QLabel(caption)
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        self.caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
        font = self.caption.font()
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.caption.setFont(font)
        self.view = ZoomView()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(4)
        layout.addWidget(self.caption)
        layout.addWidget(self.view, 1)
        self.set_selected(False)

    def set_selected(self, selected: bool, accent: str = "palette(highlight)") -> None:
        colour = accent if selected else "transparent"
        self.setStyleSheet(f"QFrame#imageTile {{ border: 4px solid {colour}; "
                           "border-radius: 6px; }")
