"""The two plate measures of ADR 110 (detail removed, OCR legibility), the split, the variants."""

from __future__ import annotations

import numpy as np
import pytest
from plate_helpers import draw_plate, need_text_models, textured

from core.imaging.anonymize import HideSpec, hide_regions
from core.imaging.loading import decode_rgb
from core.imaging.plate_eval import (
    common_characters,
    detail_hidden,
    held_out,
    legible_min_chars,
    ocr_legible,
    stress_variant,
    variant,
)
from core.imaging.release import encode_clean

PLATE = (120, 90, 240, 120)  # x, y, w, h


def _photo() -> np.ndarray:
    return draw_plate(textured(480, 300), PLATE, "KX 4821", "OHIO")


def _quad(box: tuple[int, int, int, int]) -> np.ndarray:
    x, y, w, h = box
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], float)


def _released(rgb: np.ndarray, specs: list[HideSpec]) -> np.ndarray:
    return decode_rgb(encode_clean(hide_regions(rgb, specs)))


def _around(box: tuple[int, int, int, int], pad: int = 8, **kw) -> HideSpec:
    x, y, w, h = box
    return HideSpec(x - pad, y - pad, w + 2 * pad, h + 2 * pad, **kw)


def test_detail_measure_separates_hidden_from_shown() -> None:
    rgb, quad = _photo(), _quad(PLATE)
    assert detail_hidden(rgb, _released(rgb, []), quad) < 0.15  # a JPEG round trip only
    assert detail_hidden(rgb, _released(rgb, [_around(PLATE)]), quad) >= 0.95
    assert detail_hidden(rgb, _released(rgb, [_around(PLATE, method="fill")]), quad) == 1.0
    # block edges are new detail, not the plate's; the block means of 8 blocks across
    # still follow the characters a little, 4 blocks hardly
    pixelated = _released(rgb, [_around(PLATE, method="pixelate")])
    assert detail_hidden(rgb, pixelated, quad) >= 0.8
    coarse = _released(rgb, [_around(PLATE, method="pixelate", strength=4)])
    assert detail_hidden(rgb, coarse, quad) >= 0.9


def test_a_feeble_blur_does_not_count_as_hidden() -> None:
    import cv2

    rgb, quad = _photo(), _quad(PLATE)
    x, y, w, h = PLATE
    weak = rgb.copy()
    weak[y : y + h, x : x + w] = cv2.GaussianBlur(rgb, (0, 0), 0.015 * h)[y : y + h, x : x + w]
    assert detail_hidden(rgb, weak, quad) < 0.5  # region "covered" 100 %, still readable


def test_half_a_plate_scores_about_half() -> None:
    rgb, quad = _photo(), _quad(PLATE)
    x, y, w, h = PLATE
    half = _released(rgb, [HideSpec(x - 8, y - 8, w / 2 + 8, h + 16)])
    assert 0.35 <= detail_hidden(rgb, half, quad) <= 0.65


