"""The values an Anonymize edit may set: the one place their ranges are checked (ADR 158).

What the panel offers is what core accepts — finite region coordinates and sizes, a
known kind, shape and method, a strength in (0, 64], a feather in [0, 200] px — so a
script, a damaged undo or a project edited with sqlite3 meets the same rules, with a
message naming the field, before anything is saved or rendered.  Geometry has its own
check (:func:`core.imaging.geometry.check_geometry`).

Given the photo's size, a region must overlap the photo and is clipped to the photo
widened by its own size on each side (ADR 188): what a person draws at an edge stays as
drawn, a region dragged off the photo is refused, and no region is bigger than three
photos across.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from core.imaging.anonymize import METHODS, SHAPES
from core.imaging.boxes import Box

KINDS = ("face", "plate", "other")
#: the largest strength and feather the editor offers (the Anonymize panel's ranges)
MAX_STRENGTH = 64.0
MAX_FEATHER = 200.0
#: how far past each edge a region may reach, in photo widths/heights (ADR 188)
FRAME_MARGIN = 1.0



def clip_box(box: Box, size: tuple[float, float]) -> Box:
    """``box`` clipped to the photo of ``size`` widened by :data:`FRAME_MARGIN` photos on
    each side (a box wholly outside that frame comes back with no width or height)."""
    out = []
    for start, length, side in ((box[0], box[2], size[0]), (box[1], box[3], size[1])):
        low, high = -FRAME_MARGIN * side, (1 + FRAME_MARGIN) * side
        a, b = max(low, start), min(high, start + length)
        out.append((a, max(0.0, b - a)))
    return (out[0][0], out[1][0], out[0][1], out[1][1])


def unreadable_box(box: tuple[Any, Any, Any, Any]) -> str | None:
    """Why a stored box (x, y, w, h) cannot be placed on a photo ("its x is 'left of the
    door', not a number"), or None. A project edited with sqlite3 may hold text, bytes or
    NULL in a region's coordinates; such a region is named and left as it is (ADR 211)."""
    for key, value in zip("xywh", box, strict=True):
        if isinstance(value, bool) or not isinstance(value, int | float):
            shown = repr(value if not isinstance(value, str) else value[:60])
            return f"its {key} is {shown}, not a number"
    return None


def on_photo(box: Box, size: tuple[float, float]) -> bool:
    """Whether ``box`` overlaps the photo of ``size`` (a region off it hides nothing)."""
    return box[0] < size[0] and box[0] + box[2] > 0 and box[1] < size[1] \
        and box[1] + box[3] > 0


def onto_photo(box: Box, size: tuple[float, float]) -> Box:
    """``box`` moved the least way that puts it wholly on the photo of ``size``, made no
    bigger than the photo (ADR 201: a region an earlier version left off the photo is
    brought back where the photographer can see and fix it)."""
    w, h = min(box[2], size[0]), min(box[3], size[1])
    return (min(max(box[0], 0.0), size[0] - w), min(max(box[1], 0.0), size[1] - h), w, h)


def _fit_to_photo(values: dict[str, Any], size: tuple[float, float]) -> dict[str, Any]:
    """``values`` with the box clipped (:func:`clip_box`); ValueError naming x or y when
    the region does not overlap the photo."""
    box: Box = (float(values["x"]), float(values["y"]), float(values["w"]),
                float(values["h"]))
    for key, start, length, side in (("x", box[0], box[2], size[0]),
                                     ("y", box[1], box[3], size[1])):
        if start >= side or start + length <= 0:
            raise ValueError(f"region {key} {start:g} (size {length:g}) lies outside the "
                             f"photo ({size[0]:g}×{size[1]:g}); a region must overlap it")
    clipped = clip_box(box, size)
    return {**values, **dict(zip(("x", "y", "w", "h"), clipped, strict=True))}


def check_region(values: dict[str, Any], size: tuple[float, float] | None = None
                 ) -> dict[str, Any]:
    """The region values to store: ValueError naming the field unless ``values`` make a
    region the editor can make (kind, shape, finite coordinates, positive size, method,
    strength); given the photo's ``size``, it must overlap the photo and comes back
    clipped (:func:`clip_box`)."""
    if values.get("kind", "face") not in KINDS:
        raise ValueError(f"unknown region kind {values.get('kind')!r}")
    if values.get("shape", "rect") not in SHAPES:
        raise ValueError(f"unknown region shape {values.get('shape')!r}")
    for key in ("x", "y", "w", "h"):
        if key in values and not math.isfinite(float(values[key])):
            raise ValueError(f"region {key} must be a finite number, not {values[key]}")
    if float(values.get("w", 1)) <= 0 or float(values.get("h", 1)) <= 0:
        raise ValueError("a region needs a positive width and height")
    if values.get("method") not in (None, *METHODS):
        raise ValueError(f"unknown region method {values.get('method')!r}; one of {METHODS}")
    check_strength(values.get("strength"))
    if size is None or not all(k in values for k in ("x", "y", "w", "h")):
        return dict(values)
    return _fit_to_photo(values, size)


def check_strength(value: Any) -> None:
    """None (the method's default) or a number in (0, :data:`MAX_STRENGTH`]."""
    if value is not None and not (math.isfinite(float(value))
                                  and 0 < float(value) <= MAX_STRENGTH):
        raise ValueError(f"strength must be above 0 and at most {MAX_STRENGTH:g} (blur: a "
                         "fraction of the region's short side; pixelate: blocks across "
                         f"it), not {value}")


def check_feather(value: Any) -> None:
    """A number in [0, :data:`MAX_FEATHER`] px."""
    if not (math.isfinite(float(value)) and 0 <= float(value) <= MAX_FEATHER):
        raise ValueError(f"feather must be between 0 and {MAX_FEATHER:g} px, not {value}")


class UnreadableRegion(ValueError):
    """A photo holds a region whose box is not numbers (a project edited with sqlite3):
    Detect skips that photo and keeps the region as it is (ADR 211)."""


def check_readable(name: str, regions: Iterable[Any]) -> None:
    """Raise :class:`UnreadableRegion` naming the photo ``name`` and the first of its
    ``regions`` whose box cannot be placed (:func:`unreadable_box`)."""
    for region in regions:
        if (why := unreadable_box((region.x, region.y, region.w, region.h))) is not None:
            raise UnreadableRegion(
                f"{name}: region #{region.id}'s box was changed outside Winnow ({why}); "
                "Detect skipped this photo and kept the region as it is: delete it in the "
                "Regions list and draw it again")
