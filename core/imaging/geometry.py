"""Non-destructive geometry: four-corner perspective, fine rotation, 90° steps, crop.

Applied in this order, composed into one homography so the photo is resampled once:

1. ``quad``: four corners (top-left, top-right, bottom-right, bottom-left) in the
   upright photo; the output is that quadrilateral rectified to a rectangle whose
   sides are the longer of each pair of opposite edges (the "keystone" fix);
2. ``angle``: a clockwise fine rotation in degrees, cropped to the largest centred
   rectangle of the same aspect ratio, so no invented pixels appear;
3. ``rot90``: quarter turns clockwise;
4. ``crop``: (x, y, w, h) in the result of steps 1–3 (what the After view shows).

Coordinates are continuous (pixel ``i`` spans ``[i, i+1)``).  Without a quad or
angle the result is computed by exact array slicing (no resampling at all).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class Geometry:
    """The geometry of one photo (all optional; the default changes nothing)."""

    quad: list[tuple[float, float]] | None = None
    angle: float = 0.0
    rot90: int = 0
    crop: tuple[float, float, float, float] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def is_identity(self) -> bool:
        """True when applying it returns the photo unchanged."""
        return self.quad is None and not self.angle and not self.rot90 % 4 and \
            self.crop is None

    def to_json(self) -> dict[str, Any]:
        """Plain dict for storage."""
        return {"quad": [list(p) for p in self.quad] if self.quad else None,
                "angle": float(self.angle), "rot90": int(self.rot90) % 4,
                "crop": list(self.crop) if self.crop else None}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Geometry:
        """Inverse of :meth:`to_json` (None → identity)."""
        data = data or {}
        quad = data.get("quad")
        crop = data.get("crop")
        return cls(quad=[(float(x), float(y)) for x, y in quad] if quad else None,
                   angle=float(data.get("angle") or 0.0), rot90=int(data.get("rot90") or 0) % 4,
                   # to_json wrote four numbers; not re-checked when read back
                   crop=tuple(float(v) for v in crop) if crop else None)  # type: ignore[arg-type]


def _translate(dx: float, dy: float) -> np.ndarray:
    return np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], np.float64)


def quad_size(quad: list[tuple[float, float]]) -> tuple[int, int]:
    """Output (width, height) of a rectified quadrilateral."""
    p = np.asarray(quad, np.float64)
    width = max(np.hypot(*(p[1] - p[0])), np.hypot(*(p[2] - p[3])))
    height = max(np.hypot(*(p[3] - p[0])), np.hypot(*(p[2] - p[1])))
    return max(1, round(width)), max(1, round(height))


def check_quad(quad: list[tuple[float, float]]) -> None:
    """Raise ValueError unless the four corners form a convex, clockwise quadrilateral."""
    p = np.asarray(quad, np.float64)
    if p.shape != (4, 2):
        raise ValueError("perspective needs exactly four corners")
    crosses = []
    for i in range(4):
        a, b, c = p[i], p[(i + 1) % 4], p[(i + 2) % 4]
        crosses.append((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]))
    if not (all(v > 0 for v in crosses)):
        raise ValueError("the four corners must form a convex shape in the order "
                         "top-left, top-right, bottom-right, bottom-left")


#: the fine rotation the Anonymize panel offers, in degrees either way
MAX_ANGLE = 45.0
#: how far outside the photo a perspective corner may lie, in photo widths/heights
CORNER_SLACK = 0.5


def check_geometry(geom: Geometry, width: int, height: int) -> None:
    """Raise ValueError (naming the angle, corner or crop) unless ``geom`` is one a
    person can make on a ``width`` × ``height`` photo: finite numbers, an angle within
    ±:data:`MAX_ANGLE`, corners forming a convex quadrilateral no further than
    :data:`CORNER_SLACK` of the photo outside it, a crop of positive size that overlaps
    the picture (ADR 158)."""
    if not math.isfinite(geom.angle) or abs(geom.angle) > MAX_ANGLE:
        raise ValueError(f"the fine rotation angle must be between -{MAX_ANGLE:g}° and "
                         f"{MAX_ANGLE:g}°, not {geom.angle:g}")
    if geom.quad is not None:
        for x, y in geom.quad:
            if not (math.isfinite(x) and math.isfinite(y)):
                raise ValueError(f"a perspective corner must be a finite point, not "
                                 f"({x:g}, {y:g})")
            if not (-CORNER_SLACK * width <= x <= (1 + CORNER_SLACK) * width
                    and -CORNER_SLACK * height <= y <= (1 + CORNER_SLACK) * height):
                raise ValueError(f"the perspective corner ({x:g}, {y:g}) lies too far "
                                 f"outside the {width}×{height} photo")
        check_quad(geom.quad)
    if geom.crop is not None:
        x, y, w, h = geom.crop
        if not all(math.isfinite(v) for v in geom.crop) or w <= 0 or h <= 0:
            raise ValueError(f"the crop must be four finite numbers with a positive width "
                             f"and height, not {list(geom.crop)}")
        _matrix, (out_w, out_h) = plan(Geometry(geom.quad, geom.angle, geom.rot90),
                                       width, height)
        if x >= out_w or y >= out_h or x + w <= 0 or y + h <= 0:
            raise ValueError(f"the crop ({x:g}, {y:g}, {w:g}×{h:g}) lies outside the "
                             f"{out_w}×{out_h} picture")


def inscribed_scale(width: float, height: float, angle_deg: float) -> float:
    """Largest k such that a centred (k·w × k·h) rectangle fits in the rotated photo."""
    c, s = abs(math.cos(math.radians(angle_deg))), abs(math.sin(math.radians(angle_deg)))
    return min(width / (width * c + height * s), height / (width * s + height * c))


def plan(geom: Geometry, width: int, height: int) -> tuple[np.ndarray, tuple[int, int]]:
    """The homography (photo → output, continuous coords) and the output (w, h)."""
    matrix: np.ndarray = np.eye(3)
    w, h = float(width), float(height)
    if geom.quad is not None:
        import cv2

        check_quad(geom.quad)
        qw, qh = quad_size(geom.quad)
        dst = np.array([[0, 0], [qw, 0], [qw, qh], [0, qh]], np.float32)
        matrix = cv2.getPerspectiveTransform(np.asarray(geom.quad, np.float32), dst)
        matrix = matrix.astype(np.float64)
        w, h = float(qw), float(qh)
    if geom.angle:
        k = inscribed_scale(w, h, geom.angle)
        nw, nh = max(1, math.floor(w * k)), max(1, math.floor(h * k))
        t = math.radians(geom.angle)
        rot = np.array([[math.cos(t), -math.sin(t), 0], [math.sin(t), math.cos(t), 0],
                        [0, 0, 1]])
        matrix = _translate(nw / 2, nh / 2) @ rot @ _translate(-w / 2, -h / 2) @ matrix
        w, h = float(nw), float(nh)
    for _ in range(geom.rot90 % 4):
        step = np.array([[0, -1, h], [1, 0, 0], [0, 0, 1]], np.float64)
        matrix = step @ matrix
        w, h = h, w
    if geom.crop is not None:
        x, y, cw, ch = clamp_crop(geom.crop, int(round(w)), int(round(h)))
        matrix = _translate(-x, -y) @ matrix
        w, h = cw, ch
    return matrix, (int(round(w)), int(round(h)))


def clamp_crop(crop: tuple[float, float, float, float], width: int, height: int
               ) -> tuple[int, int, int, int]:
    """Round a crop to whole pixels inside a (width, height) image (at least 1×1)."""
    x0 = int(min(max(0, round(crop[0])), width - 1))
    y0 = int(min(max(0, round(crop[1])), height - 1))
    x1 = int(min(width, max(x0 + 1, round(crop[0] + crop[2]))))
    y1 = int(min(height, max(y0 + 1, round(crop[1] + crop[3]))))
    return x0, y0, x1 - x0, y1 - y0


def apply_geometry(rgb: np.ndarray, geom: Geometry) -> np.ndarray:
    """The photo with ``geom`` applied (exact slicing when no resampling is needed)."""
    if geom.is_identity():
        return rgb
    height, width = rgb.shape[:2]
    if geom.quad is None and not geom.angle:
        out = np.rot90(rgb, k=-(geom.rot90 % 4))
        if geom.crop is not None:
            x, y, cw, ch = clamp_crop(geom.crop, out.shape[1], out.shape[0])
            out = out[y:y + ch, x:x + cw]
        return np.ascontiguousarray(out)
    import cv2

    matrix, (ow, oh) = plan(geom, width, height)
    # OpenCV puts pixel centres on integers: shift by half a pixel on both sides
    cv_matrix = _translate(-0.5, -0.5) @ matrix @ _translate(0.5, 0.5)
    return cv2.warpPerspective(rgb, cv_matrix, (ow, oh), flags=cv2.INTER_CUBIC,
                               borderMode=cv2.BORDER_REPLICATE)


def map_points(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply a homography to (n, 2) points."""
    pts = np.hstack([np.asarray(points, np.float64), np.ones((len(points), 1))])
    mapped = pts @ matrix.T
    out: np.ndarray = mapped[:, :2] / mapped[:, 2:3]
    return out


