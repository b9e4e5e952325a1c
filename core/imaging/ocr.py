"""PP-OCR models shipped in the ``rapidocr`` wheel, run with our own onnxruntime sessions.

Two models are used: text *detection* (the plate finder, :mod:`core.imaging.plates`)
and text *recognition* (is anything on a released plate still readable? ADR 110).
Both are package files of the ``rapidocr`` wheel (Apache-2.0), or of a frozen bundle;
nothing of rapidocr itself is imported, so its model resolver can never download.

Recognition follows PP-OCR: a text line is cut out upright (perspective crop of its
rotated box), resized to 48 px high, fed as BGR scaled to [-1, 1]; the output is
decoded greedily (CTC: best class per column, repeats merged, blanks dropped).
"""

from __future__ import annotations

import importlib.util
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from core.bundle import bundled_model

DET_MODEL = "PP-OCRv6_det_small.onnx"
REC_MODEL = "PP-OCRv6_rec_small.onnx"
REC_HEIGHT = 48
REC_MAX_WIDTH = 48 * 24  # longer lines are squeezed (a plate line is far shorter)
READABLE_CHARS = 3  # a reading is "readable" with this many letters or digits …
READABLE_CONFIDENCE = 0.5  # … each read with at least this confidence (ADR 112)
BATCH_COLUMNS = 320 * 8  # crops of one width run together up to this many columns a run
REC_LANES = 2  # recogniser runs at once where 2 cores or more are usable (ADR 168)

_lock = threading.Lock()
_sessions: dict[str, Any] = {}
_charset: list[str] | None = None


class TextModelMissingError(RuntimeError):
    """rapidocr (and so its text models) is not installed."""


def ppocr_model_path(name: str, kind: str) -> Path | None:
    """The packaged PP-OCR model ``name`` (else any ``*_{kind}_*.onnx``), or None."""
    bundled = bundled_model(name)
    if bundled is not None:
        return bundled
    try:
        spec = importlib.util.find_spec("rapidocr")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        exact = Path(folder) / "models" / name
        if exact.is_file():
            return exact
        for candidate in sorted((Path(folder) / "models").glob(f"*_{kind}_*.onnx")):
            if candidate.is_file():
                return candidate
    return None


def ppocr_session(name: str, kind: str) -> Any:
    """One shared onnxruntime CPU session per model (created on first use; the model file
    is looked for only then: a look costs ~0.3 ms, and a release asks ~18 times)."""
    session = _sessions.get(name)
    if session is not None:
        return session
    path = ppocr_model_path(name, kind)
    if path is None:
        raise TextModelMissingError(
            "Plate detection needs the rapidocr package (pip install rapidocr)."
        )
    with _lock:
        session = _sessions.get(name)
        if session is None:
            from core.imaging.faces import session_options
            from core.onnx_runtime import onnxruntime

            ort = onnxruntime()
            options = session_options()
            if kind == "rec":
                options.intra_op_num_threads = rec_threads()
            session = ort.InferenceSession(
                str(path), options, providers=["CPUExecutionProvider"]
            )
            _sessions[name] = session
        return session


def rec_lanes() -> int:
    """Recogniser runs at once: 2 where 2 cores or more are usable, else 1 (ADR 168)."""
    from core.imaging.lanes import usable_cores

    return min(REC_LANES, usable_cores())


