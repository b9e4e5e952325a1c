"""Licence-plate finder: PP-OCR text lines at several scales, grown to each plate's frame.

The ONNX text-detection model (Apache-2.0) is a package file of the ``rapidocr``
wheel, run with our own onnxruntime session (:mod:`core.imaging.ocr`), so nothing of
rapidocr's model-download machinery is ever imported.  Text lines are found at the
working scale and at a half and a quarter of it (a close-up's characters can be too big
for the detector at full size), pieces of broken lines are joined, and a line is kept
as a plate when its shape fits one (aspect ratio, size, tilt); its plate's other lines
are gathered and the whole group is grown to the plate's frame
(:mod:`core.imaging.plate_frame`, ADR 041 and 111).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core.imaging.boxes import Box, Detection, area, intersection, iou
from core.imaging.ocr import (
    DET_MODEL,
    TextModelMissingError,
    ppocr_model_path,
    text_boxes,
    text_lines,
    text_probability,
)
from core.imaging.plate_frame import Line, assemble, companions, frame, join_weak_beside
from core.imaging.plate_turned import read_standing, standing

__all__ = [
    "PlateShape",
    "TextModelMissingError",
    "find_plates",
    "plate_lines",
    "whole_reads",
    "text_model_path",
    "dark_copy",
    "read_as_a_plate",
    "read_pass",
    "working_copy",
    "Copies",
]

#: the working scale and the coarser ones (fractions of it) the text detector runs at
SCALES = (1.0, 0.5, 0.25)
MIN_SIDE = 320  # px: no pass below this long side (coarser finds windows, not text)
#: a photo at least FINE_FROM times the working scale is also searched at up to FINE
#: times it, at its own pixels (ADR 171): a plate 100 px wide in a 12 MP photo has
#: characters 7 px tall at the working scale, too small for the detector
FINE = 2.0
FINE_FROM = 1.25
FINE_GATE = 0.1  # text probability at the working scale that sends a tile to the fine one
#: heights (px of the working scale) of a probability blob that sends its tile to the
#: fine scale: a small plate's line (a 100 px plate in a 12 MP photo: ~5–12 px)
FINE_GATE_HEIGHT = (3, 14)
FINE_TILE = 320  # px of the fine copy a tile covers …
FINE_OVERLAP = 48  # … and the overlap with its neighbours (a line across a tile's edge)
#: text regions read whole by the second source, at most (the surest first, ADR 172)
MAX_WHOLE = 6
#: plate-shaped lines read to see whether one is a plate, at most (the surest first,
#: ADR 181) …
MAX_CONFIRM = 8
#: … and, when none is, the share of the second source's quotas read at detection (a
#: lighter search than where no line was found: the release searches again in full)
RESTLESS_SHARE = 0.25
#: box score (of the working scale's text probability) down to which the detector's
#: weaker pieces may join a plate's line beside it (ADR 226; the lines themselves need
#: the finder's ``box_thresh``, 0.5)
WEAK_BOX = 0.3
DARK_RANGE = 128.0  # grey levels: a photo spanning fewer is dark (stretched, dark pass)
#: search the dark copy at every scale (ADR 113) instead of only at the scales where the
#: plain copy found no plate-shaped line (ADR 118); kept for the benchmark's comparison
DARK_EVERY_SCALE = False


@dataclass(frozen=True)
class PlateShape:
    """What a text line must look like to count as (the main line of) a licence plate."""

    min_aspect: float = 1.4  # width / height of the character line
    max_aspect: float = 10.0
    min_height: float = 7.0  # px in the photo
    max_height_frac: float = 0.6  # of the photo's height (a close-up's characters)
    max_tilt_deg: float = 30.0

    def too_big(self, line: Line, photo_height: int) -> bool:
        """True when ``line`` is a text region taller than a plate's character line can
        be, and at least as wide as tall: the detector's box around a close-up plate whose
        characters are too big for it (read whole, ADR 169)."""
        return line.h > self.max_height_frac * photo_height and line.w >= line.h

    def squat(self, line: Line, photo_height: int) -> bool:
        """True when ``line`` is a text region of a plate's size but too square for a
        character line: a heavily blurred plate whose characters ran together into one
        blob (read whole and through its middle band, ADR 172)."""
        if line.h <= 0 or line.tilt > self.max_tilt_deg:
            return False
        return (
            self.min_height <= line.h <= self.max_height_frac * photo_height
            and line.h <= line.w < self.min_aspect * line.h
        )

    def read_whole(self, line: Line, photo_height: int) -> bool:
        """True when ``line`` is read whole by the second source (:meth:`too_big` or
        :meth:`squat`; ADR 169 and 172)."""
        return self.too_big(line, photo_height) or self.squat(line, photo_height)

    def fits(self, line: Line, photo_height: int) -> bool:
        """True when ``line`` has a plate's shape."""
        if line.h <= 0 or line.tilt > self.max_tilt_deg:
            return False
        return (
            self.min_aspect <= line.w / line.h <= self.max_aspect
            and self.min_height <= line.h <= self.max_height_frac * photo_height
        )


