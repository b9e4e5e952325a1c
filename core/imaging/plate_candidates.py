"""A second source of plates where the text detector finds none (ADR 115, 181): shapes, read.

The PP-OCR detector misses some plates outright — small and blurred, or dark and noisy
(ADR 113) — and what it misses the release's search outside regions (ADR 114) missed too.
Here (ADR 115) plate-shaped rectangles are found from contrast alone and each is *read*:

1. :func:`candidates`: on the detector's own copy of the photo (contrast stretched,
   CLAHE; the denoised copy for a dark photo), at several scales, dense vertical
   strokes (``|∂/∂x|`` above Otsu's threshold) are closed horizontally into blobs; a
   blob whose bounding box has a character line's shape (aspect
   :data:`MIN_ASPECT`–:data:`MAX_ASPECT`, :data:`MIN_HEIGHT` px tall or more) and is
   filled by strokes is a candidate, ranked by its stroke contrast;
2. :func:`read_plates`: the best :data:`MAX_READ` candidates not already covered are cut
   out (padded) and read by the PP-OCR recogniser (:func:`core.imaging.ocr.recognise`,
   which scales every crop to 48 px tall); a candidate is a plate when the reading has
   a plate's shape (:func:`plate_like`: at least 3 letters or digits read with
   confidence 0.5, at least one of them a digit, mostly letters and digits).

A heavily blurred plate (ADR 172) is read through the middle band of the text region
the detector boxed it in whole, or as one of the candidates the detector's probability
map likes best; at release a few candidates partly inside a hidden region are read too.
Besides stroke blobs, the candidates are bright rectangles (:mod:`core.imaging.plate_bright`):
found at two brightness levels (the glow of a blurred plate on a pale body joins the
body at the lower one), measured in their tilted rectangle when seen tilted (ADR 174),
in a dark photo also found dim on its own pixels (ADR 175), and read cut at their
steepest edges too (:func:`~core.imaging.plate_bright.plate_edges`, ADR 173).  A
whole-plate candidate is read through its band of strokes too (a plate above its
holder's lip), and one a region only touches is read like any other (ADR 180).

The accepted candidates come back as :class:`~core.imaging.plate_frame.Line` objects, so
the caller grows them to the plate's frame exactly as it does the detector's lines.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import NamedTuple

import numpy as np

from core.imaging.boxes import Box, intersection, iou
from core.imaging.plate_bright import bright_plates, inner_plate, plate_edges, stroke_band
from core.imaging.plate_frame import Line

#: the scales (of the working copy) the shapes are looked for at
SCALES = (1.0, 0.5, 0.25)
MIN_ASPECT = 1.5  # width / height of a character line's box
MAX_ASPECT = 8.0
MIN_HEIGHT = 8  # px at the scale looked at (smaller: the next pass, or nothing to read)
MAX_HEIGHT = 90  # px at the scale looked at (bigger: a coarser scale sees it)
MIN_FILL = 0.35  # share of the box covered by the blob
MAX_READ = 16  # stroke blobs read per photo (the recogniser costs ~4 ms a short crop)
MAX_BRIGHT = 8  # bright rectangles read per photo (0–4 in a street photo; a façade: more)
READ_WIDTH = 64  # px: crops are padded to this width only (not PP-OCR's 320)
PAD = (0.15, 0.35)  # of the box's height, sideways and up/down, around what is read
LOCAL = 31  # px: the neighbourhood a stroke is compared with
STROKE_RATIO = 2.0  # a stroke's |∂/∂x| over its neighbourhood's mean
MIN_STROKE = 12.0  # grey levels per px (Sobel): weaker is noise
LINE_ASPECT = 3.0  # a candidate this elongated is a character line, read as it is
LOOK_HEIGHT = 96  # px: a whole-plate candidate is searched for lines this tall
MAX_UPSCALE = 4.0
LINES_PER_PLATE = 2  # the widest lines of a whole-plate candidate that are read
SAME_PLATE = 0.5  # readings overlapping this much (of the smaller) are one plate, joined
SAME = 0.7  # IoU of two candidates read once (the scales find the same blob)
#: a line candidate's brightest part covering this much of its crop is the crop itself:
#: read once (ADR 162)
SAME_CROP = 0.9
#: the share of a whole-read region's height read as its middle band: a heavily blurred
#: plate's characters run into one blob the detector boxes whole, frame and all, and
#: its character line lies across the middle (ADR 172)
BAND = 0.4
#: candidates read because the text detector's map likes them best (a blurred plate's
#: weak strokes rank it low by contrast, ADR 172) …
MAX_LIKELY = 4
LIKELY_MIN = 0.01  # … if their mean text probability is at least this
#: candidates partly inside a box they are told to skip (a region already hidden), at
#: most half, read besides the quotas (the best by contrast): a plate the detector
#: missed beside a region found for other text (ADR 172)
MAX_BESIDE = 4
SKIP_INSIDE = 0.5
#: a candidate at most this share inside a box to skip is read like any other: the edge
#: of a region found for something else (a tail light, a shadow) across a plate beside
#: it (ADR 180)
SKIP_TOUCH = 0.2
#: stroke blobs with at most SHARP_STROKES strokes counted across them read because
#: their mean contrast (``|∂/∂x|``) is the highest of those not chosen otherwise: a
#: heavily blurred plate's strokes run together, so few are counted across it and it
#: ranks low, but dark characters on a light plate keep the strongest gradient around
#: (ADR 179); a blob with more strokes is ranked by them already
MAX_SHARP = 8
SHARP_STROKES = 2
#: a line candidate stretched by more than NOISY_GAIN (a plate spanning under 32 grey
#: levels: a deep night) is read at QUIET_GAIN too — full stretching multiplies its
#: sensor noise with it (ADR 172)
NOISY_GAIN = 8.0
QUIET_GAIN = 2.0
#: a reading with one letter or digit for more than this share of them is a texture's
#: (a grille read "mmmmmm"), not a plate's (ADR 172)
MAX_SAME = 0.5
#: a candidate at least this tall (px) is also read as found — unpadded, not stretched:
#: blurred and noisy plates read there; smaller crops scaled ×3 and more read noise
AS_FOUND_HEIGHT = 16


class Candidate(NamedTuple):
    """A plate-shaped rectangle of the detector's copy, to be read."""

    box: Box  # (x, y, w, h) in the copy's pixels
    kind: str  # "strokes" (a blob of strokes) or "bright" (a bright rectangle)
    strokes: int  # the strokes across it (:func:`strokes_across`)
    contrast: float  # its mean |∂/∂x| (grey levels per px, Sobel) at the scale it was found

    @property
    def score(self) -> float:
        """What candidates are ranked by: the strokes, the contrast breaking ties."""
        return self.strokes + self.contrast / 1e3


