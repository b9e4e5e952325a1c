"""From text lines to the whole plate: assemble lines, group a plate's lines, find its frame.

The text detector reports character lines.  A plate is more: a state name above the
number, a slogan below, a country band at the left, the frame around it all.  Here
(ADR 111):

1. :func:`assemble` joins pieces of one line (a line broken by a bolt, a dash or a
   sticker) — boxes of similar height on the same baseline with a gap under one
   line height;
2. :func:`companions` gathers the other lines of the same plate around a plate-shaped
   line: above or below it, overlapping it horizontally, less than 0.6 heights (of the
   taller) apart, at most three times as tall (the big number of a close-up under its
   small city line);
3. :func:`frame` grows the group to the plate's frame, in the line's own rotated
   coordinates: upwards and downwards while the rows still look like the plate's
   background (contrast with the characters), sideways to the outermost continuous
   vertical edge (the frame, or a country band's edge), each side bounded by what a
   plate can add beyond its text; a frame narrower than a plate can be (2:1 for US
   plates) is widened on both sides, for characters the detector did not see; then a
   margin on every side — 0.15 line heights sideways, 0.25 up and down, and never less
   than :data:`FRAME_MARGIN` of the frame's height (ADR 113) — so the region never stops
   at a character or on the frame itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: how far (line heights) each side may grow beyond the text: left, right, top, bottom
REACH = (1.1, 0.9, 0.7, 0.6)
#: growth used where the photo gives no evidence (same order)
DEFAULT_GROWTH = (0.3, 0.2, 0.35, 0.3)
MARGIN = (0.15, 0.15, 0.25, 0.25)  # line heights added beyond the frame found (same order)
#: … and at least these shares of the frame's height (same order; ADR 113): a frame found
#: on the border's inner edge, or at a character, then still hides the border's detail
FRAME_MARGIN = (0.15, 0.15, 0.3, 0.3)
MIN_ASPECT = 1.9  # width / height of the narrowest plate (US plates are 2:1)
MAX_WIDEN = 1.5  # line heights each side, at most, to reach it
FRAME_DEPTH = 0.6  # line heights beyond the plate's background where its frame may end
WORK_HEIGHT = 32  # px: a line is rectified to this height before looking at its frame
PAST_STROKES = 2  # stroke starts in a line height beyond a side: characters go on there
PAST_MAX = 2.0  # line heights a side moves out past characters, at most


@dataclass(frozen=True)
class Line:
    """A text line as a rotated rectangle: centre, length, height, angle of its length."""

    cx: float
    cy: float
    w: float
    h: float
    angle: float  # degrees, direction of the long side, in (-90, 90]
    score: float

    @classmethod
    def from_quad(cls, quad: np.ndarray, score: float) -> Line:
        """The rotated rectangle around 4 corners (or any points)."""
        pts = np.asarray(quad, np.float64).reshape(-1, 2)
        return cls.from_points(pts, score)

    @classmethod
    def from_points(cls, pts: np.ndarray, score: float, angle: float | None = None) -> Line:
        """Smallest rectangle around ``pts``, along ``angle`` if given (else fitted)."""
        import cv2

        if angle is None:
            (_, _), (rw, rh), a = cv2.minAreaRect(pts.astype(np.float32))
            angle = (float(a if rw >= rh else a + 90) + 90) % 180 - 90
        u, v = _axes(angle)
        a, b = pts @ u, pts @ v
        ca, cb = (a.min() + a.max()) / 2, (b.min() + b.max()) / 2
        centre = ca * u + cb * v
        return cls(
            float(centre[0]),
            float(centre[1]),
            float(a.max() - a.min()),
            float(b.max() - b.min()),
            float(angle),
            score,
        )

    @property
    def axes(self) -> tuple[np.ndarray, np.ndarray]:
        """Unit vectors along the line (u, left → right) and across it (v, downwards)."""
        return _axes(self.angle)

    def corners(self) -> np.ndarray:
        """4×2 corners: top-left, top-right, bottom-right, bottom-left."""
        u, v = self.axes
        c = np.array([self.cx, self.cy])
        hw, hh = self.w / 2, self.h / 2
        return np.array(
            [c - hw * u - hh * v, c + hw * u - hh * v, c + hw * u + hh * v, c - hw * u + hh * v]
        )

    def local(self, pts: np.ndarray) -> np.ndarray:
        """Points in this line's coordinates (along, across), relative to its centre."""
        u, v = self.axes
        d = np.asarray(pts, np.float64).reshape(-1, 2) - [self.cx, self.cy]
        return np.stack([d @ u, d @ v], axis=1)

    @property
    def tilt(self) -> float:
        """Degrees from horizontal (0–90)."""
        return abs(self.angle)


