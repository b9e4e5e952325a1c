"""After release: can any plate still be read?  (the plate half of verification, ADR 112)

Run on the released pixels, as the face check is:

* **around every plate region**: the neighbourhood (the region grown sideways by its
  width or 2.5 times its height, whichever is more, and by its height up and down —
  far enough for the half of a plate a region missed) is scaled so the region is
  :data:`CHECK_HEIGHT` px tall; the region itself is read as one line, and every text
  line the detector finds there that touches the region is read;
* **anywhere else**: the plate-shaped lines of the whole image (the finder's own
  passes, the dark pass included) outside every region are read; a readable one is
  reported with its plate's frame, which the release then hides (ADR 114).

A reading is *readable* when at least 3 letters or digits are recognised with
confidence 0.5 or more (:attr:`core.imaging.ocr.Reading.readable`).  Findings name the
region, the line's box, how many characters and how sure, never the characters
themselves (the record is stored in the project and written to reports).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.imaging.boxes import Box, intersection
from core.imaging.ocr import READABLE_CONFIDENCE

CHECK_HEIGHT = 80  # px: a plate region is looked at this tall
MAX_UPSCALE = 4.0


@dataclass(frozen=True)
class TextFinding:
    """Readable text on the released image: where, near which region, how readable."""

    box: Box  # output pixels (x, y, w, h)
    region: str | None  # the plate region it touches, None = outside every region
    characters: int
    confidence: float

    def to_json(self) -> dict[str, Any]:
        """Plain dict (no characters: the record must not hold the plate's text)."""
        out: dict[str, Any] = {
            "box": [round(v, 1) for v in self.box],
            "characters": self.characters,
            "confidence": round(self.confidence, 3),
        }
        if self.region is not None:
            out["region"] = self.region
        return out


def text_check_available() -> bool:
    """True when both PP-OCR models (detection and recognition) are installed."""
    from core.imaging.ocr import DET_MODEL, ppocr_model_path, recogniser_available

    return recogniser_available() and ppocr_model_path(DET_MODEL, "det") is not None


def _is_readable(reading: Any) -> bool:
    return bool(reading.readable)


def _readable(reading: Any) -> tuple[int, float] | None:
    if not reading.readable:
        return None
    return len(reading.characters(READABLE_CONFIDENCE)), reading.confidence


def _bbox(quad: np.ndarray) -> Box:
    (x1, y1), (x2, y2) = quad.min(axis=0), quad.max(axis=0)
    return (float(x1), float(y1), float(x2 - x1), float(y2 - y1))


def around_region(rgb: np.ndarray, label: str, box: Box) -> list[TextFinding]:
    """Readable text in and around one plate region (see the module docstring).

    A readable line's finding covers the line grown to its plate's frame
    (:func:`core.imaging.plate_frame.frame`), so a region extended to it covers the
    plate, not just the characters that were read.
    """
    import cv2

    from core.imaging.ocr import line_crop, recognise, text_lines
    from core.imaging.plate_frame import Line, assemble, companions, frame

    x, y, w, h = box
    if w < 2 or h < 2:
        return []
    height, width = rgb.shape[:2]
    side = max(w, 2.5 * h)  # a plate left half uncovered reaches this far
    x1, y1 = max(0, int(x - side)), max(0, int(y - h))
    x2, y2 = min(width, math.ceil(x + w + side)), min(height, math.ceil(y + 2 * h))
    scale = min(MAX_UPSCALE, CHECK_HEIGHT / h)
    size = (max(8, round((x2 - x1) * scale)), max(8, round((y2 - y1) * scale)))
    crop = cv2.resize(
        rgb[y1:y2, x1:x2], size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    )

    def to_photo(quad: np.ndarray) -> Box:
        return _bbox(np.asarray(quad) / scale + [x1, y1])

    touch = (x - 0.25 * h, y - 0.25 * h, w + 0.5 * h, h + 0.5 * h)
    lines = assemble([Line.from_quad(q, s) for q, s in text_lines(crop, max(size), 0.3)])
    near = [ln for ln in lines if intersection(to_photo(ln.corners()), touch) > 0]
    region = (np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]]) - [x1, y1]) * scale
    readings = recognise([line_crop(crop, region), *(line_crop(crop, ln.corners()) for ln in near)])
    out = []
    found = _readable(readings[0])
    if found:
        out.append(TextFinding(box, label, *found))
    grey: np.ndarray | None = None  # made only when a line is readable
    for line, reading in zip(near, readings[1:], strict=True):
        found = _readable(reading)
        if found:
            if grey is None:
                grey = crop.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)
            plate = frame(grey, [line, *companions(line, lines)])
            out.append(TextFinding(to_photo(np.vstack([plate, line.corners()])), label, *found))
    return out


