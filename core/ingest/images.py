"""Validate image bytes (local files or downloads) before they enter a project.

:func:`inspect_image` proves that bytes are a complete, decodable raster image of
an accepted format and not a decompression bomb, and says what it is.  Every
problem becomes an :class:`ImageError` whose message a curator can act on
("truncated JPEG: …", "not an image (looks like HTML)", …).

Pillow's global ``Image.MAX_IMAGE_PIXELS`` is never modified: the pixel limit is
checked explicitly from the image header before any pixel data is decoded.
"""

from __future__ import annotations

import io
import os
import re
import stat
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from PIL import Image, UnidentifiedImageError

__all__ = [
    "DEFAULT_MAX_PIXELS",
    "ImageError",
    "ImageInfo",
    "format_size",
    "inspect_image",
    "inspect_local_image",
]

DEFAULT_MAX_PIXELS = 80_000_000

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

_init_lock = threading.Lock()
_initialised = False


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


def _init_plugins() -> None:
    """Register all Pillow plugins once (and pillow-heif when installed)."""
    global _initialised
    with _init_lock:
        if _initialised:
            return
        Image.init()
        try:  # optional plugin: HEIC photos from phones
            from pillow_heif import register_heif_opener

            register_heif_opener()
        except Exception:  # not installed, or broken: HEIC stays unsupported
            pass
        _initialised = True


def _sniff_label(data: bytes) -> str | None:
    """Format name from magic bytes, used only to word error messages."""
    if data.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "GIF"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WebP"
    if data[:2] == b"BM":
        return "BMP"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "TIFF"
    if data[4:8] == b"ftyp" and data[8:12] in (b"heic", b"heix", b"mif1", b"msf1", b"hevc"):
        return "HEIC"
    return None


def _label(fmt: str | None) -> str:
    return {"MPO": "JPEG", "WEBP": "WebP", "HEIF": "HEIC"}.get(fmt or "", fmt or "image")


def _describe_non_image(data: bytes) -> str:
    """Why bytes that no decoder accepts are not an image, e.g. "looks like HTML".

    Never quotes the bytes themselves: a report must not disclose a file's contents.
    """
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith((b"<!doctype html", b"<html", b"<head", b"<body")) or b"<html" in head:
        return "not an image (looks like HTML)"
    if b"<svg" in head:
        return "not a raster image (looks like SVG, which is not supported)"
    if head.startswith(b"<?xml") or head.startswith(b"<"):
        return "not an image (looks like XML)"
    if head.startswith((b"{", b"[")):
        return "not an image (looks like JSON)"
    try:
        text = data[:1024].decode("utf-8")
    except UnicodeDecodeError:
        text = ""
    if text and sum(ch.isprintable() or ch.isspace() for ch in text) >= 0.95 * len(text):
        return "not an image (looks like text)"
    return "not an image (unrecognised data)"


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


def _peek(src: _Source) -> tuple[str, int, int] | None:
    """(format, width, height) read from the header by the accepted decoders.

    Same lookup as ``Image.open`` but without its global decompression-bomb
    check, so a bomb is reported with its real dimensions and no warning.
    """
    _init_plugins()
    prefix = src.head[:16]
    for fmt in ("JPEG", "PNG", "WEBP", "GIF", "BMP", "TIFF", "HEIF"):
        entry = Image.OPEN.get(fmt)
        if entry is None:
            continue
        factory, accept = entry
        try:
            accepted = accept(prefix) if accept else True
            if not accepted or isinstance(accepted, str):
                continue
            with src.open() as fh:
                im = factory(fh, "")
                try:
                    return im.format or fmt, im.size[0], im.size[1]
                finally:
                    im.close()
        except Exception:
            continue
    return None


def _bomb(width: int, height: int, max_pixels: int) -> ImageError:
    return ImageError(
        f"decompression bomb: {width}×{height} pixels exceeds the {max_pixels / 1e6:g} MP limit"
    )


def _bomb_from_pillow(exc: Exception, max_pixels: int) -> ImageError:
    match = re.search(r"\((\d+) pixels\)", str(exc))
    pixels = f"{int(match.group(1)) / 1e6:.0f} MP" if match else "too many pixels"
    return ImageError(f"decompression bomb: {pixels} exceeds the {max_pixels / 1e6:g} MP limit")


def _decode_error(fmt: str | None, exc: BaseException, src: _Source) -> ImageError:
    detail = str(exc) or type(exc).__name__
    head = src.head
    if head[:4] == b"RIFF" and src.size >= 12:  # WebP: the RIFF header declares the size
        declared = int.from_bytes(head[4:8], "little") + 8
        if declared > src.size:
            detail = f"file has {src.size} of the {declared} bytes its header declares"
    kind = "truncated" if "truncated" in detail.lower() or "declares" in detail else "corrupt"
    return ImageError(f"{kind} {_label(fmt)}: {detail}")


def inspect_image(data: bytes | Path, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> ImageInfo:
    """Check that ``data`` (bytes, or a file) is a complete, decodable image and describe it.

    Raises :class:`ImageError` for empty data, non-images (HTML, text…),
    unsupported formats, images over ``max_pixels`` (checked before decoding)
    and corrupt or truncated files.  A file is read from disk as the decoder needs it,
    never loaded whole.
    """
    src = _Source(data)
    if not src.size:
        raise ImageError("empty file (0 bytes)")
    peeked = _peek(src)
    if peeked is not None and peeked[1] * peeked[2] > max_pixels:
        raise _bomb(peeked[1], peeked[2], max_pixels)
    sniffed = peeked[0] if peeked else _sniff_label(src.head)

    try:
        with src.open() as fh, Image.open(fh) as im:
            fmt = im.format or ""
            width, height = im.size
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise _bomb_from_pillow(exc, max_pixels) from exc
    except UnidentifiedImageError as exc:
        if sniffed:
            raise ImageError(f"corrupt {_label(sniffed)}: cannot read the header") from exc
        raise ImageError(_describe_non_image(src.head)) from exc
    except Exception as exc:  # plugins raise OSError, SyntaxError, ValueError…
        raise _decode_error(sniffed, exc, src) from exc

    if fmt not in _FORMATS:
        raise ImageError(f"unsupported image format {fmt or 'unknown'} (accepted: {_ACCEPTED})")
    if width <= 0 or height <= 0:
        raise ImageError(f"corrupt {_label(fmt)}: invalid size {width}×{height}")
    if width * height > max_pixels:
        raise _bomb(width, height, max_pixels)

    try:
        with src.open() as fh, Image.open(fh) as im:
            im.verify()  # structure and checksums, without decoding pixels
        with src.open() as fh, Image.open(fh) as im:
            im.load()  # decode: catches truncated pixel data that verify() misses
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise _bomb_from_pillow(exc, max_pixels) from exc
    except MemoryError as exc:
        raise ImageError(
            f"{_label(fmt)} of {width}×{height} pixels is too large to decode"
        ) from exc
    except Exception as exc:
        raise _decode_error(fmt, exc, src) from exc

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
