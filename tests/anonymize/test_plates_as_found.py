"""A candidate read as found (ADR 173): its box unpadded and not stretched, besides the
padded, stretched reads.

Stretched to full contrast, a noisy night plate's sensor noise is as strong as its
characters, and padding a blurred plate adds its glow; the box itself reads.  The
real-photo cases are the tune split's middle-strength stress variants (ADR 110, 173):
``us/car3.jpg`` blurred, ``us/wts-lg-000072.jpg`` at night and blurred,
``us/wts-lg-000097.jpg`` at night; skipped, naming what is missing, without the testdata
or the PP-OCR models.
"""

from __future__ import annotations

import numpy as np
import pytest
from anon_helpers import quadrant_image
from plate_helpers import (
    assert_hidden_at_release,
    legible_after_release,
    need_text_models,
    release_as_is,
    tune_variant,
)

from core.imaging import plate_bright, plate_candidates, plates
from core.imaging.plate_eval import ocr_legible


def test_a_tall_enough_candidate_is_also_read_as_found() -> None:
    source = np.random.default_rng(1).integers(0, 255, (200, 300, 3)).astype(np.uint8)
    box = (50.0, 60.0, 120.0, 30.0)
    crops = [crop for _line, crop in plate_candidates._to_read(source, box)]
    assert any(np.array_equal(crop, source[60:90, 50:170]) for crop in crops)
    small = (50.0, 60.0, 48.0, 12.0)  # under AS_FOUND_HEIGHT: scaled ×4 it reads noise
    crops = [crop for _line, crop in plate_candidates._to_read(source, small)]
    assert not any(crop.shape[:2] == (12, 48) for crop in crops)


def test_flat_noise_is_no_plate_read_as_found() -> None:
    """Four flat colours and ±12 noise: read as found, an 8 px crop was ``2286``."""
    need_text_models()
    assert plates.read_pass(quadrant_image(320, 200)) == []


@pytest.mark.parametrize(
    ("name", "kind"),
    [("car3.jpg", "blur-mid"), ("wts-lg-000072.jpg", "night-blur"), ("wts-lg-000097.jpg", "night-mid")],
)
def test_the_release_hides_a_plate_only_its_as_found_read_reads(
    name: str, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the as-found read the plate stays legible.  ``wts-lg-000072`` is now also
    found as a tilted bright rectangle (ADR 174) and as a dim one (ADR 175), and
    ``car3`` and ``wts-lg-000097`` through a candidate's band of strokes (ADR 180):
    all switched off here with it."""
    rgb, quad, text = tune_variant("us", name, kind)
    assert ocr_legible(rgb, quad, text)[0]  # a reader gets it from the photo as given
    assert_hidden_at_release(rgb, *release_as_is(rgb), quad, text)
    monkeypatch.setattr(plate_bright, "tilted_plate", lambda _mask, _pixels: False)
    monkeypatch.setattr(plate_bright, "DIM_BY", np.inf)
    monkeypatch.setattr(plate_candidates, "stroke_band", lambda _crop: None)
    assert not legible_after_release(rgb, quad, text)  # as found, it is read
    monkeypatch.setattr(plate_candidates, "AS_FOUND_HEIGHT", np.inf)
    assert legible_after_release(rgb, quad, text)
