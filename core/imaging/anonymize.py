"""Hide regions of a photo: Gaussian blur, pixelation or solid fill, rectangle or ellipse.

Strength is relative to each region's size, so a small face in a crowd and a
portrait are hidden equally well:

* blur: sigma = ``strength`` × the region's shorter side (default 0.25);
* pixelate: ``blocks`` blocks across the region's longer side (default 8);
* fill: a solid colour.

An optional feather fades the effect out *beyond* the region's edge, so every
pixel inside the region is still fully hidden.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

METHODS = ("blur", "pixelate", "fill")
SHAPES = ("rect", "ellipse")
DEFAULT_BLUR = 0.25
DEFAULT_BLOCKS = 8


@dataclass(frozen=True)
class HideSpec:
    """One region to hide, in upright-photo pixels."""

    x: float
    y: float
    w: float
    h: float
    shape: str = "rect"
    method: str = "blur"
    strength: float | None = None  # blur sigma factor / pixelation blocks; None = default
    feather: float = 0.0  # px of soft edge outside the region
    fill: tuple[int, int, int] = (0, 0, 0)


def region_mask(spec: HideSpec, height: int, width: int, pad: int = 0
                ) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """Float mask (1 inside) over the region's padded bounding box and that box.

    The box is (x0, y0, x1, y1) clipped to the image; pixels whose centre lies inside
    the shape are 1.
    """
    import cv2

    x0 = max(0, int(np.floor(spec.x)) - pad)
    y0 = max(0, int(np.floor(spec.y)) - pad)
    x1 = min(width, int(np.ceil(spec.x + spec.w)) + pad)
    y1 = min(height, int(np.ceil(spec.y + spec.h)) + pad)
    if x1 <= x0 or y1 <= y0:
        return np.zeros((0, 0), np.float32), (x0, y0, x0, y0)
    ys = np.arange(y0, y1, dtype=np.float32)[:, None] + 0.5
    xs = np.arange(x0, x1, dtype=np.float32)[None, :] + 0.5
    if spec.shape == "ellipse":
        cx, cy = spec.x + spec.w / 2, spec.y + spec.h / 2
        rx, ry = max(spec.w / 2, 0.5), max(spec.h / 2, 0.5)
        inside = ((xs - cx) / rx) ** 2 + ((ys - cy) / ry) ** 2 <= 1.0
    else:
        inside = ((xs >= spec.x) & (xs <= spec.x + spec.w)
                  & (ys >= spec.y) & (ys <= spec.y + spec.h))
    mask = inside.astype(np.float32)
    if spec.feather > 0 and pad > 0:
        outside = (1 - inside).astype(np.uint8)
        dist = cv2.distanceTransform(outside, cv2.DIST_L2, 5)
        mask = np.clip(1.0 - dist / spec.feather, 0.0, 1.0).astype(np.float32)
    return mask, (x0, y0, x1, y1)


def _blurred(image: np.ndarray, box: tuple[int, int, int, int], sigma: float
             ) -> np.ndarray:
    """Gaussian blur of ``image`` (sigma in px) over ``box`` = (x0, y0, x1, y1) only.

    The blur sees up to 2 sigma of context around the box (reflected at the photo's
    edge).  A big sigma blurs a copy shrunk by ``sigma // 8`` (whole blocks, exact
    means), and only the blocks under the box are scaled back up: the same look at a
    fraction of the cost (ADR 116).
    """
    import cv2

    height, width = image.shape[:2]
    x0, y0, x1, y1 = box
    sigma = max(1.0, sigma)
    ctx = int(np.ceil(2 * sigma))
    factor = max(1, int(sigma // 8))
    if factor == 1:
        cx0, cy0 = max(0, x0 - ctx), max(0, y0 - ctx)
        cx1, cy1 = min(width, x1 + ctx), min(height, y1 + ctx)
        big = cv2.GaussianBlur(image[cy0:cy1, cx0:cx1], (0, 0), sigma,
                               borderType=cv2.BORDER_REFLECT)
        return big[y0 - cy0:y1 - cy0, x0 - cx0:x1 - cx0]
    # context in whole blocks of ``factor`` px, the grid anchored at the box's corner
    # (reflected into a last whole block only where the photo ends)
    cx0 = x0 - factor * (min(ctx, x0) // factor)
    cy0 = y0 - factor * (min(ctx, y0) // factor)
    cx1 = min(width, cx0 + factor * -(-(x1 + ctx - cx0) // factor))
    cy1 = min(height, cy0 + factor * -(-(y1 + ctx - cy0) // factor))
    patch = image[cy0:cy1, cx0:cx1]
    pad_y, pad_x = -patch.shape[0] % factor, -patch.shape[1] % factor
    if pad_y or pad_x:
        patch = cv2.copyMakeBorder(patch, 0, pad_y, 0, pad_x, cv2.BORDER_REFLECT)
    small = cv2.resize(patch, (patch.shape[1] // factor, patch.shape[0] // factor),
                       interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / factor, borderType=cv2.BORDER_REFLECT)
    # the blocks under the box, one block of margin (bilinear reads a neighbour), up
    bx0, by0 = (x0 - cx0) // factor, (y0 - cy0) // factor
    bx1, by1 = -(-(x1 - cx0) // factor), -(-(y1 - cy0) // factor)
    mx0, my0 = max(0, bx0 - 1), max(0, by0 - 1)
    mx1, my1 = min(small.shape[1], bx1 + 1), min(small.shape[0], by1 + 1)
    piece = small[my0:my1, mx0:mx1]
    up = cv2.resize(piece, (piece.shape[1] * factor, piece.shape[0] * factor),
                    interpolation=cv2.INTER_LINEAR)
    # (exactly what scaling the whole copy up gives inside the box: only the margin
    # blocks' outer halves, outside the box, see the piece's edge instead of a neighbour)
    ox, oy = x0 - cx0 - mx0 * factor, y0 - cy0 - my0 * factor
    return up[oy:oy + y1 - y0, ox:ox + x1 - x0]


def _pixelated(patch: np.ndarray, spec: HideSpec, blocks: float, origin: tuple[int, int]
               ) -> np.ndarray:
    """Blocks aligned to the region: ``blocks`` across its longer side."""
    size = max(2.0, max(spec.w, spec.h) / max(1.0, blocks))
    h, w = patch.shape[:2]
    ys = ((np.arange(h) + origin[1] - spec.y) // size).astype(int)
    xs = ((np.arange(w) + origin[0] - spec.x) // size).astype(int)
    ys -= ys.min()
    xs -= xs.min()
    nx = int(xs.max()) + 1
    index = (ys[:, None] * nx + xs[None, :]).ravel()
    counts = np.bincount(index)
    out = np.empty_like(patch)
    for c in range(patch.shape[2]):
        sums = np.bincount(index, weights=patch[..., c].ravel().astype(np.float64))
        means = np.rint(sums / np.maximum(counts, 1)).astype(patch.dtype)
        out[..., c] = means[index].reshape(h, w)
    return out


def _blend(patch: np.ndarray, hidden: np.ndarray, mask: np.ndarray) -> None:
    """``patch`` (a view into the output) := ``hidden`` where ``mask`` is 1, the rounded
    mix where it lies between 0 and 1 (a feather), unchanged where it is 0."""
    import cv2

    full = mask >= 1.0
    copied = cv2.copyTo(hidden, full.view(np.uint8), patch)  # in place: same size, type
    if copied is not patch:  # pragma: no cover - OpenCV made a new array after all
        patch[...] = copied
    soft = (mask > 0.0) & ~full
    if soft.any():
        alpha = mask[soft][:, None]
        mixed = patch[soft].astype(np.float32) * (1 - alpha) \
            + hidden[soft].astype(np.float32) * alpha
        patch[soft] = np.clip(np.rint(mixed), 0, 255).astype(np.uint8)


def hide_regions(rgb: np.ndarray, specs: Iterable[HideSpec],
                 check: Callable[[], None] | None = None,
                 progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """A copy of ``rgb`` with every region hidden (the input array is not changed).

    ``check()`` runs before each region (it raises to cancel); ``progress(done, total)``
    after each one.
    """
    out = rgb.copy()
    height, width = rgb.shape[:2]
    specs = list(specs)
    for index, spec in enumerate(specs):
        if check is not None:
            check()
        if progress is not None and index:
            progress(index, len(specs))
        if spec.method not in METHODS:
            raise ValueError(f"unknown anonymization method {spec.method!r}")
        if spec.w <= 0 or spec.h <= 0:
            continue
        pad = int(np.ceil(spec.feather))
        mask, (x0, y0, x1, y1) = region_mask(spec, height, width, pad)
        if mask.size == 0:
            continue
        patch = out[y0:y1, x0:x1]
        if spec.method == "fill":
            hidden = np.empty_like(patch)
            hidden[:] = np.array(spec.fill, dtype=patch.dtype)
        elif spec.method == "pixelate":
            blocks = spec.strength if spec.strength else DEFAULT_BLOCKS
            hidden = _pixelated(patch, spec, blocks, (x0, y0))
        else:
            factor = spec.strength if spec.strength else DEFAULT_BLUR
            # blurred with context around the region so its edge is not a hard frame
            hidden = _blurred(out, (x0, y0, x1, y1), factor * min(spec.w, spec.h))
        _blend(patch, hidden, mask)
    if progress is not None and specs:
        progress(len(specs), len(specs))
    return out


def stronger(spec: HideSpec) -> HideSpec | None:
    """The next stronger setting for a region that failed verification (None = none left)."""
    from dataclasses import replace

    if spec.method == "blur":
        factor = spec.strength or DEFAULT_BLUR
        if factor >= 0.6:
            return replace(spec, method="fill", strength=None)
        return replace(spec, strength=0.6)
    if spec.method == "pixelate":
        blocks = spec.strength or DEFAULT_BLOCKS
        if blocks <= 4:
            return replace(spec, method="fill", strength=None)
        return replace(spec, strength=4.0)
    return None
