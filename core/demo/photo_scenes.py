"""Demo photos for the Anonymize workspace: drawn street, shop and gallery scenes.

The scenes contain what Anonymize is for, drawn so that the real detectors find
it: EU and US licence plates with readable characters, a shop sign and a name
badge (the PP-OCR text detector of :mod:`core.imaging.plates`), people whose
faces the demo marks with a manual region (CenterFace does not fire on drawn
faces), a tilted horizon and a keystoned painting to fix, and one JPEG stored
sideways with an EXIF orientation.  Every JPEG carries real EXIF (camera, date,
GPS, artist) so a release visibly strips it.  Everything is deterministic given
the seed: the same seed gives the same bytes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from core.demo import drawing as dd

Box = tuple[float, float, float, float]  # x, y, w, h in upright photo pixels
RGB = tuple[int, int, int]
SCALE = 2  # scenes are drawn at twice the photo size, then downsampled (anti-aliasing)
WIDTH, HEIGHT = 640, 427  # 3:2; the text detector's minimum input side is 640 anyway


@dataclass
class DemoPhoto:
    """One drawn photo, upright, with what the generator knows is in it."""

    name: str
    image: Image.Image  # upright pixels (what a person sees)
    category: str
    caption: str
    notes: str
    camera: tuple[str, str]  # EXIF make, model
    taken: str  # EXIF DateTimeOriginal, "YYYY:MM:DD HH:MM:SS"
    gps: tuple[float, float]  # latitude, longitude (degrees, signed)
    orientation: int = 1  # EXIF orientation of the stored JPEG (6 = stored sideways)
    plates: list[Box] = field(default_factory=list)  # licence plates
    texts: list[Box] = field(default_factory=list)  # signs, badges, labels
    faces: list[Box] = field(default_factory=list)  # drawn faces (manual regions)
    quad: list[tuple[float, float]] | None = None  # a painting's corners (keystone fix)
    tilt: float = 0.0  # the Straighten angle (clockwise degrees) that levels the horizon


# -- drawing helpers (coordinates in the 2x canvas) ----------------------------------------
def _eu_plate(d: ImageDraw.ImageDraw, x: float, y: float, w: float, text: str) -> Box:
    """A white EU plate with the blue band; returns its box."""
    h = w * 0.22
    d.rounded_rectangle((x, y, x + w, y + h), radius=h * 0.12, fill=(246, 246, 240),
                        outline=(30, 30, 30), width=max(2, round(h * 0.05)))
    band = w * 0.09
    d.rounded_rectangle((x + 3, y + 3, x + band, y + h - 3), radius=h * 0.08, fill=(0, 51, 153))
    for i in range(12):
        a = i * np.pi / 6
        sx, sy = x + band / 2 + 0.26 * band * np.cos(a), y + h * 0.33 + 0.26 * band * np.sin(a)
        d.ellipse((sx - 1.5, sy - 1.5, sx + 1.5, sy + 1.5), fill=(255, 204, 0))
    dd.centered_text(d, x + band / 2 + 1, y + h * 0.74, "D", round(h * 0.3), (255, 255, 255))
    size = dd.fit_size(text, round((w - band) * 0.86), round(h * 0.8))
    dd.centered_text(d, x + band + (w - band) / 2, y + h * 0.53, text, size, (22, 22, 22),
                     stroke=(22, 22, 22), stroke_width=1)
    return (x, y, w, h)


def _us_plate(d: ImageDraw.ImageDraw, x: float, y: float, w: float, text: str,
              state: str) -> Box:
    """A white US plate: state name on top, dark blue characters; returns its box."""
    h = w * 0.5
    d.rounded_rectangle((x, y, x + w, y + h), radius=h * 0.1, fill=(248, 248, 244),
                        outline=(90, 90, 95), width=max(2, round(h * 0.03)))
    dd.centered_text(d, x + w / 2, y + h * 0.17, state, round(h * 0.17), (175, 30, 40))
    size = dd.fit_size(text, round(w * 0.86), round(h * 0.56))
    dd.centered_text(d, x + w / 2, y + h * 0.56, text, size, (25, 40, 110),
                     stroke=(25, 40, 110), stroke_width=1)
    return (x, y, w, h)


def _label(d: ImageDraw.ImageDraw, cx: float, cy: float, text: str, size: int, fill: Any,
           bold: bool = False) -> Box:
    """Draw a centred line of text; returns the box of its ink."""
    stroke = 1 if bold else 0
    dd.centered_text(d, cx, cy, text, size, fill, stroke=fill if bold else None,
                     stroke_width=stroke)
    x0, y0, x1, y1 = d.textbbox((cx, cy), text, font=dd.font(size), anchor="mm",
                                stroke_width=stroke)
    return (x0, y0, x1 - x0, y1 - y0)


def _car_rear(d: ImageDraw.ImageDraw, cx: float, base: float, w: float, body: RGB,
              plate: Any) -> Box:
    """A car seen from behind standing on ``base``; ``plate(d, x, y, w)`` draws its plate."""
    h = w * 0.62
    top, dark = base - h, dd.mix(body, (0, 0, 0), 0.45)
    d.ellipse((cx - w * 0.56, base - h * 0.07, cx + w * 0.56, base + h * 0.05), fill=(28, 28, 30))
    for side in (-1, 1):
        wx = cx + side * w * 0.36
        d.rounded_rectangle((wx - w * 0.08, base - h * 0.22, wx + w * 0.08, base), radius=8,
                            fill=(18, 18, 20))
    d.polygon([(cx - w * 0.4, top + h * 0.44), (cx - w * 0.3, top), (cx + w * 0.3, top),
               (cx + w * 0.4, top + h * 0.44)], fill=body)
    d.polygon([(cx - w * 0.33, top + h * 0.4), (cx - w * 0.26, top + h * 0.05),
               (cx + w * 0.26, top + h * 0.05), (cx + w * 0.33, top + h * 0.4)], fill=(55, 68, 82))
    d.polygon([(cx - w * 0.2, top + h * 0.38), (cx - w * 0.1, top + h * 0.08),  # reflection
               (cx - w * 0.02, top + h * 0.08), (cx - w * 0.12, top + h * 0.38)],
              fill=(85, 100, 115))
    d.rounded_rectangle((cx - w * 0.5, top + h * 0.38, cx + w * 0.5, base - h * 0.14),
                        radius=round(w * 0.05), fill=body, outline=dark, width=2)
    for side in (-1, 1):
        x0, x1 = sorted((cx + side * w * 0.47, cx + side * w * 0.3))
        d.rounded_rectangle((x0, top + h * 0.46, x1, top + h * 0.58), radius=6, fill=(185, 25, 30))
    d.rounded_rectangle((cx - w * 0.5, base - h * 0.28, cx + w * 0.5, base - h * 0.12),
                        radius=10, fill=dark)
    pw = w * 0.32
    box: tuple[float, float, float, float] = plate(d, cx - pw / 2, top + h * 0.6, pw)
    return box


def _person(d: ImageDraw.ImageDraw, cx: float, head_top: float, head_h: float, skin: RGB,
            hair: RGB, shirt: RGB) -> Box:
    """A standing figure from the chest up; returns the face box."""
    hw = head_h * 0.76
    d.rounded_rectangle((cx - hw * 1.35, head_top + head_h * 1.02, cx + hw * 1.35,
                         head_top + head_h * 4.5), radius=round(hw * 0.7), fill=shirt)
    d.rectangle((cx - hw * 0.2, head_top + head_h * 0.8, cx + hw * 0.2, head_top + head_h * 1.15),
                fill=dd.mix(skin, (0, 0, 0), 0.2))
    d.ellipse((cx - hw * 0.56, head_top - head_h * 0.07, cx + hw * 0.56, head_top + head_h * 0.72),
              fill=hair)  # hair behind the head
    d.ellipse((cx - hw / 2, head_top, cx + hw / 2, head_top + head_h), fill=skin)
    d.chord((cx - hw * 0.5, head_top - head_h * 0.03, cx + hw * 0.5, head_top + head_h * 0.42),
            180, 360, fill=hair)  # fringe
    d.pieslice((cx - hw * 0.5, head_top - head_h * 0.03, cx + hw * 0.3, head_top + head_h * 0.5),
               180, 250, fill=hair)
    for side in (-1, 1):
        ex, ey = cx + side * hw * 0.2, head_top + head_h * 0.45
        d.ellipse((ex - hw * 0.08, ey - head_h * 0.03, ex + hw * 0.08, ey + head_h * 0.03),
                  fill=(250, 250, 250))
        d.ellipse((ex - hw * 0.035, ey - head_h * 0.03, ex + hw * 0.035, ey + head_h * 0.03),
                  fill=(45, 35, 30))
        d.line((ex - hw * 0.1, ey - head_h * 0.08, ex + hw * 0.1, ey - head_h * 0.09), fill=hair,
               width=max(2, round(head_h * 0.025)))
    d.line((cx, head_top + head_h * 0.5, cx - hw * 0.04, head_top + head_h * 0.64),
           fill=dd.mix(skin, (0, 0, 0), 0.3), width=2)
    d.arc((cx - hw * 0.17, head_top + head_h * 0.64, cx + hw * 0.17, head_top + head_h * 0.8),
          20, 160, fill=(150, 60, 60), width=max(2, round(head_h * 0.025)))
    return (cx - hw / 2, head_top, hw, head_h)


def _gradient(size: tuple[int, int], top: RGB, bottom: RGB) -> Image.Image:
    """A vertical gradient (as :func:`core.demo.drawing.gradient`, built line by line)."""
    column = Image.linear_gradient("L").resize((1, size[1]))
    return Image.merge("RGB", [column.point(lambda v, a=a, b=b: a + (b - a) * v / 255)
                               for a, b in zip(top, bottom, strict=True)]).resize(size)


def _mask_box(mask: Image.Image) -> Box:
    """The bounding box of a drawn mask (after the scene's transforms)."""
    x0, y0, x1, y1 = mask.getbbox() or (0, 0, 0, 0)
    return (float(x0), float(y0), float(x1 - x0), float(y1 - y0))


def _down(box: Box) -> Box:
    return tuple(round(v / SCALE, 1) for v in box)  # type: ignore[return-value]


def _finish(img: Image.Image, rng: np.random.Generator) -> Image.Image:
    """Downsample, darken the corners a little and add sensor noise (a photo, not a drawing)."""
    small = img.reduce(SCALE) if img.width * img.height > WIDTH * HEIGHT else img
    arr = np.asarray(small, np.float32)
    h, w = arr.shape[:2]
    ys = ((np.arange(h, dtype=np.float32) - h / 2) / (h / 2)) ** 2
    xs = ((np.arange(w, dtype=np.float32) - w / 2) / (w / 2)) ** 2
    shade = 1.0 - 0.09 * (ys[:, None] + xs[None, :])
    arr = arr * shade[..., None] + 2.2 * rng.standard_normal(arr.shape, np.float32) + 0.5
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGB")


def _facades(d: ImageDraw.ImageDraw, rnd: random.Random, w: int, ground: float) -> None:
    """A row of house fronts with windows ending at ``ground``."""
    x = -20.0
    while x < w:
        fw = rnd.uniform(0.22, 0.34) * w
        top = ground - rnd.uniform(0.5, 0.7) * ground
        wall = dd.jitter(rnd, rnd.choice([(215, 195, 160), (190, 120, 95), (200, 205, 200),
                                          (230, 220, 200)]), 12)
        d.rectangle((x, top, x + fw, ground), fill=wall, outline=dd.mix(wall, (0, 0, 0), 0.3))
        for wy in np.arange(top + 30, ground - 90, 95):
            for wx in np.arange(x + 24, x + fw - 60, 78):
                d.rectangle((wx, wy, wx + 44, wy + 60), fill=(70, 85, 100),
                            outline=(240, 240, 235), width=4)
        x += fw


# -- scenes -------------------------------------------------------------------------------------
def _eu_street(rnd: random.Random) -> tuple[Image.Image, dict[str, list[Box]], float]:
    """A parked car with an EU plate in a street, horizon tilted (returns the tilt)."""
    w, h = WIDTH * SCALE, HEIGHT * SCALE
    pad = SCALE * round(0.04 * w)
    W, H = w + 2 * pad, h + 2 * pad  # noqa: N806 - the padded canvas
    img = _gradient((W, H), (120, 170, 225), (205, 225, 240))
    d = ImageDraw.Draw(img)
    ground = pad + h * 0.58
    _facades(d, rnd, W, ground)
    d.rectangle((0, ground, W, ground + 40), fill=(175, 172, 165))  # pavement
    d.rectangle((0, ground + 40, W, H), fill=(88, 88, 92))  # road
    for x in range(0, W, 260):
        d.rectangle((x, H - pad - 70, x + 140, H - pad - 58), fill=(235, 235, 225))
    city = rnd.choice(["B", "M", "HH", "K", "F"])
    letters = "".join(rnd.choice("ABCDEFGHKLMNPRSTUVWXZ") for _ in range(2))
    text = f"{city} {letters} {rnd.randint(10, 9999)}"
    mask = Image.new("L", (W, H), 0)
    body = rnd.choice([(40, 90, 200), (200, 40, 45), (235, 235, 230), (50, 150, 70)])
    box = _car_rear(d, W / 2 + rnd.uniform(-60, 60), pad + h * 0.9, w * 0.5, body,
                    lambda dr, x, y, pw: _eu_plate(dr, x, y, pw, text))
    ImageDraw.Draw(mask).rectangle((box[0], box[1], box[0] + box[2], box[1] + box[3]), fill=255)
    angle = rnd.choice([-1, 1]) * rnd.uniform(3.0, 5.0)  # rotated at photo size (faster)
    crop = (pad // SCALE, pad // SCALE, (pad + w) // SCALE, (pad + h) // SCALE)
    img = img.reduce(SCALE).rotate(angle, resample=Image.Resampling.BICUBIC).crop(crop)
    mask = mask.reduce(SCALE).rotate(angle, resample=Image.Resampling.BILINEAR).crop(crop)
    return img, {"plates_final": [_mask_box(mask.point(lambda v: 255 if v >= 128 else 0))]}, angle


def _us_parking(rnd: random.Random) -> tuple[Image.Image, dict[str, list[Box]]]:
    """A car with a US plate in a parking lot."""
    w, h = WIDTH * SCALE, HEIGHT * SCALE
    img = _gradient((w, h), (135, 180, 230), (215, 230, 245))
    d = ImageDraw.Draw(img)
    ground = h * 0.45
    d.rectangle((0, ground - 150, w, ground), fill=(190, 180, 165))  # a store far away
    for x in range(40, w, 180):
        d.rectangle((x, ground - 110, x + 120, ground - 20), fill=(95, 120, 140))
    d.rectangle((0, ground, w, h), fill=(72, 73, 78))
    for bay in range(-200, w + 200, 330):  # bay lines in perspective
        d.line((bay, h, w / 2 + (bay - w / 2) * 0.35, ground), fill=(225, 225, 215), width=9)
    text = f"{rnd.randint(2, 9)}{''.join(rnd.choice('ABCDEFGHJKLMNPRTUVWXY') for _ in range(3))}" \
           f"{rnd.randint(100, 999)}"
    state = rnd.choice(["OREGON", "NEVADA", "OHIO", "MAINE"])
    body = rnd.choice([(235, 200, 40), (130, 70, 170), (30, 150, 150), (35, 35, 40)])
    box = _car_rear(d, w / 2 + rnd.uniform(-80, 80), h * 0.93, w * 0.52, body,
                    lambda dr, x, y, pw: _us_plate(dr, x, y - pw * 0.12, pw * 0.8, text, state))
    return img, {"plates": [box]}


def _bakery(rnd: random.Random) -> tuple[Image.Image, dict[str, list[Box]]]:
    """A shop front with a sign and its owner in the door."""
    w, h = WIDTH * SCALE, HEIGHT * SCALE
    wall = dd.jitter(rnd, (150, 95, 70), 15)
    img = _gradient((w, h), dd.mix(wall, (255, 255, 255), 0.15), dd.mix(wall, (0, 0, 0), 0.2))
    d = ImageDraw.Draw(img)
    for y in range(0, h, 26):  # brick courses
        d.line((0, y, w, y), fill=dd.mix(wall, (0, 0, 0), 0.25), width=2)
    sign = (w * 0.14, h * 0.06, w * 0.86, h * 0.3)
    d.rounded_rectangle(sign, radius=18, fill=(32, 52, 44), outline=(200, 170, 90), width=8)
    shop = rnd.choice(["BAKERY", "BÄCKEREI", "BOULANGERIE"])
    owner = rnd.choice(["ROSA & SONS", "MARTA BREAD", "LINDEN CORNER"])
    size = dd.fit_size(shop, round(w * 0.6), 110)
    lines = [_label(d, w / 2, h * 0.155, shop, size, (240, 215, 140)),
             _label(d, w / 2, h * 0.255, owner, 40, (230, 230, 220))]
    d.rectangle((w * 0.06, h * 0.36, w * 0.5, h * 0.85), fill=(60, 50, 45))  # shop window
    d.rectangle((w * 0.075, h * 0.38, w * 0.485, h * 0.83), fill=(150, 165, 170))
    for i in range(5):  # loaves on the shelf
        lx = w * (0.1 + i * 0.075)
        d.ellipse((lx, h * 0.66, lx + w * 0.06, h * 0.72), fill=(190, 130, 60))
    d.rectangle((w * 0.075, h * 0.72, w * 0.485, h * 0.74), fill=(110, 80, 55))
    d.rectangle((w * 0.58, h * 0.36, w * 0.88, h), fill=(45, 35, 30))  # doorway
    d.rectangle((w * 0.6, h * 0.38, w * 0.86, h), fill=(95, 80, 62))
    d.rectangle((0, h * 0.92, w, h), fill=(165, 160, 150))
    face = _person(d, w * 0.73, h * 0.46, h * 0.2, rnd.choice([(235, 200, 170), (200, 150, 115),
                   (140, 95, 70)]), rnd.choice([(45, 35, 30), (150, 110, 60), (200, 200, 200)]),
                   dd.jitter(rnd, rnd.choice([(70, 110, 160), (160, 60, 60), (80, 120, 80)]), 10))
    return img, {"texts": lines, "faces": [face]}


def _name_badge(rnd: random.Random) -> tuple[Image.Image, dict[str, list[Box]]]:
    """A portrait-format photo of a person wearing a name badge (stored sideways)."""
    w, h = HEIGHT * SCALE, WIDTH * SCALE  # upright portrait
    bg = dd.jitter(rnd, (170, 185, 200), 15)
    img = _gradient((w, h), dd.mix(bg, (255, 255, 255), 0.3), dd.mix(bg, (0, 0, 0), 0.25))
    d = ImageDraw.Draw(img)
    shirt = rnd.choice([(40, 70, 120), (60, 60, 65), (120, 40, 50)])
    face = _person(d, w / 2, h * 0.13, h * 0.26, rnd.choice([(240, 205, 175), (205, 160, 120),
                   (120, 85, 60)]), rnd.choice([(40, 30, 25), (120, 80, 40), (220, 190, 120)]),
                   shirt)
    bx, by, bw = w * 0.46, h * 0.6, w * 0.42
    bh = bw * 0.64
    d.line((w * 0.4, h * 0.42, bx + bw * 0.3, by), fill=(200, 40, 40), width=6)  # lanyard
    d.line((w * 0.6, h * 0.42, bx + bw * 0.7, by), fill=(200, 40, 40), width=6)
    d.rounded_rectangle((bx, by, bx + bw, by + bh), radius=12, fill=(250, 250, 248),
                        outline=(120, 120, 120), width=2)
    d.rounded_rectangle((bx, by, bx + bw, by + bh * 0.34), radius=12, fill=(200, 35, 45))
    hello = _label(d, bx + bw / 2, by + bh * 0.14, "HELLO", round(bh * 0.17), (255, 255, 255))
    name = rnd.choice(["SAM", "ANNA", "JONAS", "MEI", "OMAR"])
    size = dd.fit_size(name, round(bw * 0.8), round(bh * 0.4))
    named = _label(d, bx + bw / 2, by + bh * 0.66, name, size, (20, 20, 24), bold=True)
    return img, {"texts": [hello, named], "faces": [face]}


def _gallery(rnd: random.Random) -> tuple[Image.Image, dict[str, list[Box]], list[Any]]:
    """A painting shot from below (keystone) with its wall label."""
    import cv2

    w, h = WIDTH * SCALE, HEIGHT * SCALE
    wall = dd.jitter(rnd, (232, 228, 218), 8)
    img = _gradient((w, h), wall, dd.mix(wall, (0, 0, 0), 0.12))
    ImageDraw.Draw(img).rectangle((0, h * 0.9, w, h), fill=(120, 95, 70))  # floor
    flat = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(flat)
    px0, py0, px1, py1 = w * 0.16, h * 0.12, w * 0.66, h * 0.8
    d.rectangle((px0 - 22, py0 - 22, px1 + 22, py1 + 22), fill=(150, 115, 50, 255))
    art = dd.draw_scene(dd.random_params("landscape", rnd), (round(px1 - px0), round(py1 - py0)))
    flat.paste(art, (round(px0), round(py0)))
    lx, ly = w * 0.72, h * 0.5
    d.rectangle((lx, ly, lx + w * 0.22, ly + h * 0.16), fill=(252, 252, 250, 255),
                outline=(170, 170, 170, 255), width=2)
    title = rnd.choice(["EVENING FIELD", "QUIET HILLS", "LATE SUMMER"])
    lines = [_label(d, lx + w * 0.11, ly + h * 0.05, title,
                    dd.fit_size(title, round(w * 0.19), 30), (25, 25, 25)),
             _label(d, lx + w * 0.11, ly + h * 0.11, f"oil, {rnd.randint(1890, 1960)}", 22,
                    (70, 70, 70))]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    k = rnd.uniform(0.08, 0.11) * w  # the top edge looks shorter: shot from below
    dst = np.array([[k, h * 0.05], [w - k, h * 0.05], [w, h * 0.97], [0, h * 0.97]],
                   dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(src, dst)
    warped = cv2.warpPerspective(np.asarray(flat), matrix, (w, h), flags=cv2.INTER_LINEAR)
    img.paste(Image.fromarray(warped[..., :3]), (0, 0), Image.fromarray(warped[..., 3]))

    def warp(points: list[tuple[float, float]]) -> np.ndarray:
        moved: np.ndarray = np.asarray(
            cv2.perspectiveTransform(np.array([points], dtype=np.float32), matrix))
        result: np.ndarray = moved[0] / SCALE
        return result

    frame = warp([(px0 - 22, py0 - 22), (px1 + 22, py0 - 22), (px1 + 22, py1 + 22),
                  (px0 - 22, py1 + 22)])
    quad = [(round(float(x), 1), round(float(y), 1)) for x, y in frame]
    texts = []
    for x, y, bw, bh in lines:  # the box around each warped line of text
        q = warp([(x, y), (x + bw, y), (x + bw, y + bh), (x, y + bh)])
        (x0, y0), (x1, y1) = q.min(axis=0), q.max(axis=0)
        texts.append((float(x0), float(y0), float(x1 - x0), float(y1 - y0)))
    return img, {"texts_final": texts}, quad


# -- assembly ----------------------------------------------------------------------------------
_PLACES = {"eu": (52.52, 13.40), "us": (45.52, -122.68)}


def _shot(name: str, img: Image.Image, truth: dict[str, list[Box]], rng: np.random.Generator,
          rnd: random.Random, **meta: Any) -> DemoPhoto:
    lat, lon = _PLACES[meta.pop("place")]
    day = f"2024:{rnd.randint(4, 9):02d}:{rnd.randint(1, 28):02d}"
    return DemoPhoto(
        name=name, image=_finish(img, rng), taken=f"{day} {rnd.randint(8, 18):02d}:"
        f"{rnd.randint(0, 59):02d}:{rnd.randint(0, 59):02d}",
        gps=(round(lat + rnd.uniform(-0.03, 0.03), 5), round(lon + rnd.uniform(-0.03, 0.03), 5)),
        plates=[_down(b) for b in truth.get("plates", [])] + truth.get("plates_final", []),
        texts=[_down(b) for b in truth.get("texts", [])] + truth.get("texts_final", []),
        faces=[_down(b) for b in truth.get("faces", [])], **meta)


def draw_demo_photos(seed: int = 0) -> list[DemoPhoto]:
    """The demo's photos (upright) with their truth, deterministic given ``seed``."""
    rnd = random.Random(f"demo-photos-{seed}")
    rng = np.random.default_rng(seed)
    street, truth, angle = _eu_street(rnd)
    gallery, gtruth, quad = _gallery(rnd)
    return [
        _shot("01-street-eu-plate.jpg", street, truth, rng, rnd, category="Vehicle", place="eu",
              caption="Parked car, German plate", camera=("FUJIFILM", "X-T30"), tilt=angle,
              notes=f"Demo: plate found by the text detector. The horizon tilts: fix it "
                    f"with Straighten (about {angle:+.1f}°)."),
        _shot("02-parking-us-plate.jpg", *_us_parking(rnd), rng, rnd, category="Vehicle",
              place="us", caption="Parking lot", camera=("Canon", "Canon EOS R6"),
              notes="Demo: a US-style plate, found by the text detector."),
        _shot("03-bakery-sign.jpg", *_bakery(rnd), rng, rnd, category="Text", place="eu",
              caption="Corner bakery", camera=("FUJIFILM", "X-T30"),
              notes="Demo: drawn faces are not detected, so this face has a region drawn "
                    "by hand. The sign was found as text."),
        _shot("04-name-badge.jpg", *_name_badge(rnd), rng, rnd, category="Text", place="us",
              caption="Conference guest", camera=("Google", "Pixel 7"), orientation=6,
              notes="Demo: stored sideways (EXIF orientation 6), shown upright. Badge "
                    "found as text; face region drawn by hand."),
        _shot("05-gallery-keystone.jpg", gallery, gtruth, rng, rnd, category="Art", place="eu",
              caption="Painting in a gallery", camera=("SONY", "ILCE-7M3"), quad=quad,
              notes="Demo: keystone; drag Perspective corners onto the frame. The wall "
                    "label was found as text but is not personal: delete it."),
    ]
