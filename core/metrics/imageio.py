"""Decoding and resizing for metrics (runs on decode threads; Pillow + numpy only).

Pillow releases the GIL while decoding and resampling, so several decode threads
overlap with the model thread.  Images are opened by :mod:`core.imaging.decode` (its pixel
limit from the header, its wording); every failure is a :class:`MetricInputError` that
names the image.
"""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from core.imaging import decode
from core.metrics.base import ImageRef

#: the pixel limit of images from outside (ADR 140)
MAX_PIXELS = decode.MAX_PIXELS
#: JPEG draft (DCT-scaled) decoding; the benchmark turns it off for its naive baseline
USE_DRAFT = True


class MetricInputError(ValueError):
    """An image a metric needs cannot be read (the message names it)."""


class PreparedCache:
    """What the decode threads made of an image, kept by its key (LRU, thread-safe).

    An input image shared by several models' outputs is then decoded and prepared
    once per run, not once per pair.  Two threads asking for the same new key may
    both make it (the same result); neither waits for the other.
    """

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._items: OrderedDict[str, Any] = OrderedDict()

    def __getstate__(self) -> dict[str, Any]:
        """Pickled empty (a worker process starts its own cache; ADR 209)."""
        return {"size": self.size}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.size = int(state["size"])
        self._lock = threading.Lock()
        self._items = OrderedDict()

    def get(self, key: str, make: Callable[[], Any]) -> Any:
        """The cached value of ``key``, or ``make()`` stored under it."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        """Forget everything (benchmarks: a plain loop keeps nothing between pairs)."""
        with self._lock:
            self._items.clear()


def open_rgb(ref: ImageRef | str | Path, max_side: int | None = None,
             draft: int | None = None) -> Image.Image:
    """Decode ``ref`` to an RGB Pillow image, cropped to its box, optionally downscaled.

    ``max_side`` bounds the longer side (aspect kept, bilinear).  For JPEGs without
    a crop box, decoding uses Pillow's draft mode (DCT scaling by 1/2, 1/4 or 1/8)
    while the result keeps at least ``max_side`` — or, with ``draft`` alone, at least
    ``draft`` pixels on the shorter side — which makes decoding big photos several
    times faster without an extra resampling step.
    """
    path = ref.path if isinstance(ref, ImageRef) else Path(ref)
    bbox = ref.bbox if isinstance(ref, ImageRef) else None
    name = ref.sha256[:12] if isinstance(ref, ImageRef) else str(path)
    if path is None:
        raise MetricInputError(f"image {name} is missing from the project's assets")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise MetricInputError(f"{name}: file not found ({path})") from None
    except OSError as exc:
        raise MetricInputError(f"{name}: cannot read ({exc.strerror or exc})") from None
    im = None
    try:
        im = decode.open_image(data, name, max_pixels=MAX_PIXELS)
        if USE_DRAFT and bbox is None and im.format == "JPEG" and (max_side or draft):
            scale = (max_side / max(im.size)) if max_side else (draft or 1) / min(im.size)
            if scale <= 0.5:
                im.draft("RGB", (int(im.width * scale) + 1, int(im.height * scale) + 1))
        im = im.convert("RGB")
    except Exception as exc:  # Pillow raises many types for broken files
        raise MetricInputError(str(decode.decode_failure(exc, name, im, data))) from None
    if bbox is not None:
        x, y, w, h = bbox
        if w <= 0 or h <= 0:
            raise MetricInputError(f"{name}: empty crop box {bbox}")
        im = im.crop((max(0, x), max(0, y), min(im.width, x + w), min(im.height, y + h)))
        if im.width == 0 or im.height == 0:
            raise MetricInputError(f"{name}: crop box {bbox} lies outside the image")
    if max_side and max(im.size) > max_side:
        scale = max_side / max(im.size)
        im = im.resize((max(1, round(im.width * scale)), max(1, round(im.height * scale))),
                       Image.Resampling.BILINEAR, reducing_gap=2.0)
    return im


def load_array(ref: ImageRef | str | Path, max_side: int | None = None) -> np.ndarray:
    """``open_rgb`` as an ``(H, W, 3) uint8`` array."""
    return np.asarray(open_rgb(ref, max_side))


def resize_exact(im: Image.Image, size: tuple[int, int],
                 resample: Image.Resampling = Image.Resampling.BICUBIC) -> np.ndarray:
    """Resize to exactly ``(width, height)``; ``(3, H, W) uint8`` (see :func:`chw_u8`)."""
    return chw_u8(im.resize(size, resample))


def resize_short_center_crop(im: Image.Image, short: int, crop: int,
                             resample: Image.Resampling = Image.Resampling.BICUBIC) -> np.ndarray:
    """CLIP-style: shorter side to ``short``, then a centred ``crop``×``crop``;
    ``(3, crop, crop) uint8``."""
    w, h = im.size
    if w <= h:  # same arithmetic as transformers' get_resize_output_image_size
        nw, nh = short, int(short * h / w)
    else:
        nw, nh = int(short * w / h), short
    im = im.resize((nw, nh), resample)
    left, top = (nw - crop) // 2, (nh - crop) // 2
    return chw_u8(im.crop((left, top, left + crop, top + crop)))


def chw_u8(im: Image.Image) -> np.ndarray:
    """An RGB image as a contiguous ``(3, H, W) uint8`` array.

    Prepared images stay 8-bit until the model's device normalises them
    (:func:`core.metrics.models.normalized`): a quarter of the bytes of floats to
    move from a worker process or to the GPU (ADR 209)."""
    return np.ascontiguousarray(np.asarray(im, dtype=np.uint8).transpose(2, 0, 1))


def normalize_chw(x: np.ndarray, mean: tuple[float, ...], std: tuple[float, ...]) -> np.ndarray:
    """``(3, H, W) uint8`` → ``(x / 255 − mean) / std`` as float32: the reference of what
    :func:`core.metrics.models.normalized` computes on the model's device."""
    shape = (-1, 1, 1)
    out = (x.astype(np.float32) / np.float32(255.0)
           - np.asarray(mean, dtype=np.float32).reshape(shape))
    return out / np.asarray(std, dtype=np.float32).reshape(shape)


def encode_png(im: Image.Image) -> bytes:
    """PNG bytes of ``im`` (for judge data URLs)."""
    buf = io.BytesIO()
    im.save(buf, format="PNG", optimize=False)
    return buf.getvalue()
