"""Detection of everything to hide in one photo: faces (a union of detectors) and plates.

Big photos are handled with two passes: the whole photo shrunk to about one
megapixel (large faces), then tiles at the scale where a face of
``min_face_px`` pixels still reaches the detector's minimum size (small faces).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from functools import partial
from typing import Any

import numpy as np

from core.extras import require
from core.imaging import faces, plates
from core.imaging.boxes import Detection, grow, iou, merge_overlapping
from core.imaging.lanes import run_tasks

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
    #: release from the app: a face outside every region at this score or more asks the
    #: photographer (Release anyway); a weaker one is hidden by a region of its own (ADR 185)
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


@dataclass(frozen=True)
class _Task:
    """One model run of a detection: what it does, the pixels it looks at, its stage."""

    run: Callable[[], Any]
    cost: float
    kind: str  # "whole", "tile", "hog" or "plates"


class _Once:
    """A value computed on first use by whichever lane needs it first."""

    def __init__(self, make: Callable[[], np.ndarray]) -> None:
        self._make = make
        self._value: np.ndarray | None = None
        self._lock = threading.Lock()

    def __call__(self) -> np.ndarray:
        with self._lock:
            if self._value is None:
                self._value = self._make()
            return self._value


def _whole_copy(rgb: np.ndarray) -> _Once:
    """``rgb`` at the whole-photo pass's scale (about one megapixel), made on first use."""
    scale = _tile_plan(rgb.shape[0], rgb.shape[1], CENTERFACE_MIN_PX)[0]
    return _Once(lambda: faces.resize_by(rgb, scale))


def _centerface_tasks(rgb: np.ndarray, threshold: float, min_face_px: int,
                      whole: _Once | None = None
                      ) -> tuple[list[_Task], Callable[[list[Any]], list[Detection]]]:
    """CenterFace's runs (the whole photo, then each tile of the small-face pass) and
    the function that turns their results into detections. ``whole``: the photo's
    :func:`_whole_copy`, when the caller shares it with other runs."""
    h, w = rgb.shape[:2]
    scale_global, scale_tiles, overlap = _tile_plan(h, w, min_face_px)
    whole = whole or _whole_copy(rgb)
    tasks = [_Task(lambda: faces.nms(faces.centerface_at_scale(rgb, scale_global, threshold,
                                                               small=whole())),
                   float(min(h * w, GLOBAL_PASS_PIXELS)), "whole")]
    small_h, small_w = max(1, round(h * scale_tiles)), max(1, round(w * scale_tiles))
    grid = faces.tile_grid(small_h, small_w, TILE, overlap) if scale_tiles else []
    small = _Once(lambda: faces.resize_by(rgb, scale_tiles))

    def tile(y0: int, x0: int, th: int, tw: int) -> np.ndarray:
        return faces.centerface_tile(small(), y0, x0, th, tw, threshold)

    tasks += [_Task(partial(tile, *cell), float(TILE * TILE), "tile") for cell in grid]

    def finish(results: list[Any]) -> list[Detection]:
        found = [results[0]]
        if grid:
            found.append(faces.nms(faces.to_photo(results[1:], small_h, small_w, scale_tiles)))
        rows = np.concatenate(found)
        return [Detection("face", float(r[0]), float(r[1]), float(r[2] - r[0]),
                          float(r[3] - r[1]), float(r[4]), "centerface") for r in rows]

    return tasks, finish


def centerface_faces(rgb: np.ndarray, threshold: float, min_face_px: int = 20,
                     check: Callable[[], None] | None = None,
                     progress: Callable[[int, int], None] | None = None
                     ) -> list[Detection]:
    """CenterFace over the whole photo plus tiles for small faces in big photos, the
    runs shared between two lanes (:mod:`core.imaging.lanes`).

    ``progress(done, total)`` counts the whole-photo pass as one step and each tile as
    one (from either lane, never two at once).
    """
    tasks, finish = _centerface_tasks(rgb, threshold, min_face_px)
    count = [0]

    def done(_index: int) -> None:
        count[0] += 1
        if progress is not None:
            progress(count[0], len(tasks))

    return finish(run_tasks([t.run for t in tasks], check, done))


#: the score a face must reach in the photo turned round (:func:`turned_faces`): CenterFace
#: learnt upright faces, and at its usual 0.2 it fires on hands and fur turned (ADR 197)
TURNED_THRESHOLD = 0.5


