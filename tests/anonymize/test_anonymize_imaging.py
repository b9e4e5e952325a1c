"""Anonymization methods, geometry and box helpers (no detector needed)."""

from __future__ import annotations

import numpy as np
import pytest
from anon_helpers import quadrant_image

from core.imaging.anonymize import HideSpec, hide_regions, region_mask, stronger
from core.imaging.boxes import Detection, describe_source, grow, iou, merge_overlapping
from core.imaging.geometry import (
    Geometry,
    apply_geometry,
    inscribed_scale,
    map_box,
    plan,
)


def _noise(h: int = 200, w: int = 300) -> np.ndarray:
    return np.random.default_rng(1).integers(0, 256, (h, w, 3), dtype=np.uint8)


def test_blur_strength_scales_with_region_size() -> None:
    def remaining_contrast(size: int) -> float:
        # a 4x4 checkerboard filling the region, scaled with it, on grey
        rgb = np.full((size * 3, size * 3, 3), 128, np.uint8)
        cells = (np.indices((size, size)) // (size // 4)).sum(axis=0) % 2
        rgb[size:2 * size, size:2 * size] = (cells * 255)[..., None]
        before = rgb[size:2 * size, size:2 * size].std()
        out = hide_regions(rgb, [HideSpec(size, size, size, size)])
        return float(out[size:2 * size, size:2 * size].std() / before)

    small, big = remaining_contrast(40), remaining_contrast(160)
    assert small < 0.3 and big < 0.3  # the pattern is gone in both
    assert small == pytest.approx(big, abs=0.05)  # ... to the same degree (scale-free)


def test_pixelate_fixed_block_count_and_fill() -> None:
    rgb = _noise()
    for size in (32, 96):
        out = hide_regions(rgb, [HideSpec(20, 20, size, size, method="pixelate", strength=4)])
        patch = out[20:20 + size, 20:20 + size].reshape(-1, 3)
        assert len(np.unique(patch, axis=0)) == 16  # 4 x 4 blocks whatever the size
    out = hide_regions(rgb, [HideSpec(5, 6, 20, 10, method="fill", fill=(1, 2, 3))])
    assert (out[6:16, 5:25] == (1, 2, 3)).all()
    assert np.array_equal(out[16:, :], rgb[16:, :]) and np.array_equal(rgb, _noise())


def test_ellipse_keeps_corners_and_feather_stays_outside() -> None:
    rgb = _noise()
    spec = HideSpec(50, 50, 100, 60, shape="ellipse", method="fill")
    out = hide_regions(rgb, [spec])
    assert np.array_equal(out[51, 51], rgb[51, 51])  # corner of the box, outside the ellipse
    assert (out[80, 100] == 0).all()  # centre
    feathered = hide_regions(rgb, [HideSpec(50, 50, 40, 40, method="fill", feather=10)])
    assert (feathered[50:90, 50:90] == 0).all()  # inside fully hidden
    ring = feathered[45, 60].astype(int)
    assert np.abs(ring - rgb[45, 60].astype(int)).sum() > 0  # soft edge outside
    assert np.array_equal(feathered[30, 60], rgb[30, 60])  # beyond the feather
    mask, box = region_mask(spec, 200, 300)
    assert box == (50, 50, 150, 110) and 0.7 < mask.mean() < 0.85  # pi/4 of the box


def test_stronger_escalates_to_fill() -> None:
    spec = HideSpec(0, 0, 10, 10)
    chain = [spec]
    while (nxt := stronger(chain[-1])) is not None:
        chain.append(nxt)
    assert [s.method for s in chain] == ["blur", "blur", "fill"]
    assert stronger(HideSpec(0, 0, 1, 1, method="pixelate")).strength == 4


def test_perspective_correction_recovers_a_known_painting() -> None:
    import cv2

    painting = quadrant_image(200, 150)
    canvas_size = (400, 320)
    quad = np.array([[70, 40], [330, 70], [310, 280], [90, 250]], np.float32)
    src = np.array([[0, 0], [200, 0], [200, 150], [0, 150]], np.float32)
    matrix = cv2.getPerspectiveTransform(src, quad)
    photo = cv2.warpPerspective(painting, matrix, canvas_size, flags=cv2.INTER_CUBIC)
    geom = Geometry(quad=[tuple(map(float, p)) for p in quad])
    out = apply_geometry(photo, geom)
    resized = cv2.resize(out, (200, 150), interpolation=cv2.INTER_AREA)
    inner = (slice(8, -8), slice(8, -8))
    err = np.abs(resized[inner].astype(int) - painting[inner].astype(int)).mean()
    assert err < 12  # the painting comes back rectangular and in place
    assert resized[20, 20].tolist() == pytest.approx([220, 30, 30], abs=25)
    assert resized[130, 180].tolist() == pytest.approx([240, 240, 240], abs=25)


def test_rot90_and_crop_are_exact_and_mapped() -> None:
    rgb = _noise(100, 160)
    geom = Geometry(rot90=1, crop=(10, 20, 50, 60))
    out = apply_geometry(rgb, geom)
    assert np.array_equal(out, np.rot90(rgb, -1)[20:80, 10:60])
    matrix, size = plan(geom, 160, 100)
    assert size == (50, 60)
    # a 1x1 box at photo pixel (x=30, y=5) lands where rot90 puts it, minus the crop
    x, y, w, h = map_box(matrix, (30, 5, 1, 1))
    assert (x, y, w, h) == pytest.approx((100 - 6 - 10, 30 - 20, 1, 1))


def test_fine_rotation_crops_to_inscribed_rectangle() -> None:
    assert inscribed_scale(100, 100, 0) == 1
    k = inscribed_scale(300, 200, 10)
    _m, size = plan(Geometry(angle=10), 300, 200)
    assert size == (int(300 * k), int(200 * k)) and 0.7 < k < 0.9
    out = apply_geometry(np.full((200, 300, 3), 200, np.uint8), Geometry(angle=10))
    assert out.shape[:2] == (size[1], size[0]) and (out == 200).all()  # no empty corners


def test_boxes_grow_and_merge() -> None:
    assert grow((10, 10, 10, 20), 0.5, 0.25, size=(100, 100)) == (5, 5, 20, 30)
    assert grow((0, 0, 10, 10), 1.0, 1.0, size=(15, 100)) == (0, 0, 15, 20)
    a = Detection("face", 0, 0, 10, 10, 0.9, "centerface")
    b = Detection("face", 1, 1, 10, 10, 0.5, "hog")
    c = Detection("face", 50, 50, 10, 10, 0.7, "centerface")
    d = Detection("plate", 0, 0, 10, 10, 0.8, "pp-ocr-text")
    merged = merge_overlapping([a, b, c, d])
    faces = sorted((m for m in merged if m.kind == "face"), key=lambda m: m.x)
    assert len(merged) == 3 and faces[0].box == (0, 0, 11, 11)
    assert faces[0].detector == "centerface+hog" and faces[0].score == 0.9
    assert iou((0, 0, 10, 10), (5, 0, 10, 10)) == pytest.approx(1 / 3)


def test_a_regions_source_is_said_in_words() -> None:
    merged = merge_overlapping([Detection("plate", 0, 0, 10, 10, 0.9, "pp-ocr-text"),
                                Detection("plate", 1, 1, 10, 10, 0.8, "pp-ocr-read")])
    assert merged[0].detector == "pp-ocr-read+pp-ocr-text"
    assert describe_source(merged[0].detector) == "plate shape read + text found"
    assert describe_source("manual") == "drawn by hand"
    assert describe_source("centerface+hog") == "face detector + face detector (HOG)"
    # a name this version does not know (a later version's detector) is shown as it is
    assert describe_source("yunet") == "yunet" and describe_source("") == ""
    # a hand-edited project: no line breaks, no screenful of text in the region list
    odd = describe_source("a\nb" + "x" * 5000 + "+pp-ocr-text")
    assert "\n" not in odd and len(odd) < 70 and odd.endswith("… + text found")
    # a name turned around or hiding an escape is spelt out, as all shown text is
    assert describe_source("deface\u202e+\x1b[2J") == "deface⟨U+202E⟩ + ⟨U+001B⟩[2J"
