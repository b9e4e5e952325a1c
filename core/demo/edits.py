"""Plausible "model edits" for the demo data set: filters on a finished picture.

Each function stands for how one of the demo's fictional models changes an image
(yellow tint, posterise, blur, cartoon, …); all are deterministic.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageChops, ImageDraw, ImageEnhance, ImageFilter, ImageOps

from core.demo.drawing import centered_text, fit_size, wrap


def yellow_tint(img: Image.Image, strength: float = 0.22) -> Image.Image:
    """The infamous warm/yellow cast: blue down, red/green slightly up."""
    a = np.asarray(img.convert("RGB"), np.float32)
    a = a * np.array([1.0 + 0.25 * strength, 1.0 + 0.15 * strength, 1.0 - strength], np.float32)
    a += np.array([18, 12, -6], np.float32) * strength * 2
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))


def posterise(img: Image.Image, bits: int = 3) -> Image.Image:
    """Reduce each channel to ``bits`` bits."""
    return ImageOps.posterize(img.convert("RGB"), bits)


def blur(img: Image.Image, radius: float = 2.5) -> Image.Image:
    """Gaussian blur."""
    return img.filter(ImageFilter.GaussianBlur(radius))


def cartoon(img: Image.Image) -> Image.Image:
    """'Ghibli-fy': smooth flat colours, saturated, with dark outlines and warm light."""
    flat = img.filter(ImageFilter.SMOOTH_MORE)
    flat = ImageEnhance.Color(flat).enhance(1.5)
    flat = ImageOps.posterize(flat, 4)
    edges = img.convert("L").filter(ImageFilter.FIND_EDGES).point(lambda v: 255 if v > 40 else 0)
    edges = edges.filter(ImageFilter.MaxFilter(3))
    out = Image.composite(Image.new("RGB", img.size, (45, 35, 40)), flat, edges)
    return Image.blend(out, Image.new("RGB", img.size, (255, 230, 190)), 0.12)


def polaroid(img: Image.Image) -> Image.Image:
    """A faded, warm 1970s instant photo in a white frame (same canvas size)."""
    w, h = img.size
    faded = ImageEnhance.Contrast(img).enhance(0.75)
    faded = Image.blend(faded, Image.new("RGB", img.size, (240, 210, 160)), 0.25)
    m = int(w * 0.07)
    inner = faded.resize((w - 2 * m, h - 3 * m - m // 2), Image.Resampling.BILINEAR)
    frame = Image.new("RGB", img.size, (246, 243, 234))
    frame.paste(inner, (m, m))
    return frame


def pixel_art(img: Image.Image, cells: int = 40) -> Image.Image:
    """Chunky pixel-art look."""
    w, h = img.size
    small = img.resize((cells, max(1, cells * h // w)), Image.Resampling.BILINEAR)
    return ImageOps.posterize(small, 4).resize((w, h), Image.Resampling.NEAREST)


def sketch(img: Image.Image) -> Image.Image:
    """Pencil-sketch look."""
    grey = img.convert("L").filter(ImageFilter.CONTOUR).filter(ImageFilter.SMOOTH)
    grey = ImageEnhance.Contrast(grey).enhance(1.6)
    return Image.merge("RGB", (grey, grey, grey.point(lambda v: max(0, v - 8))))


def watercolour(img: Image.Image) -> Image.Image:
    """Soft washes on warm paper."""
    soft = ImageOps.posterize(img.filter(ImageFilter.GaussianBlur(2.5)), 4)
    soft = Image.blend(ImageEnhance.Color(soft).enhance(1.2), Image.new("RGB", img.size, (250, 242, 225)), 0.3)
    lines = img.convert("L").filter(ImageFilter.CONTOUR).convert("RGB")
    return ImageChops.multiply(soft, Image.blend(lines, Image.new("RGB", img.size, (255, 255, 255)), 0.55))


def caption(img: Image.Image, text: str, top: bool = False) -> Image.Image:
    """Meme-style caption (white letters, black outline) at the bottom (or top)."""
    out = img.copy()
    w, h = out.size
    d = ImageDraw.Draw(out)
    lines = wrap(text.upper(), int(w * 0.9), int(h * 0.08))[:2]
    size = min(fit_size(line, int(w * 0.92), int(h * 0.08)) for line in lines)
    y0 = h * 0.1 if top else h * (0.9 - 0.1 * (len(lines) - 1))
    for i, line in enumerate(lines):
        centered_text(d, w / 2, y0 + i * size * 1.15, line, size, (255, 255, 255), (0, 0, 0), max(2, size // 12))
    return out


def near_copy(img: Image.Image) -> Image.Image:
    """Almost the same picture (slightly brighter and softer), as a strong model would give."""
    return ImageEnhance.Brightness(img.filter(ImageFilter.SMOOTH)).enhance(1.03)


FILTERS = {"cartoon": cartoon, "polaroid": polaroid, "pixel": pixel_art, "sketch": sketch,
           "watercolour": watercolour, "yellow": yellow_tint, "posterise": posterise, "blur": blur}
