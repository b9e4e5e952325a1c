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


def centerface_faces(rgb: np.ndarray, threshold: float, min_face_px: int = 20,
                     check: Callable[[], None] | None = None) -> list[Detection]:
    """CenterFace over the whole photo plus tiles for small faces in big photos."""
    h, w = rgb.shape[:2]
    pixels = h * w
    scale_global = min(1.0, math.sqrt(GLOBAL_PASS_PIXELS / pixels))
    found = [faces.nms(faces.centerface_at_scale(rgb, scale_global, threshold))]
    scale_tiles = min(1.0, CENTERFACE_MIN_PX / max(1, min_face_px))
    if scale_tiles > scale_global * 1.15:
        biggest_missed = CENTERFACE_MIN_PX / scale_global * scale_tiles * 1.6
        overlap = int(min(TILE // 2, max(64, math.ceil(biggest_missed / 32) * 32)))
        found.append(faces.nms(faces.centerface_at_scale(
            rgb, scale_tiles, threshold, tile=TILE, overlap=overlap, check=check)))
    rows = np.concatenate(found)
    return [Detection("face", float(r[0]), float(r[1]), float(r[2] - r[0]),
                      float(r[3] - r[1]), float(r[4]), "centerface") for r in rows]


def detect_faces(rgb: np.ndarray, settings: DetectSettings,
                 check: Callable[[], None] | None = None) -> list[Detection]:
    """Faces by the chosen detector(s), merged, grown by the margin, clipped to the photo."""
    found: list[Detection] = []
    if "centerface" in settings.face_detector:
        found += centerface_faces(rgb, settings.face_threshold, settings.min_face_px, check)
    if "hog" in settings.face_detector:
        found += faces.hog_faces(rgb, settings.hog_threshold)
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


def detect_all(rgb: np.ndarray, settings: DetectSettings,
               check: Callable[[], None] | None = None) -> list[Detection]:
    """Faces then (if enabled) plates of one upright RGB photo."""
    out = detect_faces(rgb, settings, check)
    if settings.plates:
        if check is not None:
            check()
        out += detect_plates(rgb, settings)
    return out
