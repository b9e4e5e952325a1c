"""Plates standing on their side: a photo shown a quarter turned (ADR 225).

A photo whose EXIF orientation turns it a quarter (5–8 stored as-is) or an untagged
sideways photo (a phone without the tag, a scan) shows its plate standing on its side.
The text detector still boxes such a plate's characters, but as a *tall* line (its
length runs up or down the photo), which no plate shape fits (``max_tilt_deg``), and
the recogniser reads a line only as it is cut out.  The cheapest search (ADR 225):
the detector's lines the finder already has that stand (:func:`standing`) are cut out
(:func:`core.imaging.ocr.line_crop` cuts a tall line reading upwards) and read every
way of :data:`WAYS` — as cut, turned half round, and mirrored (EXIF 5 and 7 stored
as-is) — in one batched call (ADR 168); a line read plate-like any way
(:func:`core.imaging.plate_candidates.plate_like`) is a plate on its side.  No detector run is added.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from core.imaging.ocr import Reading
from core.imaging.plate_frame import Line


class Shape(Protocol):
    """What :func:`standing` needs of :class:`core.imaging.plates.PlateShape` (which
    imports this module, so it is not imported here)."""

    @property
    def min_aspect(self) -> float: ...
    @property
    def max_aspect(self) -> float: ...
    @property
    def min_height(self) -> float: ...
    @property
    def max_height_frac(self) -> float: ...
    @property
    def max_tilt_deg(self) -> float: ...

#: the ways a standing line's crop (cut reading upwards) is read: as cut, turned half
#: round, and mirrored each way (a photo stored with EXIF 5 or 7 as-is shows the scene
#: mirrored as well as turned, ADR 221)
WAYS: tuple[Callable[[np.ndarray], np.ndarray], ...] = (
    lambda c: c,
    lambda c: c[::-1, ::-1],
    lambda c: c[:, ::-1],
    lambda c: c[::-1],
)


def standing(line: Line, shape: Shape, photo_width: int) -> bool:
    """True when ``line`` has a plate's shape (:class:`core.imaging.plates.PlateShape`)
    turned a quarter: its length within ``max_tilt_deg`` of vertical, and its height
    (across the line, along the photo's width) bounded by the photo's width as an
    upright line's is by the photo's height."""
    if line.h <= 0 or line.tilt < 90.0 - shape.max_tilt_deg:
        return False
    return (
        shape.min_aspect <= line.w / line.h <= shape.max_aspect
        and shape.min_height <= line.h <= shape.max_height_frac * photo_width
    )


def _surer(a: Reading, b: Reading) -> Reading:
    """The reading with more characters read surely (then the more confident one)."""
    from core.imaging.ocr import READABLE_CONFIDENCE

    def key(r: Reading) -> tuple[int, float]:
        return len(r.characters(READABLE_CONFIDENCE)), r.confidence

    return a if key(a) >= key(b) else b


def read_standing(
    rgb: np.ndarray, lines: Sequence[Line], accept: Callable[[Reading], bool] | None = None
) -> list[tuple[Line, Reading]]:
    """The lines of ``lines`` (photo pixels, each :func:`standing`) whose reading any way
    of :data:`WAYS` is accepted — by ``accept``, else as a plate's
    (:func:`core.imaging.plate_candidates.plate_like`) — each with its surest accepted
    reading: every way of every line is read in one
    :func:`core.imaging.ocr.recognise` call."""
    if not lines:
        return []
    from core.imaging.ocr import line_crop, recognise
    from core.imaging.plate_candidates import plate_like

    accept = accept or plate_like
    crops = [line_crop(rgb, ln.corners()) for ln in lines]
    readings = recognise([np.ascontiguousarray(turn(c)) for turn in WAYS for c in crops])
    out = []
    for index, line in enumerate(lines):
        ways = [r for r in readings[index :: len(lines)] if accept(r)]
        if ways:
            out.append((line, functools.reduce(_surer, ways)))
    return out
