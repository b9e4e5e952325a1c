"""Pixels for rater files: decoded, normalised, degraded for gold, encoded once (ADR 057).

A rater who opens a session file with sqlite3 and a hex editor must learn nothing about
which model made an image, nor which task is gold.  So no byte a generator wrote ever
reaches the file: every image is decoded to pixels (EXIF orientation applied, converted
from its embedded colour profile to sRGB, alpha flattened), brought to its task's canvas
and encoded by Winnow with one encoder setting for the whole session
(:data:`SESSION_FORMAT`: baseline JPEG, quality 92, 4:4:4, standard tables, JFIF
header only; no ICC, EXIF, XMP, comments or trailing bytes).

Canvas (:func:`canvas_for`): every output of a sample is shown at one size, whatever
model made it: the median aspect ratio of the sample's outputs in the session, longer
side = the largest output's longer side capped at :data:`LONG_SIDE`.  An output with
another aspect ratio is fitted inside and centred on the rater view's background colour.
Inputs are only made smaller (to fit :data:`LONG_SIDE`).

Gold copies (:func:`degrade`) are made on pixels, then given film grain until their
encoded length is that of an output they stand in for (:func:`encode_like`), because a
blurred image compresses far better and its byte length alone would mark it as gold.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable

import numpy as np

from core.imaging.decode import (
    MAX_PIXELS,
    DecodeError,
    decode_rgb,
    orientation_transpose,
    read_header,
)

#: the session's one format (the extension stored with every image)
SESSION_FORMAT = "jpg"
#: longest side of a canvas (outputs) and of an input image
LONG_SIDE = 1024
#: padding colour: the rater view's image background (#2e2e2e)
PAD = (46, 46, 46)
#: grain of a gold copy already long enough: moves pixels by a grey level, not to the eye
_FAINT_GRAIN = 0.5
#: grain strengths tried when matching a gold copy's byte length (grey levels, σ)
_FIRST_GRAIN = 12.0
_MAX_GRAIN = 64.0


class SessionImageError(ValueError):
    """An image cannot be put into a rater file (the message names it)."""


def max_pixels() -> int:
    """The pixel limit every decode in Winnow uses (checked from the header first)."""
    return MAX_PIXELS


def header(data: bytes, name: str) -> tuple[int, int, int]:
    """(width, height, EXIF orientation) of an image, its pixel limit checked, without
    decoding pixels (:func:`core.imaging.decode.read_header`)."""
    try:
        head = read_header(data, name, max_pixels=max_pixels())
    except DecodeError as exc:
        raise SessionImageError(f"image {exc}") from None
    return head.width, head.height, head.orientation


def upright_size(data: bytes, name: str) -> tuple[int, int]:
    """(width, height) as the image is shown (EXIF orientation applied), not decoding it."""
    width, height, orientation = header(data, name)
    return (height, width) if orientation in (5, 6, 7, 8) else (width, height)


def decode(data: bytes, name: str, box: list[int] | None = None) -> np.ndarray:
    """Upright sRGB pixels of ``data`` (``(h, w, 3)`` uint8), cropped to ``box``.

    Decoding is :func:`core.imaging.decode.decode_rgb` (orientation, colour profile to
    sRGB, alpha on white), after :func:`header` checked the pixel limit.  ``box`` =
    ``[x, y, w, h]`` in the stored image's pixels (as Curate draws it and the benchmark
    export crops it), mapped through the EXIF orientation.
    """
    width, height, orientation = header(data, name)
    try:
        rgb = decode_rgb(data, name, max_pixels=MAX_PIXELS)
    except DecodeError as exc:
        raise SessionImageError(f"image {exc}") from None
    if box is None:
        return rgb
    x0, y0, x1, y1 = _upright_box(box, orientation, width, height)
    if x1 <= x0 or y1 <= y0:
        raise SessionImageError(f"image {name}: crop box {box} lies outside the image "
                                f"({width}×{height})")
    return np.ascontiguousarray(rgb[y0:y1, x0:x1])


def _upright_box(box: list[int], orientation: int, width: int,
                 height: int) -> tuple[int, int, int, int]:
    """``box`` (stored pixels) as (left, top, right, bottom) in upright pixels."""
    from PIL import Image

    x, y, w, h = box
    left, top = max(0, x), max(0, y)
    right, bottom = min(width, x + w), min(height, y + h)
    if right <= left or bottom <= top or orientation in (None, 1):
        return left, top, right, bottom
    transpose = orientation_transpose(orientation)
    if transpose is None:
        return left, top, right, bottom
    mask = Image.new("L", (width, height), 0)
    mask.paste(255, (left, top, right, bottom))
    bbox = mask.transpose(transpose).getbbox()
    return bbox if bbox else (0, 0, 0, 0)


def canvas_for(sizes: Iterable[tuple[int, int]], long_side: int | None = None
               ) -> tuple[int, int]:
    """The (width, height) every output of one sample is shown at (see module docs)."""
    sizes = [(w, h) for w, h in sizes if w > 0 and h > 0]
    if not sizes:
        raise ValueError("no image sizes to make a canvas from")
    aspect = statistics.median(w / h for w, h in sizes)
    side = min(long_side or LONG_SIDE, max(max(w, h) for w, h in sizes))
    if aspect >= 1:
        return side, max(1, round(side / aspect))
    return max(1, round(side * aspect)), side


def fit(rgb: np.ndarray, canvas: tuple[int, int]) -> np.ndarray:
    """``rgb`` scaled to fit ``canvas`` (aspect kept) and centred on :data:`PAD`.

    An image within 1 % (or one pixel) of the canvas shape is scaled to it exactly.
    """
    width, height = canvas
    h, w = rgb.shape[:2]
    if (w, h) == (width, height):
        return rgb
    scale = min(width / w, height / h)
    fw, fh = max(1, min(width, round(w * scale))), max(1, min(height, round(h * scale)))
    if abs(fw - width) <= max(1, width // 100) and abs(fh - height) <= max(1, height // 100):
        fw, fh = width, height
    scaled = _resize(rgb, (fw, fh))
    if (fw, fh) == (width, height):
        return scaled
    out = np.empty((height, width, 3), dtype=np.uint8)
    out[:] = PAD
    top, left = (height - fh) // 2, (width - fw) // 2
    out[top:top + fh, left:left + fw] = scaled
    return out


def fit_within(rgb: np.ndarray, long_side: int | None = None) -> np.ndarray:
    """``rgb`` made smaller (never larger) so its longer side is at most ``long_side``
    (default :data:`LONG_SIDE`)."""
    long_side = long_side or LONG_SIDE
    h, w = rgb.shape[:2]
    if max(w, h) <= long_side:
        return rgb
    scale = long_side / max(w, h)
    return _resize(rgb, (max(1, round(w * scale)), max(1, round(h * scale))))


def _resize(rgb: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    from PIL import Image

    image = Image.fromarray(rgb, "RGB")
    return np.asarray(image.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0))


def encode(rgb: np.ndarray) -> bytes:
    """The session encoder: bare pixels → baseline JPEG (see module docs)."""
    from core.imaging.release import encode_clean

    return encode_clean(rgb, SESSION_FORMAT)


def degrade(rgb: np.ndarray) -> np.ndarray:
    """A heavily degraded copy for obvious gold tasks (blocky, blurred, washed out).

    Deterministic: the same pixels always give the same copy.
    """
    from PIL import Image, ImageEnhance, ImageFilter

    img = Image.fromarray(rgb, "RGB")
    w, h = img.size
    small = img.resize((max(1, w // 14), max(1, h // 14)), Image.Resampling.BILINEAR)
    img = small.resize((w, h), Image.Resampling.NEAREST)
    img = img.filter(ImageFilter.GaussianBlur(radius=max(2.0, min(w, h) / 60)))
    img = ImageEnhance.Contrast(img).enhance(0.45)
    img = ImageEnhance.Color(img).enhance(0.3)
    return np.asarray(img)


def encode_like(rgb: np.ndarray, target: int, seed: bytes) -> bytes:
    """Encode ``rgb`` with seeded film grain strong enough that the file is about
    ``target`` bytes long (within ~1 %); with only a faint grain when it is that long
    already, so that two copies of one picture (two seeds) never share their bytes.

    The length grows steadily with the grain's strength, so a false-position search
    (Illinois variant) finds it in a handful of encodes.
    """
    noise = np.random.default_rng(list(seed)).standard_normal(rgb.shape).astype(np.float32)
    base = rgb.astype(np.float32)
    tolerance = max(1, target // 100)

    def grainy(sigma: float) -> bytes:
        return encode(np.clip(base + sigma * noise, 0, 255).astype(np.uint8))

    plain = grainy(_FAINT_GRAIN)
    if len(plain) >= target:
        return plain

    lo_len: float  # bounds are halved towards the target below
    lo, lo_len = 0.0, len(plain)
    hi, hi_data = _FIRST_GRAIN, grainy(_FIRST_GRAIN)  # most targets need less than this
    if len(hi_data) < target:
        lo, lo_len = hi, len(hi_data)
        hi, hi_data = _MAX_GRAIN, grainy(_MAX_GRAIN)
        if len(hi_data) <= target:
            return hi_data
    best, side = hi_data, 0
    hi_len: float = len(hi_data)
    for _ in range(12):
        sigma = hi - (hi_len - target) * (hi - lo) / (hi_len - lo_len)
        data = grainy(sigma)
        if abs(len(data) - target) < abs(len(best) - target):
            best = data
        if abs(len(data) - target) <= tolerance:
            break
        if len(data) < target:
            lo, lo_len = sigma, len(data)
            if side == -1:
                hi_len = target + (hi_len - target) / 2
            side = -1
        else:
            hi, hi_len = sigma, len(data)
            if side == 1:
                lo_len = target - (target - lo_len) / 2
            side = 1
    return best