def text_model_path() -> Path | None:
    """The packaged PP-OCR detection model, or None when rapidocr is missing."""
    return ppocr_model_path(DET_MODEL, "det")


def grey_range(rgb: np.ndarray, step: int = 4) -> tuple[float, float]:
    """The 0.5th and 99.5th percentiles of the photo's grey levels (every ``step``-th pixel)."""
    grey = rgb[::step, ::step].astype(np.float32).mean(axis=2)
    lo, hi = (float(v) for v in np.percentile(grey, (0.5, 99.5)))
    return lo, hi


def for_text(rgb: np.ndarray, min_range: float = DARK_RANGE) -> np.ndarray:
    """The copy of ``rgb`` the text detector sees: contrast stretched, then equalised locally.

    A night (or foggy) photo spans too few grey levels: when its 0.5th–99.5th
    percentiles are less than ``min_range`` apart they are mapped to 0 and 255.  Then
    CLAHE on the lightness (clip 2, 8 × 8 tiles) lifts a dim plate in a bright scene
    (chosen on the tune split: fewer plates missed on the original, night and blur
    variants, and fewer other regions; ADR 111).  Only the detector sees this copy.
    """
    import cv2

    lo, hi = grey_range(rgb)
    if 8 <= hi - lo < min_range:
        rgb = np.clip((rgb.astype(np.float32) - lo) * (255.0 / (hi - lo)), 0, 255).astype(np.uint8)
    lab = cv2.cvtColor(rgb, cv2.COLOR_RGB2LAB)
    lab[..., 0] = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8)).apply(lab[..., 0])
    return cv2.cvtColor(lab, cv2.COLOR_LAB2RGB)


def denoised_for_text(rgb: np.ndarray) -> np.ndarray:
    """The dark pass's copy (ADR 113): a 3 × 3 median first, then :func:`for_text`.

    Stretching a night photo's few grey levels to the full range stretches its sensor
    noise with them, and the detector then sees grain, not strokes; the median removes
    the grain and keeps the characters' edges.  Small, sharp characters lose to the
    median, so this copy is searched besides the plain one, never instead of it.
    """
    import cv2

    return for_text(cv2.medianBlur(rgb, 3))


def working_copy(rgb: np.ndarray, long_side: int) -> tuple[np.ndarray, np.ndarray]:
    """The text detector's copy of ``rgb`` (:func:`for_text`) and the factor (x, y) that
    maps its pixels back to the photo's.

    A photo bigger than the working scale is first shrunk to exactly the size the
    detector runs at there (as :func:`core.imaging.ocr.text_probability` would), so the
    contrast work and the coarser scales handle a working-size copy, not the full photo.
    """
    small, to_photo = _working_size(rgb, long_side)
    return for_text(small), to_photo


