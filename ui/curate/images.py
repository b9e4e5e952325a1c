"""Decoded images and thumbnails for the sample view, in size-limited caches.

Bytes come from ``core`` (the asset store); this module only decodes them with Qt.
A missing or undecodable image becomes a placeholder with the reason, never a crash.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRect, Qt
from PySide6.QtGui import (
    QFont,
    QGuiApplication,
    QImage,
    QImageReader,
    QPainter,
    QPalette,
    QPen,
)

from core.curate.cache import LruCache
from core.curate.detail import ImageUnavailable, image_bytes
from core.imaging import decode as decode_limits
from ui.widgets.theme import tone_text

THUMB = 96
#: the one pixel limit of images from outside (ADR 140)
MAX_PIXELS = decode_limits.MAX_PIXELS


class ImageStore:
    """Full images (``budget`` bytes) and thumbnails (``thumb_budget``) by SHA-256."""

    def __init__(self, budget: int = 192 * 2**20, thumb_budget: int = 24 * 2**20) -> None:
        self.full = LruCache(budget)
        self.thumbs = LruCache(thumb_budget)
        self.errors: dict[str, str] = {}

    def clear(self) -> None:
        """Forget everything (another project was opened)."""
        self.full.clear()
        self.thumbs.clear()
        self.errors.clear()

    def image(self, project: Any, sha256: str | None) -> tuple[QImage | None, str]:
        """(image, "") or (None, why it cannot be shown)."""
        if not sha256:
            return None, "the image was never fetched"
        cached = self.full.get(sha256)
        if cached is not None:
            return cached, ""
        if sha256 in self.errors:
            return None, self.errors[sha256]
        try:
            data = image_bytes(project, sha256)
        except ImageUnavailable as exc:
            self.errors[sha256] = str(exc)
            return None, str(exc)
        img, error = decode(data)
        if img is None:
            self.errors[sha256] = error
            return None, error
        self.full.put(sha256, img, img.sizeInBytes())
        return img, ""

    def thumbnail(self, project: Any, sha256: str | None, error: str | None = None) -> QImage:
        """A square-bounded thumbnail, or a placeholder saying what is wrong."""
        key = (sha256, error)
        cached = self.thumbs.get(key)
        if cached is not None:
            return cached
        img, why = self.image(project, sha256) if sha256 else (None, error or "never fetched")
        if img is None:
            thumb = placeholder(THUMB, THUMB, why or error or "unavailable")
        else:
            thumb = img.scaled(THUMB, THUMB, Qt.AspectRatioMode.KeepAspectRatio,
                               Qt.TransformationMode.SmoothTransformation)
        self.thumbs.put(key, thumb, thumb.sizeInBytes())
        return thumb


def decode(data: bytes) -> tuple[QImage | None, str]:
    """Decode image bytes with a pixel-count limit; (None, reason) when impossible."""
    buffer = QBuffer()
    buffer.setData(QByteArray(data))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer)
    size = reader.size()
    if size.isValid() and size.width() * size.height() > MAX_PIXELS:
        return None, f"the image is too large to show ({size.width()}×{size.height()})"
    img = reader.read()
    if img.isNull():
        return None, f"the image file is corrupt or not an image ({reader.errorString()})"
    return img.convertToFormat(QImage.Format.Format_RGB32) if img.hasAlphaChannel() is False \
        else img, ""


def placeholder(w: int, h: int, text: str) -> QImage:
    """A tile in the palette's colours with a red cross and ``text`` (plain text)."""
    palette = QGuiApplication.palette()
    ground = QPalette.ColorRole.AlternateBase
    img = QImage(w, h, QImage.Format.Format_RGB32)
    img.fill(palette.color(ground))
    p = QPainter(img)
    p.setPen(QPen(tone_text("danger", role=ground), 2))
    p.drawLine(8, 8, 22, 22)
    p.drawLine(22, 8, 8, 22)
    font = QFont()
    font.setPointSizeF(7)
    p.setFont(font)
    p.setPen(palette.color(QPalette.ColorRole.Text))
    p.drawText(QRect(4, 26, w - 8, h - 30),
               int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop) | int(Qt.TextFlag.TextWordWrap),
               text)
    p.end()
    return img
