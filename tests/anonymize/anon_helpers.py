"""Helpers for the anonymization tests: synthetic photos with metadata, testdata paths."""

from __future__ import annotations

import io
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
from PIL import Image, ImageCms
from shared_data import TESTDATA, missing, need_testdata  # noqa: F401 - re-exported


def need_centerface() -> None:
    """Skip (fail in CI) unless CenterFace and onnxruntime are installed."""
    from core.imaging.faces import centerface_available

    if not centerface_available():
        missing("CenterFace cannot run here: resources/models/centerface.onnx or onnxruntime "
                "(the [anonymize] extra) is missing")


def face_boxes() -> list[tuple[Path, list[tuple[int, int, int, int]]]]:
    """Annotated dlib faces: (image path, [(left, top, width, height)])."""
    folder = need_testdata("faces")
    out = []
    for name in ("training.xml", "testing.xml"):
        for image in ET.parse(folder / name).getroot().iter("image"):
            boxes = [(int(b.get("left")), int(b.get("top")), int(b.get("width")),
                      int(b.get("height"))) for b in image.iter("box")
                     if b.get("ignore") != "1"]
            out.append((folder / image.get("file"), boxes))
    return out


def quadrant_image(width: int = 240, height: int = 160) -> np.ndarray:
    """Four flat colours (red TL, green TR, blue BL, white BR) plus texture."""
    rgb = np.zeros((height, width, 3), np.uint8)
    rgb[: height // 2, : width // 2] = (220, 30, 30)
    rgb[: height // 2, width // 2:] = (30, 200, 30)
    rgb[height // 2:, : width // 2] = (30, 30, 220)
    rgb[height // 2:, width // 2:] = (240, 240, 240)
    rng = np.random.default_rng(0)
    return np.clip(rgb.astype(int) + rng.integers(-12, 12, rgb.shape), 0, 255).astype(np.uint8)


def _exif_with_gps_and_thumbnail(orientation: int, thumbnail: bytes) -> bytes:
    """A little-endian TIFF/EXIF block: IFD0 (orientation, GPS pointer), GPS IFD, IFD1
    pointing at an embedded JPEG thumbnail."""
    def ifd(entries: list[tuple[int, int, int, bytes]], next_offset: int) -> bytes:
        out = struct.pack("<H", len(entries))
        for tag, kind, count, value in entries:
            out += struct.pack("<HHI", tag, kind, count) + value.ljust(4, b"\0")
        return out + struct.pack("<I", next_offset)

    ifd0_at = 8
    ifd0_size = 2 + 2 * 12 + 4
    gps_at = ifd0_at + ifd0_size
    gps_size = 2 + 2 * 12 + 4
    lat_at = gps_at + gps_size
    lat = struct.pack("<6I", 52, 1, 31, 1, 1234, 100)
    ifd1_at = lat_at + len(lat)
    ifd1_size = 2 + 2 * 12 + 4
    thumb_at = ifd1_at + ifd1_size
    data = b"II*\0" + struct.pack("<I", ifd0_at)
    data += ifd([(0x0112, 3, 1, struct.pack("<H", orientation)),
                 (0x8825, 4, 1, struct.pack("<I", gps_at))], ifd1_at)
    data += ifd([(0x0001, 2, 2, b"N\0"), (0x0002, 5, 3, struct.pack("<I", lat_at))], 0)
    data += lat
    data += ifd([(0x0201, 4, 1, struct.pack("<I", thumb_at)),
                 (0x0202, 4, 1, struct.pack("<I", len(thumbnail)))], 0)
    data += thumbnail
    return b"Exif\0\0" + data


def _segment(marker: int, payload: bytes) -> bytes:
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


XMP = (b"http://ns.adobe.com/xap/1.0/\0<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF "
       b"xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'><rdf:Description "
       b"xmlns:dc='http://purl.org/dc/elements/1.1/'><dc:creator>Jane Secret</dc:creator>"
       b"</rdf:Description></rdf:RDF></x:xmpmeta>")
IPTC = b"Photoshop 3.0\x008BIM\x04\x04\x00\x00\x00\x00\x00\x0b\x1c\x02\x50\x00\x05Janet"


def jpeg_with_everything(stored: np.ndarray, orientation: int = 6) -> bytes:
    """A JPEG of ``stored`` pixels carrying EXIF (orientation, GPS, thumbnail), XMP, IPTC,
    an ICC profile and a comment."""
    thumb = io.BytesIO()
    Image.fromarray(stored).resize((32, 24)).save(thumb, "JPEG", quality=60)
    body = io.BytesIO()
    Image.fromarray(stored).save(body, "JPEG", quality=95)
    raw = body.getvalue()
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    segments = (_segment(0xE1, _exif_with_gps_and_thumbnail(orientation, thumb.getvalue()))
                + _segment(0xE1, XMP)
                + _segment(0xE2, b"ICC_PROFILE\0\x01\x01" + icc)
                + _segment(0xED, IPTC)
                + _segment(0xFE, b"shot by Jane Secret at home"))
    return raw[:2] + segments + raw[2:]


# Adobe RGB (1998): primaries adapted to D50 as in its ICC profile, gamma 563/256
ADOBE_RGB_D50 = ((0.60974, 0.31111, 0.01947), (0.20528, 0.62567, 0.06087),
                 (0.14919, 0.06322, 0.74457))
ADOBE_GAMMA = 563 / 256


def adobe_rgb_icc(description: str = "Winnow test Adobe RGB (1998)") -> bytes:
    """A matrix/TRC ICC v2 display profile for Adobe RGB (1998), built byte by byte."""
    def s15(v: float) -> bytes:
        return struct.pack(">i", round(v * 65536))

    def xyz(v: tuple[float, float, float]) -> bytes:
        return b"XYZ \0\0\0\0" + b"".join(s15(c) for c in v)

    ascii_ = description.encode("ascii") + b"\0"
    desc = (b"desc\0\0\0\0" + struct.pack(">I", len(ascii_)) + ascii_
            + b"\0" * 8 + b"\0\0\0" + b"\0" * 67)
    curve = b"curv\0\0\0\0" + struct.pack(">IH", 1, round(ADOBE_GAMMA * 256)) + b"\0\0"
    d50 = (0.9642, 1.0, 0.8249)
    tags = [(b"desc", desc), (b"wtpt", xyz(d50)), (b"rXYZ", xyz(ADOBE_RGB_D50[0])),
            (b"gXYZ", xyz(ADOBE_RGB_D50[1])), (b"bXYZ", xyz(ADOBE_RGB_D50[2])),
            (b"rTRC", curve), (b"gTRC", curve), (b"bTRC", curve),
            (b"cprt", b"text\0\0\0\0" + b"public domain\0")]
    offset = 128 + 4 + 12 * len(tags)
    table, body = b"", b""
    for sig, data in tags:
        table += sig + struct.pack(">II", offset + len(body), len(data))
        body += data + b"\0" * (-len(data) % 4)
    size = offset + len(body)
    header = (struct.pack(">I", size) + b"\0\0\0\0" + bytes([2, 0x10, 0, 0]) + b"mntr"
              + b"RGB XYZ " + struct.pack(">6H", 2024, 1, 1, 0, 0, 0) + b"acsp"
              + b"\0" * 24 + struct.pack(">I", 0) + b"".join(s15(c) for c in d50)
              + b"\0" * 4 + b"\0" * 16 + b"\0" * 28)
    assert len(header) == 128
    return header + struct.pack(">I", len(tags)) + table + body