def rec_threads() -> int:
    """Intra-op threads of the recogniser's session: the model threads
    (:func:`core.imaging.faces.model_threads`) shared among :func:`rec_lanes`.  Its runs
    are small: two runs of one thread each take 0.6–0.7 × the wall time of the same
    runs one after the other on two threads, and less CPU (ADR 168); the scores are
    the same to the bit."""
    from core.imaging.faces import model_threads

    return max(1, model_threads() // rec_lanes())


def recogniser_available() -> bool:
    """True when the recognition model is installed."""
    return ppocr_model_path(REC_MODEL, "rec") is not None


def _characters(session: Any) -> list[str]:
    """The recogniser's classes: blank, the model's character list, space."""
    global _charset
    if _charset is None:
        listed = session.get_modelmeta().custom_metadata_map["character"].splitlines()
        _charset = ["", *listed, " "]
    return _charset


def text_probability(rgb: np.ndarray, long_side: int) -> tuple[np.ndarray, float, float]:
    """Text probability map of ``rgb`` resized so its long side is ``long_side`` (÷32).

    Returns (map, scale_x, scale_y) with map pixels = photo pixels × scale.
    """
    import cv2

    h, w = rgb.shape[:2]
    ratio = long_side / max(h, w)
    rh, rw = max(32, round(h * ratio / 32) * 32), max(32, round(w * ratio / 32) * 32)
    small = cv2.resize(
        rgb, (rw, rh), interpolation=cv2.INTER_AREA if ratio < 1 else cv2.INTER_LINEAR
    )
    # (x / 255 - 0.5) / 0.5 on one channels-first copy, in place (the same values to the
    # bit as on four temporary copies, and 13 against 31 ms for 1280 x 960; ADR 203)
    blob = np.ascontiguousarray(small.transpose(2, 0, 1)[None], dtype=np.float32)
    blob /= 255.0
    blob -= 0.5
    blob /= 0.5
    (pred,) = ppocr_session(DET_MODEL, "det").run(None, {"x": blob})
    return pred[0, 0], rw / w, rh / h


def text_boxes(
    prob: np.ndarray, thresh: float = 0.3, box_thresh: float = 0.5, unclip: float = 1.6
) -> list[tuple[np.ndarray, float]]:
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
        score = float(cv2.mean(prob[y : y + bh, x : x + bw], region)[0])
        if score < box_thresh:
            continue
        # unclip: offset the polygon by area * ratio / perimeter (as PP-OCR does)
        dist = rw * rh * unclip / (2 * (rw + rh))
        rect = ((cx, cy), (rw + 2 * dist, rh + 2 * dist), angle)
        out.append((cv2.boxPoints(rect), score))
    return out


def text_lines(
    rgb: np.ndarray, long_side: int, box_thresh: float = 0.5
) -> list[tuple[np.ndarray, float]]:
    """Text lines of ``rgb`` found at ``long_side``: (4×2 corners in ``rgb`` pixels, score)."""
    prob, sx, sy = text_probability(rgb, long_side)
    return [(points / [sx, sy], score) for points, score in text_boxes(prob, box_thresh=box_thresh)]


@dataclass(frozen=True)
class Reading:
    """One recognised line: its text and the confidence of each character."""

    text: str
    confidences: tuple[float, ...]

    @property
    def confidence(self) -> float:
        """Mean character confidence (0 for an empty reading)."""
        return float(np.mean(self.confidences)) if self.confidences else 0.0

    @property
    def readable(self) -> bool:
        """At least :data:`READABLE_CHARS` letters or digits read with confidence
        :data:`READABLE_CONFIDENCE` or more (ADR 112)."""
        return len(self.characters(READABLE_CONFIDENCE)) >= READABLE_CHARS

    def characters(self, min_confidence: float = 0.0) -> str:
        """Letters and digits (upper case) read with at least ``min_confidence``."""
        return "".join(
            c.upper()
            for c, p in zip(self.text, self.confidences, strict=True)
            if c.isascii() and c.isalnum() and p >= min_confidence
        )


def line_crop(rgb: np.ndarray, quad: np.ndarray, pad: float = 0.15) -> np.ndarray:
    """The rotated box ``quad`` (4×2, any order) cut out upright, padded by ``pad`` × height."""
    import cv2

    rect = cv2.minAreaRect(np.asarray(quad, np.float32))
    pts = cv2.boxPoints(rect).astype(np.float64)
    centre = pts.mean(axis=0)
    edges = [pts[(i + 1) % 4] - pts[i] for i in range(4)]
    long_edge = max(edges, key=lambda e: float(np.hypot(*e)))
    w = float(np.hypot(*long_edge))
    h = min(float(np.hypot(*e)) for e in edges)
    u = long_edge / max(w, 1e-9)
    if u[0] < 0 or (u[0] == 0 and u[1] < 0):  # read left to right
        u = -u
    v = np.array([-u[1], u[0]])  # points down the page
    w, h = w + 2 * pad * h, h * (1 + 2 * pad)
    out_w, out_h = max(2, round(w)), max(2, round(h))
    top_left = centre - u * w / 2 - v * h / 2
    src = np.array([top_left, top_left + u * w, top_left + u * w + v * h], dtype=np.float32)
    dst = np.array([[0, 0], [out_w, 0], [out_w, out_h]], dtype=np.float32)
    matrix = cv2.getAffineTransform(src, dst)
    return cv2.warpAffine(
        rgb, matrix, (out_w, out_h), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE
    )


def recognise(crops: Sequence[np.ndarray], min_width: int = 320) -> list[Reading]:
    """Read each upright RGB line crop (one :class:`Reading` per crop, same order).

    Each crop is scaled to 48 px tall and padded to ``min_width`` px (PP-OCR's own
    width; the recogniser's time grows with the width, so a caller reading many short
    crops may pass less, down to the crop's own width).  Crops padded to the same width
    run as one batch (at most :data:`BATCH_COLUMNS` columns a run): each crop's input is
    the one it would have alone, and its reading is the same (ADR 168).  A crop is never
    padded further to join a batch: the recogniser looks along the whole line, so more
    padding changes what it reads.  The runs go on :func:`rec_lanes` lanes at once.
    """
    from core.imaging.lanes import run_tasks

    session = ppocr_session(REC_MODEL, "rec")
    charset = _characters(session)
    by_width: dict[int, list[tuple[int, np.ndarray]]] = {}
    for index, crop in enumerate(crops):
        line = _rec_line(crop)
        if line is not None:
            padded = max(line.shape[1], min_width, 16)
            by_width.setdefault(padded, []).append((index, line))
    chunks = [
        (padded, lines[start : start + max(1, BATCH_COLUMNS // padded)])
        for padded, lines in by_width.items()
        for start in range(0, len(lines), max(1, BATCH_COLUMNS // padded))
    ]

    def read(padded: int, chunk: list[tuple[int, np.ndarray]]) -> list[tuple[int, Reading]]:
        blob = np.zeros((len(chunk), 3, REC_HEIGHT, padded), np.float32)
        for row, (_index, line) in enumerate(chunk):
            blob[row, :, :, : line.shape[1]] = line.transpose(2, 0, 1) / 127.5 - 1.0
        (pred,) = session.run(None, {"x": blob})
        return [(index, _decode(scores, charset)) for (index, _), scores in zip(chunk, pred, strict=True)]

    out = [Reading("", ())] * len(crops)
    tasks = [partial(read, padded, chunk) for padded, chunk in chunks]
    for done in run_tasks(tasks, ways=rec_lanes()):
        for index, reading in done:
            out[index] = reading
    return out


def _rec_line(crop: np.ndarray) -> np.ndarray | None:
    """``crop`` as the recogniser's BGR line, 48 px tall (None: too small to read)."""
    import cv2

    width = rec_width(crop)
    if not width:
        return None
    return cv2.resize(
        np.ascontiguousarray(crop[..., ::-1]),
        (width, REC_HEIGHT),
        interpolation=cv2.INTER_AREA if crop.shape[0] > REC_HEIGHT else cv2.INTER_CUBIC,
    )


def rec_width(crop: np.ndarray) -> int:
    """Columns of ``crop`` scaled to the recogniser's 48 px height (16 to
    :data:`REC_MAX_WIDTH`), before any padding; 0 for a crop too small to read."""
    h, w = crop.shape[:2]
    if h < 2 or w < 2:
        return 0
    return int(min(REC_MAX_WIDTH, max(16, math.ceil(REC_HEIGHT * w / h))))


def _decode(scores: np.ndarray, charset: list[str]) -> Reading:
    """Greedy CTC decoding of one line's scores (columns × classes)."""
    best, prob = scores.argmax(axis=1), scores.max(axis=1)
    keep = np.ones(len(best), bool)
    keep[1:] = best[1:] != best[:-1]
    keep &= best != 0
    return Reading(
        "".join(charset[i] for i in best[keep]),
        tuple(round(float(p), 4) for p in prob[keep]),
    )
