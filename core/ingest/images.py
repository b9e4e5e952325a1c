"""Validate image bytes (local files or downloads) before they enter a project.

:func:`inspect_image` proves that bytes are a complete, decodable raster image of
an accepted format and not a decompression bomb, and says what it is.  Every
problem becomes an :class:`ImageError` whose message a curator can act on
("truncated JPEG: …", "not an image (looks like HTML)", …).

Decoding is :mod:`core.imaging.decode`'s (ADR 140): the pixel limit is checked from the
image header before any pixel data is decoded, and the failures are worded there.
"""

from __future__ import annotations

import io
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from core.imaging import decode

__all__ = [
    "DEFAULT_MAX_PIXELS",
    "ImageError",
    "ImageInfo",
    "format_size",
    "inspect_image",
    "inspect_local_image",
]

#: the pixel limit of images from outside (one constant for all of Winnow, ADR 140)
DEFAULT_MAX_PIXELS = decode.MAX_PIXELS

# Pillow format name -> (MIME type, file extension).  MPO is how Pillow reports
# the JPEGs most phone cameras write; HEIF is registered by pillow-heif.
_FORMATS: dict[str, tuple[str, str]] = {
    "JPEG": ("image/jpeg", "jpg"),
    "MPO": ("image/jpeg", "jpg"),
    "PNG": ("image/png", "png"),
    "WEBP": ("image/webp", "webp"),
    "GIF": ("image/gif", "gif"),
    "BMP": ("image/bmp", "bmp"),
    "TIFF": ("image/tiff", "tiff"),
    "HEIF": ("image/heic", "heic"),
}
_ACCEPTED = "JPEG, PNG, WebP, GIF, BMP, TIFF, HEIC"


class ImageError(ValueError):
    """The bytes are not an acceptable image; ``str(error)`` says why."""


@dataclass(frozen=True)
class ImageInfo:
    """What a validated image is."""

    mime: str
    ext: str  # "jpg" | "png" | "webp" | "gif" | "bmp" | "tiff" | "heic"
    width: int
    height: int


def format_size(n: int | float) -> str:
    """Human size in binary units written as KB/MB/GB (50 * 2**20 -> "50 MB")."""
    for unit, factor in (("GB", 2**30), ("MB", 2**20), ("KB", 2**10)):
        if n >= factor:
            value = n / factor
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{int(n)} bytes"


class _Source:
    """Image bytes in memory or in a file: the first bytes, the size, and a reader."""

    def __init__(self, data: bytes | Path) -> None:
        self.path = data if isinstance(data, Path) else None
        self.data = data if isinstance(data, bytes) else None
        if self.path is not None:
            with open(self.path, "rb") as fh:
                self.head = fh.read(4096)
                self.size = os.fstat(fh.fileno()).st_size
        else:
            self.head = (self.data or b"")[:4096]
            self.size = len(self.data or b"")

    def open(self) -> BinaryIO:
        return open(self.path, "rb") if self.path is not None else io.BytesIO(self.data or b"")


def inspect_image(data: bytes | Path, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> ImageInfo:
    """Check that ``data`` (bytes, or a file) is a complete, decodable image and describe it.

    Raises :class:`ImageError` for empty data, non-images (HTML, text…),
    unsupported formats, images over ``max_pixels`` (checked before decoding)
    and corrupt or truncated files (the reasons of :mod:`core.imaging.decode`).  A file
    is read from disk as the decoder needs it, never loaded whole.
    """
    src = _Source(data)
    try:
        with src.open() as fh, decode.open_image(fh, max_pixels=max_pixels) as im:
            fmt = im.format or ""
            width, height = im.size
    except decode.DecodeError as exc:
        raise ImageError(exc.reason) from exc
    if fmt not in _FORMATS:
        raise ImageError(f"unsupported image format {fmt or 'unknown'} (accepted: {_ACCEPTED})")

    try:
        with src.open() as fh, decode.open_image(fh, max_pixels=max_pixels) as im:
            im.verify()  # structure and checksums, without decoding pixels
        with src.open() as fh, decode.open_image(fh, max_pixels=max_pixels) as im:
            im.load()  # decode: catches truncated pixel data that verify() misses
    except decode.DecodeError as exc:
        raise ImageError(exc.reason) from exc
    except MemoryError as exc:
        raise ImageError(
            f"{decode.label(fmt)} of {width}×{height} pixels is too large to decode"
        ) from exc
    except Exception as exc:  # plugins raise OSError, SyntaxError, ValueError…
        raise ImageError(decode.failure_reason(fmt, exc, src.head, src.size)) from exc

    mime, ext = _FORMATS[fmt]
    return ImageInfo(mime=mime, ext=ext, width=width, height=height)


def inspect_local_image(
    path: Path, *, max_bytes: int, max_pixels: int = DEFAULT_MAX_PIXELS, name: str | None = None
) -> ImageInfo:
    """Validate a local image file in place; every failure is an :class:`ImageError`.

    Messages name the file (``name``, else the path): "photos/a.jpg: file not found",
    "…: truncated JPEG: …".  Only regular files are read (a FIFO or a device is refused
    without opening it).
    """
    path = Path(path)
    label = name if name is not None else str(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        raise ImageError(f"{label}: file not found") from None
    except PermissionError:
        raise ImageError(f"{label}: permission denied") from None
    except OSError as exc:
        raise ImageError(f"{label}: cannot read ({exc.strerror or exc})") from None
    if stat.S_ISDIR(st.st_mode):
        raise ImageError(f"{label}: is a directory, not an image file")
    if not stat.S_ISREG(st.st_mode):
        raise ImageError(f"{label}: not a regular file")
    if st.st_size > max_bytes:
        raise ImageError(
            f"{label}: file of {format_size(st.st_size)} is larger than the "
            f"{format_size(max_bytes)} limit"
        )
    try:
        return inspect_image(path, max_pixels=max_pixels)
    except PermissionError:
        raise ImageError(f"{label}: permission denied") from None
    except OSError as exc:
        raise ImageError(f"{label}: cannot read ({exc.strerror or exc})") from None
    except ImageError as exc:
        raise ImageError(f"{label}: {exc}") from exc
