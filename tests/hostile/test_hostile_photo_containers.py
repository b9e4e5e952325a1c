"""Containers a photographer or an attacker may hand in under a photo's name (ADR 211),
released through a project: the frame shown is the one released, and nothing else of
the file survives — an EXIF thumbnail still showing the face, an image appended after
the JPEG's end, GPS written only in XMP, the other frames of a GIF or WebP named .jpg or
.png, the other pages of a TIFF named .jpg — and a region's pixels are changed, also on
a 30000×10 strip and a TIFF stored turned (orientation 6)."""

from __future__ import annotations

import io
import struct
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from core.imaging import photos as repo
from core.imaging.detect import DetectSettings
from core.imaging.release import metadata_found, release_photo

NO_FACES = DetectSettings(face_detector="hog", plates=False)
XMP_GPS = (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999'
           b'/02/22-rdf-syntax-ns#"><rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/"'
           b' exif:GPSLatitude="52,31.2N" exif:GPSLongitude="13,24.0E"/></rdf:RDF></x:xmpmeta>')


def _scene(width: int = 120, height: int = 80, seed: int = 0) -> Image.Image:
    """A checkerboard of 8-pixel squares (survives JPEG and GIF; a blur changes it),
    its colours told apart by ``seed``."""
    yy, xx = np.mgrid[0:height, 0:width]
    light = ((yy // 8 + xx // 8) % 2).astype(bool)
    rgb = np.zeros((height, width, 3), np.uint8)
    rgb[light] = (230, 200, 40) if seed == 0 else (40, 90, 230)
    rgb[~light] = (20, 40, 90) if seed == 0 else (200, 30, 30)
    return Image.fromarray(rgb)


def _save(image: Image.Image, fmt: str, **params: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, fmt, **params)
    return buffer.getvalue()


def _with_thumbnail(jpeg: bytes, thumb: bytes) -> bytes:
    """``jpeg`` with an EXIF APP1 whose IFD1 holds ``thumb`` (as cameras write it)."""
    make = b"SECRETMAKER\x00"
    ifd1 = 8 + 18 + len(make)
    tiff = (b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 1)
            + struct.pack("<HHII", 0x010F, 2, len(make), 26) + struct.pack("<I", ifd1) + make
            + struct.pack("<H", 2) + struct.pack("<HHII", 0x0201, 4, 1, ifd1 + 30)
            + struct.pack("<HHII", 0x0202, 4, 1, len(thumb)) + struct.pack("<I", 0) + thumb)
    app1 = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:]


def _inputs() -> dict[str, bytes]:
    base, other = _scene(), _scene(seed=1)
    thumb = _save(base.resize((40, 26)), "JPEG", comment=b"SECRETTHUMB")
    turned = base.transpose(Image.Transpose.ROTATE_90)  # orientation 6 turns it back
    exif = Image.Exif()
    exif[0x0112] = 6
    return {
        "thumbnail.jpg": _with_thumbnail(_save(base, "JPEG"), thumb),
        "appended.jpg": _save(base, "JPEG") + _save(other, "JPEG", comment=b"SECRETAPPENDED"),
        "gps-in-xmp.jpg": _save(base, "JPEG", xmp=XMP_GPS),
        "animated-gif.jpg": _save(base, "GIF", save_all=True, append_images=[other]),
        "animated-webp.png": _save(base, "WEBP", save_all=True, append_images=[other],
                                   lossless=True),
        "pages-tiff.jpg": _save(base.copy(), "TIFF", save_all=True,
                                append_images=[other.copy()]),
        "turned-tiff.png": _save(turned, "TIFF", exif=exif),
        "strip.png": _save(_scene(30000, 10), "PNG"),
    }


def test_the_inputs_carry_what_is_planted() -> None:
    files = _inputs()
    assert b"SECRETTHUMB" in files["thumbnail.jpg"] and b"SECRETAPPENDED" in files["appended.jpg"]
    assert b"52,31" in files["gps-in-xmp.jpg"]
    for name in ("animated-gif.jpg", "animated-webp.png", "pages-tiff.jpg"):
        with Image.open(io.BytesIO(files[name])) as image:
            assert image.n_frames == 2, name


@pytest.mark.parametrize("name", sorted(_inputs()))
def test_only_the_shown_frame_is_released_and_its_region_is_hidden(
        project, tmp_path: Path, name: str) -> None:
    data = _inputs()[name]
    (tmp_path / name).write_bytes(data)
    photo_id, _ = repo.import_photo(project, tmp_path / name)
    photo = repo.get_photo(project, photo_id)
    shown = repo.load_original(project, photo)  # what the workspace shows
    assert (photo.width, photo.height) == (shown.shape[1], shown.shape[0])
    if name != "strip.png":
        assert (photo.width, photo.height) == (120, 80)  # upright, the first frame
        assert np.abs(shown.astype(int) - np.asarray(_scene(), int)).mean() < 25
    box = (0, 0, max(2, photo.width // 2), max(2, photo.height // 2))
    repo.add_region(project, photo_id, kind="face", x=box[0], y=box[1], w=box[2], h=box[3])
    repo.set_status(project, photo_id, "reviewed")
    out, _ = release_photo(project, photo_id, tmp_path / "out", NO_FACES)
    released = out.read_bytes()
    assert metadata_found(released) == []
    for planted in (b"SECRET", b"Exif", b"xmpmeta", b"GPS", b"52,31", b"ANIM", b"acTL"):
        assert planted not in released, (name, planted)
    if released.startswith(b"\xff\xd8"):  # one JPEG: no thumbnail, nothing after its end
        assert released.count(b"\xff\xd8\xff") == 1 and released.endswith(b"\xff\xd9")
    with Image.open(io.BytesIO(released)) as image:
        assert getattr(image, "n_frames", 1) == 1 and image.size == (photo.width, photo.height)
        pixels = np.asarray(image.convert("RGB"), int)
    inside = (slice(box[1], box[1] + box[3]), slice(box[0], box[0] + box[2]))
    assert np.abs(pixels[inside] - shown[inside].astype(int)).mean() > 10, name
