"""A small photo with an EXIF orientation, for the tests that Curate, the rating files and
the exports all show it upright."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

W, H = 64, 40  # stored pixels: landscape; orientations 5–8 show it portrait


def oriented_photo(orientation: int, fmt: str = "JPEG", mode: str = "RGB") -> bytes:
    """Four flat quadrants (red, green, blue, white) and a black dot near the top left, so
    every rotation and mirror looks different; EXIF ``orientation``."""
    a = np.zeros((H, W, 3), np.uint8)
    a[: H // 2, : W // 2] = (220, 30, 30)
    a[: H // 2, W // 2:] = (30, 200, 30)
    a[H // 2:, : W // 2] = (30, 30, 220)
    a[H // 2:, W // 2:] = (240, 240, 240)
    a[4:10, 4:12] = 0
    exif = Image.Exif()
    exif[0x0112] = orientation
    out = io.BytesIO()
    extra = {"quality": 100, "subsampling": 0} if fmt == "JPEG" else {}
    Image.fromarray(a).convert(mode).save(out, fmt, exif=exif.tobytes(), **extra)
    return out.getvalue()
