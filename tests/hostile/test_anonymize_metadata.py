"""`winnow anonymize` on photos carrying every kind of metadata in odd containers (PNG
text and iTXt XMP chunks with EXIF, a CMYK JPEG with EXIF/GPS/XMP/ICC/comment, a
16-bit PNG, a zip named .jpg): no output keeps a byte of it (grep for the planted
strings, PIL, the release checker), orientation is applied, and the zip is named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image, ImageCms, PngImagePlugin

from core.imaging.release import metadata_found

SECRETS = (b"SECRETMAKER", b"SECRETMODEL", b"SECRETCOMMENT", b"SECRETXMP", b"SECRETPNG",
           b"SECRETJPEGCOMMENT")
XMP = (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/'
       b'22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" '
       b'dc:creator="SECRETXMP"/></rdf:RDF></x:xmpmeta>')


def _exif(orientation: int = 1) -> Image.Exif:
    exif = Image.Exif()
    exif[0x010F], exif[0x0110], exif[0x0112] = "SECRETMAKER", "SECRETMODEL", orientation
    exif[0x8825] = {1: "N", 2: (52.0, 31.0, 12.0), 3: "E", 4: (13.0, 24.0, 0.0)}
    exif[0x9286] = "SECRETCOMMENT"
    return exif


def _inputs(folder: Path) -> None:
    folder.mkdir()
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    Image.new("RGB", (120, 80), (120, 140, 160)).save(
        folder / "a.jpg", exif=_exif(8), xmp=XMP, icc_profile=icc, comment=b"SECRETJPEGCOMMENT")
    info = PngImagePlugin.PngInfo()
    info.add_text("Author", "SECRETPNG")
    info.add_itxt("XML:com.adobe.xmp", XMP.decode())
    Image.new("RGB", (120, 80), (90, 20, 200)).save(folder / "b.png", pnginfo=info,
                                                     exif=_exif(6))
    Image.new("CMYK", (80, 80), (0, 50, 100, 0)).save(folder / "c.jpg", exif=_exif())
    Image.new("I;16", (60, 40), 3000).save(folder / "d.png")
    (folder / "e.jpg").write_bytes(b"PK\x03\x04 a zip, not a photo")


def test_outputs_carry_no_metadata(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli import run_cli

    _inputs(tmp_path / "in")
    for name in ("a.jpg", "b.png", "c.jpg"):
        assert any(s in (tmp_path / "in" / name).read_bytes() for s in SECRETS)
    code = run_cli(["anonymize", str(tmp_path / "in"), "--out", str(tmp_path / "out"),
                    "--no-plates", "--face-detector", "hog"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 1 and summary["photos"] == 4
    assert summary["errors"] == [{"file": "e.jpg", "error": "e.jpg: not an image "
                                  "(unrecognised data)"}]
    sizes = {"a.jpg": (80, 120), "b.png": (80, 120), "c.jpg": (80, 80), "d.png": (60, 40)}
    for name, size in sizes.items():
        data = (tmp_path / "out" / name).read_bytes()
        assert not [s for s in (*SECRETS, b"Exif", b"GPS", b"ICC_PROFILE", b"xmpmeta",
                                b"http://ns.adobe.com") if s in data], name
        assert metadata_found(data) == []
        with Image.open(tmp_path / "out" / name) as img:
            assert img.size == size and img.mode == "RGB"
            assert len(img.getexif()) == 0 and "icc_profile" not in img.info
