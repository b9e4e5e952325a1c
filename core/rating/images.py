"""Images for session files: metadata stripped (blinding), and degraded gold copies.

Generated images often carry their maker in metadata (PNG text chunks with the
workflow or "Software", EXIF/XMP in JPEGs).  A rater file must not name a model, so
every image is cleaned before it goes in: PNG and other formats are decoded and
re-encoded as PNG (pixels unchanged, only the ICC profile kept); JPEGs lose every
APPn/COM segment except JFIF and the ICC profile, without re-encoding (a JPEG with
an EXIF rotation is rotated and re-encoded at quality 95 instead).
"""

from __future__ import annotations

import io
import struct

JPEG_KEEP_APP = {0xE0, 0xE2}  # APP0 (JFIF), APP2 (ICC profile)


def sanitize_image(data: bytes) -> tuple[bytes, str]:
    """Return the image without identifying metadata, and its extension."""
    from PIL import Image, ImageOps

    with Image.open(io.BytesIO(data)) as img:
        fmt = img.format
        orientation = img.getexif().get(0x0112, 1)
        if fmt == "JPEG" and orientation in (None, 1):
            try:
                return strip_jpeg(data), "jpg"
            except ValueError:
                pass
        icc = img.info.get("icc_profile")
        img.load()
        img = ImageOps.exif_transpose(img)
        out = io.BytesIO()
        if fmt == "JPEG":
            img.save(out, "JPEG", quality=95, icc_profile=icc)
            return out.getvalue(), "jpg"
        if img.mode not in ("1", "L", "LA", "I", "P", "RGB", "RGBA"):
            img = img.convert("RGBA" if "A" in img.getbands() else "RGB")
        img.save(out, "PNG", icc_profile=icc) if icc else img.save(out, "PNG")
        return out.getvalue(), "png"


def strip_jpeg(data: bytes) -> bytes:
    """Drop APP1..APP15 (except APP2/ICC) and COM segments of a baseline JPEG stream."""
    if data[:2] != b"\xff\xd8":
        raise ValueError("not a JPEG")
    out = bytearray(b"\xff\xd8")
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            raise ValueError("corrupt JPEG marker")
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker == 0xDA:  # start of scan: the rest is image data
            out += data[i:]
            return bytes(out)
        (length,) = struct.unpack(">H", data[i + 2:i + 4])
        segment = data[i:i + 2 + length]
        if len(segment) < 2 + length:
            raise ValueError("truncated JPEG segment")
        drop = (0xE0 <= marker <= 0xEF and marker not in JPEG_KEEP_APP) or marker == 0xFE
        if not drop:
            out += segment
        i += 2 + length
    raise ValueError("JPEG without image data")


def degrade_image(data: bytes) -> bytes:
    """A heavily degraded copy (blocky, blurred, washed out) for obvious gold tasks.

    Deterministic: the same input always gives the same bytes.
    """
    from PIL import Image, ImageEnhance, ImageFilter, ImageOps

    with Image.open(io.BytesIO(data)) as img:
        img = ImageOps.exif_transpose(img).convert("RGB")
    w, h = img.size
    small = img.resize((max(1, w // 14), max(1, h // 14)), Image.Resampling.BILINEAR)
    img = small.resize((w, h), Image.Resampling.NEAREST)
    img = img.filter(ImageFilter.GaussianBlur(radius=max(2.0, min(w, h) / 60)))
    img = ImageEnhance.Contrast(img).enhance(0.45)
    img = ImageEnhance.Color(img).enhance(0.3)
    out = io.BytesIO()
    img.save(out, "JPEG", quality=12)
    return out.getvalue()
