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
from plate_helpers import covered, quad_box, touching, tune_variant

from core.imaging import plates


def test_only_a_big_daylight_photo_is_searched_at_the_fine_scale() -> None:
    rng = np.random.default_rng(0)

    def photo(h: int, w: int) -> np.ndarray:
        return rng.integers(0, 256, (h, w, 3), dtype=np.uint8)

    assert plates.Copies.of(photo(960, 1280)).big is None
    assert plates.Copies.of(photo(1080, 1500)).big is None  # < 1.25 × 1280
    hd = plates.Copies.of(photo(1080, 1920))  # searched at its own size
    assert hd.big is not None and hd.fine_side == 2560
    big = plates.Copies.of(photo(3024, 4032))  # at twice the working scale
    assert big.big is not None and big.fine_side == 2560
    dark = (photo(3024, 4032) // 8).astype(np.uint8)  # a night photo: noise at its pixels
    assert plates.Copies.of(dark).big is None


def test_a_big_photo_without_text_has_no_tile_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    """The gate: only where the working scale saw a small line of text does a tile go to
    the fine scale."""
    made = plates.Copies.of(np.full((3024, 4032, 3), 128, np.uint8))
    calls: list[tuple[int, ...]] = []
    monkeypatch.setattr(plates, "text_lines", lambda tile, *_a: calls.append(tile.shape) or [])
    assert plates.fine_lines(made, np.zeros((960, 1280), np.float32)) == []
    assert calls == []
    seen = np.zeros((960, 1280), np.float32)
    seen[300:320, 200:260] = 0.5  # a big blob (text the working scale reads): no tile
    seen[600:630, 900:905] = 0.5  # a tall narrow one (a pole, an edge): no tile
    plates.fine_lines(made, seen)
    assert calls == []
    seen[500:506, 700:718] = 0.5  # a small line of text: its tile (and neighbours) searched
    plates.fine_lines(made, seen)
    assert 1 <= len(calls) <= 4 and all(max(c[:2]) <= 640 + 2 * 64 for c in calls)


@pytest.fixture(scope="module")
def street() -> tuple[np.ndarray, np.ndarray]:
    rgb, quad, _text = tune_variant("us", "car14.jpg", "street")
    return rgb, quad


def test_a_small_plate_in_a_big_photo_is_found(
    street: tuple[np.ndarray, np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    rgb, quad = street
    found = touching(plates.find_plates(rgb), quad)
    assert found and covered(found, quad_box(quad), rgb.shape) >= 0.9
    # regions in the photo's own pixels, near the plate (not the whole photo)
    assert all(d.w * d.h <= 20 * float(np.ptp(quad[:, 0]) * np.ptp(quad[:, 1])) for d in found)
    monkeypatch.setattr(plates, "FINE_FROM", 99.0)  # before ADR 171: the working scale only
    assert touching(plates.find_plates(rgb), quad) == []
