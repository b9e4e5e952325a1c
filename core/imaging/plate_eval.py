"""How well plates are hidden: the two measures of ADR 110, the split and the variants.

* **Detail removed** (:func:`detail_hidden`): the share of the annotated plate's pixels
  whose own fine detail is gone from the released image.  Detail is the high-pass
  ``g − G_σ(g)`` of the grey image with σ = plate height / 12 (stroke scale); around
  each pixel (box window of plate height / 4) the detail still correlated with the
  original is ``|⟨d_before · d_after⟩| / ⟨d_before²⟩``.  A pixel counts as hidden when
  that is at most :data:`RETAINED_MAX`, or when it had no detail to hide (original
  detail below :data:`NOISE_FLOOR` grey levels RMS).  A weak blur keeps most of the
  correlated detail at the character scale and scores low; the new edges a fill or a
  pixelation adds carry nothing of the plate and do not count as detail left.
* **OCR legibility** (:func:`ocr_legible`): the PP-OCR recogniser reads the released
  image around the plate (the plate cut out as one line, and every text line the
  detector finds there); the plate is legible when one reading shares at least
  :func:`legible_min_chars` characters, in order, with the annotated plate text.

The split (:func:`held_out`) and the synthetic variants (:func:`variant`) are fixed
and documented, so figures can be reproduced (benchmarks/plates_eval.py).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

RETAINED_MAX = 0.2
NOISE_FLOOR = 2.0
VARIANTS = ("closeup", "rotate", "night", "blur")
#: harder variants, for looking for failure modes on the tune split (never reported as
#: the held-out figures): see :func:`stress_variant`
STRESS = (
    "closeup-fill", "rotate-steep", "night-deep", "blur-heavy", "far", "skew", "jpeg", "street",
    "night-mid", "blur-mid", "night-blur", "rotate-far", "blur-severe", "motion",
    "rotate-blur",
)


@dataclass(frozen=True)
class PlateTruth:
    """One annotated photo of the OpenALPR sets: file, plate box (x, y, w, h) and text."""

    path: Path
    box: tuple[int, int, int, int]
    text: str

    @property
    def quad(self) -> np.ndarray:
        """The box as 4 corners (clockwise from top-left)."""
        x, y, w, h = self.box
        return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64)


def held_out(name: str) -> bool:
    """True for the evaluation half: SHA-256 of the file name, first 32 bits, even."""
    return int(hashlib.sha256(name.encode("utf-8")).hexdigest()[:8], 16) % 2 == 0


def annotated(folder: Path, split: str = "eval") -> list[PlateTruth]:
    """The photos of ``folder`` (OpenALPR .txt beside each .jpg) in ``split``.

    ``split`` is ``"eval"`` (held out, never tuned on), ``"tune"`` or ``"all"``.
    """
    out = []
    for path in sorted(folder.glob("*.jpg")):
        if split != "all" and held_out(path.name) != (split == "eval"):
            continue
        parts = path.with_suffix(".txt").read_text().strip().split("\t")
        x, y, w, h = (int(v) for v in parts[1:5])
        out.append(PlateTruth(path, (x, y, w, h), parts[5] if len(parts) > 5 else ""))
    return out


# -- synthetic variants ------------------------------------------------------------------
def _warp(
    rgb: np.ndarray, quad: np.ndarray, matrix: np.ndarray, size: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray]:
    import cv2

    out = cv2.warpAffine(rgb, matrix, size, flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REFLECT)
    pts = np.hstack([quad, np.ones((4, 1))]) @ matrix.T
    return out, pts


def variant(
    rgb: np.ndarray, quad: np.ndarray, kind: str, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """A synthetic variant of an annotated photo: (pixels, plate corners in them).

    * ``closeup``: a 4:3 crop centred on the plate, which fills 60 % of its width,
      upscaled (bicubic) to 1280 px wide, so the plate is ~770 px wide;
    * ``rotate``: the photo rotated about the plate's centre by ±(5–10)°;
    * ``night``: brightness × 0.3, gamma 1.4, Gaussian noise σ = 6 grey levels;
    * ``blur``: Gaussian blur, σ = 3 % of the plate's height (at least 1 px).
    ``seed`` picks the angle sign/size and the noise.
    """
    return _degraded(rgb, quad, kind, np.random.default_rng(seed), _MILD)


#: the strengths of the four kinds both sets share: the plate's share of a close-up's
#: width, the rotation's range (°), night (brightness, gamma, noise σ), blur σ / plate
#: height — for :func:`variant` and the harsher :func:`stress_variant`
_MILD = {"closeup": 0.6, "rotate": (5, 10), "night": (0.3, 1.4, 6), "blur": 0.03}
_HARSH = {"closeup": 0.85, "rotate": (10, 15), "night": (0.2, 1.6, 8), "blur": 0.05}
_HARSHER = {"closeup-fill": "closeup", "rotate-steep": "rotate", "night-deep": "night",
            "blur-heavy": "blur"}
_MIDDLE = {"night": (0.25, 1.5, 7), "blur": 0.04}  # between _MILD and _HARSH
_SEVERE = {"blur": 0.06}  # beyond _HARSH (ADR 174)


def _degraded(
    rgb: np.ndarray, quad: np.ndarray, kind: str, rng: np.random.Generator, strength: dict
) -> tuple[np.ndarray, np.ndarray]:
    """The close-up, rotation, night or blur ``kind`` of the photo at ``strength``
    (:data:`_MILD`, :data:`_MIDDLE`, :data:`_HARSH` or :data:`_SEVERE`); ValueError for another kind."""
    import cv2

    h, w = rgb.shape[:2]
    (x1, y1), (x2, y2) = quad.min(axis=0), quad.max(axis=0)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    if kind == "closeup":
        scale = 1280 / ((x2 - x1) / strength["closeup"])
        matrix = np.array([[scale, 0, 640 - cx * scale], [0, scale, 480 - cy * scale]])
        return _warp(rgb, quad, matrix, (1280, 960))
    if kind == "rotate":
        angle = float(rng.uniform(*strength["rotate"]) * rng.choice([-1, 1]))
        matrix = cv2.getRotationMatrix2D((float(cx), float(cy)), angle, 1.0)
        return _warp(rgb, quad, matrix, (w, h))
    if kind == "night":
        gain, gamma, noise = strength["night"]
        dark = 255 * (rgb.astype(np.float32) * gain / 255) ** gamma
        noisy = dark + rng.normal(0, noise, rgb.shape)
        return np.clip(np.rint(noisy), 0, 255).astype(np.uint8), quad.copy()
    if kind == "blur":
        sigma = max(1.0, strength["blur"] * float(np.linalg.norm(quad[3] - quad[0])))
        return cv2.GaussianBlur(rgb, (0, 0), sigma), quad.copy()
    raise ValueError(f"unknown variant {kind!r}")


def stress_variant(
    rgb: np.ndarray, quad: np.ndarray, kind: str, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """A harder synthetic variant (:data:`STRESS`), for finding failure modes on the tune
    split: (pixels, plate corners in them).

    * ``closeup-fill``: as ``closeup`` but the plate fills 85 % of the width (~1090 px);
    * ``rotate-steep``: rotated by ±(10–15)°;
    * ``night-deep``: brightness × 0.2, gamma 1.6, noise σ = 8;
    * ``blur-heavy``: Gaussian blur, σ = 5 % of the plate's height;
    * ``far``: the photo shrunk so the plate is 70 px wide (a plate across the street);
    * ``skew``: the plate seen from the side (its far edge 70 % as tall, a perspective);
    * ``jpeg``: re-encoded at JPEG quality 25;
    * ``night-mid``, ``blur-mid``: between the held-out variants' strength and the
      harsh one (brightness × 0.25, gamma 1.5, noise σ = 7; blur σ = 4 % of the height);
    * ``night-blur``: the mild night, then the mild blur (a phone at night);
    * ``rotate-far``: the held-out rotation (``rotate``, same seed), then shrunk to 80 %
      (a tilted plate a little farther away; ADR 174);
    * ``blur-severe``: Gaussian blur, σ = 6 % of the plate's height;
    * ``motion``: blurred along the rows over 25 % of the plate's height (a car passing);
    * ``rotate-blur``: the held-out rotation (``rotate``, same seed), then the held-out
      blur (``blur``): two mild changes together, for plates only just found under each;
    * ``street``: the photo scaled so the plate is 100 px wide, reflected out to
      4032 × 3024 (a phone's street photo with a car across the street; ADR 171).
    """
    import cv2

    rng = np.random.default_rng(seed + 1_000_003)
    if kind in _HARSHER:
        return _degraded(rgb, quad, _HARSHER[kind], rng, _HARSH)
    if kind in ("night-mid", "blur-mid"):
        return _degraded(rgb, quad, kind.split("-")[0], rng, _MIDDLE)
    if kind == "night-blur":  # a phone at night: dim, noisy and soft
        return _degraded(*_degraded(rgb, quad, "night", rng, _MILD), "blur", rng, _MILD)
    if kind == "blur-severe":
        return _degraded(rgb, quad, "blur", rng, _SEVERE)
    if kind == "rotate-blur":
        return _degraded(*variant(rgb, quad, "rotate", seed), "blur", rng, _MILD)
    if kind == "rotate-far":
        turned, corners = variant(rgb, quad, "rotate", seed)
        th, tw = turned.shape[:2]
        smaller = np.array([[0.8, 0, 0], [0, 0.8, 0]])
        return _warp(turned, corners, smaller, (round(tw * 0.8), round(th * 0.8)))
    h, w = rgb.shape[:2]
    x1, x2 = float(quad[:, 0].min()), float(quad[:, 0].max())
    plate_h = float(np.linalg.norm(quad[3] - quad[0]))
    if kind == "far":
        scale = min(1.0, 70 / max(1.0, x2 - x1))
        size = (max(32, round(w * scale)), max(32, round(h * scale)))
        out = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
        return out, quad * [size[0] / w, size[1] / h]
    if kind == "skew":
        side = float(rng.choice([-1, 1]))
        src = np.asarray(quad, np.float32)
        dst = src.copy()
        shrink = 0.15 * plate_h
        far = (1, 2) if side > 0 else (0, 3)  # the right (or left) edge moves away
        dst[far[0], 1] += shrink
        dst[far[1], 1] -= shrink
        matrix3 = cv2.getPerspectiveTransform(src, dst)
        out = cv2.warpPerspective(
            rgb, matrix3, (w, h), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REFLECT
        )
        return out, dst.astype(np.float64)
    if kind == "motion":
        length = max(3, round(0.25 * plate_h)) | 1
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        return cv2.filter2D(rgb, -1, kernel), quad.copy()
    if kind == "jpeg":
        _ok, data = cv2.imencode(".jpg", rgb[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, 25])
        decoded = np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR))
        return decoded[..., ::-1].copy(), quad.copy()
    if kind == "street":
        scale = 100 / max(1.0, x2 - x1)
        small = cv2.resize(
            rgb, None, fx=scale, fy=scale,
            interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC,
        )
        sh, sw = small.shape[:2]
        top, left = max(0, (3024 - sh) // 2), max(0, (4032 - sw) // 2)
        out = cv2.copyMakeBorder(
            small, top, max(0, 3024 - sh - top), left, max(0, 4032 - sw - left),
            cv2.BORDER_REFLECT,
        )
        return np.asarray(out), quad * scale + [left, top]
    raise ValueError(f"unknown stress variant {kind!r}")


# -- measure 1: detail removed ---------------------------------------------------------------
def _grey(rgb: np.ndarray) -> np.ndarray:
    return rgb.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)


def quad_mask(shape: tuple[int, ...], quad: np.ndarray) -> np.ndarray:
    """Boolean mask of the pixels whose centre lies inside ``quad``."""
    import cv2

    mask = np.zeros(shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.rint(np.asarray(quad) * 16 - 8).astype(np.int32)], 1, shift=4)
    return mask.astype(bool)


def detail_hidden(before: np.ndarray, after: np.ndarray, quad: np.ndarray) -> float:
    """Share of the plate's pixels (inside ``quad``) whose detail is removed (see module)."""
    import cv2

    plate_h = min(
        float(np.linalg.norm(quad[3] - quad[0])), float(np.linalg.norm(quad[1] - quad[0]))
    )
    sigma = max(0.7, plate_h / 12)
    win = max(3, round(plate_h / 4)) | 1
    margin = int(math.ceil(3 * sigma + win))
    height, width = before.shape[:2]
    x1 = max(0, int(np.floor(quad[:, 0].min())) - margin)
    y1 = max(0, int(np.floor(quad[:, 1].min())) - margin)
    x2 = min(width, int(np.ceil(quad[:, 0].max())) + margin)
    y2 = min(height, int(np.ceil(quad[:, 1].max())) + margin)
    if x2 <= x1 or y2 <= y1:
        return 1.0
    g0, g1 = _grey(before[y1:y2, x1:x2]), _grey(after[y1:y2, x1:x2])
    d0 = g0 - cv2.GaussianBlur(g0, (0, 0), sigma)
    d1 = g1 - cv2.GaussianBlur(g1, (0, 0), sigma)
    energy = cv2.blur(d0 * d0, (win, win))
    shared = np.abs(cv2.blur(d0 * d1, (win, win)))
    hidden = (shared <= RETAINED_MAX * energy) | (energy < NOISE_FLOOR**2)
    inside = quad_mask(before.shape, quad)[y1:y2, x1:x2]
    return float(hidden[inside].mean()) if inside.any() else 1.0


# -- measure 2: OCR legibility ---------------------------------------------------------------
def common_characters(a: str, b: str) -> int:
    """Length of the longest common subsequence of two strings."""
    prev = [0] * (len(b) + 1)
    for ca in a:
        cur = [0]
        for j, cb in enumerate(b, 1):
            cur.append(prev[j - 1] + 1 if ca == cb else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def legible_min_chars(text: str) -> int:
    """Characters in order a reading must share with the plate text to count as legible."""
    return max(3, math.ceil(0.5 * len(text)))


def readings_around(rgb: np.ndarray, quad: np.ndarray, plate_px: int = 64) -> list:
    """Recogniser readings around a plate: the plate as one line, and each text line found.

    The neighbourhood (plate box grown by 30 % of its height) is scaled so the plate is
    ``plate_px`` tall, the scale at which the PP-OCR detector and recogniser read best.
    """
    import cv2

    from core.imaging.ocr import line_crop, recognise, text_lines

    plate_h = max(
        2.0, min(float(np.linalg.norm(quad[3] - quad[0])), float(np.linalg.norm(quad[1] - quad[0])))
    )
    pad = 0.3 * plate_h
    height, width = rgb.shape[:2]
    x1 = max(0, int(quad[:, 0].min() - pad))
    y1 = max(0, int(quad[:, 1].min() - pad))
    x2 = min(width, int(math.ceil(quad[:, 0].max() + pad)))
    y2 = min(height, int(math.ceil(quad[:, 1].max() + pad)))
    if x2 - x1 < 2 or y2 - y1 < 2:
        return []
    scale = plate_px / plate_h
    crop = cv2.resize(
        rgb[y1:y2, x1:x2],
        (max(2, round((x2 - x1) * scale)), max(2, round((y2 - y1) * scale))),
        interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC,
    )
    local = (np.asarray(quad) - [x1, y1]) * scale
    lines = [line_crop(crop, q) for q, _ in text_lines(crop, max(crop.shape[:2]), 0.3)]
    return recognise([line_crop(crop, local, pad=0.05), *lines])


def ocr_legible(rgb: np.ndarray, quad: np.ndarray, text: str) -> tuple[bool, int]:
    """(legible?, most plate characters one reading shares in order with ``text``)."""
    target = "".join(c for c in text.upper() if c.isalnum())
    best = max(
        (common_characters(r.characters(), target) for r in readings_around(rgb, quad)), default=0
    )
    return best >= legible_min_chars(target), best
