"""Decode photos: EXIF orientation applied first, colours converted to sRGB.

Everything downstream (detection, display, release) works on the upright RGB array
returned by :func:`load_rgb`, so region coordinates always refer to the photo as a
person sees it.
"""

from __future__ import annotations

import io
import math
import os
from pathlib import Path

import numpy as np
from PIL import Image, ImageCms, ImageOps, UnidentifiedImageError

#: suffixes accepted by the folder intake (HEIC only when pillow-heif is installed)
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png")
HEIF_SUFFIXES = (".heic", ".heif")


class PhotoDecodeError(ValueError):
    """A file that is not a photo Winnow can read (names the file)."""


def heif_available() -> bool:
    """Register the HEIC opener if ``pillow-heif`` is installed; True when it is."""
    try:
        from pillow_heif import register_heif_opener
    except ImportError:
        return False
    register_heif_opener()
    return True


def accepted_suffixes() -> tuple[str, ...]:
    """Photo suffixes this installation can read."""
    return PHOTO_SUFFIXES + (HEIF_SUFFIXES if heif_available() else ())


def _to_srgb(image: Image.Image) -> Image.Image:
    """Convert to 8-bit RGB, applying an embedded ICC profile so colours do not shift."""
    icc = image.info.get("icc_profile")
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):
        image = image.point(lambda v: v / 256).convert("L")
    if image.mode == "P":
        image = image.convert("RGBA")
    if image.mode in ("RGBA", "LA"):
        background = Image.new("RGBA", image.size, (255, 255, 255, 255))
        image = Image.alpha_composite(background, image.convert("RGBA"))
    if icc:
        try:
            src = ImageCms.ImageCmsProfile(io.BytesIO(icc))
            mode = image.mode if image.mode in ("RGB", "CMYK", "L") else "RGB"
            if image.mode != mode:
                image = image.convert(mode)
            converted = ImageCms.profileToProfile(
                image, src, ImageCms.createProfile("sRGB"), outputMode="RGB",
                renderingIntent=ImageCms.Intent.PERCEPTUAL)
            if converted is not None:  # always: None only when converting in place
                return converted
        except (OSError, ImageCms.PyCMSError, ValueError):
            pass  # a broken profile: fall back to plain conversion
    return image if image.mode == "RGB" else image.convert("RGB")


def decode_rgb(data: bytes, name: str = "photo", max_side: int | None = None
               ) -> np.ndarray:
    """Decode ``data`` to an upright sRGB ``uint8`` array of shape (h, w, 3).

    With ``max_side``, a preview whose long side is at most ``max_side``: a JPEG is
    decoded directly at 1/2, 1/4 or 1/8 scale (libjpeg's DCT scaling, Pillow's draft
    mode), then every format is resized; far less time and memory than a full decode.
    """
    if any(name.lower().endswith(s) for s in HEIF_SUFFIXES):
        heif_available()
    try:
        with Image.open(io.BytesIO(data)) as image:
            if max_side and max(image.size) > max_side and image.format == "JPEG":
                shrink = max_side / max(image.size)
                image.draft("RGB", (math.ceil(image.width * shrink),
                                    math.ceil(image.height * shrink)))
            image.load()
            # no copy of an upright photo (a whole-photo copy holds the GIL: see _to_array)
            upright = ImageOps.exif_transpose(image) if image.getexif().get(
                0x0112, 1) != 1 else image
            if max_side and max(upright.size) > max_side:
                shrink = max_side / max(upright.size)
                upright = upright.resize(
                    (max(1, round(upright.width * shrink)),
                     max(1, round(upright.height * shrink))),
                    Image.Resampling.BILINEAR, reducing_gap=2.0)
            return _to_array(_to_srgb(upright))  # inside: closing drops the pixels
    except UnidentifiedImageError as exc:
        raise PhotoDecodeError(f"{name}: not a readable image (unknown or broken format)"
                               ) from exc
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
        raise PhotoDecodeError(f"{name}: cannot decode the image ({exc})") from exc


def _to_array(rgb: Image.Image, band_bytes: int = 4 << 20) -> np.ndarray:
    """An RGB image as an (h, w, 3) array, copied in bands of about ``band_bytes``.

    ``np.asarray`` copies a whole photo in one piece while holding the GIL (a 75 MP
    photo: ~50 ms with the GUI thread waiting); bands keep those waits to a few ms.
    """
    width, height = rgb.size
    out = np.empty((height, width, 3), np.uint8)
    rows = max(1, band_bytes // max(1, 3 * width))
    for top in range(0, height, rows):
        band = rgb.crop((0, top, width, min(height, top + rows)))
        out[top:top + band.height] = np.frombuffer(band.tobytes(), np.uint8).reshape(
            band.height, width, 3)
    return out


def load_rgb(path: str | os.PathLike[str]) -> np.ndarray:
    """Read and decode the photo at ``path`` (see :func:`decode_rgb`)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise PhotoDecodeError(f"{path.name}: cannot read ({exc.strerror or exc})") from exc
    return decode_rgb(data, path.name)


def upright_size(data: bytes) -> tuple[int, int]:
    """(width, height) after EXIF orientation, without decoding all pixels."""
    with Image.open(io.BytesIO(data)) as image:
        width, height = image.size
        orientation = image.getexif().get(0x0112, 1)
    return (height, width) if orientation in (5, 6, 7, 8) else (width, height)