def map_box(matrix: np.ndarray, box: tuple[float, float, float, float], shape: str = "rect"
            ) -> tuple[float, float, float, float]:
    """Bounding box, after the homography, of a rectangle or ellipse region."""
    x, y, w, h = box
    if shape == "ellipse":
        t = np.linspace(0, 2 * np.pi, 36, endpoint=False)
        pts = np.stack([x + w / 2 + w / 2 * np.cos(t), y + h / 2 + h / 2 * np.sin(t)], 1)
    else:
        pts = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64)
    mapped = map_points(matrix, pts)
    x1, y1 = mapped.min(axis=0)
    x2, y2 = mapped.max(axis=0)
    return float(x1), float(y1), float(x2 - x1), float(y2 - y1)


def kept_by(geom: Geometry, width: int, height: int, box: tuple[float, float, float, float],
            shape: str = "rect") -> bool:
    """Whether any of the region ``box`` of a ``width`` × ``height`` photo is still in the
    released image after ``geom`` (a region wholly cropped away hides nothing there).
    True when unsure: a corner beyond the perspective's horizon has no place in it."""
    matrix, (ow, oh) = plan(geom, width, height)
    bx, by, bw, bh = box
    corners = np.array([[bx, by, 1], [bx + bw, by, 1], [bx + bw, by + bh, 1],
                        [bx, by + bh, 1]], np.float64)
    if np.any((corners @ matrix.T)[:, 2] <= 0):
        return True
    x, y, w, h = map_box(matrix, box, shape)
    return x < ow and x + w > 0 and y < oh and y + h > 0