def _axes(angle: float) -> tuple[np.ndarray, np.ndarray]:
    rad = math.radians(angle)
    u = np.array([math.cos(rad), math.sin(rad)])
    return u, np.array([-u[1], u[0]])


# -- 1. assemble broken lines -----------------------------------------------------------
def _joinable(a: Line, b: Line) -> bool:
    if max(a.h, b.h) > 1.5 * min(a.h, b.h):
        return False
    if abs((a.angle - b.angle + 90) % 180 - 90) > 12 and min(a.w, b.w) > 2 * min(a.h, b.h):
        return False
    h = max(a.h, b.h)
    lb = a.local(b.corners())
    across = abs(lb[:, 1].mean())
    gap = max(lb[:, 0].min() - a.w / 2, -a.w / 2 - lb[:, 0].max())
    return bool(across <= 0.3 * h and gap <= 0.8 * h)


def _near_pairs(lines: Sequence[Line], reach: float) -> list[tuple[int, int]]:
    """Index pairs whose bounding boxes, grown by ``reach`` × height, overlap."""
    if len(lines) < 2:
        return []
    boxes = np.array([[*(c := ln.corners()).min(axis=0), *c.max(axis=0)] for ln in lines])
    pad = reach * np.array([ln.h for ln in lines])[:, None]
    grown = boxes + np.hstack([-pad, -pad, pad, pad])
    hit = (
        (grown[:, None, 0] <= grown[None, :, 2])
        & (grown[None, :, 0] <= grown[:, None, 2])
        & (grown[:, None, 1] <= grown[None, :, 3])
        & (grown[None, :, 1] <= grown[:, None, 3])
    )
    i, j = np.nonzero(np.triu(hit, 1))
    return list(zip(i.tolist(), j.tolist(), strict=True))


