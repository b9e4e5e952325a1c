"""Photos for Anonymize: read, decoded upright and in sRGB by :mod:`core.imaging.decode`.

Everything downstream (detection, display, release) works on the upright RGB array
returned by :func:`load_rgb`, so region coordinates always refer to the photo as a
person sees it.  Photos have the photographers' pixel limit
(:data:`core.imaging.decode.PHOTO_MAX_PIXELS`).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from core.imaging.decode import (
    PHOTO_MAX_PIXELS,
    DecodeError,
    decode_rgb,
    heif_available,
    read_header,
)

__all__ = [
    "HEIF_SUFFIXES",
    "PHOTO_SUFFIXES",
    "PhotoDecodeError",
    "accepted_suffixes",
    "decode_rgb",
    "heif_available",
    "load_rgb",
    "upright_size",
]

#: suffixes accepted by the folder intake (HEIC only when pillow-heif is installed)
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png")
HEIF_SUFFIXES = (".heic", ".heif")

#: a file that is not a photo Winnow can read (the message names the file)
PhotoDecodeError = DecodeError


def accepted_suffixes() -> tuple[str, ...]:
    """Photo suffixes this installation can read."""
    return PHOTO_SUFFIXES + (HEIF_SUFFIXES if heif_available() else ())


def load_rgb(path: str | os.PathLike[str]) -> np.ndarray:
    """Read and decode the photo at ``path`` (see :func:`core.imaging.decode.decode_rgb`)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DecodeError(path.name, f"cannot read ({exc.strerror or exc})") from exc
    return decode_rgb(data, path.name)


def upright_size(data: bytes, name: str = "photo") -> tuple[int, int]:
    """(width, height) after EXIF orientation, from the header alone (no pixel decoded,
    a PNG's eXIf chunk included)."""
    return read_header(data, name, max_pixels=PHOTO_MAX_PIXELS).upright_size
