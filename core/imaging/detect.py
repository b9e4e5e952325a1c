"""Detection of everything to hide in one photo: faces (a union of detectors) and plates.

Big photos are handled with two passes: the whole photo shrunk to about one
megapixel (large faces), then tiles at the scale where a face of
``min_face_px`` pixels still reaches the detector's minimum size (small faces).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from core.extras import require
from core.imaging import faces, plates
from core.imaging.boxes import Detection, grow, merge_overlapping

#: smallest face (dlib-style box width, px) CenterFace finds reliably: measured on the
#: dlib test faces, 42/43 at 12 px, 38/43 at 10 px (docs/performance.md (Anonymization))
CENTERFACE_MIN_PX = 12
GLOBAL_PASS_PIXELS = 1_000_000
TILE = 640

FACE_DETECTORS = ("centerface", "hog", "centerface+hog")


@dataclass
class DetectSettings:
    """Thresholds and margins (shown in the Anonymize settings)."""

    face_detector: str = "centerface"  # see FACE_DETECTORS
    face_threshold: float = 0.2  # CenterFace heat-map score
    hog_threshold: float = 0.0  # dlib HOG SVM margin
    face_margin: float = 0.35  # growth, fraction of the box width on each side
    face_margin_top: float = 0.3  # and of its height above / below
    face_margin_bottom: float = 0.2
    min_face_px: int = 20  # smallest face to find in a big photo (tiles)
    #: release check: a face outside every region at this score or more refuses it
    verify_outside_threshold: float = 0.5
    plates: bool = True
    plate_threshold: float = 0.5
    plate_margin_x: float = 0.0  # extra growth beyond the plate's frame (× width)
    plate_margin_y: float = 0.0  # (× height)
    plate_long_side: int = 1280

    def to_json(self) -> dict[str, Any]:
        """Plain dict (for settings storage and reports)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> DetectSettings:
        """Build from a dict, ignoring unknown keys and keeping defaults for missing ones."""
        names = {f.name: f.type for f in fields(cls)}
        default = cls()
        values: dict[str, Any] = {}
        for key, value in (data or {}).items():
            if key in names:
                kind = type(getattr(default, key))
                try:
                    values[key] = (str(value).lower() in ("1", "true", "yes")
                                   if kind is bool else kind(value))
                except (TypeError, ValueError):
                    continue
        settings = cls(**values)
        if settings.face_detector not in FACE_DETECTORS:
            settings.face_detector = "centerface"
        return settings


#: ``progress(fraction, stage)``: how much of one photo's detection is done, in [0, 1]
Progress = Callable[[float, str], None]