def _root(parent: list[int], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def assemble(lines: Sequence[Line], rounds: int = 3) -> list[Line]:
    """Join the pieces of broken lines (see the module docstring)."""
    items = list(lines)
    for _ in range(rounds):
        parent = list(range(len(items)))
        joined = False
        for i, j in _near_pairs(items, 1.0):
            ri, rj = _root(parent, i), _root(parent, j)
            if ri != rj and _joinable(items[i], items[j]):
                parent[rj] = ri
                joined = True
        if not joined:
            break
        groups: dict[int, list[Line]] = {}
        for i, item in enumerate(items):
            groups.setdefault(_root(parent, i), []).append(item)
        items = []
        for group in groups.values():
            if len(group) == 1:
                items.append(group[0])
                continue
            longest = max(group, key=lambda ln: ln.w)
            pts = np.vstack([ln.corners() for ln in group])
            items.append(Line.from_points(pts, max(ln.score for ln in group), longest.angle))
    return items


#: a piece of text the detector saw only weakly (box score under the finder's threshold)
#: joins a plate's line when it lies on its baseline, beside it, at most BESIDE_GAP line
#: heights away and at most BESIDE_WIDTH line heights wide: characters of the plate the
#: detector barely saw (a motion-blurred "RK-" before a plate's "115AN", ADR 226)
BESIDE_GAP = 2.0
BESIDE_WIDTH = 2.0


def join_weak_beside(line: Line, weak: Sequence[Line]) -> Line:
    """``line`` (a plate's character line) joined with the pieces of ``weak`` beside it on
    its baseline (see :data:`BESIDE_GAP`): the plate's characters the detector saw too
    weakly to box on their own, so its frame is grown from all of them (ADR 226).
    Pieces are taken outwards, each from the line as grown so far."""
    grown = line
    pieces = list(weak)
    while pieces:
        near = [
            piece for piece in pieces
            if max(piece.h, grown.h) <= 1.5 * min(piece.h, grown.h)
            and piece.w <= BESIDE_WIDTH * grown.h
            and _beside(grown, piece)
        ]
        if not near:
            break
        pts = np.vstack([grown.corners(), *(piece.corners() for piece in near)])
        grown = Line.from_points(pts, line.score, line.angle)
        pieces = [piece for piece in pieces if not any(piece is n for n in near)]
    return grown


def _beside(line: Line, piece: Line) -> bool:
    """``piece`` on ``line``'s baseline (centre within 0.3 of its height), outside it
    sideways, at most :data:`BESIDE_GAP` of its height away."""
    loc = line.local(piece.corners())
    gap = max(loc[:, 0].min() - line.w / 2, -line.w / 2 - loc[:, 0].max())
    return bool(abs(loc[:, 1].mean()) <= 0.3 * line.h and 0 <= gap <= BESIDE_GAP * line.h)


# -- 2. the other lines of the same plate ---------------------------------------------------
def companions(main: Line, lines: Sequence[Line]) -> list[Line]:
    """Lines of the same plate as ``main``: above/below it, overlapping it sideways."""
    out = []
    for other in lines:
        if other is main or other.h > 3 * main.h:
            continue
        loc = main.local(other.corners())
        a0, a1 = loc[:, 0].min(), loc[:, 0].max()
        b_mid = loc[:, 1].mean()
        overlap = min(a1, main.w / 2) - max(a0, -main.w / 2)
        if overlap < 0.5 * min(other.w, main.w):
            continue
        gap = abs(b_mid) - (main.h + other.h) / 2
        if abs(b_mid) > 0.3 * main.h and gap <= 0.6 * max(main.h, other.h):
            out.append(other)
    return out


# -- 3. the frame ---------------------------------------------------------------------------
def _rectified(
    gray: np.ndarray, main: Line, box: tuple[float, float, float, float], scale: float
) -> np.ndarray:
    """The area ``box`` (a0, b0, a1, b1 in main's coordinates) cut out upright at ``scale``."""
    import cv2

    a0, b0, a1, b1 = box
    u, v = main.axes
    c = np.array([main.cx, main.cy])
    width, height = max(4, round((a1 - a0) * scale)), max(4, round((b1 - b0) * scale))
    origin = c + a0 * u + b0 * v
    src = np.array([origin, origin + (a1 - a0) * u, origin + (b1 - b0) * v], dtype=np.float32)
    dst = np.array([[0, 0], [width, 0], [0, height]], dtype=np.float32)
    matrix = cv2.getAffineTransform(src, dst)
    return cv2.warpAffine(
        gray, matrix, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def _background_rows(crop: np.ndarray, x0: int, x1: int, y0: int, y1: int) -> np.ndarray | None:
    """Pixels that look like the plate's background (None: the text has no contrast).

    The middle of the main line (``crop[y0:y1, x0:x1]``) is split in two by Otsu's
    threshold; the larger class is the background (characters are thinner than the
    space around them), the other the ink.  A pixel is background-like when it lies on
    the background's side within half the background–ink difference of its level.
    """
    import cv2

    band = crop[y0 : y1 + 1, x0 : x1 + 1]
    if band.size < 16:
        return None
    band8 = np.clip(band, 0, 255).astype(np.uint8)
    threshold, _ = cv2.threshold(band8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bright = band >= threshold
    background_is_bright = bright.mean() >= 0.5
    ground, ink = (
        (band[bright], band[~bright]) if background_is_bright else (band[~bright], band[bright])
    )
    if not ground.size or not ink.size:
        return None
    level, spread = float(np.median(ground)), abs(float(np.median(ground) - np.median(ink)))
    if spread < 20:
        return None
    side = crop >= threshold if background_is_bright else crop < threshold
    mask: np.ndarray = side & (np.abs(crop - level) <= 0.5 * spread)
    return mask


def _background_run(similar: np.ndarray, start: int, stop: int, step: int) -> int:
    """How far from ``start`` (inside the text) towards ``stop`` the plate goes on.

    Rows that are partly background (characters, a state name, a slogan) are passed
    over; the run ends at the first row that is mostly something else (the frame, the
    car).  Returns the last row that was mostly background (``start`` if none).
    """
    last = start
    for row in range(start, stop, step):
        if similar[row] >= 0.5:
            last = row
        elif similar[row] < 0.3:
            break
    return last


def _outer_edge(
    continuity: np.ndarray, start: int, stop: int, step: int, level: float = 0.7
) -> int | None:
    """Outermost index from ``start`` towards ``stop`` holding a continuous edge."""
    found = None
    for index in range(start, stop, step):
        if continuity[index] >= level:
            found = index
    return found


def _past_characters(
    gray: np.ndarray, main: Line, a0: float, a1: float, ga0: float, ga1: float,
    growth: Sequence[float],
) -> tuple[float, float]:
    """The sideways growth (line heights) moved out past characters beside the frame.

    The detector can miss a plate's first or last characters (another colour, a
    sticker between): the frame then stops at a character, and widening to a plate's
    shape (symmetric) may not reach it.  In the main line's own rows, a window of one
    line height just beyond a side holding :data:`PAST_STROKES` stroke starts or more
    (characters: two a character; a frame's edge or a bolt: one) moves that side out by
    the window, at most :data:`PAST_MAX` line heights (ADR 170).
    """
    import cv2

    unit = main.h
    scale = min(4.0, WORK_HEIGHT / max(unit, 1.0))
    left, right = a0 - PAST_MAX * unit, a1 + PAST_MAX * unit
    crop = _rectified(gray, main, (left, -0.5 * unit, right, 0.5 * unit), scale)
    crop = np.asarray(cv2.GaussianBlur(crop.astype(np.float32), (0, 0), 1.0), np.float32)
    gx = np.abs(cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3))
    text = gx[:, round((ga0 - left) * scale) : round((ga1 - left) * scale) + 1]
    if text.size == 0:
        return growth[0], growth[1]
    # a stroke is judged against the text's own contrast, not the window's
    band = gx[gx.shape[0] // 3 : 2 * gx.shape[0] // 3 + 1]
    level = 2 * float(text[text.shape[0] // 3 : 2 * text.shape[0] // 3 + 1].mean())
    column = (band >= max(level, 8.0)).mean(axis=0) > 0.3
    starts = np.zeros_like(column)
    starts[1:] = column[1:] & ~column[:-1]
    step = max(1, round(unit * scale))
    out = [growth[0], growth[1]]
    for side, edge in ((0, a0), (1, a1)):
        pos = round((edge - left) * scale)
        for _ in range(int(PAST_MAX)):
            lo, hi = (pos - step, pos) if side == 0 else (pos, pos + step)
            if lo < 0 or hi > len(starts) or starts[lo:hi].sum() < PAST_STROKES:
                break
            pos = lo if side == 0 else hi
            out[side] += 1.0
    return out[0], out[1]


def frame(gray: np.ndarray, group: Sequence[Line]) -> np.ndarray:
    """The plate's frame around a group of lines (the first is the plate-shaped one).

    Returns 4×2 corners in photo pixels (top-left, top-right, bottom-right, bottom-left).
    """
    import cv2

    main = group[0]
    loc = np.vstack([main.local(g.corners()) for g in group])
    ga0, gb0 = loc.min(axis=0)
    ga1, gb1 = loc.max(axis=0)
    unit = main.h
    reach = [r * unit for r in REACH]
    box = (ga0 - reach[0], gb0 - reach[2], ga1 + reach[1], gb1 + reach[3])
    scale = min(4.0, WORK_HEIGHT / max(unit, 1.0))
    crop = _rectified(gray, main, box, scale).astype(np.float32)
    crop = np.asarray(cv2.GaussianBlur(crop, (0, 0), 1.0), dtype=np.float32)

    def col(a: float) -> int:
        return int(np.clip(round((a - box[0]) * scale), 0, crop.shape[1] - 1))

    def row(b: float) -> int:
        return int(np.clip(round((b - box[1]) * scale), 0, crop.shape[0] - 1))

    # contrast: rows that look like the plate's background continue the plate
    growth = list(DEFAULT_GROWTH)
    found = _background_rows(
        crop, col(-main.w / 2), col(main.w / 2), row(-0.3 * main.h), row(0.3 * main.h)
    )
    if found is not None:
        similar = found[:, col(ga0) : col(ga1) + 1].mean(axis=1)
        top = _background_run(similar, row(0.0), -1, -1)
        bottom = _background_run(similar, row(0.0), crop.shape[0], 1)
        # the frame (a holder, a border) lies beyond the background: go to its outer edge
        gy = np.abs(cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3))[:, col(ga0) : col(ga1) + 1]
        strong = (gy >= max(8.0, 0.5 * float(np.percentile(gy, 95)))).mean(axis=1)
        depth = round(FRAME_DEPTH * unit * scale)
        edge = _outer_edge(strong, top, max(-1, top - depth), -1, 0.6)
        top = top if edge is None else edge
        edge = _outer_edge(strong, bottom, min(crop.shape[0], bottom + depth), 1, 0.6)
        bottom = bottom if edge is None else edge
        growth[2] = max(0.0, (gb0 - (top / scale + box[1])) / unit)
        growth[3] = max(0.0, (bottom / scale + box[1] - gb1) / unit)
        # sideways too: a plate's margin beside its characters is background
        columns = found[row(-0.5 * main.h) : row(0.5 * main.h) + 1].mean(axis=0)
        left = _background_run(columns, col(0.0), -1, -1)
        right = _background_run(columns, col(0.0), crop.shape[1], 1)
        growth[0] = max(growth[0], (ga0 - (left / scale + box[0])) / unit)
        growth[1] = max(growth[1], (right / scale + box[0] - ga1) / unit)
    # edges: the outermost continuous vertical edge beside the text is the plate's side
    gx = np.abs(cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3))
    rows = gx[row(gb0 - growth[2] * unit) : row(gb1 + growth[3] * unit) + 1]
    if rows.size:
        strong = rows >= max(8.0, 0.5 * float(np.percentile(gx, 95)))
        continuity = strong.mean(axis=0)
        left_edge = _outer_edge(continuity, col(ga0), -1, -1)
        right_edge = _outer_edge(continuity, col(ga1), crop.shape[1], 1)
        if left_edge is not None:
            growth[0] = max(growth[0], (ga0 - (left_edge / scale + box[0])) / unit)
        if right_edge is not None:
            growth[1] = max(growth[1], (right_edge / scale + box[0] - ga1) / unit)
    growth = [min(g, r) for g, r in zip(growth, REACH, strict=True)]
    # no plate is narrower than MIN_ASPECT: a line that misses characters (a "1A" the
    # detector did not see) is widened on both sides until the frame has that shape
    width = ga1 - ga0 + (growth[0] + growth[1]) * unit
    short = MIN_ASPECT * (gb1 - gb0 + (growth[2] + growth[3]) * unit) - width
    if short > 0:
        growth[0] += min(short / 2 / unit, MAX_WIDEN)
        growth[1] += min(short / 2 / unit, MAX_WIDEN)
    # characters the detector did not see (a "1A" in another colour) beyond the sides
    growth[0], growth[1] = _past_characters(gray, main, ga0 - growth[0] * unit,
                                            ga1 + growth[1] * unit, ga0, ga1, growth[:2])
    tall = (gb1 - gb0) / unit + growth[2] + growth[3]  # the frame's height, line heights
    growth = [
        g + max(m, f * tall) for g, m, f in zip(growth, MARGIN, FRAME_MARGIN, strict=True)
    ]
    u, v = main.axes
    c = np.array([main.cx, main.cy])
    a0, a1 = ga0 - growth[0] * unit, ga1 + growth[1] * unit
    b0, b1 = gb0 - growth[2] * unit, gb1 + growth[3] * unit
    return np.array(
        [c + a0 * u + b0 * v, c + a1 * u + b0 * v, c + a1 * u + b1 * v, c + a0 * u + b1 * v]
    )
