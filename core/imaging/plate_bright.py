"""Plates by their brightness: a plate's background is brighter than what is around it.

The second source of plates (:mod:`core.imaging.plate_candidates`, ADR 115) finds
plate-shaped rectangles by contrast; here are the bright ones — a plate's background,
characters and all, brighter than a neighbourhood of :data:`BRIGHT_BLOCK` px by
:data:`BRIGHT_BY` grey levels (:func:`bright_plates`), a blurred plate whose strokes are
too weak to find — measured upright or, for a plate seen tilted, in its tilted
rectangle (:func:`tilted_plate`, ADR 174); in a dark photo's own pixels, a dim plate
brighter than :data:`DIM_BY` times its neighbourhood (ADR 175); and two ways to find
the plate itself inside a crop around one: its brightest plate-shaped part
(:func:`inner_plate`: a plate in a lit recess or a holder), its steepest brightness
edges (:func:`plate_edges`: a blurred plate's glow cut off, ADR 173) and the band of
rows its strokes lie in (:func:`stroke_band`: a plate above its holder's lip, ADR 180).
"""

from __future__ import annotations

import numpy as np

from core.imaging.boxes import Box, iou

BRIGHT_BLOCK = 61  # px: the neighbourhood a plate's background is brighter than …
BRIGHT_BY = (10, 30)  # … by this many grey levels (a plate whose glow joins a pale body
# at 10 stands alone at 30; ADR 173)
PLATE_ASPECT = (1.5, 5.5)  # width / height of a whole plate
MIN_RECT_FILL = 0.7  # share of its box a bright plate fills (characters are holes)
#: a bright plate may lean this much (°): it is then measured in its tilted rectangle
#: (ADR 174), and fills at least this share of its upright box (aspect 1.5, 30°: 0.36)
MAX_TILT = 30.0
TILTED_BOX_FILL = 0.35
#: in a dark photo's own pixels (denoised, not equalised), a dim plate is brighter than
#: DIM_BY times its neighbourhood's mean, plus DIM_PLUS grey levels (ADR 175)
DIM_BY = 1.2
DIM_PLUS = 3.0
#: a whole plate's character line: the band of STROKE_BAND of its height holding the
#: most vertical strokes (``|∂/∂x|`` of its inner columns, BAND_INNER left out each
#: side: a frame's sides are strokes of every row), if their mean there is at least
#: BAND_LIFT times the whole height's; grown by BAND_PAD of the band up and down (ADR 180)
STROKE_BAND = 0.5
BAND_INNER = 0.1
BAND_LIFT = 1.2
BAND_PAD = 0.2


