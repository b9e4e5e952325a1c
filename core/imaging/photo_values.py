"""The values an Anonymize edit may set: the one place their ranges are checked (ADR 158).

What the panel offers is what core accepts — finite region coordinates and sizes, a
known kind, shape and method, a strength in (0, 64], a feather in [0, 200] px — so a
script, a damaged undo or a project edited with sqlite3 meets the same rules, with a
message naming the field, before anything is saved or rendered.  Geometry has its own
check (:func:`core.imaging.geometry.check_geometry`).
"""

from __future__ import annotations

import math
from typing import Any

from core.imaging.anonymize import METHODS, SHAPES

KINDS = ("face", "plate", "other")
#: the largest strength and feather the editor offers (the Anonymize panel's ranges)
MAX_STRENGTH = 64.0
MAX_FEATHER = 200.0


def check_region(values: dict[str, Any]) -> None:
    """Raise ValueError naming the field unless ``values`` make a region the editor can
    make (kind, shape, finite coordinates, positive size, method, strength)."""
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
