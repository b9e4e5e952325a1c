"""Photos of any size on screen: a preview decoded cheaply, then a pyramid of halvings.

The Anonymize view never makes a full-size pixmap. Opening a photo decodes a preview
(long side :data:`PREVIEW_SIDE`; JPEG at 1/2–1/8 scale straight from the DCT), then the
full photo once, kept as levels each half the size of the previous; the canvas paints
the level nearest the zoom, and only the part on screen. The After view is rendered
the same way: first from a preview level (what a fitted view needs), then at full
resolution (what a zoom onto a small face needs), both with progress and Cancel.

Photos up to :data:`INLINE_PIXELS` are small enough to decode and render on the GUI
thread within the event-loop budget (ADR 048); bigger ones go to background jobs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from core.imaging.anonymize import HideSpec, hide_regions
from core.imaging.geometry import Geometry, apply_geometry, plan
from core.imaging.loading import decode_rgb

#: long side of the first, cheap preview of a big photo (about a screen's width at 2×)
PREVIEW_SIDE = 2048
#: the pyramid stops halving at this long side
SMALLEST_SIDE = 512
#: photos (and renders) up to this many pixels are decoded/rendered on the GUI thread:
#: measured well under 100 ms (docs/performance.md, "Anonymize: big photos")
INLINE_PIXELS = 1_500_000

#: ``progress(fraction, stage)`` of one open or render, fraction in [0, 1]
Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class Pyramid:
    """One image at several sizes: ``levels[0]`` is the largest, each next one half.

    ``width`` × ``height`` is the full-resolution size every level stands for (the
    canvas maps each level onto that rectangle); ``full`` says whether ``levels[0]`` is
    the full resolution or only a preview.
    """

    width: int
    height: int
    levels: tuple[np.ndarray, ...]
    full: bool

    @property
    def nbytes(self) -> int:
        """Memory held by the levels."""
        return sum(level.nbytes for level in self.levels)

    def level_for(self, scale: float) -> np.ndarray:
        """The smallest level with at least ``scale`` × full-resolution pixels (the
        largest level when zoomed in beyond it)."""
        want = self.width * scale
        for level in self.levels[::-1]:
            if level.shape[1] >= want * 0.999:
                return level
        return self.levels[0]


def halve(rgb: np.ndarray) -> np.ndarray:
    """Half the size by averaging 2×2 blocks (an odd last row/column is dropped)."""
    h, w = rgb.shape[0] // 2 * 2, rgb.shape[1] // 2 * 2
    acc = rgb[0:h:2, 0:w:2].astype(np.uint16)
    acc += rgb[1:h:2, 0:w:2]
    acc += rgb[0:h:2, 1:w:2]
    acc += rgb[1:h:2, 1:w:2]
    acc += 2
    acc >>= 2
    return acc.astype(np.uint8)


def pyramid_of(rgb: np.ndarray, size: tuple[int, int] | None = None, full: bool = True,
               check: Callable[[], None] | None = None) -> Pyramid:
    """The pyramid of ``rgb`` (which stands for a ``size`` = (width, height) image;
    default its own size)."""
    width, height = size or (rgb.shape[1], rgb.shape[0])
    levels = [rgb]
    while max(levels[-1].shape[:2]) > SMALLEST_SIDE and min(levels[-1].shape[:2]) >= 4:
        if check is not None:
            check()
        levels.append(halve(levels[-1]))
    return Pyramid(width, height, tuple(levels), full)


def decode_full(data: bytes, name: str, size: tuple[int, int]) -> np.ndarray:
    """The photo at full resolution; ValueError if it is not the ``size`` it was
    imported at (the regions would not fit it)."""
    rgb = decode_rgb(data, name)
    if (rgb.shape[1], rgb.shape[0]) != tuple(size):
        raise ValueError(f"{name}: decodes to {rgb.shape[1]}×{rgb.shape[0]}, not the "
                         f"{size[0]}×{size[1]} it was imported at")
    return rgb


def open_photo(data: bytes, name: str, size: tuple[int, int],
               preview: Callable[[Pyramid], None] | None = None,
               check: Callable[[], None] | None = None,
               progress: Progress | None = None) -> Pyramid:
    """Decode a photo for display: the preview first (handed to ``preview``), then the
    full resolution once, as a pyramid. ``size`` is its upright (width, height)."""
    if preview is not None and max(size) > PREVIEW_SIDE:
        if progress is not None:
            progress(0.0, "preview")
        preview(pyramid_of(decode_rgb(data, name, PREVIEW_SIDE), size, full=False))
    if check is not None:
        check()
    if progress is not None:
        progress(0.1, "full resolution")
    rgb = decode_full(data, name, size)
    if progress is not None:
        progress(0.8, "pyramid")
    return pyramid_of(rgb, check=check)


def after_size(geometry: Geometry, width: int, height: int) -> tuple[int, int]:
    """Full-resolution (width, height) of the After view (the released file)."""
    return plan(geometry, width, height)[1] if not geometry.is_identity() else (width,
                                                                                height)


def render_after(rgb: np.ndarray, specs: Sequence[HideSpec], geometry: Geometry,
                 size: tuple[int, int], check: Callable[[], None] | None = None,
                 progress: Progress | None = None) -> np.ndarray:
    """The release as it will look, rendered from ``rgb``: the photo itself (exactly
    what :func:`core.imaging.release.render` makes) or a smaller level of a photo whose
    full size is ``size`` (regions and geometry scaled to it)."""
    width, height = size
    level_w, level_h = rgb.shape[1], rgb.shape[0]

    def regions_done(done: int, total: int) -> None:
        if progress is not None:
            progress(0.8 * done / total, f"hiding region {done} of {total}")

    if (level_w, level_h) == (width, height):
        hidden = hide_regions(rgb, specs, check, regions_done)
        if progress is not None:
            progress(0.8, "geometry")
        return apply_geometry(hidden, geometry)
    sx, sy = level_w / width, level_h / height
    scaled = [replace(s, x=s.x * sx, y=s.y * sy, w=s.w * sx, h=s.h * sy,
                      feather=s.feather * sx) for s in specs]
    hidden = hide_regions(rgb, scaled, check, regions_done)
    if geometry.is_identity():
        return hidden
    import cv2

    matrix, (out_w, out_h) = plan(geometry, width, height)
    scale = np.diag([sx, sy, 1.0])
    level_matrix = scale @ matrix @ np.linalg.inv(scale)
    half = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]], np.float64)
    cv_matrix = np.linalg.inv(half) @ level_matrix @ half
    out_size = (max(1, math.ceil(out_w * sx)), max(1, math.ceil(out_h * sy)))
    return cv2.warpPerspective(hidden, cv_matrix, out_size, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
