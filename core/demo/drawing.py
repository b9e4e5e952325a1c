"""Pillow drawing helpers for the demo data set: simple scenes and their parameters.

Everything here is deterministic given the ``random.Random`` passed in; only Pillow's
built-in font (``ImageFont.load_default(size=...)``) is used, so nothing outside the
repository is read.  Scenes are described by a small ``dict`` of parameters so that an
edit such as "make the car red" can be rendered by changing a parameter and redrawing.
"""

from __future__ import annotations

import math
import random
from functools import lru_cache
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

RGB = tuple[int, int, int]
Box = tuple[int, int, int, int]
Params = dict[str, Any]

SCENE_KINDS = ("landscape", "cat", "house", "portrait", "car", "sign", "poster", "receipt", "can")

COLOURS: dict[str, RGB] = {
    "red": (200, 40, 45),
    "blue": (40, 90, 200),
    "green": (50, 150, 70),
    "yellow": (235, 200, 40),
    "orange": (235, 130, 40),
    "purple": (130, 70, 170),
    "pink": (235, 130, 170),
    "teal": (30, 150, 150),
    "black": (35, 35, 40),
    "white": (235, 235, 230),
    "grey": (130, 130, 135),
    "ginger": (215, 120, 50),
}


# -- small utilities ------------------------------------------------------------------


@lru_cache(maxsize=64)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's built-in font at ``size`` pixels (cached)."""
    return ImageFont.load_default(size=size)


def text_width(text: str, size: int) -> int:
    """Width in pixels of ``text`` in the built-in font."""
    left, _, right, _ = font(size).getbbox(text)
    return int(right - left)


def fit_size(text: str, max_w: int, start: int, minimum: int = 8) -> int:
    """Largest font size ≤ ``start`` whose rendering of ``text`` fits ``max_w`` pixels."""
    size = start
    while size > minimum and text_width(text, size) > max_w:
        size -= 1
    return size