def turned_faces(rgb: np.ndarray, threshold: float = TURNED_THRESHOLD) -> list[Detection]:
    """Faces CenterFace finds in ``rgb`` turned a quarter, a half and three quarters
    round (its whole-photo pass, about one megapixel), in ``rgb``'s pixels.

    A photo stored sideways or upside down without an orientation tag shows its faces
    turned, and CenterFace misses most of them upright (ADR 197).
    """
    return [face for found in run_tasks(_turned_runs(rgb, threshold)) for face in found]


def _turned_runs(rgb: np.ndarray, threshold: float, whole: _Once | None = None
                 ) -> list[Callable[[], list[Detection]]]:
    """The three runs of :func:`turned_faces`, one per turn, each turning one shrunk copy
    of the photo (``whole``: its :func:`_whole_copy`, when the caller shares it)."""
    height, width = rgb.shape[:2]
    small = whole or _whole_copy(rgb)

    def run(quarters: int) -> list[Detection]:
        high, wide = small().shape[:2]
        rows = faces.nms(faces.centerface_at_scale(
            np.ascontiguousarray(np.rot90(small(), quarters)), 1.0, threshold))
        found = []
        for x1, y1, x2, y2, score in rows:  # np.rot90 turns counter-clockwise
            box = {1: (wide - y2, x1, wide - y1, x2),
                   2: (wide - x2, high - y2, wide - x1, high - y1),
                   3: (y1, high - x2, y2, high - x1)}[quarters]
            left, right = (float(v) * width / wide for v in box[::2])
            top, bottom = (float(v) * height / high for v in box[1::2])
            found.append(Detection("face", left, top, right - left, bottom - top,
                                   float(score), "centerface"))
        return found

    return [partial(run, quarters) for quarters in (1, 2, 3)]


#: the slanted views of the check (degrees, counter-clockwise): a face turned about
#: halfway between two quarter turns scores under :data:`TURNED_THRESHOLD` in every
#: straight view (ADR 197, amended)
SLANTS = (45, 135, 225, 315)
#: grey of a slanted view's corners (no face there to find)
_CORNER_GREY = (128, 128, 128)


def _slanted_runs(rgb: np.ndarray, threshold: float, whole: _Once | None = None
                  ) -> list[Callable[[], list[Detection]]]:
    """CenterFace over the shrunk copy turned by each of :data:`SLANTS`, on a canvas
    that holds the turned corners, scaled back to the copy's pixel count; each found box
    is mapped back to ``rgb``'s pixels as the upright box around its four corners."""
    import cv2

    height, width = rgb.shape[:2]
    small = whole or _whole_copy(rgb)

    def run(angle: int) -> list[Detection]:
        image = small()
        high, wide = image.shape[:2]
        cos, sin = abs(math.cos(math.radians(angle))), abs(math.sin(math.radians(angle)))
        view_w, view_h = wide * cos + high * sin, wide * sin + high * cos
        scale = math.sqrt(wide * high / (view_w * view_h))
        size = (max(1, round(view_w * scale)), max(1, round(view_h * scale)))
        turn = cv2.getRotationMatrix2D((wide / 2, high / 2), angle, scale)
        turn[0, 2] += size[0] / 2 - wide / 2
        turn[1, 2] += size[1] / 2 - high / 2
        view = cv2.warpAffine(np.ascontiguousarray(image), turn, size,
                              flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                              borderValue=_CORNER_GREY)
        back = cv2.invertAffineTransform(turn)
        found = []
        for x1, y1, x2, y2, score in faces.nms(faces.centerface_at_scale(view, 1.0,
                                                                         threshold)):
            corners = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)
            points = corners @ back[:, :2].T + back[:, 2]
            left = max(0.0, float(points[:, 0].min()) * width / wide)
            right = min(float(width), float(points[:, 0].max()) * width / wide)
            top = max(0.0, float(points[:, 1].min()) * height / high)
            bottom = min(float(height), float(points[:, 1].max()) * height / high)
            if right > left and bottom > top:
                found.append(Detection("face", left, top, right - left, bottom - top,
                                       float(score), "centerface"))
        return found

    return [partial(run, angle) for angle in SLANTS]


def faces_any_way_up(rgb: np.ndarray, threshold: float, min_face_px: int = 20
                     ) -> list[Detection]:
    """:func:`centerface_faces` at ``threshold``, and the faces of the photo turned a
    quarter, a half, three quarters (:func:`turned_faces`) and by the four
    :data:`SLANTS` that none of them already found (the release check, ADR 197); all
    runs share the lanes, and every whole-photo pass one shrunk copy (ADR 203)."""
    whole = _whole_copy(rgb)
    tasks, finish = _centerface_tasks(rgb, threshold, min_face_px, whole)
    results = run_tasks([t.run for t in tasks] + _turned_runs(rgb, TURNED_THRESHOLD, whole)
                        + _slanted_runs(rgb, TURNED_THRESHOLD, whole))
    kept = finish(results[:len(tasks)])
    for turned in (face for found in results[len(tasks):] for face in found):
        # one face seen in two views (a quarter turn and a slant) is one face
        if all(iou(turned.box, face.box) < 0.3 for face in kept):
            kept.append(turned)
    return kept


