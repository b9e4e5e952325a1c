"""The sharpest stroke blobs are read besides the stroke count's ranking (ADR 179).

A heavily blurred plate's strokes run together: few are counted across it, and dozens of
textures (foliage, a grille, a kerb) outrank it, past the reading quota.  Its dark
characters on a light plate still have the strongest horizontal gradient around, so the
:data:`~core.imaging.plate_candidates.MAX_SHARP` candidates of highest mean contrast with
at most :data:`~core.imaging.plate_candidates.SHARP_STROKES` strokes, not chosen
otherwise, are read too.  The real-photo cases are the tune split's ``blur-severe``
stress variants (ADR 110) of ``us/wts-lg-000150.jpg`` and ``us/f0a3b8c0-….jpg``;
skipped, naming what is missing, without the testdata or the PP-OCR models.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from plate_helpers import (
    assert_hidden_at_release,
    draw_plate,
    legible_after_release,
    need_text_models,
    release_as_is,
    textured,
    touching,
    tune_variant,
)

from core.imaging import plate_candidates
from core.imaging.detect import DetectSettings, detect_plates
from core.imaging.plate_candidates import Candidate
from core.imaging.plate_eval import ocr_legible

SHARP = ("us", "wts-lg-000150.jpg", "blur-severe")
FAR_DOWN = ("us", "f0a3b8c0-198a-471b-9ca9-345c3dd28073.jpg", "blur-severe")


def _decoys(count: int, contrast: float) -> list[Candidate]:
    """Texture-like candidates with many strokes counted, along the top of the photo."""
    return [Candidate((40.0 + 40 * i, 40.0, 36.0, 14.0), "strokes", 9, contrast) for i in range(count)]


def test_the_sharpest_candidate_is_read_past_the_stroke_quota(monkeypatch: pytest.MonkeyPatch) -> None:
    """A blurred plate ranked below MAX_READ decoys by its strokes: read only because no
    other candidate has its contrast."""
    need_text_models()
    rgb = draw_plate(textured(1200, 400, base=120), (900, 150, 240, 80), "DN 2491")
    rgb = cv2.GaussianBlur(rgb, (0, 0), 4.0)
    plate = Candidate((890.0, 140.0, 260.0, 100.0), "strokes", 1, 70.0)
    decoys = _decoys(plate_candidates.MAX_READ + 8, 12.0)
    monkeypatch.setattr(plate_candidates, "candidates", lambda _w: [*decoys, plate])
    found = plate_candidates.read_plates(rgb, np.ones(2))
    assert found and found[0][1] >= 4
    (x1, y1), (x2, y2) = found[0][0].corners().min(axis=0), found[0][0].corners().max(axis=0)
    assert x1 < 1140 and x2 > 900 and y1 < 230 and y2 > 150  # on the plate
    monkeypatch.setattr(plate_candidates, "MAX_SHARP", 0)
    assert plate_candidates.read_plates(rgb, np.ones(2)) == []


def test_only_the_few_sharpest_blobs_of_few_strokes_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the quotas, only MAX_SHARP candidates more are read, the sharpest first, none
    twice, none with more than SHARP_STROKES strokes (those are ranked by them)."""
    read: list[tuple[float, float, float, float]] = []
    ranked = _decoys(plate_candidates.MAX_READ, 10.0)
    ranked += [Candidate((float(50 * i), 600.0, 40.0, 14.0), "strokes", 3, 500.0) for i in range(30)]
    ranked += [Candidate((float(50 * i), 300.0, 40.0, 14.0), "strokes", 2, float(i)) for i in range(30)]
    monkeypatch.setattr(plate_candidates, "candidates", lambda _w: ranked)

    def spy(_source: np.ndarray, box: tuple[float, float, float, float], _bright: bool = False) -> list:
        read.append(box)
        return []

    monkeypatch.setattr(plate_candidates, "_to_read", spy)
    plate_candidates.read_plates(np.zeros((400, 1600, 3), np.uint8), np.ones(2))
    extra = read[plate_candidates.MAX_READ :]
    assert len(read) == len(set(read))
    assert extra == [(float(50 * i), 300.0, 40.0, 14.0) for i in range(29, 29 - plate_candidates.MAX_SHARP, -1)]


@pytest.fixture(scope="module")
def sharp_plate() -> tuple[np.ndarray, np.ndarray, str]:
    return tune_variant(*SHARP)


def test_a_heavily_blurred_plate_is_found_by_its_contrast(
    sharp_plate: tuple[np.ndarray, np.ndarray, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The text detector's map covers the whole blurred car; the plate's blob counts two
    strokes across it and ranks ~70th, but its contrast is the third highest."""
    rgb, quad, text = sharp_plate
    assert ocr_legible(rgb, quad, text)[0]  # a reader gets it from the photo as given
    settings = DetectSettings(face_detector="hog")
    assert touching(detect_plates(rgb, settings), quad)
    monkeypatch.setattr(plate_candidates, "MAX_SHARP", 0)
    assert not touching(detect_plates(rgb, settings), quad)


def test_the_release_hides_it_when_given_no_region(
    sharp_plate: tuple[np.ndarray, np.ndarray, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rgb, quad, text = sharp_plate
    assert_hidden_at_release(rgb, *release_as_is(rgb), quad, text)
    monkeypatch.setattr(plate_candidates, "MAX_SHARP", 0)
    assert legible_after_release(rgb, quad, text)


def test_a_blurred_plate_far_down_both_rankings_is_hidden_at_release(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One stroke counted across it (~240th), ~10th by contrast among the blobs; another
    plate-shaped text line in the photo keeps the second source from running at
    detection, so the release's search outside the regions (ADR 114) finds it."""
    rgb, quad, text = tune_variant(*FAR_DOWN)
    assert ocr_legible(rgb, quad, text)[0]
    assert_hidden_at_release(rgb, *release_as_is(rgb), quad, text)
    monkeypatch.setattr(plate_candidates, "SHARP_STROKES", 0)  # its one stroke: too many
    assert legible_after_release(rgb, quad, text)