def outside_regions(rgb: np.ndarray, regions: Sequence[Box], long_side: int) -> list[TextFinding]:
    """Readable plate-shaped lines of the whole image that lie outside every region.

    The lines are the finder's own (:func:`core.imaging.plates.plate_lines`), so a dark
    image is searched on its brightened and its denoised copy too (ADR 113), and its
    second source (:func:`core.imaging.plates.read_pass`, ADR 115): plate-shaped
    rectangles outside every region and every line already read, read by the
    recogniser — so a plate the text detector misses is looked at too — and the text
    regions too big for a plate's line, read whole (ADR 169).  A line standing on its
    side (:func:`core.imaging.plate_turned.standing`: a photo shown a quarter turned)
    is read both ways up (ADR 225).  A finding's box
    covers the line grown to its plate's frame, as around a region, so hiding it hides
    the plate (ADR 114).
    """
    from core.imaging import plate_turned
    from core.imaging.ocr import line_crop, recognise
    from core.imaging.plate_frame import companions, frame
    from core.imaging.plates import Copies, PlateShape, plate_lines, read_pass, whole_reads

    shape = PlateShape()
    copies = Copies.of(rgb, long_side)  # made once for both sources (ADR 162)
    every = plate_lines(rgb, long_side, shape=shape, copies=copies)
    lines = [ln for ln in every if shape.fits(ln, rgb.shape[0])]
    lines = [
        ln for ln in lines if not any(intersection(_bbox(ln.corners()), r) > 0 for r in regions)
    ]
    readings = recognise([line_crop(rgb, ln.corners()) for ln in lines])
    readable = [
        (line, found)
        for line, reading in zip(lines, readings, strict=True)
        if (found := _readable(reading))
    ]
    # a plate standing on its side (a photo shown a quarter turned): the lines that stand
    # outside every region, read both ways up in one batch (ADR 225)
    standing = [
        ln for ln in every if plate_turned.standing(ln, shape, rgb.shape[1])
        and not any(intersection(_bbox(ln.corners()), r) > 0 for r in regions)
    ]
    readable += [
        (line, found)
        for line, reading in plate_turned.read_standing(rgb, standing, _is_readable)
        if (found := _readable(reading))
    ]
    skip = [*regions, *(_bbox(ln.corners()) for ln in lines)]
    # the second source reads each candidate itself: what it returns was read as a plate
    # a text region too big for a plate's line is read whole (a close-up, ADR 169), and
    # one too square for a line (a heavily blurred plate, ADR 172)
    oversized = whole_reads(every, shape, rgb.shape[0])
    readable += [
        (line, (chars, line.score))
        for line, chars in read_pass(rgb, long_side, skip, copies, oversized)
    ]
    out = []
    grey: np.ndarray | None = None
    height, width = rgb.shape[:2]
    for line, found in readable:
        if grey is None:
            grey = rgb.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)
        plate = np.vstack([frame(grey, [line, *companions(line, every)]), line.corners()])
        plate = np.clip(plate, 0, [width, height])
        out.append(TextFinding(_bbox(plate), None, *found))
    return out