def bright_plates(
    grey: np.ndarray, scale: float, heights: tuple[int, int], same: float, dim: bool = False
) -> list[Box]:
    """Bright rectangles of a plate's shape in ``grey`` (uint8, already at ``scale``):
    a plate's background brighter than its surroundings, characters and all (a blurred
    plate whose strokes are too weak for stroke blobs).  Boxes in unscaled pixels, ``heights``
    (px at ``scale``) tall; a box overlapping one already found by IoU ``same`` or more
    (the second level's copy of the first's) is dropped.  ``dim``: ``grey`` is a dark
    photo's own pixels, and bright means :data:`DIM_BY` times the neighbourhood's mean
    (ADR 175): a grey-level offset there is either noise or the whole plate's range."""
    import cv2

    out: list[Box] = []
    for by in (None,) if dim else BRIGHT_BY:
        if by is None:
            mean = cv2.blur(grey.astype(np.float32), (BRIGHT_BLOCK, BRIGHT_BLOCK))
            above: np.ndarray = (grey > DIM_BY * mean + DIM_PLUS).astype(np.uint8) * 255
        else:
            above = cv2.adaptiveThreshold(
                grey, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, BRIGHT_BLOCK, -by
            )
        bright = cv2.morphologyEx(above, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        count, labels, stats, _ = cv2.connectedComponentsWithStats(bright, connectivity=4)
        for i, (x, y, w, h, n) in enumerate(stats[1:count], 1):
            if not heights[0] <= h <= heights[1] or w < h or n < TILTED_BOX_FILL * w * h:
                continue  # (a plate leaning 30° at most is wider than tall, and fills …)
            upright = PLATE_ASPECT[0] <= w / h <= PLATE_ASPECT[1] and n >= MIN_RECT_FILL * w * h
            if not upright and not tilted_plate(labels[y : y + h, x : x + w] == i, n):
                continue
            box = (x / scale, y / scale, w / scale, h / scale)
            if not any(iou(box, o) >= same for o in out):
                out.append(box)
    return out


def tilted_plate(mask: np.ndarray, pixels: int) -> bool:
    """True when a component (``mask``: its box, ``pixels`` of it set) is a plate seen
    tilted (ADR 174): its smallest enclosing rectangle has a plate's shape
    (:data:`PLATE_ASPECT`), leans :data:`MAX_TILT` degrees at most, and the component
    fills :data:`MIN_RECT_FILL` of it.  Its upright box does not do: a plate of aspect
    2 turned by 10° fills 70 % of its box, by 15° 61 %, and that box's aspect is 1.5."""
    import cv2

    points = cv2.findNonZero(mask.astype(np.uint8))
    if points is None:
        return False
    corners = cv2.boxPoints(cv2.minAreaRect(points))
    sides = [corners[1] - corners[0], corners[2] - corners[1]]
    # through the pixels' centres: one pixel short each way
    long_side, short_side = sorted((float(np.hypot(*v)) + 1.0 for v in sides), reverse=True)
    if not PLATE_ASPECT[0] <= long_side / short_side <= PLATE_ASPECT[1]:
        return False
    along = max(sides, key=lambda v: float(np.hypot(*v)))
    lean = abs(np.degrees(np.arctan2(float(along[1]), float(along[0])))) % 180.0
    if min(lean, 180.0 - lean) > MAX_TILT:
        return False
    return pixels >= MIN_RECT_FILL * long_side * short_side


def inner_plate(crop: np.ndarray) -> tuple[int, int, int, int] | None:
    """The brightest plate-shaped part of ``crop`` (Otsu's bright class, largest blob):
    a plate inside a lit recess or a holder.  (x1, y1, x2, y2) in the crop, or None."""
    import cv2

    grey = cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY)
    _, bright = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bright = cv2.morphologyEx(bright, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(bright, connectivity=4)
    if count < 2:
        return None
    x, y, w, h, _n = stats[1 + int(np.argmax(stats[1:, 4]))]
    if h < 6 or not PLATE_ASPECT[0] <= w / h <= PLATE_ASPECT[1]:
        return None
    return int(x), int(y), int(x + w), int(y + h)


def plate_edges(crop: np.ndarray) -> tuple[int, int, int, int] | None:
    """The edges of a bright plate in ``crop`` (RGB, the plate and some surroundings):
    the steepest rise of brightness in its left half and fall in its right half, across
    the middle rows, then the same down the columns between them — where a blurred
    plate's glow ends (ADR 173).  (x1, y1, x2, y2) in the crop, or None."""
    import cv2

    height, width = crop.shape[:2]
    if height < 4 or width < 4:
        return None
    grey = cv2.GaussianBlur(cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY).astype(np.float32), (0, 0), 1.0)
    across = np.diff(grey[height // 4 : 3 * height // 4].mean(axis=0))
    x1 = int(np.argmax(across[: width // 2]))
    x2 = width // 2 + int(np.argmin(across[width // 2 :])) + 1
    down = np.diff(grey[:, x1:x2].mean(axis=1))
    y1 = int(np.argmax(down[: height // 2]))
    y2 = height // 2 + int(np.argmin(down[height // 2 :])) + 1
    if not (across[x1] > 0 > across[x2 - 1] and down[y1] > 0 > down[y2 - 1]):
        return None  # no bright thing with edges on both sides
    if y2 - y1 < 4 or not PLATE_ASPECT[0] <= (x2 - x1) / (y2 - y1) <= PLATE_ASPECT[1]:
        return None
    return x1, y1, x2, y2


def stroke_band(crop: np.ndarray) -> tuple[int, int] | None:
    """The rows of ``crop`` (RGB, a whole plate as found) where its characters lie: the
    band of :data:`STROKE_BAND` of its height with the most vertical strokes, grown by
    :data:`BAND_PAD` (ADR 180).  (y1, y2) in the crop, or None when the strokes are
    spread over the whole height (no band stands out) or the crop is too small."""
    import cv2

    height, width = crop.shape[:2]
    rows = max(2, round(STROKE_BAND * height))
    if rows >= height - 1 or width < 8:
        return None
    grey = cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY).astype(np.float32)
    gx = np.abs(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3))
    side = max(1, int(BAND_INNER * width))
    profile = gx[:, side : width - side].mean(axis=1)
    sums = np.convolve(profile, np.ones(rows), "valid")
    top = int(np.argmax(sums))
    if sums[top] <= BAND_LIFT * rows * float(profile.mean()):  # none stands out, or flat
        return None
    grow = round(BAND_PAD * rows)
    return max(0, top - grow), min(height, top + rows + grow)