def test_region_ending_exactly_at_the_plate_border_leaves_the_border() -> None:
    rgb, quad = _photo(), _quad(PLATE)
    exact = _released(rgb, [HideSpec(*PLATE)])
    margin = _released(rgb, [_around(PLATE, pad=PLATE[3] // 6)])
    assert detail_hidden(rgb, exact, quad) < detail_hidden(rgb, margin, quad)


def test_ocr_legibility_reads_a_plate_and_not_a_hidden_one() -> None:
    need_text_models()
    rgb, quad = _photo(), _quad(PLATE)
    legible, chars = ocr_legible(rgb, quad, "KX4821")
    assert legible and chars >= 5
    legible, chars = ocr_legible(_released(rgb, [_around(PLATE)]), quad, "KX4821")
    assert not legible and chars < legible_min_chars("KX4821")


def test_legibility_threshold() -> None:
    assert common_characters("KX4821", "KX4821") == 6
    assert common_characters("K-X48", "KX4821") == 4
    assert common_characters("", "KX4821") == 0
    assert legible_min_chars("KX4821") == 3 and legible_min_chars("BS47040") == 4
    assert legible_min_chars("AB") == 3


def test_split_is_a_fixed_hash_of_the_file_name() -> None:
    names = [f"car{i}.jpg" for i in range(400)]
    first = [held_out(n) for n in names]
    assert first == [held_out(n) for n in names]
    assert 0.4 < sum(first) / len(first) < 0.6
    assert held_out("eu1.jpg") is False and held_out("eu4.jpg") is True


@pytest.mark.parametrize("kind", ["closeup", "rotate", "night", "blur"])
def test_variants_keep_the_plate_inside_the_photo(kind: str) -> None:
    rgb, quad = _photo(), _quad(PLATE)
    out, moved = variant(rgb, quad, kind, seed=3)
    assert out.dtype == np.uint8 and out.ndim == 3
    assert (moved >= -1).all() and (moved[:, 0] <= out.shape[1] + 1).all()
    assert (moved[:, 1] <= out.shape[0] + 1).all()
    if kind == "closeup":
        assert out.shape[:2] == (960, 1280)
        assert abs(np.linalg.norm(moved[1] - moved[0]) - 0.6 * 1280) < 2
    if kind == "rotate":
        edge = moved[1] - moved[0]
        angle = abs(np.degrees(np.arctan2(edge[1], edge[0])))
        assert 5 <= angle <= 10
    if kind == "night":
        assert out.mean() < 0.4 * rgb.mean()
    with pytest.raises(ValueError, match="unknown variant"):
        variant(rgb, quad, "fog", seed=0)


def _sharpness(rgb: np.ndarray) -> float:
    grey = rgb.astype(np.float32).mean(axis=2)
    return float(np.abs(np.diff(grey, axis=1)).mean())


def test_middle_strength_stress_variants_lie_between_mild_and_harsh() -> None:
    """``night-mid``, ``blur-mid`` and ``night-blur`` (ADR 173): darker or softer than the
    held-out variants, less than the harsh ones; the same seed, the same pixels."""
    rgb, quad = _photo(), _quad(PLATE)
    mean = {k: variant(rgb, quad, k, 3)[0].mean() for k in ("night",)}
    mean["night-mid"] = stress_variant(rgb, quad, "night-mid", 3)[0].mean()
    mean["night-deep"] = stress_variant(rgb, quad, "night-deep", 3)[0].mean()
    assert mean["night-deep"] < mean["night-mid"] < mean["night"]
    sharp = {"blur": _sharpness(variant(rgb, quad, "blur", 3)[0])}
    for kind in ("blur-mid", "blur-heavy"):
        sharp[kind] = _sharpness(stress_variant(rgb, quad, kind, 3)[0])
    assert sharp["blur-heavy"] < sharp["blur-mid"] < sharp["blur"]
    both, moved = stress_variant(rgb, quad, "night-blur", 3)
    assert np.array_equal(moved, quad) and both.mean() < 0.4 * rgb.mean()
    assert _sharpness(both) < _sharpness(variant(rgb, quad, "night", 3)[0])
    assert np.array_equal(both, stress_variant(rgb, quad, "night-blur", 3)[0])


def test_tilted_far_severe_and_motion_stress_variants() -> None:
    """``rotate-far``: the held-out rotation of the same seed, shrunk to 80 %;
    ``blur-severe``: softer than ``blur-heavy``; ``motion``: blurred along the rows
    only (ADR 174)."""
    rgb, quad = _photo(), _quad(PLATE)
    turned, corners = variant(rgb, quad, "rotate", 3)
    far, moved = stress_variant(rgb, quad, "rotate-far", 3)
    assert far.shape[:2] == (round(0.8 * turned.shape[0]), round(0.8 * turned.shape[1]))
    assert np.allclose(moved, 0.8 * corners)
    severe = _sharpness(stress_variant(rgb, quad, "blur-severe", 3)[0])
    assert severe < _sharpness(stress_variant(rgb, quad, "blur-heavy", 3)[0])
    smeared, same = stress_variant(rgb, quad, "motion", 3)
    assert np.array_equal(same, quad)
    grey, after = rgb.astype(np.float32).mean(axis=2), smeared.astype(np.float32).mean(axis=2)
    across = np.abs(np.diff(after, axis=1)).mean() / np.abs(np.diff(grey, axis=1)).mean()
    down = np.abs(np.diff(after, axis=0)).mean() / np.abs(np.diff(grey, axis=0)).mean()
    assert across < 0.5 * down  # the rows are smeared, the columns much less


def test_rotate_blur_is_the_held_out_rotation_then_the_held_out_blur() -> None:
    """``rotate-blur`` (stop 29): the same seed's mild rotation, then the mild blur — the
    plate's corners are the rotation's, and the pixels are softer than the rotation's."""
    rgb, quad = _photo(), _quad(PLATE)
    turned, corners = variant(rgb, quad, "rotate", 3)
    both, moved = stress_variant(rgb, quad, "rotate-blur", 3)
    assert np.allclose(moved, corners) and both.shape == turned.shape
    assert np.array_equal(both, variant(turned, corners, "blur", 3)[0])
    assert _sharpness(both) < 0.9 * _sharpness(turned)


def test_missing_testdata_skips_and_fails_under_ci(monkeypatch, tmp_path) -> None:
    import plate_helpers

    monkeypatch.setattr(plate_helpers, "TESTDATA", tmp_path)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="plate testdata missing: .*eu"):
        plate_helpers.plates_testdata()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        plate_helpers.plates_testdata()