def _tile_plan(height: int, width: int, min_face_px: int) -> tuple[float, float, int]:
    """(global-pass scale, tile scale, tile overlap); tile scale 0 = no tile pass."""
    scale_global = min(1.0, math.sqrt(GLOBAL_PASS_PIXELS / max(1, height * width)))
    scale_tiles = min(1.0, CENTERFACE_MIN_PX / max(1, min_face_px))
    if scale_tiles <= scale_global * 1.15:
        return scale_global, 0.0, 0
    biggest_missed = CENTERFACE_MIN_PX / scale_global * scale_tiles * 1.6
    overlap = int(min(TILE // 2, max(64, math.ceil(biggest_missed / 32) * 32)))
    return scale_global, scale_tiles, overlap


def centerface_faces(rgb: np.ndarray, threshold: float, min_face_px: int = 20,
                     check: Callable[[], None] | None = None,
                     progress: Callable[[int, int], None] | None = None
                     ) -> list[Detection]:
    """CenterFace over the whole photo plus tiles for small faces in big photos.

    ``progress(done, total)`` counts the whole-photo pass as one step and each tile as one.
    """
    h, w = rgb.shape[:2]
    scale_global, scale_tiles, overlap = _tile_plan(h, w, min_face_px)
    tiles = faces.tile_origins(round(h * scale_tiles), round(w * scale_tiles), TILE,
                               overlap) if scale_tiles else []
    total = 1 + len(tiles)
    found = [faces.nms(faces.centerface_at_scale(rgb, scale_global, threshold))]
    if progress is not None:
        progress(1, total)
    if scale_tiles:
        def tile_done(done: int, _n: int) -> None:
            if progress is not None:
                progress(1 + done, total)

        found.append(faces.nms(faces.centerface_at_scale(
            rgb, scale_tiles, threshold, tile=TILE, overlap=overlap, check=check,
            progress=tile_done)))
    rows = np.concatenate(found)
    return [Detection("face", float(r[0]), float(r[1]), float(r[2] - r[0]),
                      float(r[3] - r[1]), float(r[4]), "centerface") for r in rows]


def detect_faces(rgb: np.ndarray, settings: DetectSettings,
                 check: Callable[[], None] | None = None,
                 progress: Progress | None = None) -> list[Detection]:
    """Faces by the chosen detector(s), merged, grown by the margin, clipped to the photo.

    ``progress(fraction, stage)`` reports per CenterFace tile (fractions of this call).
    """
    found: list[Detection] = []
    use_hog = "hog" in settings.face_detector
    if "centerface" in settings.face_detector:
        share = 0.8 if use_hog else 1.0

        def tiles(done: int, total: int) -> None:
            if progress is not None:
                progress(share * done / total, "faces, whole photo" if done == 1
                         else f"faces, tile {done - 1} of {total - 1}")

        found += centerface_faces(rgb, settings.face_threshold, settings.min_face_px, check,
                                  tiles)
    if use_hog:
        if check is not None:
            check()
        found += faces.hog_faces(rgb, settings.hog_threshold)
        if progress is not None:
            progress(1.0, "faces (HOG)")
    merged = merge_overlapping(found)
    size = (rgb.shape[1], rgb.shape[0])
    out = []
    for det in merged:
        x, y, bw, bh = grow(det.box, settings.face_margin, settings.face_margin_top,
                            settings.face_margin_bottom, size)
        out.append(Detection("face", x, y, bw, bh, det.score, det.detector))
    return out


def detect_plates(rgb: np.ndarray, settings: DetectSettings) -> list[Detection]:
    """Plates (text lines grown to the plate's frame), any extra margin, merged, clipped."""
    found = plates.find_plates(rgb, settings.plate_threshold, settings.plate_long_side)
    size = (rgb.shape[1], rgb.shape[0])
    grown = []
    for det in found:
        x, y, bw, bh = grow(det.box, settings.plate_margin_x, settings.plate_margin_y,
                            size=size)
        grown.append(Detection("plate", x, y, bw, bh, det.score, det.detector))
    return merge_overlapping(grown, iou_threshold=0.2, containment=0.5)


def _face_cost(height: int, width: int, settings: DetectSettings) -> float:
    """Pixels the face detectors look at (to weigh faces against plates in progress)."""
    cost = 0.0
    if "centerface" in settings.face_detector:
        scale_global, scale_tiles, overlap = _tile_plan(height, width, settings.min_face_px)
        cost += min(height * width, GLOBAL_PASS_PIXELS)
        if scale_tiles:
            cost += TILE * TILE * len(faces.tile_origins(
                round(height * scale_tiles), round(width * scale_tiles), TILE, overlap))
    if "hog" in settings.face_detector:
        cost += min(height * width, 1600 * 1600)
    return cost


def detect_all(rgb: np.ndarray, settings: DetectSettings,
               check: Callable[[], None] | None = None,
               progress: Progress | None = None) -> list[Detection]:
    """Faces then (if enabled) plates of one upright RGB photo.

    ``progress(fraction, stage)`` reports real progress through the stages (per tile of
    the small-face pass), so a big photo never sits at 0 % for the whole detection.
    """
    require("anonymize", "Face and plate detection")
    height, width = rgb.shape[:2]
    face_cost = _face_cost(height, width, settings)
    plate_cost = float(settings.plate_long_side ** 2) if settings.plates else 0.0
    face_share = face_cost / max(1.0, face_cost + plate_cost)

    def faces_progress(fraction: float, stage: str) -> None:
        if progress is not None:
            progress(face_share * fraction, stage)

    out = detect_faces(rgb, settings, check, faces_progress)
    if settings.plates:
        if check is not None:
            check()
        if progress is not None:
            progress(face_share, "licence plates")
        out += detect_plates(rgb, settings)
    if progress is not None:
        progress(1.0, "done")
    return out
