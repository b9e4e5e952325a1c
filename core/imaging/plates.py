"""Licence-plate finder: the PP-OCR text detector shipped in ``rapidocr`` + a plate-shape filter.

The ONNX text-detection model (Apache-2.0) is a package file of the ``rapidocr``
wheel; we run it with our own onnxruntime session and a compact version of its
DB post-processing (probability map → connected regions → rotated boxes), so
nothing of rapidocr's model-download machinery is ever imported.  A text line is
kept as a plate when its shape fits one (aspect ratio, size, tilt); it is then
grown from the characters to the plate's frame.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from core.bundle import bundled_model
from core.imaging.boxes import Detection

DET_MODEL = "PP-OCRv6_det_small.onnx"
_lock = threading.Lock()
_session: Any = None


class TextModelMissingError(RuntimeError):
    """rapidocr (and so its text-detection model) is not installed."""


@dataclass(frozen=True)
class PlateShape:
    """What a text line must look like to count as a licence plate."""

    min_aspect: float = 1.4  # width / height of the character line
    max_aspect: float = 10.0
    min_height: float = 7.0  # px in the photo
    max_height_frac: float = 0.2  # of the photo's height
    max_tilt_deg: float = 30.0


def text_model_path() -> Path | None:
    """The packaged PP-OCR detection model, or None when rapidocr is missing."""
    bundled = bundled_model(DET_MODEL)
    if bundled is not None:
        return bundled
    try:
        spec = importlib.util.find_spec("rapidocr")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        for candidate in sorted((Path(folder) / "models").glob("*_det_*.onnx")):
            if candidate.name == DET_MODEL or candidate.is_file():
                return candidate
    return None


def _text_session() -> Any:
    global _session
    path = text_model_path()
    if path is None:
        raise TextModelMissingError("Plate detection needs the rapidocr package "
                                    "(pip install rapidocr).")
    with _lock:
        if _session is None:
            import onnxruntime as ort

            options = ort.SessionOptions()
            options.log_severity_level = 3
            options.intra_op_num_threads = max(1, min(4, os.cpu_count() or 1))
            _session = ort.InferenceSession(str(path), options,
                                            providers=["CPUExecutionProvider"])
        return _session


def text_probability(rgb: np.ndarray, long_side: int) -> tuple[np.ndarray, float, float]:
    """Text probability map of ``rgb`` resized so its long side is ``long_side`` (÷32).

    Returns (map, scale_x, scale_y) with map pixels = photo pixels × scale.
    """
    import cv2

    h, w = rgb.shape[:2]
    ratio = long_side / max(h, w)
    rh, rw = max(32, round(h * ratio / 32) * 32), max(32, round(w * ratio / 32) * 32)
    small = cv2.resize(rgb, (rw, rh), interpolation=cv2.INTER_AREA if ratio < 1
                       else cv2.INTER_LINEAR)
    blob = (small.astype(np.float32) / 255.0 - 0.5) / 0.5
    blob = np.ascontiguousarray(blob.transpose(2, 0, 1)[None])
    (pred,) = _text_session().run(None, {"x": blob})
    return pred[0, 0], rw / w, rh / h


def text_boxes(prob: np.ndarray, thresh: float = 0.3, box_thresh: float = 0.5,
               unclip: float = 1.6) -> list[tuple[np.ndarray, float]]:
    """DB post-processing: rotated boxes (4×2 corner arrays, map pixels) with scores."""
    import cv2

    mask = cv2.dilate((prob > thresh).astype(np.uint8), np.ones((2, 2), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    out: list[tuple[np.ndarray, float]] = []
    for contour in contours[:1000]:
        if len(contour) < 3:
            continue
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(contour)
        if min(rw, rh) < 3:
            continue
        x, y, bw, bh = cv2.boundingRect(contour)
        region = np.zeros((bh, bw), np.uint8)
        cv2.fillPoly(region, [contour - [x, y]], 1)
        score = float(cv2.mean(prob[y:y + bh, x:x + bw], region)[0])
        if score < box_thresh:
            continue
        # unclip: offset the polygon by area * ratio / perimeter (as PP-OCR does)
        dist = rw * rh * unclip / (2 * (rw + rh))
        rect = ((cx, cy), (rw + 2 * dist, rh + 2 * dist), angle)
        out.append((cv2.boxPoints(rect), score))
    return out


def _plate_geometry(points: np.ndarray) -> tuple[float, float, float]:
    """(long side, short side, tilt in degrees from horizontal) of a rotated box."""
    edges = [points[(i + 1) % 4] - points[i] for i in range(4)]
    lengths = [float(np.hypot(*e)) for e in edges]
    i = int(np.argmax(lengths))
    dx, dy = edges[i]
    tilt = abs(np.degrees(np.arctan2(dy, dx))) % 180
    tilt = min(tilt, 180 - tilt)
    return lengths[i], min(lengths), tilt


def find_plates(rgb: np.ndarray, threshold: float = 0.5, long_side: int = 1280,
                shape: PlateShape | None = None) -> list[Detection]:
    """Licence-plate candidates (character lines of plate shape) in photo pixels.

    The boxes cover the characters; grow them (see ``DetectSettings.plate_margin``)
    to reach the plate's frame.
    """
    shape = shape or PlateShape()
    h = rgb.shape[0]
    side = min(long_side, max(640, max(rgb.shape[:2])))
    prob, sx, sy = text_probability(rgb, side)
    out: list[Detection] = []
    for points, score in text_boxes(prob, box_thresh=threshold):
        pts = points / [sx, sy]
        long, short, tilt = _plate_geometry(pts)
        if short <= 0 or tilt > shape.max_tilt_deg:
            continue
        aspect = long / short
        if not (shape.min_aspect <= aspect <= shape.max_aspect):
            continue
        if short < shape.min_height or short > shape.max_height_frac * h:
            continue
        x1, y1 = pts.min(axis=0)
        x2, y2 = pts.max(axis=0)
        x1, y1 = max(0.0, float(x1)), max(0.0, float(y1))
        x2, y2 = min(float(rgb.shape[1]), float(x2)), min(float(h), float(y2))
        out.append(Detection("plate", x1, y1, x2 - x1, y2 - y1, score, "pp-ocr-text"))
    return out
