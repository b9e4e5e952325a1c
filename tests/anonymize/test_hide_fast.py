"""``hide_regions`` made cheap at 12 MP (issue 18, ADR 116) without changing what it hides.

- a big blur is computed on a copy shrunk by whole blocks, and only the blocks under the
  region are scaled back up: exactly what scaling the whole shrunk copy up gives there;
- the result looks like a true Gaussian blur of the photo (OpenCV's, full resolution)
  and like the renderer before the change, within a few grey levels;
- masks are applied with a masked copy, feathered edges mixed as before (bit for bit);
- pixels outside every region and the input array never change.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from anon_helpers import need_testdata

from core.imaging import anonymize
from core.imaging.anonymize import HideSpec, hide_regions, region_mask
from core.imaging.loading import load_rgb


@pytest.fixture(scope="module")
def photo() -> np.ndarray:
    """A real, textured photo at 12 MP (what a blur must wipe out)."""
    rgb = load_rgb(need_testdata("faces") / "bald_guys.jpg")
    return cv2.resize(rgb, (4000, 3000), interpolation=cv2.INTER_CUBIC)


def _whole_copy_blur(image: np.ndarray, box: tuple[int, int, int, int], sigma: float
                     ) -> np.ndarray:
    """The same shrunk-copy blur, the whole copy scaled back up (the slow, plain way)."""
    height, width = image.shape[:2]
    x0, y0, x1, y1 = box
    ctx = int(np.ceil(2 * sigma))
    factor = max(1, int(sigma // 8))
    cx0 = x0 - factor * (min(ctx, x0) // factor)
    cy0 = y0 - factor * (min(ctx, y0) // factor)
    cx1 = min(width, cx0 + factor * -(-(x1 + ctx - cx0) // factor))
    cy1 = min(height, cy0 + factor * -(-(y1 + ctx - cy0) // factor))
    patch = image[cy0:cy1, cx0:cx1]
    patch = cv2.copyMakeBorder(patch, 0, -patch.shape[0] % factor, 0,
                               -patch.shape[1] % factor, cv2.BORDER_REFLECT)
    small = cv2.resize(patch, (patch.shape[1] // factor, patch.shape[0] // factor),
                       interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / factor, borderType=cv2.BORDER_REFLECT)
    up = cv2.resize(small, (patch.shape[1], patch.shape[0]), interpolation=cv2.INTER_LINEAR)
    return up[y0 - cy0:y1 - cy0, x0 - cx0:x1 - cx0]


def _old_blur_region(image: np.ndarray, spec: HideSpec) -> np.ndarray:
    """The renderer before issue 18 (whole context scaled up, float mix everywhere)."""
    height, width = image.shape[:2]
    mask, (x0, y0, x1, y1) = region_mask(spec, height, width)
    sigma = max(1.0, 0.25 * min(spec.w, spec.h))
    ctx = int(np.ceil(2 * sigma))
    cx0, cy0 = max(0, x0 - ctx), max(0, y0 - ctx)
    cx1, cy1 = min(width, x1 + ctx), min(height, y1 + ctx)
    patch = image[cy0:cy1, cx0:cx1]
    factor = max(1, int(sigma // 8))
    if factor > 1:
        h, w = patch.shape[:2]
        small = cv2.resize(patch, (max(1, w // factor), max(1, h // factor)),
                           interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (0, 0), sigma / factor, borderType=cv2.BORDER_REFLECT)
        big = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    else:
        big = cv2.GaussianBlur(patch, (0, 0), sigma, borderType=cv2.BORDER_REFLECT)
    hidden = big[y0 - cy0:y1 - cy0, x0 - cx0:x1 - cx0]
    out = image.copy()
    alpha = mask[..., None]
    target = out[y0:y1, x0:x1]
    blended = target.astype(np.float32) * (1 - alpha) + hidden.astype(np.float32) * alpha
    out[y0:y1, x0:x1] = np.where(alpha >= 1.0, hidden,
                                 np.clip(np.rint(blended), 0, 255).astype(np.uint8))
    return out


BOXES = [
    (1000, 800, 1600, 1500),  # big face: factor 18
    (0, 0, 333, 257),  # at the top-left corner, odd sizes
    (3701, 2811, 4000, 3000),  # at the bottom-right corner: the copy is reflected
    (2000, 1000, 2061, 1100),  # factor 1: the plain blur
    (1234, 567, 1234 + 171, 567 + 95),  # factor 2
]


@pytest.mark.parametrize("box", BOXES)
def test_only_the_blocks_under_the_box_are_scaled_up_and_nothing_changes(
        photo: np.ndarray, box: tuple[int, int, int, int]) -> None:
    sigma = 0.25 * min(box[2] - box[0], box[3] - box[1])
    fast = anonymize._blurred(photo, box, sigma)
    assert fast.shape == (box[3] - box[1], box[2] - box[0], 3)
    assert np.array_equal(fast, _whole_copy_blur(photo, box, sigma))


@pytest.mark.parametrize("box", BOXES)
def test_the_blur_is_a_gaussian_blur_of_the_photo(photo: np.ndarray,
                                                  box: tuple[int, int, int, int]) -> None:
    sigma = 0.25 * min(box[2] - box[0], box[3] - box[1])
    x0, y0, x1, y1 = box
    truth = cv2.GaussianBlur(photo, (0, 0), sigma, borderType=cv2.BORDER_REFLECT)
    got = anonymize._blurred(photo, box, sigma).astype(int)
    diff = np.abs(got - truth[y0:y1, x0:x1].astype(int))
    # the context stops at 2 sigma (the photo's edge differs most), the shrunk copy is
    # averaged: a few grey levels on average, never a visible edge of the original
    assert diff.mean() < 3.0
    assert np.percentile(diff, 99) < 16
    original = np.abs(photo[y0:y1, x0:x1].astype(int) - truth[y0:y1, x0:x1].astype(int))
    assert diff.mean() < original.mean() / 3


@pytest.mark.parametrize("spec", [
    HideSpec(1000.3, 800.6, 599.5, 700.2),
    HideSpec(10.5, 20.2, 333.3, 257.7, shape="ellipse"),
    HideSpec(3700.2, 2810.9, 299.8, 189.1),
    HideSpec(2000.0, 1000.0, 61.0, 100.0, shape="ellipse"),
])
def test_hidden_like_before_within_grey_levels_and_nothing_else_changed(
        photo: np.ndarray, spec: HideSpec) -> None:
    before = photo.copy()
    new = hide_regions(photo, [spec])
    old = _old_blur_region(photo, spec)
    assert np.array_equal(photo, before), "the input array must not change"
    changed_new = (new != photo).any(axis=2)
    changed_old = (old != photo).any(axis=2)
    mask, (x0, y0, x1, y1) = region_mask(spec, *photo.shape[:2])
    outside = np.ones(photo.shape[:2], bool)
    outside[y0:y1, x0:x1] = mask < 1.0
    assert not changed_new[outside].any(), "a pixel outside the region changed"
    inside = ~outside
    assert changed_new[inside].mean() > 0.99 and changed_old[inside].mean() > 0.99
    diff = np.abs(new.astype(int) - old.astype(int))[inside]
    assert diff.mean() < 2.0 and diff.max() <= 12


@pytest.mark.parametrize("method", ["fill", "blur", "pixelate"])
def test_feathered_edges_mix_exactly_as_before(photo: np.ndarray, method: str) -> None:
    spec = HideSpec(500.4, 400.7, 300.0, 220.0, shape="ellipse", method=method, feather=9.5)
    out = hide_regions(photo, [spec])
    pad = int(np.ceil(spec.feather))
    mask, (x0, y0, x1, y1) = region_mask(spec, *photo.shape[:2], pad)
    soft = (mask > 0) & (mask < 1)
    assert soft.sum() > 1000
    # the old mix (float, rounded, full strength where the mask is 1), rebuilt here
    if method == "fill":
        hidden = np.zeros((y1 - y0, x1 - x0, 3), np.uint8)
    else:  # blocks / blur of the padded box: what the renderer mixed in
        hidden = _hidden_of(photo, spec, (x0, y0, x1, y1))
    alpha = mask[..., None]
    patch = photo[y0:y1, x0:x1].astype(np.float32)
    expected = np.where(alpha >= 1.0, hidden, np.clip(np.rint(
        patch * (1 - alpha) + hidden.astype(np.float32) * alpha), 0, 255).astype(np.uint8))
    assert np.array_equal(out[y0:y1, x0:x1], expected)


def _hidden_of(photo: np.ndarray, spec: HideSpec, box: tuple[int, int, int, int]
               ) -> np.ndarray:
    x0, y0, x1, y1 = box
    if spec.method == "pixelate":
        return anonymize._pixelated(photo[y0:y1, x0:x1], spec, anonymize.DEFAULT_BLOCKS,
                                    (x0, y0))
    return anonymize._blurred(photo, box, anonymize.DEFAULT_BLUR * min(spec.w, spec.h))


def test_overlapping_regions_hide_in_order(photo: np.ndarray) -> None:
    """The second region blurs what the first left (as before): rendering order holds."""
    first, second = HideSpec(800, 800, 400, 400), HideSpec(1000, 1000, 400, 400)
    both = hide_regions(photo, [first, second])
    step = hide_regions(hide_regions(photo, [first]), [second])
    assert np.array_equal(both, step)


def test_hostile_boxes_and_strengths_match_the_whole_copy_blur() -> None:
    """Random boxes (at the edges, 1 px thin, the whole photo) and strengths up to 5
    (sigma far bigger than the region or the photo): same pixels as the plain way."""
    rng = np.random.default_rng(116)
    image = rng.integers(0, 256, (301, 457, 3), dtype=np.uint8)
    boxes = [(0, 0, 457, 301), (456, 300, 457, 301), (0, 150, 457, 151), (200, 0, 201, 301)]
    for _ in range(150):
        x0, x1 = sorted(int(v) for v in rng.integers(0, 458, 2))
        y0, y1 = sorted(int(v) for v in rng.integers(0, 302, 2))
        if x1 > x0 and y1 > y0:
            boxes.append((x0, y0, x1, y1))
    for i, box in enumerate(boxes):
        sigma = float(rng.choice([0.25, 0.6, 2.0, 5.0])) * min(box[2] - box[0], box[3] - box[1])
        sigma = max(sigma, float(rng.uniform(1, 200)) if i % 3 == 0 else sigma)
        assert np.array_equal(anonymize._blurred(image, box, sigma),
                              _whole_copy_blur(image, box, max(1.0, sigma))), (box, sigma)
    spec = HideSpec(-50.5, -20.0, 600.0, 400.0, strength=5.0)  # bigger than the photo
    out = hide_regions(image, [spec])
    assert out.shape == image.shape and out.std() < image.std() / 4
