"""A TIFF shown in Curate: Qt's TIFF handler no longer crashes the app when its reader
outlives the buffer, and the picture shown is the one core crops from (ADR 165: a
TIFF's stored pixels, for core, are the ones its decoder turned upright)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

pytest.importorskip("PySide6")

from core.imaging.decode import decode_rgb, read_header  # noqa: E402
from ui.curate.images import decode_upright  # noqa: E402


def _tiff(orientation: int, fmt: str = "TIFF") -> bytes:
    pixels = np.zeros((20, 40, 3), np.uint8)
    pixels[:, :20] = (255, 0, 0)  # red left half
    pixels[:5, 20:] = (0, 0, 255)  # blue top-right corner: tells a flip from a turn
    exif = Image.Exif()
    exif[0x0112] = orientation
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, fmt, exif=exif)
    return out.getvalue()


def _shown(data: bytes) -> np.ndarray:
    image, error, _transform = decode_upright(data)
    assert image is not None, error
    return np.array([[image.pixelColor(x, y).getRgb()[:3] for x in range(image.width())]
                     for y in range(image.height())], np.uint8)


@pytest.mark.parametrize("fmt", ["TIFF", "JPEG"])
@pytest.mark.parametrize("orientation", [1, 3, 6, 8])
def test_curate_shows_what_core_crops(qapp, fmt: str, orientation: int) -> None:  # type: ignore[no-untyped-def]
    data = _tiff(orientation, fmt)
    core = decode_rgb(data, f"x.{fmt.lower()}")
    shown = _shown(data)
    assert shown.shape == core.shape
    assert read_header(data, "x").upright_size == (core.shape[1], core.shape[0])
    # same picture (JPEG loses a little): red where red, blue where blue
    assert np.abs(shown.astype(int) - core.astype(int)).mean() < 12


def test_many_tiffs_in_a_row_do_not_crash(qapp) -> None:  # type: ignore[no-untyped-def]
    for orientation in range(1, 9):
        for _ in range(5):
            assert _shown(_tiff(orientation)).shape[2] == 3
