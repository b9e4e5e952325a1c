"""Model outputs that carry their maker everywhere a generator might write it (issue #12).

Each model has its own container: format, size, orientation, encoder settings, and its
name in EXIF Software, PNG tEXt/zTXt/iTXt/eXIf, XMP, a non-ICC APP2 segment, a COM
segment between progressive scans, bytes after EOI/IEND and a named ICC profile.  The
*pictures* are alike: every output of a sample is the sample's picture (512×384) plus
noise whose strength is drawn per output from one distribution, stored at the model's
own size (never smaller: a smaller picture would look softer, which a rater sees), so
nothing but the container tells the models apart.  Tests use them with a 512-pixel
canvas (:data:`LONG_SIDE`), so every output is shown at the picture's own resolution.
"""

from __future__ import annotations

import io
import random
import struct
import zlib

import numpy as np
from PIL import Image, ImageCms, PngImagePlugin

MODELS = ("aurora-xl", "brushwork-2", "pixelforge", "lumen-edit")
BASE = (512, 384)
#: the canvas side the tests use with these outputs
LONG_SIDE = 512


def markers(model: str) -> list[bytes]:
    """Byte strings that give ``model`` away (its name in several spellings, its tags)."""
    out = []
    for text in (model, model.upper(), model.replace("-", ""), f"{model} sRGB display",
                 f"made-with={model}", f"{model} v2 seed=42"):
        out += [text.encode(), text.encode("utf-16-le"), text.encode("utf-16-be")]
    return out


def named_icc(model: str) -> bytes:
    """An sRGB profile that carries ``model`` in a description appended to its data."""
    data = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    extra = f"desc:{model} sRGB display".encode()
    data = data + extra + b"\x00" * (-len(extra) % 4)
    return struct.pack(">I", len(data)) + data[4:]


def _xmp(model: str) -> bytes:
    return (f'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/'
            f'1999/02/22-rdf-syntax-ns#"><rdf:Description xmp:CreatorTool="{model}" '
            f'xmlns:xmp="http://ns.adobe.com/xap/1.0/"/></rdf:RDF></x:xmpmeta>').encode()


def _exif(model: str, orientation: int = 1) -> bytes:
    exif = Image.Exif()
    exif[0x0131] = f"made-with={model}"   # Software
    exif[0x010F] = model                  # Make
    exif[0x0112] = orientation
    return exif.tobytes()


def picture(sample: int, model: str) -> np.ndarray:
    """The sample's picture with this output's own noise (same distribution per model)."""
    rng = np.random.default_rng(sample)
    w, h = BASE
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    phase = rng.uniform(0, 6, 3)
    base = np.stack([128 + 90 * np.sin(x / (20 + 7 * k) + phase[k]) * np.cos(y / 33)
                     for k in range(3)], -1)
    blobs = rng.normal(0, 1, (h // 16, w // 16, 3))
    base += 25 * np.kron(blobs, np.ones((16, 16, 1)))
    mine = np.random.default_rng(zlib.crc32(f"{sample}:{model}".encode()))
    sigma = mine.uniform(3, 14)
    return np.clip(base + mine.normal(0, sigma, base.shape), 0, 255).astype(np.uint8)


def _segment(marker: int, payload: bytes) -> bytes:
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


def _chunk(kind: bytes, payload: bytes) -> bytes:
    return (struct.pack(">I", len(payload)) + kind + payload
            + struct.pack(">I", zlib.crc32(kind + payload)))


def _insert_png_chunks(data: bytes, chunks: list[bytes]) -> bytes:
    at = data.index(b"IDAT") - 4
    return data[:at] + b"".join(chunks) + data[at:]


def output(sample: int, model: str) -> tuple[bytes, str]:
    """The file ``model`` wrote for ``sample``: (bytes, extension)."""
    img = Image.fromarray(picture(sample, model), "RGB")
    out = io.BytesIO()
    if model == "aurora-xl":  # PNG at the picture's size, text chunks of every kind
        info = PngImagePlugin.PngInfo()
        info.add_text("Software", f"made-with={model}")
        info.add_text("parameters", f"{model} v2 seed=42", zip=True)
        info.add_itxt("XML:com.adobe.xmp", _xmp(model).decode(), zip=False)
        img.save(out, "PNG", pnginfo=info, icc_profile=named_icc(model))
        data = _insert_png_chunks(out.getvalue(), [_chunk(b"eXIf", _exif(model))])
        return data + f"{model} v2 seed=42".encode(), "png"
    if model == "brushwork-2":  # JPEG 1.5× larger, stored on its side with EXIF rotation
        big = img.resize((768, 576), Image.Resampling.BICUBIC).transpose(
            Image.Transpose.ROTATE_90)
        big.save(out, "JPEG", quality=93, subsampling=0, exif=_exif(model, orientation=6))
        data = out.getvalue()
        extra = (_segment(0xE1, b"http://ns.adobe.com/xap/1.0/\x00" + _xmp(model))
                 + _segment(0xE2, f"MPF-ish {model}".encode())
                 + _segment(0xFE, f"made-with={model}".encode()))
        return data[:2] + extra + data[2:] + f"{model} v2 seed=42".encode(), "jpg"
    if model == "pixelforge":  # progressive JPEG 2× larger, named ICC, COM between scans
        big = img.resize((1024, 768), Image.Resampling.BICUBIC)
        big.save(out, "JPEG", quality=96, progressive=True, icc_profile=named_icc(model),
                 subsampling=0)
        data = out.getvalue()
        second = data.find(b"\xff\xda", data.find(b"\xff\xda") + 2)
        return (data[:second] + _segment(0xFE, f"made-with={model}".encode())
                + data[second:]), "jpg"
    # lumen-edit: RGBA PNG at 2×, iTXt, zTXt, eXIf and a named iCCP
    big = img.resize((1024, 768), Image.Resampling.BICUBIC).convert("RGBA")
    info = PngImagePlugin.PngInfo()
    info.add_itxt("Description", f"{model} sRGB display", zip=True)
    info.add_text("Comment", f"made-with={model}", zip=True)
    big.save(out, "PNG", pnginfo=info, icc_profile=named_icc(model), compress_level=1)
    data = _insert_png_chunks(out.getvalue(), [_chunk(b"eXIf", _exif(model))])
    return data + bytes(random.Random(sample).randbytes(7)) + model.encode(), "png"
