"""A close-up whose characters are too big for the text detector (ADR 169).

The detector then reports the whole plate (and more) as one text region, too tall to be
a plate's character line; no line fits a plate's shape and no contrast candidate is
small enough to hold it.  Such a region is read whole, and the plate is hidden when it
reads like one.  The real-photo case is the tune split's (ADR 110) ``closeup-fill``
stress variant of ``us/4be2025c-….jpg`` (the plate 1088 px wide in a 1280 × 960 crop,
upscaled 8 ×, so its characters are soft).  Skipped, naming what is missing, without
the testdata or the PP-OCR models.
"""

from __future__ import annotations

import numpy as np
import pytest
from plate_helpers import (
    covered,
    draw_plate,
    need_text_models,
    quad_box,
    rect_line,
    textured,
    touching,
    tune_variant,
)

from core.imaging import plate_candidates, plates
from core.imaging.detect import DetectSettings
from core.imaging.geometry import Geometry
from core.imaging.loading import decode_rgb
from core.imaging.plate_eval import detail_hidden, ocr_legible
from core.imaging.release import RenderJob, render_verified

CLOSEUP = ("us", "4be2025c-09f7-4bb0-b1bd-8e8633e6dec1.jpg", "closeup-fill")
SETTINGS = DetectSettings(face_detector="hog")


def test_a_region_taller_than_a_plates_line_is_too_big_not_a_plate() -> None:
    shape = plates.PlateShape()
    whole = rect_line(0, 40, 1200, 900)  # a text region over most of a 960 px photo
    assert shape.too_big(whole, 960) and not shape.fits(whole, 960)
    line = rect_line(100, 300, 700, 420)  # a close-up's character line: a plate's
    assert shape.fits(line, 960) and not shape.too_big(line, 960)
    tall = rect_line(500, 0, 700, 900)  # taller than wide: a pole, not a plate
    assert not shape.too_big(tall, 960)


def test_an_oversized_region_is_read_whole() -> None:
    """A drawn plate filling the frame, given as an oversized region: read as a plate
    (its line covers the plate); without the region nothing is read there."""
    need_text_models()
    rgb = draw_plate(textured(1280, 960, base=90), (100, 210, 1080, 540), "KX 4821")
    ones = np.ones(2)
    found = plate_candidates.read_plates(rgb, ones, oversized=[(0, 0, 1280, 960)])
    assert found, "the whole region should read as a plate"
    line, chars = found[0]
    assert chars >= 4
    (x1, y1), (x2, y2) = line.corners().min(axis=0), line.corners().max(axis=0)
    assert x1 <= 110 and x2 >= 1170 and y1 <= 220 and y2 >= 740


@pytest.fixture(scope="module")
def closeup() -> tuple[np.ndarray, np.ndarray, str]:
    return tune_variant(*CLOSEUP)


def test_a_closeup_too_big_for_the_detector_is_found(
    closeup: tuple[np.ndarray, np.ndarray, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rgb, quad, text = closeup
    assert ocr_legible(rgb, quad, text)[0]  # a reader gets it from the photo as given
    shape = plates.PlateShape()
    lines = plates.plate_lines(rgb)
    assert lines and not any(shape.fits(ln, rgb.shape[0]) for ln in lines)
    assert any(shape.too_big(ln, rgb.shape[0]) for ln in lines)  # the detector's miss
    found = touching(plates.find_plates(rgb), quad)
    assert found and covered(found, quad_box(quad), rgb.shape) >= 0.95
    # without reading the oversized regions (before ADR 169) nothing was found
    monkeypatch.setattr(plates.PlateShape, "too_big", lambda *_a: False)
    assert touching(plates.find_plates(rgb), quad) == []


def test_the_release_hides_a_closeup_it_was_given_no_region_for(
    closeup: tuple[np.ndarray, np.ndarray, str],
) -> None:
    """No region at all (the user removed it): the release's search outside every region
    reads the oversized region too, and hides the plate."""
    rgb, quad, text = closeup
    data, result = render_verified(RenderJob(rgb, [], [], Geometry()), SETTINGS)
    released = decode_rgb(data)
    assert not ocr_legible(released, quad, text)[0]
    assert detail_hidden(rgb, released, quad) >= 0.9
    assert any(k.startswith("found after release") for k in result.raised)
