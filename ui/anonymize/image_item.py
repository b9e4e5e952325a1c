"""A graphics item that paints a photo from a :class:`core.imaging.pyramid.Pyramid`.

It stands for the full-resolution rectangle (scene units are full-resolution pixels,
so regions keep their coordinates whatever level is shown) and paints, on every paint,
only the exposed part of the level that matches the zoom: the cost follows the size of
the window, never the size of the photo, and no full-size QPixmap is ever made.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from core.imaging.pyramid import Pyramid


def wrap_qimage(rgb: np.ndarray) -> QImage:
    """A QImage over ``rgb``'s memory (no copy; keep the array alive while it is used)."""
    rgb = np.ascontiguousarray(rgb)
    h, w = rgb.shape[:2]
    return QImage(rgb.data, w, h, 3 * w, QImage.Format.Format_RGB888)


class PyramidItem(QGraphicsItem):
    """The photo (or the After render): a ``width`` × ``height`` rectangle."""

    def __init__(self) -> None:
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)
        self._rect = QRectF(0, 0, 1, 1)
        self.pyramid: Pyramid | None = None
        self._images: dict[int, tuple[np.ndarray, QImage]] = {}

    def set_size(self, width: int, height: int) -> None:
        """The full-resolution size this item stands for (drops the pixels shown)."""
        rect = QRectF(0, 0, max(1, width), max(1, height))
        if rect != self._rect:
            self.prepareGeometryChange()
            self._rect = rect
        self.set_pyramid(None)

    def set_pyramid(self, pyramid: Pyramid | None) -> None:
        """Show ``pyramid`` (None = nothing yet: a plain background)."""
        if pyramid is not None and (pyramid.width, pyramid.height) != (
                int(self._rect.width()), int(self._rect.height())):
            self.prepareGeometryChange()
            self._rect = QRectF(0, 0, pyramid.width, pyramid.height)
        self.pyramid = pyramid
        self._images.clear()
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._rect

    def _image(self, level: np.ndarray) -> QImage:
        cached = self._images.get(id(level))
        if cached is None or cached[0] is not level:
            cached = (level, wrap_qimage(level))
            self._images[id(level)] = cached
        return cached[1]

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:  # noqa: ARG002
        exposed = option.exposedRect.intersected(self._rect)
        if exposed.isEmpty():
            return
        if self.pyramid is None:
            painter.fillRect(exposed, QColor(70, 70, 76))
            return
        scale = math.hypot(painter.worldTransform().m11(), painter.worldTransform().m12())
        level = self.pyramid.level_for(scale)
        fx = level.shape[1] / self._rect.width()
        fy = level.shape[0] / self._rect.height()
        # the exposed part in level pixels, grown to whole pixels
        x0 = max(0, math.floor(exposed.left() * fx) - 1)
        y0 = max(0, math.floor(exposed.top() * fy) - 1)
        x1 = min(level.shape[1], math.ceil(exposed.right() * fx) + 1)
        y1 = min(level.shape[0], math.ceil(exposed.bottom() * fy) + 1)
        if x1 <= x0 or y1 <= y0:
            return
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform,
                              scale * self._rect.width() < level.shape[1] * 1.5)
        target = QRectF(x0 / fx, y0 / fy, (x1 - x0) / fx, (y1 - y0) / fy)
        painter.drawImage(target, self._image(level), QRectF(x0, y0, x1 - x0, y1 - y0))