def _blobs(grey: np.ndarray, scale: float) -> list[tuple[Box, int, float]]:
    """Plate-line-shaped blobs of strokes in ``grey`` (already at ``scale``): boxes
    (x, y, w, h) in the unscaled copy's pixels, with the strokes across them
    (:func:`strokes_across`) and their mean ``|∂/∂x|``."""
    import cv2

    gx = np.abs(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3))
    # strokes stand out from their neighbourhood (a dim plate beside a bright bumper)
    local = cv2.blur(gx, (LOCAL, LOCAL))
    strokes = ((gx >= STROKE_RATIO * local) & (gx >= MIN_STROKE)).astype(np.uint8) * 255
    closed = cv2.morphologyEx(strokes, cv2.MORPH_CLOSE, np.ones((3, 9), np.uint8))
    closed = cv2.morphologyEx(closed, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(closed, connectivity=8)
    out = []
    for x, y, w, h, n in stats[1:count]:
        if not MIN_HEIGHT <= h <= MAX_HEIGHT or not MIN_ASPECT <= w / h <= MAX_ASPECT:
            continue
        if n < MIN_FILL * w * h:
            continue
        inside = gx[y : y + h, x : x + w]
        out.append(((x / scale, y / scale, w / scale, h / scale), strokes_across(inside), float(inside.mean())))
    return out


def strokes_across(gx: np.ndarray) -> int:
    """How many strokes cross the middle third of a box (``gx``: its ``|∂/∂x|``): a
    column is a stroke where a third of those rows have twice the box's mean; a line of
    characters has two or more a character, a bumper's edge or a shadow a few."""
    height = gx.shape[0]
    band = gx[height // 3 : 2 * height // 3 + 1]
    if band.size == 0:
        return 0
    column = (band >= 2 * band.mean()).mean(axis=0) > 0.3
    return int(np.sum(column[1:] & ~column[:-1]))


def candidates(work: np.ndarray, plain: np.ndarray | None = None) -> list[Candidate]:
    """Plate-shaped rectangles of the detector's copy ``work`` (RGB), best first (by
    :attr:`Candidate.score`); their kind is ``"strokes"`` (a blob of strokes) or
    ``"bright"`` (a bright rectangle, scored by the strokes across it too).  ``plain``: a dark photo's own
    pixels at ``work``'s size (denoised, not equalised), whose dim bright rectangles are
    candidates too (ADR 175)."""
    import cv2

    plain8 = None if plain is None else cv2.cvtColor(plain, cv2.COLOR_RGB2GRAY)
    grey8 = cv2.cvtColor(work, cv2.COLOR_RGB2GRAY)
    gx_full = np.abs(cv2.Sobel(grey8.astype(np.float32), cv2.CV_32F, 1, 0, ksize=3))
    found: list[Candidate] = []
    for scale in SCALES:
        size = (round(grey8.shape[1] * scale), round(grey8.shape[0] * scale))
        if min(size) < 32:
            break
        scaled8 = grey8 if scale == 1.0 else cv2.resize(grey8, size, interpolation=cv2.INTER_AREA)
        found += [
            Candidate(box, "strokes", n, mean)
            for box, n, mean in _blobs(scaled8.astype(np.float32), scale)
        ]
        boxes = bright_plates(scaled8, scale, (MIN_HEIGHT, MAX_HEIGHT), SAME)
        if plain8 is not None:  # a dim plate in a dark photo (ADR 175)
            dim8 = plain8 if scale == 1.0 else cv2.resize(plain8, size, interpolation=cv2.INTER_AREA)
            boxes += bright_plates(dim8, scale, (MIN_HEIGHT, MAX_HEIGHT), SAME, dim=True)
        for x, y, w, h in boxes:
            inside = gx_full[int(y) : int(y + h) + 1, int(x) : int(x + w) + 1]
            mean = float(inside.mean()) if inside.size else 0.0
            found.append(Candidate((x, y, w, h), "bright", strokes_across(inside), mean))
    found.sort(key=lambda item: -item.score)
    return found


def _inside(box: Box, to_photo: np.ndarray, skip: Sequence[Box]) -> float:
    """The largest share of ``box`` (``work``'s pixels) inside one box of ``skip``
    (photo pixels)."""
    photo_box = (box[0] * to_photo[0], box[1] * to_photo[1],
                 box[2] * to_photo[0], box[3] * to_photo[1])
    size = photo_box[2] * photo_box[3] or 1.0
    return max((intersection(photo_box, s) / size for s in skip), default=0.0)


def _choose(
    boxes: Sequence[Box], limit: int, open_to_read: Callable[[Box], bool], chosen: list[Box]
) -> None:
    """Append to ``chosen`` the first ``limit`` of ``boxes`` open to read."""
    taken = 0
    for box in boxes:
        if taken == limit:
            return
        if open_to_read(box):
            taken += 1
            chosen.append(box)


def _likely(boxes: Sequence[Box], probability: tuple[np.ndarray, float, float]) -> list[Box]:
    """The boxes whose mean text probability (``probability``: map, scale x, scale y)
    is at least :data:`LIKELY_MIN`, the highest first."""
    import cv2

    prob, sx, sy = probability
    total = cv2.integral(prob.astype(np.float32), sdepth=cv2.CV_64F)
    height, width = prob.shape
    scored = []
    for box in boxes:
        x1, y1 = min(width - 1, max(0, int(box[0] * sx))), min(height - 1, max(0, int(box[1] * sy)))
        x2 = min(width, max(x1 + 1, int(np.ceil((box[0] + box[2]) * sx))))
        y2 = min(height, max(y1 + 1, int(np.ceil((box[1] + box[3]) * sy))))
        inside = total[y2, x2] - total[y1, x2] - total[y2, x1] + total[y1, x1]
        mean = float(inside) / ((x2 - x1) * (y2 - y1))
        if mean >= LIKELY_MIN:
            scored.append((mean, box))
    scored.sort(key=lambda item: -item[0])
    return [box for _mean, box in scored]


def plate_like(reading: object) -> bool:
    """A plate's reading: ≥ 3 letters or digits read with confidence ≥ 0.5 (≥ 4 when none
    is a digit), letters and digits at least 60 % of everything read, and no one of
    them more than :data:`MAX_SAME` of them."""
    from core.imaging.ocr import READABLE_CHARS, READABLE_CONFIDENCE, Reading

    assert isinstance(reading, Reading)
    sure = reading.characters(READABLE_CONFIDENCE)
    text = reading.text.replace(" ", "")
    if len(sure) < READABLE_CHARS or (len(sure) < 4 and not any(c.isdigit() for c in sure)):
        return False
    every = reading.characters()
    if max(every.count(c) for c in set(every)) > MAX_SAME * len(every):
        return False  # a grille or a fence read as "mmmmmm" (ADR 172)
    return len(every) >= 0.6 * max(1, len(text))


def _unpadded(box: Box, width: int, height: int) -> tuple[int, int, int, int]:
    """``box`` (x, y, w, h) as pixel bounds x1, y1, x2, y2 inside ``width`` × ``height``."""
    x1, y1 = max(0, int(box[0])), max(0, int(box[1]))
    return x1, y1, min(width, int(np.ceil(box[0] + box[2]))), min(height, int(np.ceil(box[1] + box[3])))


def _padded(box: Box, width: int, height: int) -> tuple[int, int, int, int]:
    x, y, w, h = box
    px, py = PAD[0] * h, PAD[1] * h
    x1, y1 = max(0, int(x - px)), max(0, int(y - py))
    x2, y2 = min(width, int(np.ceil(x + w + px))), min(height, int(np.ceil(y + h + py)))
    return x1, y1, x2, y2


def _levels(crop: np.ndarray) -> tuple[float, float] | None:
    """The 1st and 99th percentile grey levels of ``crop``; None when it is empty or
    they are less than 8 apart (nothing to stretch)."""
    if crop.size == 0:
        return None
    lo, hi = (float(v) for v in np.percentile(crop.mean(axis=2), (1, 99)))
    return None if hi - lo < 8 else (lo, hi)


def stretched(crop: np.ndarray, max_gain: float = np.inf) -> np.ndarray:
    """``crop`` with its 1st–99th percentile grey levels stretched to 0–255 (a dark or
    washed-out plate read at full contrast), multiplied by ``max_gain`` at most."""
    levels = _levels(crop)
    if levels is None:
        return crop
    lo, hi = levels
    out: np.ndarray = np.clip((crop.astype(np.float32) - lo) * min(max_gain, 255.0 / (hi - lo)), 0, 255)
    return out.astype(np.uint8)


def _gain(crop: np.ndarray) -> float:
    """What :func:`stretched` multiplies ``crop``'s grey levels by."""
    levels = _levels(crop)
    return 1.0 if levels is None else 255.0 / (levels[1] - levels[0])


def _lines_in(crop: np.ndarray) -> list[Line]:
    """The text detector's lines of a whole-plate crop (upscaled to :data:`LOOK_HEIGHT`),
    in the crop's pixels, widest first."""
    import cv2

    from core.imaging.ocr import text_lines
    from core.imaging.plate_frame import assemble

    h, w = crop.shape[:2]
    scale = min(MAX_UPSCALE, LOOK_HEIGHT / max(1, h))
    size = (max(32, round(w * scale)), max(32, round(h * scale)))
    big = cv2.resize(crop, size, interpolation=cv2.INTER_CUBIC)
    found = [Line.from_quad(q / scale, p) for q, p in text_lines(big, max(size), 0.3)]
    return sorted(assemble(found), key=lambda ln: -ln.w)


def _box_line(x1: float, y1: float, x2: float, y2: float) -> Line:
    quad = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)
    return Line.from_points(quad, 1.0, 0.0)


def _to_read(source: np.ndarray, box: Box, bright: bool = False) -> list[tuple[Line, np.ndarray]]:
    """What is read of one candidate: (line in ``source``'s pixels, upright crop): padded
    and stretched, as a line or through the text detector's lines in it and its band of
    strokes (ADR 180); as found
    (unpadded, not stretched); its brightest plate-shaped part.  ``bright``: a bright
    rectangle, whose plate's edges are read as one line too."""
    from core.imaging.ocr import line_crop

    height, width = source.shape[:2]
    x1, y1, x2, y2 = _padded(box, width, height)
    crop = stretched(source[y1:y2, x1:x2])
    a1, b1, a2, b2 = _unpadded(box, width, height)
    if box[2] >= LINE_ASPECT * box[3]:  # a character line: read as it is
        out = [(_box_line(x1, y1, x2, y2), crop)]
        if _gain(source[y1:y2, x1:x2]) > NOISY_GAIN:  # and less stretched (ADR 172)
            out.append((_box_line(x1, y1, x2, y2), stretched(source[y1:y2, x1:x2], QUIET_GAIN)))
    else:  # a whole plate: the text detector's lines in it
        out = []
        for line in _lines_in(crop)[:LINES_PER_PLATE]:
            if line.h >= 4 and line.w >= 1.5 * line.h:
                moved = Line(line.cx + x1, line.cy + y1, line.w, line.h, line.angle, line.score)
                out.append((moved, line_crop(source, moved.corners())))
        band = stroke_band(source[b1:b2, a1:a2])
        if band is not None:  # and its character line (ADR 180)
            c1, c2 = b1 + band[0], b1 + band[1]
            out.append((_box_line(a1, c1, a2, c2), stretched(source[c1:c2, a1:a2])))
    if b2 - b1 >= AS_FOUND_HEIGHT:  # as found: no glow, no noise stretched (ADR 173)
        out.append((_box_line(a1, b1, a2, b2), source[b1:b2, a1:a2]))
    edges = plate_edges(source[y1:y2, x1:x2]) if bright else None
    if edges is not None:  # a blurred plate, cut at its edges (ADR 173)
        a1, b1, a2, b2 = edges
        out.append((_box_line(x1 + a1, y1 + b1, x1 + a2, y1 + b2), source[y1 + b1 : y1 + b2, x1 + a1 : x1 + a2]))
    inner = inner_plate(crop)
    if inner is not None:  # a plate in a lit recess or a holder: the plate itself
        a1, b1, a2, b2 = inner
        line_read = box[2] >= LINE_ASPECT * box[3]
        if not (line_read and (a2 - a1) * (b2 - b1) >= SAME_CROP * crop.shape[0] * crop.shape[1]):
            out.append((_box_line(x1 + a1, y1 + b1, x1 + a2, y1 + b2), crop[b1:b2, a1:a2]))
    return out


def _whole(source: np.ndarray, box: Box) -> list[tuple[Line, np.ndarray]]:
    """What is read of a text region the detector found but no plate's character line
    (too big, ADR 169; too square, ADR 172): the region itself, stretched, its
    brightest plate-shaped part and, unless it is shaped like a line, its middle
    band (:data:`BAND` of its height)."""
    x1, y1, x2, y2 = _unpadded(box, source.shape[1], source.shape[0])
    if x2 - x1 < 2 or y2 - y1 < 2:
        return []
    crop = stretched(source[y1:y2, x1:x2])
    out = [(_box_line(x1, y1, x2, y2), crop)]
    inner = inner_plate(crop)
    if inner is not None:
        a1, b1, a2, b2 = inner
        if (a2 - a1) * (b2 - b1) < SAME_CROP * crop.shape[0] * crop.shape[1]:
            out.append((_box_line(x1 + a1, y1 + b1, x1 + a2, y1 + b2), crop[b1:b2, a1:a2]))
    if x2 - x1 < LINE_ASPECT * (y2 - y1):  # not a line: its middle band as one (ADR 172)
        half = BAND * (y2 - y1) / 2
        b1, b2 = int((y1 + y2) / 2 - half), int(np.ceil((y1 + y2) / 2 + half))
        if b2 - b1 >= 2:
            out.append((_box_line(x1, b1, x2, b2), stretched(source[b1:b2, x1:x2])))
    return out


def read_plates(
    work: np.ndarray,
    to_photo: np.ndarray,
    skip: Sequence[Box] = (),
    source: np.ndarray | None = None,
    oversized: Sequence[Box] = (),
    probability: tuple[np.ndarray, float, float] | None = None,
    dim: bool = False,
    share: float = 1.0,
) -> list[tuple[Line, int]]:
    """Candidates of ``work`` (the detector's copy) read as plates: each as a line in
    photo pixels (``to_photo``: the factor (x, y) from ``work`` to the photo) and the
    number of letters and digits read with confidence 0.5 or more.

    Crops are cut from ``source`` (the photo at ``work``'s size, not contrast-equalised;
    default ``work``) and stretched to full contrast each.  A candidate shaped like a
    character line (aspect ≥ :data:`LINE_ASPECT`) is read as it is; one shaped like a
    whole plate is searched by the text detector, upscaled, and its lines are read, and
    its band of strokes (:func:`~core.imaging.plate_bright.stroke_band`, ADR 180); in
    both, the brightest plate-shaped part of the crop is read too (a plate in a lit
    recess), and the candidate as found, unpadded and not stretched, when it is
    :data:`AS_FOUND_HEIGHT` px tall or more; a bright rectangle is also read cut at its
    edges (:func:`~core.imaging.plate_bright.plate_edges`, ADR 173).  The
    :data:`MAX_BRIGHT` best bright rectangles are read and the
    :data:`MAX_READ` best stroke blobs; none more than :data:`SKIP_TOUCH` inside a box
    of ``skip`` (photo pixels: plates already found, regions already hidden; ADR 180),
    none at the place of one already read; then the :data:`MAX_BESIDE` best partly
    inside a box of ``skip``, at most :data:`SKIP_INSIDE` of them.  ``oversized``:
    text regions (``work``'s pixels) the detector found too big for a plate's line —
    a close-up whose characters are too big for it — each read whole, besides the
    quotas (ADR 169).  ``probability``: the text detector's map of ``work`` (map,
    scale x, scale y); the :data:`MAX_LIKELY` candidates it likes best, of those not
    chosen by their contrast, are read too (a blurred plate's strokes are weak, but
    the detector still sees text there; ADR 172), and the :data:`MAX_SHARP` of highest
    contrast with at most :data:`SHARP_STROKES` strokes (a heavily blurred plate; ADR
    179).  ``dim``: ``source`` is a dark
    photo's own pixels, denoised: its dim bright rectangles are candidates too (ADR 175).
    ``share``: the share of every quota read (a lighter search, ADR 181).
    """
    from core.imaging.ocr import READABLE_CONFIDENCE, recognise

    def limit(quota: int) -> int:
        return round(quota * share)

    source = work if source is None else source
    chosen: list[Box] = []
    taken = {"strokes": 0, "bright": 0}
    quota = {"strokes": limit(MAX_READ), "bright": limit(MAX_BRIGHT)}
    ranked = candidates(work, source) if dim else candidates(work)

    def open_to_read(box: Box, beside: bool = False) -> bool:
        """Not yet chosen, and at most :data:`SKIP_TOUCH` inside a box to skip
        (``beside``: more, but at most :data:`SKIP_INSIDE` of it)."""
        inside = _inside(box, to_photo, skip)
        if not (SKIP_TOUCH < inside <= SKIP_INSIDE if beside else inside <= SKIP_TOUCH):
            return False
        return not any(iou(box, c) >= SAME for c in chosen)

    for box, kind, _strokes, _contrast in ranked:
        if taken == quota:  # both kinds read to their limit: the rest is never read
            break
        if taken[kind] < quota[kind] and open_to_read(box):
            taken[kind] += 1
            chosen.append(box)
    if probability is not None:
        _choose(_likely([c.box for c in ranked], probability), limit(MAX_LIKELY), open_to_read, chosen)
    # the sharpest blobs of few strokes: a heavily blurred plate (ADR 179)
    taken_boxes = set(chosen)
    sharp = sorted(
        (c for c in ranked
         if c.kind == "strokes" and c.strokes <= SHARP_STROKES and c.box not in taken_boxes),
        key=lambda c: -c.contrast,
    )
    _choose([c.box for c in sharp], limit(MAX_SHARP), open_to_read, chosen)
    # partly inside a box to skip: at release, a plate the detector missed beside a
    # region found for other text (ADR 172)
    _choose([c.box for c in ranked], limit(MAX_BESIDE), partial(open_to_read, beside=True), chosen)
    lines: list[Line] = []  # in work's pixels
    crops: list[np.ndarray] = []
    for box in oversized:
        if _inside(box, to_photo, skip) > SKIP_INSIDE:
            continue
        for line, crop in _whole(source, box):
            lines.append(line)
            crops.append(crop)
    brights = {c.box for c in ranked if c.kind == "bright"}
    for box in chosen:
        for line, crop in _to_read(source, box, box in brights):
            lines.append(line)
            crops.append(crop)
    out: list[tuple[Line, int]] = []
    for line, reading in zip(lines, recognise(crops, min_width=READ_WIDTH), strict=True):
        if not plate_like(reading):
            continue
        found = Line.from_points(line.corners() * to_photo, reading.confidence, line.angle)
        chars = len(reading.characters(READABLE_CONFIDENCE))
        for i, (seen, seen_chars) in enumerate(out):
            if _overlap(found, seen) >= SAME_PLATE:  # the same plate read again: one line
                pts = np.vstack([seen.corners(), found.corners()])
                score = max(seen.score, found.score)
                out[i] = (Line.from_points(pts, score, seen.angle), max(chars, seen_chars))
                break
        else:
            out.append((found, chars))
    return out


def _overlap(a: Line, b: Line) -> float:
    """Intersection of the two lines' bounding boxes over the smaller's area."""
    boxes = []
    for line in (a, b):
        (x1, y1), (x2, y2) = line.corners().min(axis=0), line.corners().max(axis=0)
        boxes.append((float(x1), float(y1), float(x2 - x1), float(y2 - y1)))
    smaller = min(w * h for _x, _y, w, h in boxes) or 1.0
    return intersection(boxes[0], boxes[1]) / smaller