def dark_copy(
    rgb: np.ndarray, long_side: int, small: np.ndarray | None = None
) -> np.ndarray | None:
    """The dark pass's copy at the working size (:func:`denoised_for_text`), or None
    for a photo spanning :data:`DARK_RANGE` grey levels or more: a daylight photo costs one
    percentile of a sparse sample of its pixels, nothing more (ADR 113).  ``small``: the
    photo already at the working size, when the caller has it."""
    if not _is_dark(rgb):
        return None
    return denoised_for_text(_working_size(rgb, long_side)[0] if small is None else small)


def _is_dark(rgb: np.ndarray) -> bool:
    lo, hi = grey_range(rgb, max(4, max(rgb.shape[:2]) // 1000))
    return 8 <= hi - lo < DARK_RANGE


@dataclass(frozen=True)
class Copies:
    """What the plate passes look at, made once a photo (ADR 162): the photo at the
    working size, the factor (x, y) back to the photo, the detector's copy
    (:func:`for_text`) and, for a dark photo, the denoised one (:func:`dark_copy`)."""

    small: np.ndarray
    to_photo: np.ndarray
    work: np.ndarray
    dark: np.ndarray | None
    #: a big photo itself (ADR 171), searched at the fine scale (long side
    #: ``fine_side``) where the working scale saw small text; None for a photo less than
    #: FINE_FROM times the working scale, or a dark one
    big: np.ndarray | None = None
    fine_side: int = 0
    #: the working scale's text probability of ``work`` (map, scale x, scale y), left
    #: here by :func:`plate_lines` for the second source's ranking (ADR 172)
    seen: dict[str, tuple[np.ndarray, float, float]] = field(
        default_factory=dict, compare=False, repr=False
    )


    @classmethod
    def of(cls, rgb: np.ndarray, long_side: int = 1280, dark: bool = True) -> Copies:
        """The copies of ``rgb`` for a working scale of ``long_side`` (see
        :func:`plate_lines`); ``dark=False`` never makes the denoised one."""
        base = _base(rgb, long_side)
        small, to_photo = _working_size(rgb, base)
        extra = dark_copy(rgb, base, small) if dark else None
        big = None
        # a dark photo's own pixels are mostly sensor noise: it is searched at the
        # working scale, denoised (ADR 113), not at the fine one
        if extra is None and max(rgb.shape[:2]) >= FINE_FROM * base and not _is_dark(rgb):
            big = rgb
        return cls(small, to_photo, for_text(small), extra, big, round(FINE * base))


def _base(rgb: np.ndarray, long_side: int) -> int:
    """The working scale's long side: ``long_side``, at least 640, never above the photo's."""
    return int(min(long_side, max(640, *rgb.shape[:2])))


def _working_size(rgb: np.ndarray, long_side: int) -> tuple[np.ndarray, np.ndarray]:
    import cv2

    h, w = rgb.shape[:2]
    ratio = long_side / max(h, w)
    if ratio >= 1:
        return rgb, np.ones(2)
    rw, rh = max(32, round(w * ratio / 32) * 32), max(32, round(h * ratio / 32) * 32)
    small = cv2.resize(rgb, (rw, rh), interpolation=cv2.INTER_AREA)
    return small, np.array([w / rw, h / rh])


def _same_place(a: Line, b: Line) -> bool:
    """Boxes overlapping by IoU ≥ 0.3, or the smaller ≥ 60 % inside the larger."""
    ab = (*a.corners().min(axis=0), *(a.corners().max(axis=0) - a.corners().min(axis=0)))
    bb = (*b.corners().min(axis=0), *(b.corners().max(axis=0) - b.corners().min(axis=0)))
    inter = intersection(ab, bb)
    small = min(area(ab), area(bb)) or 1.0
    return iou(ab, bb) >= 0.3 or inter / small >= 0.6


def plate_lines(
    rgb: np.ndarray,
    long_side: int = 1280,
    box_thresh: float = 0.5,
    shape: PlateShape | None = None,
    dark_pass: bool = True,
    copies: Copies | None = None,
) -> list[Line]:
    """Text lines of the photo at the scales of :data:`SCALES`, broken lines joined.

    A photo at least :data:`FINE_FROM` times the working scale is searched at up to
    :data:`FINE` times it too, at its own pixels, where the working scale saw text
    (:func:`fine_lines`, ADR 171); that is the finest scale.  Lines are joined within
    one scale only.  A coarser scale only adds lines where no
    plate-shaped line of a finer one lies: it is there for what the finer scale cannot
    see (a close-up's characters, too big for it), and its boxes are looser.  In a dark
    photo each scale where the plain copy found no plate-shaped line also searches the
    denoised copy (:func:`dark_copy`, ADR 113 and 118); its lines are added where the
    plain copy found none.  ``copies``: the photo's :class:`Copies`, when the caller
    has them already.
    """
    shape = shape or PlateShape()
    height = rgb.shape[0]
    base = _base(rgb, long_side)
    made = copies or Copies.of(rgb, long_side, dark=dark_pass)
    to_photo = made.to_photo
    extra = made.dark if dark_pass else None
    searched = [made.work] if extra is None else [made.work, extra]
    found: list[Line] = []
    seen: np.ndarray | None = None  # the working scale's text probability (a big photo)
    for factor in SCALES:
        side = round(base * factor)
        if side < MIN_SIDE:
            break
        plated = [ln for ln in found if shape.fits(ln, height)]
        here: list[Line] = []
        for work in searched:
            if not DARK_EVERY_SCALE and any(shape.fits(ln, height) for ln in here):
                break  # the plain copy found a plate here: the dark copy is not searched
            weak: list[Line] = []
            if factor == 1.0 and work is made.work:  # its probability is kept
                prob, sx, sy = text_probability(work, side)
                # one post-processing pass down to WEAK_BOX (the contours do not depend on
                # the box score): the lines, and what the detector saw too weakly to box
                # on its own, for a plate's line (ADR 226)
                boxes = [(p / [sx, sy], sc) for p, sc in
                         text_boxes(prob, box_thresh=min(WEAK_BOX, box_thresh))]
                quads = [(q, sc) for q, sc in boxes if sc >= box_thresh]
                weak = [Line.from_quad(q * to_photo, sc) for q, sc in boxes if sc < box_thresh]
                made.seen["work"] = (prob, sx, sy)
                seen = prob if made.big is not None else None
            else:
                quads = text_lines(work, side, box_thresh)
            lines = assemble([Line.from_quad(q * to_photo, s) for q, s in quads])
            if weak:
                lines = [join_weak_beside(ln, weak) if shape.fits(ln, height) else ln
                         for ln in lines]
            here += [ln for ln in lines if not any(_same_place(ln, o) for o in here)]
        found += [ln for ln in here if not any(_same_place(ln, p) for p in plated)]
    if seen is None:
        return found
    fine = fine_lines(made, seen, box_thresh)
    fitting = [ln for ln in fine if shape.fits(ln, height)]
    # the fine scale is the finest: a coarser line at the place of one of its plates goes
    return fine + [ln for ln in found if not any(_same_place(ln, p) for p in fitting)]


def fine_lines(made: Copies, seen: np.ndarray, box_thresh: float = 0.5) -> list[Line]:
    """Text lines of a big photo at the fine scale (ADR 171), in photo pixels: only the
    tiles (:data:`FINE_TILE` px of the fine copy, overlapping by :data:`FINE_OVERLAP`)
    holding a small text-line-shaped blob of the working scale's text probability
    ``seen`` (at least :data:`FINE_GATE`, :data:`FINE_GATE_HEIGHT` px tall, 1.5 times as
    wide) are searched — text too small to read there still shows as such a blob — so a
    photo without small text costs next to nothing more."""
    import cv2

    count, _, stats, _ = cv2.connectedComponentsWithStats((seen >= FINE_GATE).astype(np.uint8))
    near = np.zeros(seen.shape, np.uint8)
    for x, y, w, h, _n in stats[1:count]:
        if FINE_GATE_HEIGHT[0] <= h <= FINE_GATE_HEIGHT[1] and w >= 1.5 * h:
            near[max(0, y - h) : y + 2 * h, max(0, x - h) : x + w + h] = 1
    if not near.any() or made.big is None:
        return []
    photo = made.big
    ph, pw = photo.shape[:2]
    ratio = min(1.0, made.fine_side / max(ph, pw))
    width, height = max(1, round(pw * ratio)), max(1, round(ph * ratio))
    to_photo = np.array([pw / width, ph / height])
    gate = cv2.resize(near, (width, height), interpolation=cv2.INTER_NEAREST)
    found: list[Line] = []
    for y in range(0, height, FINE_TILE):
        for x in range(0, width, FINE_TILE):
            if not gate[y : y + FINE_TILE, x : x + FINE_TILE].any():
                continue
            x1, y1 = max(0, x - FINE_OVERLAP), max(0, y - FINE_OVERLAP)
            x2 = min(width, x + FINE_TILE + FINE_OVERLAP)
            y2 = min(height, y + FINE_TILE + FINE_OVERLAP)
            # the tile cut from the photo itself and brought to the fine scale
            a1, b1 = int(x1 * to_photo[0]), int(y1 * to_photo[1])
            a2, b2 = min(pw, round(x2 * to_photo[0])), min(ph, round(y2 * to_photo[1]))
            piece = photo[b1:b2, a1:a2]
            if ratio < 1.0:
                piece = cv2.resize(piece, (x2 - x1, y2 - y1), interpolation=cv2.INTER_AREA)
            tile = for_text(piece)
            back = np.array([(a2 - a1) / tile.shape[1], (b2 - b1) / tile.shape[0]])
            quads = text_lines(tile, max(tile.shape[:2]), box_thresh)
            here = [Line.from_quad(q * back + [a1, b1], sc) for q, sc in quads]
            found += [ln for ln in here if not any(_same_place(ln, o) for o in found)]
    return assemble(found)


def read_pass(
    rgb: np.ndarray,
    long_side: int = 1280,
    skip: Sequence[Box] = (),
    copies: Copies | None = None,
    oversized: Sequence[Line] = (),
    share: float = 1.0,
) -> list[tuple[Line, int]]:
    """The second source of plates (ADR 115): plate-shaped rectangles found by contrast
    on the detector's copy (and, in a dark photo, the denoised copy), read by the
    recogniser; those read as a plate, as lines in photo pixels with the number of
    characters read surely.  Little inside a box of ``skip`` is read, nothing mostly
    inside one (ADR 172).  ``copies``: the photo's :class:`Copies`, when the caller has
    them already.  ``oversized``: the
    text detector's lines too big for a plate's line (:meth:`PlateShape.too_big`), read
    whole (ADR 169).  ``share``: the share of the candidates' quotas read (ADR 181)."""
    import cv2

    from core.imaging.plate_candidates import read_plates

    made = copies or Copies.of(rgb, long_side)
    passes = [(made.work, made.small)]
    if made.dark is not None:  # the denoised copy first, read denoised too
        passes.insert(0, (made.dark, cv2.medianBlur(made.small, 3)))
    whole = [
        (x / made.to_photo[0], y / made.to_photo[1], w / made.to_photo[0], h / made.to_photo[1])
        for x, y, w, h in (_box(ln) for ln in oversized)
    ]
    found: list[tuple[Line, int]] = []
    for copy, source in passes:
        boxes = [*skip, *(_box(ln) for ln, _ in found)]
        likely = made.seen.get("work") if copy is made.work else None
        found += read_plates(copy, made.to_photo, boxes, source, whole, likely,
                             dim=copy is made.dark, share=share)
        whole = []  # read once, on the first copy
    return found


def whole_reads(lines: Sequence[Line], shape: PlateShape, photo_height: int) -> list[Line]:
    """The lines the second source reads whole (:meth:`PlateShape.read_whole`), the
    :data:`MAX_WHOLE` surest of them."""
    whole = [ln for ln in lines if shape.read_whole(ln, photo_height)]
    return sorted(whole, key=lambda ln: -ln.score)[:MAX_WHOLE]


def read_as_a_plate(rgb: np.ndarray, lines: Sequence[Line]) -> bool:
    """True when one of ``lines`` (photo pixels) reads as a plate
    (:func:`~core.imaging.plate_candidates.plate_like`) with at least one digit read
    surely: a plate found, so the second source may rest (ADR 181).  A sign's words
    ("PRIVATE", "PROPERTY") read as letters only, and a plate the text detector missed
    beside them is still searched for.  Only the :data:`MAX_CONFIRM` surest lines are
    read (a page of text costs no more; none of them a plate: the search goes on)."""
    if not lines:
        return False
    from core.imaging.ocr import READABLE_CONFIDENCE, line_crop, recognise
    from core.imaging.plate_candidates import READ_WIDTH, plate_like

    surest = sorted(lines, key=lambda ln: -ln.score)[:MAX_CONFIRM]
    crops = [line_crop(rgb, ln.corners()) for ln in surest]
    for reading in recognise(crops, min_width=READ_WIDTH):  # as candidates are read
        sure = reading.characters(READABLE_CONFIDENCE)
        if plate_like(reading) and any(c.isdigit() for c in sure):
            return True
    return False


def _box(line: Line) -> Box:
    (x1, y1), (x2, y2) = line.corners().min(axis=0), line.corners().max(axis=0)
    return (float(x1), float(y1), float(x2 - x1), float(y2 - y1))


def find_plates(
    rgb: np.ndarray,
    threshold: float = 0.5,
    long_side: int = 1280,
    shape: PlateShape | None = None,
    second_source: bool = True,
) -> list[Detection]:
    """Licence plates in photo pixels: each plate-shaped line's group grown to its frame.

    Unless a plate-shaped line reads as a plate with a digit (:func:`read_as_a_plate`),
    ``second_source`` looks for plates by their shape outside those lines and reads them
    (:func:`read_pass`, ADR 115 and 181; where lines were found, :data:`RESTLESS_SHARE`
    of its quotas): a sign's words found by the text detector no longer stop the search
    for a blurred plate it missed.  Plates found through several
    of their lines overlap; the caller merges them.
    """
    shape = shape or PlateShape()
    height, width = rgb.shape[:2]
    copies = Copies.of(rgb, long_side)
    lines = plate_lines(rgb, long_side, threshold, shape, copies=copies)
    mains = [ln for ln in lines if shape.fits(ln, height)]
    # plates standing on their side (a photo shown a quarter turned), read both ways up
    # and kept when plate-like (ADR 225); the upright search goes on as before
    sideways = [ln for ln, _ in read_standing(rgb, [ln for ln in lines if standing(ln, shape, width)])]
    found_by_text = mains + sideways
    if second_source and not read_as_a_plate(rgb, mains):
        share = RESTLESS_SHARE if mains else 1.0
        oversized = whole_reads(lines, shape, height)[: round(MAX_WHOLE * share)]
        skip = [_box(ln) for ln in mains]
        more = [ln for ln, _chars in read_pass(rgb, long_side, skip, copies, oversized, share)]
        mains += more
        lines += more
    mains += sideways
    if not mains:  # no plate: spare the full-size grey copy (12 MP: 144 MB, up to 0.1 s)
        return []
    gray = rgb.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)
    out: list[Detection] = []
    for main in mains:
        corners = frame(gray, [main, *companions(main, lines)])
        x1, y1 = np.clip(corners.min(axis=0), 0, [width, height])
        x2, y2 = np.clip(corners.max(axis=0), 0, [width, height])
        if x2 > x1 and y2 > y1:
            out.append(
                Detection(
                    "plate",
                    float(x1),
                    float(y1),
                    float(x2 - x1),
                    float(y2 - y1),
                    main.score,
                    "pp-ocr-text" if main in found_by_text else "pp-ocr-read",
                )
            )
    return out
