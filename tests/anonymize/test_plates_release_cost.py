"""The release's search outside regions does no work twice (ADR 162): the plate passes'
copies are made once, a line candidate whose bright part is its own crop is read once,
and candidates past both reading limits are not looked at."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from plate_helpers import draw_plate, need_text_models, textured

from core.imaging import boxes, plate_candidates, plate_check, plates
from core.imaging.plate_candidates import Candidate


def _scene() -> np.ndarray:
    return draw_plate(textured(960, 540, base=110), (380, 260, 200, 90), "KX 4821", frame=4)


@pytest.mark.parametrize("dark", [False, True])
def test_outside_regions_makes_each_copy_once(monkeypatch: pytest.MonkeyPatch, dark: bool) -> None:
    need_text_models()
    rgb = _scene()
    if dark:
        rgb = (rgb.astype(np.float32) * 0.3).astype(np.uint8)
    calls = {"for_text": 0, "denoised": 0}
    real_for_text, real_denoised = plates.for_text, plates.denoised_for_text

    def for_text(*a: Any, **k: Any) -> np.ndarray:
        calls["for_text"] += 1
        return real_for_text(*a, **k)

    def denoised(*a: Any, **k: Any) -> np.ndarray:
        calls["denoised"] += 1
        return real_denoised(*a, **k)

    monkeypatch.setattr(plates, "for_text", for_text)
    monkeypatch.setattr(plates, "denoised_for_text", denoised)
    plate_check.outside_regions(rgb, [], 1280)
    # the detector's copy once (denoised_for_text calls for_text on its own input)
    assert calls == {"for_text": 1 + dark, "denoised": int(dark)}


def test_copies_are_the_ones_each_pass_made_alone() -> None:
    rgb = _scene()
    copies = plates.Copies.of(rgb, 1280)
    work, to_photo = plates.working_copy(rgb, 960)
    assert np.array_equal(copies.work, work) and np.array_equal(copies.to_photo, to_photo)
    assert copies.dark is None and plates.dark_copy(rgb, 960) is None
    dark = (rgb.astype(np.float32) * 0.3).astype(np.uint8)
    made = plates.Copies.of(dark, 1280)
    alone = plates.dark_copy(dark, 960)
    assert made.dark is not None and alone is not None and np.array_equal(made.dark, alone)
    assert plates.Copies.of(dark, 1280, dark=False).dark is None


def test_a_line_whose_bright_part_is_its_crop_is_read_once() -> None:
    """A light line on dark paint: Otsu's bright part is the whole crop, not a plate in
    a recess; it was read twice (the crop, then its bright part).  Besides, each is
    read as found (ADR 173)."""
    rgb = np.full((200, 400, 3), 30, np.uint8)
    rgb[60:140, :] = 230  # a light band, far wider than the candidate's padded crop
    rgb[90:110, 110:290:12] = 20  # strokes
    box = (110.0, 85.0, 180.0, 30.0)  # a character line's shape (aspect 6)
    read = plate_candidates._to_read(rgb, box)
    assert len(read) == 2  # padded and stretched, and as found
    # a plate in a lit recess (bright part well inside the crop) still gets both reads
    recess = np.full((200, 400, 3), 30, np.uint8)
    recess[70:130, 60:340] = 120
    recess[85:115, 150:250] = 240
    read = plate_candidates._to_read(recess, (60.0, 70.0, 280.0, 60.0))  # aspect 4.7
    assert len(read) == 3


def test_candidates_past_both_limits_are_not_looked_at(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hundreds of candidates: once both reading limits are reached, none is compared."""
    many = [Candidate((float(10 * i), 0.0, 30.0, 10.0), "strokes", 100 - i, 1.0) for i in range(300)]
    many += [Candidate((float(10 * i), 50.0, 30.0, 15.0), "bright", 1, 1.0) for i in range(300)]
    monkeypatch.setattr(plate_candidates, "candidates", lambda _work: many)
    monkeypatch.setattr(plate_candidates, "_to_read", lambda _s, _b, _bright=False: [])
    compared: list[int] = []
    real_iou = boxes.iou

    def counted(a: Any, b: Any) -> float:
        compared.append(1)
        return real_iou(a, b)

    monkeypatch.setattr(plate_candidates, "iou", counted)
    plate_candidates.read_plates(np.zeros((100, 3000, 3), np.uint8), np.ones(2))
    limit = plate_candidates.MAX_READ + plate_candidates.MAX_BRIGHT + plate_candidates.MAX_SHARP
    # all strokes first (higher scores): 16 taken, then 284 skipped by their quota
    # without a comparison; bright ones compared only until 8 are taken
    assert len(compared) <= limit * limit
