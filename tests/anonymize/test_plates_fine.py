"""A big photo is searched at its own pixels too (ADR 171).

At the working scale (1280 px long side) a plate 100 px wide in a 12 MP photo has
characters about 7 px tall, too small for the text detector; the fine pass searches
the photo at up to twice the working scale.  The real-photo case is the tune split's
(ADR 110) ``us/car14.jpg`` in its ``street`` stress variant (scaled so its plate is
100 px wide, reflected out to 4032 × 3024: a street photo's size).  Skipped, naming what is missing, without the
testdata or the PP-OCR models.
"""

from __future__ import annotations

import numpy as np
import pytest
from plate_helpers import covered, touching, tune_variant

from core.imaging import plates


def _box(quad: np.ndarray) -> tuple[float, float, float, float]:
    (x1, y1), (x2, y2) = quad.min(axis=0), quad.max(axis=0)
    return (float(x1), float(y1), float(x2 - x1), float(y2 - y1))


def test_only_a_photo_well_above_the_working_scale_gets_a_fine_copy() -> None:
    small = np.zeros((960, 1280, 3), np.uint8)
    assert plates.Copies.of(small).fine is None
    just_above = np.zeros((1080, 1500, 3), np.uint8)  # < 1.25 × 1280
    assert plates.Copies.of(just_above).fine is None
    hd = np.zeros((1080, 1920, 3), np.uint8)  # searched at its own size
    made = plates.Copies.of(hd)
    assert made.fine is not None and made.fine.shape == hd.shape
    assert made.fine_to_photo is not None and np.allclose(made.fine_to_photo, 1.0)
    big = np.zeros((3024, 4032, 3), np.uint8)  # at twice the working scale
    made = plates.Copies.of(big)
    assert made.fine is not None and max(made.fine.shape[:2]) == 2560
    assert made.fine_to_photo is not None
    assert np.allclose(made.fine_to_photo * made.fine.shape[1::-1], (4032, 3024), atol=1)


@pytest.fixture(scope="module")
def street() -> tuple[np.ndarray, np.ndarray]:
    rgb, quad, _text = tune_variant("us", "car14.jpg", "street")
    return rgb, quad


def test_a_small_plate_in_a_big_photo_is_found(
    street: tuple[np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    rgb, quad = street
    found = touching(plates.find_plates(rgb), quad)
    assert found and covered(found, _box(quad), rgb.shape) >= 0.9
    # regions in the photo's own pixels, near the plate (not the whole photo)
    assert all(d.w * d.h <= 20 * float(np.ptp(quad[:, 0]) * np.ptp(quad[:, 1])) for d in found)
    monkeypatch.setattr(plates, "FINE_FROM", 99.0)  # before ADR 171: the working scale only
    assert touching(plates.find_plates(rgb), quad) == []
