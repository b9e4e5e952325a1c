"""A plate photo stored with a mirrored EXIF orientation (2, 4, 5, 7: a selfie camera,
a scanner, a tool that flipped without re-encoding) and released by ``winnow anonymize``:
the viewer shows the photo mirrored, its plate's characters mirrored too. The release
hides the plate and leaves most of the photo as it was (an orientation-2 photo was
reported blurred whole; ADR 221).  5 and 7 also turn the photo a quarter: its plate
stands on its side and is found and hidden too (ADR 225; a strict xfail until then)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from core.imaging import batch
from core.imaging.loading import load_rgb
from core.imaging.plate_eval import annotated

#: what a viewer does to the stored pixels for each mirrored orientation
SHOWN = {2: np.fliplr, 4: np.flipud, 5: lambda a: a.transpose(1, 0, 2),
         7: lambda a: np.rot90(a, 2).transpose(1, 0, 2)}


def _mirrored_box(box: tuple[int, int, int, int], orientation: int, width: int,
                  height: int) -> tuple[int, int, int, int]:
    """``box`` (x, y, w, h) of the stored pixels where the viewer shows it."""
    x, y, w, h = box
    return {2: (width - x - w, y, w, h), 4: (x, height - y - h, w, h), 5: (y, x, h, w),
            7: (height - y - h, width - x - w, h, w)}[orientation]


#: 5 and 7 show the photo a quarter turned too: the plate stands on its side, read both
#: ways up by detection and the release check (ADR 225)
@pytest.mark.parametrize("orientation", [2, 4, 5, 7])
def test_a_mirrored_plate_photo_hides_its_plate_not_the_photo(tmp_path: Path,
                                                              orientation: int) -> None:
    from shared_data import need_testdata

    from core.imaging.plate_check import text_check_available

    if not text_check_available():
        pytest.skip("needs rapidocr's PP-OCR models")
    (truth,) = [t for t in annotated(need_testdata("plates") / "us", "tune")
                if t.path.name == "car16.jpg"]  # tune split (ADR 110): one plate
    with Image.open(truth.path) as image:
        stored = image.convert("RGB")
    exif = Image.Exif()
    exif[0x0112] = orientation
    buffer = io.BytesIO()
    stored.save(buffer, "JPEG", quality=95, exif=exif)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "car.jpg").write_bytes(buffer.getvalue())
    shown = load_rgb(tmp_path / "in" / "car.jpg")
    with Image.open(io.BytesIO(buffer.getvalue())) as image:  # the pixels as stored
        as_stored = np.asarray(image.convert("RGB"))
    assert np.array_equal(shown, SHOWN[orientation](as_stored))  # shown mirrored
    report = batch.anonymize_folder(tmp_path / "in", tmp_path / "out")
    assert not report["failed"] and not report["errors"], report
    released = load_rgb(tmp_path / "out" / "car.jpg").astype(np.int16)
    assert released.shape == shown.shape
    changed = np.abs(released - shown.astype(np.int16)).max(axis=2) > 24
    x, y, w, h = _mirrored_box(truth.box, orientation, *stored.size)
    assert changed[y:y + h, x:x + w].mean() > 0.5, "the plate is hidden"
    assert changed.mean() < 0.25, f"{changed.mean():.0%} of the photo changed"
