"""Chat-app screenshots and before/after collages for the demo data set.

The pictures pasted into a screenshot keep their pixels, and the exact box of each is
returned, so a test can check that cropping a screenshot by its box gives it back.
"""

from __future__ import annotations

import random

from PIL import Image, ImageDraw

from core.demo.drawing import RGB, Box, centered_text, font, mix, text_width, wrap


def _theme(dark: bool) -> dict[str, RGB]:
    if dark:
        return {"bg": (33, 33, 36), "bar": (24, 24, 27), "fg": (236, 236, 240), "muted": (150, 150, 160),
                "bubble": (55, 55, 62), "field": (48, 48, 54)}
    return {"bg": (255, 255, 255), "bar": (244, 244, 246), "fg": (28, 28, 32), "muted": (120, 120, 130),
            "bubble": (236, 236, 241), "field": (244, 244, 246)}


def chat_screenshot(prompt: str, inputs: list[Image.Image], outputs: list[Image.Image],
                    rnd: random.Random, size: tuple[int, int] = (720, 900)
                    ) -> tuple[Image.Image, list[Box], list[Box]]:
    """A chat-app screenshot: user message (input pictures + prompt), assistant reply (outputs).

    Returns the screenshot and the exact ``(x, y, w, h)`` boxes where each input and
    output picture was pasted (pixels inside a box are the picture, unchanged).
    """
    W, H = size
    dark = rnd.random() < 0.35
    t = _theme(dark)
    img = Image.new("RGB", size, t["bg"])
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, W, 52), fill=t["bar"])
    for i, c in enumerate([(255, 95, 86), (255, 189, 46), (39, 201, 63)]):
        d.ellipse((16 + 22 * i, 19, 30 + 22 * i, 33), fill=c)
    centered_text(d, W / 2, 26, rnd.choice(["ChatGPT 4o", "ChatGPT", "New chat"]), 18, t["fg"])
    d.line((0, 52, W, 52), fill=t["muted"])
    margin = 24
    y = 72
    in_boxes: list[Box] = []
    out_boxes: list[Box] = []
    # user's pictures, right-aligned
    if inputs:
        side = 200 if len(inputs) == 1 else 150
        x = W - margin - side * len(inputs) - 8 * (len(inputs) - 1)
        for pic in inputs:
            tile = pic.resize((side, side * pic.height // pic.width), Image.Resampling.LANCZOS)
            img.paste(tile, (x, y))
            in_boxes.append((x, y, tile.width, tile.height))
            x += side + 8
        y += max(b[3] for b in in_boxes) + 10
    # the prompt bubble
    fs = 17
    lines = wrap(prompt, 420, fs)[:5]
    bw = max(text_width(line, fs) for line in lines) + 32
    bh = len(lines) * (fs + 6) + 22
    d.rounded_rectangle((W - margin - bw, y, W - margin, y + bh), radius=18, fill=t["bubble"])
    for i, line in enumerate(lines):
        d.text((W - margin - bw + 16, y + 11 + i * (fs + 6)), line, font=font(fs), fill=t["fg"])
    y += bh + 22
    # assistant avatar and label
    d.ellipse((margin, y, margin + 30, y + 30), fill=(16, 163, 127))
    centered_text(d, margin + 15, y + 15, "*", 18, (255, 255, 255))
    d.text((margin + 42, y + 6), rnd.choice(["Image created", "Here is your image", "Created image"]),
           font=font(16), fill=t["muted"])
    y += 42
    avail_h = H - y - 110
    x = margin + 42
    if len(outputs) == 1:
        side = min(380, avail_h)
    else:
        side = min((W - x - margin - 10 * (len(outputs) - 1)) // len(outputs), avail_h)
    for pic in outputs:
        tile = pic.resize((side, side * pic.height // pic.width), Image.Resampling.LANCZOS)
        if tile.height > avail_h:
            tile = pic.resize((avail_h * pic.width // pic.height, avail_h), Image.Resampling.LANCZOS)
        img.paste(tile, (x, y))
        out_boxes.append((x, y, tile.width, tile.height))
        x += tile.width + 10
    y += max(b[3] for b in out_boxes) + 14
    for i in range(4):  # action icons
        d.rounded_rectangle((margin + 42 + i * 30, y, margin + 60 + i * 30, y + 18), radius=4, outline=t["muted"])
    # input field
    d.rounded_rectangle((margin, H - 70, W - margin, H - 20), radius=25, fill=t["field"])
    d.text((margin + 22, H - 55), "Message ChatGPT", font=font(17), fill=t["muted"])
    d.ellipse((W - margin - 44, H - 64, W - margin - 6, H - 26), fill=t["fg"])
    centered_text(d, W - margin - 25, H - 45, "^", 18, t["bg"])
    return img, in_boxes, out_boxes


def collage_screenshot(inputs: list[Image.Image], outputs: list[Image.Image], rnd: random.Random,
                       width: int = 720) -> tuple[Image.Image, list[Box], list[Box]]:
    """A side-by-side "before → after" collage with labels; returns it and the exact boxes."""
    pics = [*inputs, *outputs]
    gap = 16
    side = min((width - gap * (len(pics) + 1)) // len(pics), 320)
    tiles = [pic.resize((side, side * pic.height // pic.width), Image.Resampling.LANCZOS) for pic in pics]
    tile_h = max(t.height for t in tiles)
    W, H = width, 70 + tile_h + 56
    bg = rnd.choice([(250, 250, 250), (20, 20, 24), (240, 232, 220)])
    fg = (20, 20, 20) if sum(bg) > 380 else (240, 240, 240)
    img = Image.new("RGB", (W, H), bg)
    d = ImageDraw.Draw(img)
    x, y = (W - len(pics) * side - (len(pics) - 1) * gap) // 2, 70
    boxes: list[Box] = []
    for k, tile in enumerate(tiles):
        img.paste(tile, (x, y))
        boxes.append((x, y, tile.width, tile.height))
        label = "BEFORE" if k < len(inputs) else ("AFTER" if len(outputs) == 1 else f"AFTER {k - len(inputs) + 1}")
        centered_text(d, x + side / 2, y - 24, label, 22, fg)
        x += side + gap
    if inputs and outputs:
        bx = boxes[len(inputs) - 1]
        centered_text(d, bx[0] + bx[2] + gap / 2, y + tile_h / 2, ">", 20, fg)
    centered_text(d, W / 2, H - 24, "made with 4o image gen", 15, mix(fg, bg, 0.4))
    return img, boxes[: len(inputs)], boxes[len(inputs):]
