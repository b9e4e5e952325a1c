"""The benchmark export crops a box from the stored pixels and turns the crop upright by
the file's EXIF orientation (the PNG it writes carries none), so the exported crop shows
what Curate and the rating file show; a CMYK crop is written as sRGB."""

from __future__ import annotations

import io

import numpy as np
import pytest
from oriented_photos import H, W, oriented_photo
from PIL import Image

from core.curate import export
from core.rating import images as rating_images


def _exported(monkeypatch, data: bytes, box: tuple[int, int, int, int]) -> np.ndarray:
    monkeypatch.setattr(export, "image_bytes", lambda project, sha: data)
    png, ext = export.exported_image(None, "sha", box, "photo.jpg")  # type: ignore[arg-type]  # the project is not read: image_bytes is replaced
    assert ext == "png"
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG" and "exif" not in img.info
    return np.asarray(img.convert("RGB")).astype(int)


@pytest.mark.parametrize("orientation", range(1, 9))
def test_an_exported_crop_is_upright_as_the_rating_file_shows_it(
    monkeypatch, orientation: int
) -> None:
    data = oriented_photo(orientation)
    for box in ((2, 3, 20, 11), (40, 25, 24, 15), (0, 0, W, H)):
        crop = _exported(monkeypatch, data, box)
        shown = rating_images.decode(data, "photo.jpg", list(box)).astype(int)
        assert crop.shape == shown.shape
        assert float(np.abs(crop - shown).mean()) < 3.0
        if orientation in (5, 6, 7, 8):
            assert crop.shape[:2] == (box[2], box[3])  # width and height swapped


def test_a_cmyk_crop_is_written_as_srgb(monkeypatch) -> None:
    data = oriented_photo(6, mode="CMYK")
    crop = _exported(monkeypatch, data, (2, 3, 20, 11))
    shown = rating_images.decode(data, "photo.jpg", [2, 3, 20, 11]).astype(int)
    assert crop.shape == shown.shape and float(np.abs(crop - shown).mean()) < 6.0