def _face_tasks(rgb: np.ndarray, settings: DetectSettings
                ) -> tuple[list[_Task], Callable[[list[Any]], list[Detection]]]:
    """The runs of the chosen face detector(s) and the function that merges their
    results into grown regions."""
    tasks: list[_Task] = []
    finish_centerface = None
    if "centerface" in settings.face_detector:
        tasks, finish_centerface = _centerface_tasks(rgb, settings.face_threshold,
                                                     settings.min_face_px)
    centerface_count = len(tasks)
    has_hog = "hog" in settings.face_detector
    if has_hog:
        tasks.append(_Task(lambda: faces.hog_faces(rgb, settings.hog_threshold),
                           float(min(rgb.shape[0] * rgb.shape[1], 1600 * 1600)), "hog"))

    def finish(results: list[Any]) -> list[Detection]:
        found: list[Detection] = []
        if finish_centerface is not None:
            found += finish_centerface(results[:centerface_count])
        if has_hog:
            found += results[centerface_count]
        size = (rgb.shape[1], rgb.shape[0])
        grown = []
        for det in merge_overlapping(found):
            x, y, bw, bh = grow(det.box, settings.face_margin, settings.face_margin_top,
                                settings.face_margin_bottom, size)
            grown.append(Detection("face", x, y, bw, bh, det.score, det.detector))
        # two boxes of one face that did not overlap enough before the margins (a tile's
        # and the whole pass's, a chin found apart) are one region once grown (ADR 044)
        return merge_overlapping(grown)

    return tasks, finish


def _run_reporting(tasks: list[_Task], check: Callable[[], None] | None,
                   progress: Progress | None) -> list[Any]:
    """Run ``tasks`` on the lanes, reporting ``progress(fraction, stage)`` after each
    (fractions weighted by the pixels each task looks at)."""
    total = sum(t.cost for t in tasks) or 1.0
    tiles = sum(t.kind == "tile" for t in tasks)
    state = {"cost": 0.0, "tiles": 0}

    def done(index: int) -> None:
        task = tasks[index]
        state["cost"] += task.cost
        if task.kind == "tile":
            state["tiles"] += 1
        stage = {"whole": "faces, whole photo", "hog": "faces (HOG)",
                 "plates": "licence plates",
                 "tile": f"faces, tile {int(state['tiles'])} of {tiles}"}[task.kind]
        if progress is not None:
            progress(min(1.0, state["cost"] / total), stage)

    return run_tasks([t.run for t in tasks], check, done)


def detect_faces(rgb: np.ndarray, settings: DetectSettings,
                 check: Callable[[], None] | None = None,
                 progress: Progress | None = None) -> list[Detection]:
    """Faces by the chosen detector(s), merged, grown by the margin, clipped to the photo.

    ``progress(fraction, stage)`` reports after the whole-photo pass and each CenterFace
    tile (fractions of this call; from either lane, never two at once).
    """
    tasks, finish = _face_tasks(rgb, settings)
    return finish(_run_reporting(tasks, check, progress))


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
               check: Callable[[], None] | None = None,
               progress: Progress | None = None) -> list[Detection]:
    """Faces, then (if enabled) plates, of one upright RGB photo.

    The plate pass, the whole-photo face pass and the small-face tiles run on two lanes
    at once (:mod:`core.imaging.lanes`, ADR 117); the result is the same as running them
    one after the other. ``progress(fraction, stage)`` reports after each of them (per
    tile of the small-face pass, from either lane, never two at once), so a big photo
    never sits at 0 % for the whole detection; ``check()`` runs before each (Cancel).
    """
    require("anonymize", "Face and plate detection")
    face_tasks, finish = _face_tasks(rgb, settings)
    tasks = list(face_tasks)
    if settings.plates:
        # last: the calling thread starts with it (the longest single run; work it hands
        # to the lanes itself is shared), the helper with the whole-photo face pass
        tasks.append(_Task(lambda: detect_plates(rgb, settings),
                           float(settings.plate_long_side ** 2), "plates"))
    results = _run_reporting(tasks, check, progress)
    out = finish(results[:len(face_tasks)])
    if settings.plates:
        out += results[-1]
    if progress is not None:
        progress(1.0, "done")
    return out
