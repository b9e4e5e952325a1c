"""Previews and pyramids for big photos (issue 14 item 8, ADR 048), without Qt."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from anon_helpers import adobe_rgb_icc, jpeg_with_everything, quadrant_image
from PIL import Image

from core.imaging.anonymize import HideSpec
from core.imaging.geometry import Geometry
from core.imaging.loading import PhotoDecodeError, decode_rgb
from core.imaging.pyramid import (
    Pyramid,
    after_size,
    decode_full,
    halve,
    open_photo,
    pyramid_of,
    render_after,
)
from core.imaging.release import render


def _scene(width: int, height: int) -> np.ndarray:
    """Smooth gradients plus a few sharp blocks (a photo-like test image)."""
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    rgb = np.stack([xs / width * 255, ys / height * 255,
                    (np.sin(xs / 37) * np.cos(ys / 53) + 1) * 127], axis=2)
    for i in range(6):
        x, y = width * i // 7, height * (i % 3) // 4
        rgb[y:y + height // 8, x:x + width // 9] = (240 - 30 * i, 20 * i, 90)
    return rgb.astype(np.uint8)


def _jpeg(rgb: np.ndarray, **kwargs: object) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, "JPEG", quality=92, **kwargs)
    return buf.getvalue()


def _shrunk(rgb: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    return np.asarray(Image.fromarray(rgb).resize(size, Image.Resampling.BOX))


def test_halve_is_the_rounded_mean_of_each_2x2_block() -> None:
    rng = np.random.default_rng(1)
    rgb = rng.integers(0, 256, (7, 9, 3), np.uint8)
    blocks = rgb[:6, :8].astype(int).reshape(3, 2, 4, 2, 3).sum(axis=(1, 3))
    assert np.array_equal(halve(rgb), (blocks + 2) // 4)


def test_pyramid_levels_and_level_choice() -> None:
    pyramid = pyramid_of(np.zeros((1500, 4100, 3), np.uint8))
    assert [lv.shape[1] for lv in pyramid.levels] == [4100, 2050, 1025, 512]
    assert pyramid.full and (pyramid.width, pyramid.height) == (4100, 1500)
    assert pyramid.level_for(1.0) is pyramid.levels[0]
    assert pyramid.level_for(2.0) is pyramid.levels[0]  # zoomed in beyond full size
    assert pyramid.level_for(0.5) is pyramid.levels[1]
    assert pyramid.level_for(0.3) is pyramid.levels[1]  # 1025 px < 0.3 × 4100 = 1230 px
    assert pyramid.level_for(0.25) is pyramid.levels[2]
    assert pyramid.level_for(0.1) is pyramid.levels[3]
    assert pyramid.nbytes == sum(lv.nbytes for lv in pyramid.levels)


def test_jpeg_preview_is_decoded_small_and_looks_like_the_photo(monkeypatch) -> None:
    from PIL import JpegImagePlugin

    asked: list[tuple[str, tuple[int, int]]] = []
    draft = JpegImagePlugin.JpegImageFile.draft

    def spy(image, mode, size):  # type: ignore[no-untyped-def]
        asked.append((mode, size))
        return draft(image, mode, size)

    monkeypatch.setattr(JpegImagePlugin.JpegImageFile, "draft", spy)
    rgb = _scene(4000, 3000)
    data = _jpeg(rgb)
    preview = decode_rgb(data, "big.jpg", max_side=1000)
    assert asked == [("RGB", (1000, 750))]  # libjpeg decodes at 1/4 scale directly
    assert preview.shape == (750, 1000, 3)
    full = decode_rgb(data, "big.jpg")
    reference = _shrunk(full, (1000, 750))
    assert np.abs(preview.astype(int) - reference).mean() < 3.0


def test_preview_applies_orientation_and_colour_profile(tmp_path: Path) -> None:
    upright = quadrant_image(1200, 800)
    stored = np.rot90(upright, k=1).copy()  # EXIF orientation 6 turns it back
    preview = decode_rgb(jpeg_with_everything(stored), "rotated.jpg", max_side=300)
    assert preview.shape == (200, 300, 3)
    assert np.abs(preview.astype(int) - _shrunk(upright, (300, 200))).mean() < 6
    icc = adobe_rgb_icc()
    data = _jpeg(_scene(1600, 1200), icc_profile=icc)
    small = decode_rgb(data, "adobe.jpg", max_side=400)
    converted = _shrunk(decode_rgb(data, "adobe.jpg"), (400, 300))
    plain = _shrunk(np.asarray(Image.open(io.BytesIO(data)).convert("RGB")), (400, 300))
    assert np.abs(small.astype(int) - converted).mean() < 2.5  # converted to sRGB …
    assert np.abs(converted.astype(int) - plain).mean() > 4  # … which is a real change


def test_png_preview_and_small_photos_are_untouched() -> None:
    rgb = _scene(900, 500)
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, "PNG")
    assert decode_rgb(buf.getvalue(), "a.png", max_side=450).shape == (250, 450, 3)
    assert np.array_equal(decode_rgb(buf.getvalue(), "a.png", max_side=2000), rgb)


def test_open_photo_hands_over_a_preview_first() -> None:
    rgb = _scene(3000, 1000)
    data = _jpeg(rgb)
    seen: list[Pyramid] = []
    stages: list[tuple[float, str]] = []
    pyramid = open_photo(data, "wide.jpg", (3000, 1000), seen.append,
                         progress=lambda f, s: stages.append((f, s)))
    assert len(seen) == 1 and not seen[0].full and seen[0].levels[0].shape[1] <= 2048
    assert (seen[0].width, seen[0].height) == (3000, 1000)
    assert pyramid.full and np.array_equal(pyramid.levels[0], decode_rgb(data))
    assert [s for _f, s in stages] == ["preview", "full resolution", "pyramid"]
    small = open_photo(_jpeg(rgb[:400, :600]), "small.jpg", (600, 400), seen.append)
    assert small.full and len(seen) == 1  # no preview step for a small photo


def test_a_photo_that_changed_size_or_broke_is_refused_by_name() -> None:
    data = _jpeg(_scene(300, 200))
    with pytest.raises(ValueError, match=r"swapped.jpg: decodes to 300×200, not the 200×300"):
        decode_full(data, "swapped.jpg", (200, 300))
    with pytest.raises(PhotoDecodeError, match="cut.jpg"):
        open_photo(data[: len(data) // 3], "cut.jpg", (300, 200))
    with pytest.raises(PhotoDecodeError, match="noise.jpg"):
        decode_rgb(b"\xff\xd8\xff\xe0 not a jpeg", "noise.jpg", max_side=100)


SPECS = [HideSpec(400, 300, 500, 400, "ellipse", "blur"),
         HideSpec(1500, 900, 300, 200, "rect", "pixelate"),
         HideSpec(100, 1100, 400, 150, "rect", "fill", feather=8)]


@pytest.mark.parametrize("geometry", [
    Geometry(),
    Geometry(rot90=1, crop=(100.0, 50.0, 900.0, 1200.0)),
    Geometry(angle=4.0),
    Geometry(quad=[(80.0, 40.0), (1900.0, 120.0), (1850.0, 1300.0), (60.0, 1350.0)]),
])
def test_render_after_at_full_size_is_the_release_and_smaller_levels_agree(
        geometry: Geometry) -> None:
    rgb = _scene(2000, 1400)
    full = render_after(rgb, SPECS, geometry, (2000, 1400))
    assert np.array_equal(full, render(rgb, SPECS, geometry))  # exactly what is released
    assert (full.shape[1], full.shape[0]) == after_size(geometry, 2000, 1400)
    level = pyramid_of(rgb).levels[2]  # a quarter of the size
    small = render_after(level, SPECS, geometry, (2000, 1400))
    assert abs(small.shape[1] - full.shape[1] / 4) <= 1.5
    assert abs(small.shape[0] - full.shape[0] / 4) <= 1.5
    reference = _shrunk(full, (small.shape[1], small.shape[0]))
    assert np.abs(small.astype(int) - reference).mean() < 6.0


def test_render_after_reports_progress_and_can_be_cancelled() -> None:
    rgb = _scene(800, 600)
    seen: list[tuple[float, str]] = []
    render_after(rgb, SPECS[:2], Geometry(), (800, 600), None,
                 lambda f, s: seen.append((f, s)))
    assert [s for _f, s in seen] == ["hiding region 1 of 2", "hiding region 2 of 2",
                                     "geometry"]

    class Stop(Exception):
        pass

    def stop() -> None:
        raise Stop

    with pytest.raises(Stop):
        render_after(rgb, SPECS, Geometry(), (800, 600), stop)
