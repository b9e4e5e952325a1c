"""Decoded images and thumbnails for the sample view, in size-limited caches.

Bytes come from ``core`` (the asset store); this module only decodes them with Qt.
A missing or undecodable image becomes a placeholder with the reason, never a crash.

Images are shown upright: the EXIF orientation that
:func:`core.imaging.decode.read_header` reads (the one the rating files and
``decode_rgb`` apply, PNG ``eXIf`` included, which Qt's reader ignores) is applied with
:func:`upright_transform`.  Boxes stay stored in the file's own pixels (ADR 157): the
viewer maps them through the same transform.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRect, QRectF, Qt
from PySide6.QtGui import (
    QFont,
    QGuiApplication,
    QImage,
    QImageReader,
    QPainter,
    QPalette,
    QPen,
    QTransform,
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
        #: stored pixels → shown (upright) pixels, per SHA-256 decoded
        self.transforms: dict[str, QTransform] = {}

    def clear(self) -> None:
        """Forget everything (another project was opened)."""
        self.full.clear()
        self.thumbs.clear()
        self.errors.clear()
        self.transforms.clear()

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
        img, error, transform = decode_upright(data)
        if img is None:
            self.errors[sha256] = error
            return None, error
        self.transforms[sha256] = transform
        self.full.put(sha256, img, img.sizeInBytes())
        return img, ""

    def transform(self, sha256: str | None) -> QTransform:
        """Stored → shown pixels of an image :meth:`image` decoded (identity otherwise)."""
        return self.transforms.get(sha256 or "", QTransform())

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
    """Decode image bytes upright with a pixel-count limit; (None, reason) when impossible."""
    img, error, _transform = decode_upright(data)
    return img, error


def decode_upright(data: bytes) -> tuple[QImage | None, str, QTransform]:
    """(upright image, "", stored → shown transform), or (None, reason, identity)."""
    buffer = QBuffer()
    buffer.setData(QByteArray(data))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    img, error = _read(buffer)  # the reader is gone before the buffer it reads
    buffer.close()
    if img is None:
        return None, error, QTransform()
    if img.hasAlphaChannel() is False:
        img = img.convertToFormat(QImage.Format.Format_RGB32)
    transform = upright_transform(orientation(data), img.width(), img.height())
    if not transform.isIdentity():
        img = img.transformed(transform, Qt.TransformationMode.FastTransformation)
    return img, "", transform


def _read(buffer: QBuffer) -> tuple[QImage | None, str]:
    """Decode from ``buffer`` with a reader that is destroyed when this returns, while the
    buffer still lives: Qt's TIFF handler closes its file through the device when the
    reader goes, and a buffer freed first crashed the app on every TIFF."""
    reader = QImageReader(buffer)
    # a TIFF whose orientation core's decoder applies itself counts as stored upright
    # (ADR 165): Qt turns it too, and core reports orientation 1, so it is turned once
    tiff = bytes(reader.format().data()) == b"tiff"
    reader.setAutoTransform(tiff and decode_limits.decoder_turns_tiffs())
    size = reader.size()
    if size.isValid() and size.width() * size.height() > MAX_PIXELS:
        return None, f"the image is too large to show ({size.width()}×{size.height()})"
    img = reader.read()
    if img.isNull():
        return None, f"the image file is corrupt or not an image ({reader.errorString()})"
    return img, ""


def orientation(data: bytes) -> int:
    """The EXIF orientation (1–8) of image bytes as core reads it; 1 when unreadable."""
    try:
        return decode_limits.read_header(data, max_pixels=MAX_PIXELS).orientation
    except (ValueError, OSError):  # DecodeError is a ValueError; the reader says more
        return 1


def upright_transform(orientation: int, width: int, height: int) -> QTransform:
    """The map from a ``width``×``height`` image's stored pixels to its upright pixels for
    EXIF ``orientation`` (1 or unknown: identity); coordinates are pixel edges, so a box
    maps with ``mapRect``."""
    w, h = float(width), float(height)
    # QTransform(m11, m12, m21, m22, dx, dy): x' = m11·x + m21·y + dx, y' = m12·x + m22·y + dy
    return {2: QTransform(-1, 0, 0, 1, w, 0), 3: QTransform(-1, 0, 0, -1, w, h),
            4: QTransform(1, 0, 0, -1, 0, h), 5: QTransform(0, 1, 1, 0, 0, 0),
            6: QTransform(0, 1, -1, 0, h, 0), 7: QTransform(0, -1, -1, 0, h, w),
            8: QTransform(0, -1, 1, 0, 0, w)}.get(orientation, QTransform())


def map_box(transform: QTransform, rect: QRect, inverse: bool = False) -> QRect:
    """``rect`` through ``transform`` (stored → shown), or back with ``inverse``; an empty
    one (no width or height) as it is, for core to refuse by its size."""
    if transform.isIdentity() or rect.isEmpty():
        return QRect(rect)
    t = transform.inverted()[0] if inverse else transform
    return t.mapRect(QRectF(rect)).toRect()


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