def wrap(text: str, max_w: int, size: int) -> list[str]:
    """Greedy word wrap of ``text`` into lines at most ``max_w`` pixels wide."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        trial = f"{current} {word}".strip()
        if current and text_width(trial, size) > max_w:
            lines.append(current)
            current = word
        else:
            current = trial
    if current:
        lines.append(current)
    return lines or [""]


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """Linear blend of two colours (t=0 → a, t=1 → b)."""
    return tuple(int(round(x + (y - x) * t)) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


def jitter(rnd: random.Random, c: RGB, amount: int = 18) -> RGB:
    """A colour near ``c``."""
    return tuple(max(0, min(255, v + rnd.randint(-amount, amount))) for v in c)  # type: ignore[return-value]


def gradient(size: tuple[int, int], top: RGB, bottom: RGB) -> Image.Image:
    """Vertical gradient image from ``top`` to ``bottom``."""
    w, h = size
    t = np.linspace(0.0, 1.0, h, dtype=np.float32)[:, None, None]
    col = np.array(top, np.float32) * (1 - t) + np.array(bottom, np.float32) * t
    arr = np.broadcast_to(col, (h, w, 3)).round().astype(np.uint8)
    return Image.fromarray(np.ascontiguousarray(arr), "RGB")


def centered_text(draw: ImageDraw.ImageDraw, cx: float, cy: float, text: str, size: int,
                  fill: RGB, stroke: RGB | None = None, stroke_width: int = 0) -> None:
    """Draw ``text`` centred on (cx, cy)."""
    draw.text((cx, cy), text, font=font(size), fill=fill, anchor="mm",
              stroke_width=stroke_width, stroke_fill=stroke)


# -- scenes ---------------------------------------------------------------------------


def random_params(kind: str, rnd: random.Random, text: str | None = None) -> Params:
    """Random parameters for a scene of ``kind`` (see :data:`SCENE_KINDS`)."""
    p: Params = {"kind": kind, "time": "day", "snow": False}
    if kind == "landscape":
        p.update(sun=(rnd.uniform(0.2, 0.8), rnd.uniform(0.12, 0.3)), hills=rnd.randint(2, 3),
                 hill_colour=jitter(rnd, (70, 140, 70), 25), trees=rnd.randint(0, 5),
                 lake=rnd.random() < 0.4, phase=rnd.uniform(0, 6.28))
    elif kind == "cat":
        p.update(fur=rnd.choice([COLOURS["ginger"], COLOURS["grey"], COLOURS["black"], (240, 235, 225)]),
                 bg=jitter(rnd, rnd.choice([(190, 210, 230), (230, 215, 190), (200, 225, 200)])),
                 eyes=rnd.choice([(90, 170, 60), (220, 170, 40), (60, 130, 200)]),
                 hat=False, dx=rnd.uniform(-0.08, 0.08))
    elif kind == "house":
        p.update(body=jitter(rnd, rnd.choice([(225, 210, 170), (200, 90, 70), (170, 200, 220)])),
                 roof=jitter(rnd, rnd.choice([(150, 50, 40), (70, 70, 80), (90, 60, 40)])),
                 door=jitter(rnd, (110, 70, 40)), lights=False, dx=rnd.uniform(-0.1, 0.1))
    elif kind == "portrait":
        p.update(skin=rnd.choice([(240, 205, 175), (205, 160, 120), (150, 105, 75), (105, 70, 50)]),
                 hair=rnd.choice([(40, 30, 25), (120, 80, 40), (220, 190, 120), (160, 160, 160)]),
                 shirt=jitter(rnd, rnd.choice(list(COLOURS.values()))), glasses=rnd.random() < 0.3,
                 bg=jitter(rnd, (200, 200, 210), 30), long_hair=rnd.random() < 0.5)
    elif kind == "car":
        p.update(body=rnd.choice([COLOURS[c] for c in ("red", "blue", "yellow", "green", "white", "black")]),
                 dx=rnd.uniform(-0.06, 0.06))
    elif kind == "sign":
        p.update(text=text or "OPEN 24/7", neon=jitter(rnd, rnd.choice([(255, 60, 170), (60, 220, 255), (255, 200, 60)]), 10),
                 rain=True, wall=jitter(rnd, (45, 40, 55), 10))
    elif kind == "poster":
        p.update(text=text or "GRAND OPENING", bg=jitter(rnd, rnd.choice([(240, 225, 190), (30, 60, 90), (200, 70, 60)])),
                 accent=jitter(rnd, rnd.choice([(230, 120, 40), (250, 220, 120), (40, 40, 40)])))
    elif kind == "receipt":
        p.update(text=text or "12.50", shop=rnd.choice(["BEAN THERE CAFE", "THE DAILY GRIND", "CUP & CRUMB"]),
                 items=rnd.randint(3, 5), seed=rnd.randint(0, 10_000))
    elif kind == "can":
        p.update(text=text or "FIZZ", body=jitter(rnd, rnd.choice([(200, 40, 45), (40, 90, 200), (235, 200, 40)])),
                 bg=jitter(rnd, (225, 225, 220), 15))
    else:
        raise ValueError(f"unknown scene kind {kind!r}")
    return p


def _sky(p: Params, size: tuple[int, int]) -> Image.Image:
    time = p.get("time", "day")
    if time == "night":
        return gradient(size, (10, 15, 45), (40, 50, 90))
    if time == "sunset":
        return gradient(size, (250, 140, 80), (255, 210, 150))
    return gradient(size, (110, 170, 235), (200, 225, 245))


def _snowflakes(draw: ImageDraw.ImageDraw, w: int, h: int, seed: int) -> None:
    r = random.Random(seed)
    for _ in range(60):
        x, y, s = r.uniform(0, w), r.uniform(0, h), r.uniform(1, 3)
        draw.ellipse((x - s, y - s, x + s, y + s), fill=(255, 255, 255))


def draw_scene(p: Params, size: tuple[int, int] = (320, 320)) -> Image.Image:
    """Render the scene described by ``p`` at ``size``."""
    w, h = size
    kind = p["kind"]
    if kind in ("landscape", "house", "car"):
        img = _sky(p, size)
    elif kind == "cat":
        img = Image.new("RGB", size, p["bg"])
    elif kind == "portrait":
        img = gradient(size, p["bg"], mix(p["bg"], (255, 255, 255), 0.4))
    else:
        img = Image.new("RGB", size, (0, 0, 0))
    d = ImageDraw.Draw(img)
    night = p.get("time") == "night"
    ground = (240, 245, 250) if p.get("snow") else ((40, 70, 40) if night else (90, 160, 80))
    {"landscape": _landscape, "cat": _cat, "house": _house, "portrait": _portrait, "car": _car,
     "sign": _sign, "poster": _poster, "receipt": _receipt, "can": _can}[kind](img, d, p, w, h, ground)
    if p.get("snow"):
        _snowflakes(d, w, h, 7)
    return img


def _landscape(img: Image.Image, d: ImageDraw.ImageDraw, p: Params, w: int, h: int, ground: RGB) -> None:
    sx, sy = p["sun"]
    r = 0.09 * min(w, h)
    sun = (245, 245, 220) if p.get("time") == "night" else (255, 215, 80)
    d.ellipse((sx * w - r, sy * h - r, sx * w + r, sy * h + r), fill=sun)
    n = p["hills"]
    for i in range(n):
        base = h * (0.55 + 0.12 * i)
        amp = h * (0.08 - 0.015 * i)
        col = mix(p["hill_colour"], (255, 255, 255), 0.35 - 0.15 * i) if not p.get("snow") else mix((230, 235, 245), (150, 160, 180), 0.3 * (n - i) / n)
        if p.get("time") == "night":
            col = mix(col, (10, 20, 40), 0.6)
        pts = [(x, base - amp * math.sin(x / w * (2.5 + i) * math.pi + p["phase"] + i)) for x in range(0, w + 8, 8)]
        d.polygon([(0, h), *pts, (w, h)], fill=col)
    if p["lake"]:
        lc = (70, 120, 190) if p.get("time") != "night" else (20, 30, 70)
        d.ellipse((w * 0.15, h * 0.78, w * 0.7, h * 0.95), fill=lc)
    for i in range(p["trees"]):
        tx = w * (0.08 + 0.18 * i)
        ty = h * (0.82 + 0.03 * (i % 2))
        d.rectangle((tx - 3, ty, tx + 3, ty + h * 0.06), fill=(90, 60, 30))
        d.polygon([(tx - h * 0.05, ty), (tx + h * 0.05, ty), (tx, ty - h * 0.14)],
                  fill=(235, 240, 245) if p.get("snow") else (30, 100, 50))


def _cat(img: Image.Image, d: ImageDraw.ImageDraw, p: Params, w: int, h: int, ground: RGB) -> None:
    cx = w * (0.5 + p["dx"])
    fur = p["fur"]
    dark = mix(fur, (0, 0, 0), 0.35)
    d.rectangle((0, h * 0.8, w, h), fill=mix(p["bg"], (120, 90, 60), 0.6))  # windowsill / floor
    d.arc((cx + w * 0.1, h * 0.45, cx + w * 0.42, h * 0.85), 200, 330, fill=dark, width=max(4, w // 30))  # tail
    d.ellipse((cx - w * 0.22, h * 0.48, cx + w * 0.22, h * 0.88), fill=fur, outline=dark, width=2)  # body
    hx, hy, hr = cx, h * 0.38, w * 0.17
    for side in (-1, 1):  # ears
        d.polygon([(hx + side * hr * 0.95, hy - hr * 0.2), (hx + side * hr * 0.25, hy - hr * 0.8),
                   (hx + side * hr * 0.9, hy - hr * 1.25)], fill=fur, outline=dark)
        d.polygon([(hx + side * hr * 0.8, hy - hr * 0.35), (hx + side * hr * 0.4, hy - hr * 0.75),
                   (hx + side * hr * 0.8, hy - hr * 1.0)], fill=(235, 160, 170))
    d.ellipse((hx - hr, hy - hr * 0.9, hx + hr, hy + hr * 0.9), fill=fur, outline=dark, width=2)
    for side in (-1, 1):
        ex = hx + side * hr * 0.42
        d.ellipse((ex - hr * 0.2, hy - hr * 0.25, ex + hr * 0.2, hy + hr * 0.15), fill=p["eyes"])
        d.ellipse((ex - hr * 0.06, hy - hr * 0.22, ex + hr * 0.06, hy + hr * 0.12), fill=(10, 10, 10))
        for k in (-1, 0, 1):  # whiskers
            d.line((hx + side * hr * 0.3, hy + hr * 0.35, hx + side * hr * 1.3, hy + hr * (0.25 + 0.15 * k)),
                   fill=(60, 60, 60), width=1)
    d.polygon([(hx - hr * 0.1, hy + hr * 0.2), (hx + hr * 0.1, hy + hr * 0.2), (hx, hy + hr * 0.32)], fill=(220, 110, 120))
    if p.get("hat"):
        d.polygon([(hx - hr * 0.6, hy - hr * 0.75), (hx + hr * 0.6, hy - hr * 0.75), (hx + hr * 0.1, hy - hr * 2.1)],
                  fill=(70, 50, 150), outline=(40, 30, 90))
        for k in range(4):
            sx, sy = hx - hr * 0.2 + k * hr * 0.15, hy - hr * (1.0 + 0.25 * k)
            d.ellipse((sx - 2, sy - 2, sx + 2, sy + 2), fill=(255, 230, 90))


def _house(img: Image.Image, d: ImageDraw.ImageDraw, p: Params, w: int, h: int, ground: RGB) -> None:
    d.rectangle((0, h * 0.72, w, h), fill=ground)
    cx = w * (0.5 + p["dx"])
    x0, x1, y0, y1 = cx - w * 0.28, cx + w * 0.28, h * 0.42, h * 0.78
    d.rectangle((x1 - w * 0.12, h * 0.22, x1 - w * 0.05, y0), fill=(120, 60, 50))  # chimney
    d.rectangle((x0, y0, x1, y1), fill=p["body"], outline=mix(p["body"], (0, 0, 0), 0.4), width=2)
    roof = (235, 240, 245) if p.get("snow") else p["roof"]
    d.polygon([(x0 - w * 0.05, y0 + 2), (x1 + w * 0.05, y0 + 2), (cx, h * 0.2)], fill=roof,
              outline=mix(p["roof"], (0, 0, 0), 0.4))
    lit = p.get("lights") or p.get("time") == "night"
    win = (255, 220, 110) if lit else (170, 210, 240)
    for fx in (0.18, 0.62):
        wx = x0 + (x1 - x0) * fx
        d.rectangle((wx, y0 + h * 0.07, wx + w * 0.11, y0 + h * 0.16), fill=win, outline=(80, 60, 40), width=2)
        d.line((wx + w * 0.055, y0 + h * 0.07, wx + w * 0.055, y0 + h * 0.16), fill=(80, 60, 40), width=2)
    d.rectangle((cx - w * 0.05, y1 - h * 0.17, cx + w * 0.05, y1), fill=p["door"])
    d.ellipse((cx + w * 0.025, y1 - h * 0.09, cx + w * 0.04, y1 - h * 0.075), fill=(230, 200, 90))
    d.polygon([(cx - w * 0.05, h), (cx + w * 0.05, h), (cx + w * 0.04, y1), (cx - w * 0.04, y1)], fill=(170, 160, 140))


def _portrait(img: Image.Image, d: ImageDraw.ImageDraw, p: Params, w: int, h: int, ground: RGB) -> None:
    cx = w * 0.5
    skin, hair = p["skin"], p["hair"]
    shade = mix(skin, (0, 0, 0), 0.25)
    if p["long_hair"]:
        d.rounded_rectangle((cx - w * 0.25, h * 0.2, cx + w * 0.25, h * 0.72), radius=int(w * 0.12), fill=hair)
    d.ellipse((cx - w * 0.38, h * 0.72, cx + w * 0.38, h * 1.3), fill=p["shirt"])  # shoulders
    d.rectangle((cx - w * 0.07, h * 0.55, cx + w * 0.07, h * 0.76), fill=shade)  # neck
    d.ellipse((cx - w * 0.19, h * 0.22, cx + w * 0.19, h * 0.66), fill=skin)  # face
    d.chord((cx - w * 0.21, h * 0.16, cx + w * 0.21, h * 0.5), 180, 360, fill=hair)  # hair
    for side in (-1, 1):
        ex = cx + side * w * 0.075
        d.ellipse((ex - w * 0.03, h * 0.4, ex + w * 0.03, h * 0.44), fill=(255, 255, 255))
        d.ellipse((ex - w * 0.013, h * 0.405, ex + w * 0.013, h * 0.435), fill=(50, 40, 35))
        d.line((ex - w * 0.035, h * 0.38, ex + w * 0.035, h * 0.375), fill=hair, width=3)
        if p["glasses"]:
            d.ellipse((ex - w * 0.05, h * 0.385, ex + w * 0.05, h * 0.455), outline=(30, 30, 30), width=2)
    d.line((cx, h * 0.44, cx - w * 0.015, h * 0.5), fill=shade, width=2)
    d.arc((cx - w * 0.06, h * 0.49, cx + w * 0.06, h * 0.57), 20, 160, fill=(160, 60, 60), width=3)
    d.ellipse((cx - w * 0.21, h * 0.4, cx - w * 0.18, h * 0.48), fill=shade)  # ears
    d.ellipse((cx + w * 0.18, h * 0.4, cx + w * 0.21, h * 0.48), fill=shade)


def _car(img: Image.Image, d: ImageDraw.ImageDraw, p: Params, w: int, h: int, ground: RGB) -> None:
    d.rectangle((0, h * 0.62, w, h), fill=(240, 245, 250) if p.get("snow") else (80, 80, 85))
    for x in range(0, w, w // 6):
        d.rectangle((x, h * 0.85, x + w // 12, h * 0.87), fill=(240, 220, 90))
    cx = w * (0.5 + p["dx"])
    body, dark = p["body"], mix(p["body"], (0, 0, 0), 0.4)
    d.polygon([(cx - w * 0.22, h * 0.55), (cx - w * 0.12, h * 0.4), (cx + w * 0.14, h * 0.4), (cx + w * 0.24, h * 0.55)],
              fill=body, outline=dark)
    d.polygon([(cx - w * 0.18, h * 0.545), (cx - w * 0.11, h * 0.43), (cx - w * 0.01, h * 0.43), (cx - w * 0.01, h * 0.545)],
              fill=(170, 210, 235))
    d.polygon([(cx + w * 0.01, h * 0.545), (cx + w * 0.01, h * 0.43), (cx + w * 0.13, h * 0.43), (cx + w * 0.2, h * 0.545)],
              fill=(170, 210, 235))
    d.rounded_rectangle((cx - w * 0.38, h * 0.54, cx + w * 0.38, h * 0.7), radius=int(h * 0.04), fill=body, outline=dark, width=2)
    d.rectangle((cx + w * 0.33, h * 0.58, cx + w * 0.37, h * 0.61), fill=(255, 240, 170))  # headlight
    d.rectangle((cx - w * 0.37, h * 0.58, cx - w * 0.34, h * 0.61), fill=(200, 30, 30))  # tail light
    for wx in (cx - w * 0.22, cx + w * 0.22):
        r = h * 0.08
        d.ellipse((wx - r, h * 0.7 - r, wx + r, h * 0.7 + r), fill=(25, 25, 25))
        d.ellipse((wx - r * 0.45, h * 0.7 - r * 0.45, wx + r * 0.45, h * 0.7 + r * 0.45), fill=(170, 170, 175))


def _sign(img: Image.Image, d: ImageDraw.ImageDraw, p: Params, w: int, h: int, ground: RGB) -> None:
    img.paste(gradient((w, h), p["wall"], mix(p["wall"], (0, 0, 0), 0.5)), (0, 0))
    for y in range(int(h * 0.1), int(h * 0.7), max(8, h // 22)):  # brick rows
        d.line((0, y, w, y), fill=mix(p["wall"], (0, 0, 0), 0.3), width=1)
    d.rectangle((0, h * 0.75, w, h), fill=(30, 30, 38))
    glow = Image.new("RGB", (w, h), (0, 0, 0))
    gd = ImageDraw.Draw(glow)
    size = fit_size(p["text"], int(w * 0.78), int(h * 0.16))
    gd.rounded_rectangle((w * 0.08, h * 0.25, w * 0.92, h * 0.52), radius=10, outline=p["neon"], width=4)
    centered_text(gd, w / 2, h * 0.385, p["text"], size, p["neon"])
    blurred = glow.filter(ImageFilter.GaussianBlur(6))
    base = np.asarray(img, np.int16) + np.asarray(blurred, np.int16) + np.asarray(glow, np.int16) // 2
    img.paste(Image.fromarray(np.clip(base, 0, 255).astype(np.uint8)), (0, 0))
    d2 = ImageDraw.Draw(img)
    centered_text(d2, w / 2, h * 0.385, p["text"], size, mix(p["neon"], (255, 255, 255), 0.6))
    d2.ellipse((w * 0.2, h * 0.82, w * 0.8, h * 0.92), fill=mix(p["neon"], (30, 30, 38), 0.7))  # reflection
    if p.get("rain"):
        r = random.Random(len(p["text"]))
        for _ in range(70):
            rx, ry = r.uniform(0, w), r.uniform(0, h)
            d2.line((rx, ry, rx - 3, ry + 12), fill=(150, 160, 190), width=1)


def _poster(img: Image.Image, d: ImageDraw.ImageDraw, p: Params, w: int, h: int, ground: RGB) -> None:
    d.rectangle((0, 0, w, h), fill=p["bg"])
    m = int(min(w, h) * 0.05)
    d.rectangle((m, m, w - m, h - m), outline=p["accent"], width=4)
    d.ellipse((w * 0.3, h * 0.14, w * 0.7, h * 0.54), fill=p["accent"])
    d.polygon([(m, h * 0.62), (w * 0.35, h * 0.38), (w * 0.6, h * 0.62)], fill=mix(p["bg"], (0, 0, 0), 0.35))
    d.polygon([(w * 0.4, h * 0.62), (w * 0.7, h * 0.42), (w - m, h * 0.62)], fill=mix(p["bg"], (0, 0, 0), 0.5))
    ink = (20, 20, 20) if sum(p["bg"]) > 380 else (245, 240, 230)
    lines = wrap(p["text"], int(w * 0.8), int(h * 0.09))
    size = min(fit_size(line, int(w * 0.84), int(h * 0.09)) for line in lines)
    for i, line in enumerate(lines[:3]):
        centered_text(d, w / 2, h * (0.72 + 0.1 * i), line, size, ink)


def _receipt(img: Image.Image, d: ImageDraw.ImageDraw, p: Params, w: int, h: int, ground: RGB) -> None:
    d.rectangle((0, 0, w, h), fill=(120, 95, 70))  # wooden table
    x0, x1 = w * 0.2, w * 0.8
    d.polygon([(x0, h * 0.04), (x1, h * 0.04), (x1, h * 0.96), (x0, h * 0.96)], fill=(250, 248, 240))
    ink = (40, 40, 45)
    s = max(9, int(h * 0.04))
    centered_text(d, w / 2, h * 0.1, p["shop"], fit_size(p["shop"], int(x1 - x0 - 10), s + 2), ink)
    r = random.Random(p["seed"])
    names = ["LATTE", "CROISSANT", "FLAT WHITE", "MUFFIN", "CHAI", "BAGEL", "ESPRESSO"]
    y = h * 0.22
    for _ in range(p["items"]):
        name = r.choice(names)
        d.text((x0 + 8, y), name, font=font(s), fill=ink)
        d.text((x1 - 8, y), f"{r.uniform(2, 7):.2f}", font=font(s), fill=ink, anchor="ra")
        y += s * 1.6
    d.line((x0 + 8, y + 4, x1 - 8, y + 4), fill=ink, width=1)
    d.text((x0 + 8, y + 12), "TOTAL", font=font(s + 2), fill=ink)
    d.text((x1 - 8, y + 12), f"${p['text']}", font=font(s + 2), fill=ink, anchor="ra")
    for i in range(int(x0) + 8, int(x1) - 8, 5):  # barcode
        if r.random() < 0.6:
            d.line((i, h * 0.82, i, h * 0.9), fill=ink, width=2)


def _can(img: Image.Image, d: ImageDraw.ImageDraw, p: Params, w: int, h: int, ground: RGB) -> None:
    img.paste(gradient((w, h), p["bg"], mix(p["bg"], (90, 90, 90), 0.5)), (0, 0))
    d.ellipse((w * 0.25, h * 0.84, w * 0.75, h * 0.94), fill=(150, 150, 150))  # shadow
    x0, x1 = w * 0.32, w * 0.68
    d.rectangle((x0, h * 0.16, x1, h * 0.88), fill=p["body"])
    d.ellipse((x0, h * 0.12, x1, h * 0.2), fill=(200, 200, 205), outline=(120, 120, 125))
    d.ellipse((x0, h * 0.84, x1, h * 0.92), fill=p["body"])
    d.rectangle((x0 + (x1 - x0) * 0.12, h * 0.16, x0 + (x1 - x0) * 0.2, h * 0.86), fill=mix(p["body"], (255, 255, 255), 0.35))
    d.rectangle((x0, h * 0.42, x1, h * 0.6), fill=(250, 248, 240))
    size = fit_size(p["text"], int((x1 - x0) * 0.9), int(h * 0.1))
    centered_text(d, (x0 + x1) / 2, h * 0.51, p["text"], size, mix(p["body"], (0, 0, 0), 0.3))
