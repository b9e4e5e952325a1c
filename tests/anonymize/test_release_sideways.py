"""An untagged photo turned a quarter (a phone without an orientation tag, a scan):
its plate stands on its side, and ``winnow anonymize`` must release it hidden (ADR 225).
Tune photos only (ADR 110); hidden is measured as the plate evaluation does
(:func:`core.imaging.plate_eval.detail_hidden`, ``benchmarks/plates_eval.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from core.imaging import batch
from core.imaging.loading import load_rgb
from core.imaging.plate_eval import annotated, detail_hidden

#: tune photos (ADR 110) with one annotated plate each
PHOTOS = ["car16.jpg", "car14.jpg", "3850ba91-3c64-4c64-acba-0c46b61ec0da.jpg"]


def _turned(quad: np.ndarray, quarters: int, width: int, height: int) -> np.ndarray:
    """``quad`` (x, y corners of a ``width`` × ``height`` photo) where
    ``np.rot90(photo, quarters)`` shows it (1: a quarter anticlockwise, 3: clockwise)."""
    x, y = quad[:, 0], quad[:, 1]
    if quarters == 1:
        return np.stack([y, width - x], axis=1)
    return np.stack([height - y, x], axis=1)


def _tune_photo(name: str) -> tuple[Any, np.ndarray]:
    """The annotated US tune photo ``name`` (its plate's truth) and its pixels, upright."""
    from shared_data import need_testdata

    (truth,) = [t for t in annotated(need_testdata("plates") / "us", "tune")
                if t.path.name == name]
    with Image.open(truth.path) as image:
        return truth, np.asarray(image.convert("RGB"))


@pytest.mark.parametrize("quarters", [1, 3], ids=["90", "270"])
@pytest.mark.parametrize("name", PHOTOS, ids=[n[:8] for n in PHOTOS])
def test_a_sideways_plate_is_released_hidden(tmp_path: Path, name: str, quarters: int) -> None:
    from core.imaging.plate_check import text_check_available

    if not text_check_available():
        pytest.skip("needs rapidocr's PP-OCR models")
    truth, upright = _tune_photo(name)
    height, width = upright.shape[:2]
    (tmp_path / "in").mkdir()
    Image.fromarray(np.rot90(upright, quarters)).save(tmp_path / "in" / "car.png")  # no tag
    shown = load_rgb(tmp_path / "in" / "car.png")
    assert shown.shape == (width, height, 3)  # shown on its side
    report = batch.anonymize_folder(tmp_path / "in", tmp_path / "out")
    assert not report["failed"] and not report["errors"], report
    (released_path,) = (tmp_path / "out").glob("car.*")
    released = load_rgb(released_path)
    assert released.shape == shown.shape
    quad = _turned(truth.quad, quarters, width, height)
    hidden = detail_hidden(shown, released, quad)
    assert hidden >= 0.9, f"{name} turned {90 * quarters}°: {hidden:.0%} of the plate hidden"


#: 3850ba91 turned 90°: at the working scale the detector boxes its small plate's
#: characters (57 × 28 px) as one 26 × 20 px blob, too square to stand as a plate's line;
#: detection finds it there, the check alone does not (ADR 225)
SQUARE = pytest.mark.xfail(strict=True, reason="the plate's line is boxed too square")


@pytest.mark.parametrize(("name", "quarters"), [
    *((n, q) for n in PHOTOS[:2] for q in (1, 3)),
    pytest.param(PHOTOS[2], 1, marks=SQUARE), (PHOTOS[2], 3)])
def test_the_release_check_reads_a_sideways_plate_left_unhidden(name: str,
                                                               quarters: int) -> None:
    """The trust floor without detection: the check outside regions, given no region,
    reports the plate on its side with a box that covers it (the release hides it)."""
    from core.imaging.boxes import intersection
    from core.imaging.detect import DetectSettings
    from core.imaging.plate_check import outside_regions, text_check_available

    if not text_check_available():
        pytest.skip("needs rapidocr's PP-OCR models")
    truth, upright = _tune_photo(name)
    height, width = upright.shape[:2]
    turned = np.ascontiguousarray(np.rot90(upright, quarters))
    quad = _turned(truth.quad, quarters, width, height)
    (x1, y1), (x2, y2) = quad.min(axis=0), quad.max(axis=0)
    plate = (float(x1), float(y1), float(x2 - x1), float(y2 - y1))
    found = outside_regions(turned, [], DetectSettings().plate_long_side)
    covered = max((intersection(f.box, plate) for f in found), default=0.0)
    assert covered >= 0.9 * plate[2] * plate[3], (name, quarters, [f.to_json() for f in found])
