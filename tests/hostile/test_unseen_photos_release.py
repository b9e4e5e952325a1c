"""Photos Winnow has never seen, carrying identifying data in every container people's
cameras and tools use, released through a project: nothing planted survives in the
released bytes, in the Hugging Face photo export, or in `winnow anonymize`'s outputs,
marker and report; an iPhone-style MPF JPEG loses its second full image; animated
PNGs lose their other frames; odd modes (RGBA, palette, 16-bit, 1-bit, LA, greyscale)
come out as upright 8-bit RGB at their own size."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageOps, PngImagePlugin

from core.imaging import photos as repo
from core.imaging.decode import heif_available
from core.imaging.detect import DetectSettings
from core.imaging.release import metadata_found, release_photo

NO_FACES = DetectSettings(face_detector="hog", plates=False)
PLANTED = (b"SECRETMAKER", b"SECRETOWNER", b"SECRETSERIAL", b"SECRETGPSAREA", b"SECRETXMP",
           b"SECRETCOMMENT", b"SECRETPROMPT", b"SECRETZTXT", b"SECRETITXT", b"SECRETICC",
           b"SECRETIPTC", b"SECRETSECOND", "SECRETICC".encode("utf-16-be"))
SIGNATURES = (b"Exif\x00", b"http://ns.adobe.com", b"Photoshop 3.0", b"ICC_PROFILE", b"MPF\x00",
              b"parameters", b"tEXt", b"zTXt", b"iTXt", b"eXIf")
XMP = (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/'
       b'22-rdf-syntax-ns#"><rdf:Description xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"'
       b' xmlns:Iptc4xmpCore="http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/" photoshop:Credit='
       b'"SECRETXMP credit" photoshop:City="SECRETXMP city" Iptc4xmpCore:Location="SECRETXMP '
       b'street"/></rdf:RDF></x:xmpmeta>')


def scene(width: int = 240, height: int = 160, seed: int = 0) -> np.ndarray:
    """Textured flat colour blocks: each orientation or frame is told apart by the colours."""
    rgb = np.zeros((height, width, 3), np.uint8)
    rgb[: height // 2, : width // 2] = (220, 30, 30)
    rgb[: height // 2, width // 2:] = (30, 200, 30)
    rgb[height // 2:, : width // 2] = (30, 30, 220)
    rgb[height // 2:, width // 2:] = (240, 240, 240)
    rng = np.random.default_rng(seed)
    return np.clip(rgb.astype(int) + rng.integers(-10, 10, rgb.shape), 0, 255).astype(np.uint8)


def exif(orientation: int = 1) -> Image.Exif:
    """EXIF with maker, owner, body serial number, GPS (with a processing text) and a
    maker note."""
    tags = Image.Exif()
    tags[0x010F], tags[0x0112] = "SECRETMAKER", orientation
    tags[0x013B] = "SECRETOWNER"  # Artist
    ifd = tags.get_ifd(0x8769)
    ifd[0xA431] = "SECRETSERIAL"  # BodySerialNumber
    ifd[0xA430] = "SECRETOWNER"  # CameraOwnerName
    ifd[0x927C] = b"SECRETMAKER maker note"
    gps = tags.get_ifd(0x8825)
    gps.update({1: "N", 2: (52.0, 31.0, 12.0), 3: "E", 4: (13.0, 24.0, 0.0),
                0x1B: b"ASCII\x00\x00\x00SECRETGPSAREA"})
    return tags


def _iptc() -> bytes:
    """A Photoshop APP13 payload holding an IPTC by-line."""
    record = b"\x1c\x02\x50" + len(b"SECRETIPTC").to_bytes(2, "big") + b"SECRETIPTC"
    block = b"8BIM\x04\x04\x00\x00" + len(record).to_bytes(4, "big") + record
    return b"Photoshop 3.0\x00" + block


def _with_app13(jpeg: bytes) -> bytes:
    payload = _iptc()
    segment = b"\xff\xed" + (len(payload) + 2).to_bytes(2, "big") + payload
    return jpeg[:2] + segment + jpeg[2:]


def _icc() -> bytes:
    """An sRGB profile whose description (UTF-16, in its ``mluc`` tag) names the camera."""
    from PIL import ImageCms

    data = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    name, secret = "sRGB built-in".encode("utf-16-be"), "SECRETICC cam".encode("utf-16-be")
    assert name in data
    return data.replace(name, secret)


def _save(image: Image.Image, fmt: str, **params) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, fmt, **params)
    return buffer.getvalue()


def planted_inputs(folder: Path) -> dict[str, bytes]:
    """Every container with planted strings; returns name → bytes (also written)."""
    base = Image.fromarray(scene())
    other = Image.fromarray(255 - scene(seed=1))
    text = PngImagePlugin.PngInfo()
    text.add_text("parameters", "SECRETPROMPT portrait of a man, Steps: 20, Seed: 1")
    text.add_text("Comment", "SECRETZTXT", zip=True)
    text.add_itxt("Description", "SECRETITXT")
    text.add_itxt("XML:com.adobe.xmp", XMP.decode())
    files = {
        # EXIF (GPS, maker note, serial, owner) + XMP + ICC + comment + IPTC, progressive
        "camera.jpg": _with_app13(_save(base, "JPEG", exif=exif(), xmp=XMP, icc_profile=_icc(),
                                        comment=b"SECRETCOMMENT", progressive=True)),
        # an iPhone portrait: a second full image (depth map / other frame) after the first
        "portrait.jpg": _save(base, "MPO", save_all=True, append_images=[other],
                              exif=exif(), comment=b"SECRETSECOND"),
        "sd.png": _save(base, "PNG", pnginfo=text, exif=exif(3), icc_profile=_icc()),
        "anim.png": _save(base, "PNG", save_all=True, append_images=[other],
                          pnginfo=text),
        "site.webp": _save(base, "WEBP", exif=exif(), xmp=XMP, icc_profile=_icc()),
        "scan.tif": _save(base, "TIFF", exif=exif(6)),
    }
    if heif_available():
        files["phone.heic"] = _save(base, "HEIF", exif=exif(6), xmp=XMP)
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return files


def assert_clean(data: bytes, name: str) -> None:
    """No planted string, no metadata signature, one image, no extra frame."""
    found = [s for s in (*PLANTED, *SIGNATURES) if s in data]
    assert not found, (name, found)
    assert metadata_found(data) == [], name
    with Image.open(io.BytesIO(data)) as image:
        assert getattr(image, "n_frames", 1) == 1, name
        assert image.mode == "RGB" and len(image.getexif()) == 0, name
        assert not {"icc_profile", "exif", "xmp", "comment", "parameters"} & set(image.info)
    if data.startswith(b"\xff\xd8"):
        assert data.count(b"\xff\xd8\xff") == 1, name  # no thumbnail, no second image


def test_the_inputs_really_carry_what_is_planted(tmp_path: Path) -> None:
    files = planted_inputs(tmp_path / "in")
    for name in ("camera.jpg", "portrait.jpg", "sd.png", "site.webp", "scan.tif"):
        assert b"SECRETSERIAL" in files[name] or b"SECRETOWNER" in files[name], name
    assert b"SECRETIPTC" in files["camera.jpg"]
    assert "SECRETICC".encode("utf-16-be") in files["camera.jpg"]
    assert b"SECRETPROMPT" in files["sd.png"] and b"SECRETITXT" in files["sd.png"]
    with Image.open(tmp_path / "in" / "portrait.jpg") as image:
        assert image.n_frames == 2
    with Image.open(tmp_path / "in" / "anim.png") as image:
        assert image.n_frames == 2


def test_released_files_and_the_photo_export_keep_nothing_planted(project,
                                                                  tmp_path: Path) -> None:
    files = planted_inputs(tmp_path / "in")
    released = {}
    for name in files:
        photo_id, _ = repo.import_photo(project, tmp_path / "in" / name)
        repo.add_region(project, photo_id, kind="face", x=20, y=20, w=60, h=40)
        repo.update_photo(project, photo_id, credit="Jo Doe", licence="CC-BY-4.0")
        repo.set_status(project, photo_id, "reviewed")
        path, _ = release_photo(project, photo_id, tmp_path / "out", NO_FACES)
        released[name] = path
    for name, path in released.items():
        assert_clean(path.read_bytes(), name)
        with Image.open(tmp_path / "in" / name) as original:
            upright = ImageOps.exif_transpose(original).size  # as viewers show it
        with Image.open(path) as image:
            assert image.size == upright, name
    with Image.open(released["scan.tif"]) as scan:  # orientation 6 applied
        assert scan.size == (160, 240)
    # the first frame is the one released, the MPF second image and the APNG frame gone
    for name in ("portrait.jpg", "anim.png"):
        with Image.open(released[name]) as image:
            pixels = np.asarray(image.convert("RGB"), dtype=int)
        assert np.abs(pixels[100:, 100:] - scene()[100:, 100:]).mean() < 12, name
    pytest.importorskip("pyarrow")
    from core.interop.hf_export import export_photos_hf

    export_photos_hf(project, tmp_path / "hf")
    for path in (tmp_path / "hf").rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert not [s for s in PLANTED if s in data], path


def test_anonymize_command_outputs_marker_and_report_keep_nothing_planted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli import run_cli

    planted_inputs(tmp_path / "in")
    code = run_cli(["anonymize", str(tmp_path / "in"), "--out", str(tmp_path / "out"),
                    "--report", str(tmp_path / "report.json"), "--no-plates",
                    "--face-detector", "hog"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 1  # the WebP and the TIFF are skipped, by name
    assert {s["file"] for s in summary["skipped"]} == {"site.webp", "scan.tif"}
    written = {w["file"] for w in summary["written"]}
    assert {"camera.jpg", "portrait.jpg", "sd.png", "anim.png"} <= written
    for path in (tmp_path / "out").iterdir():
        data = path.read_bytes()
        assert not [s for s in PLANTED if s in data], path.name
        if not path.name.startswith("."):
            assert_clean(data, path.name)
    report = (tmp_path / "report.json").read_bytes()
    assert not [s for s in PLANTED if s in report]


ODD = {
    "rgba.png": ("RGBA", (240, 160)), "palette.png": ("P", (240, 160)),
    "grey16.png": ("I;16", (240, 160)), "bilevel.png": ("1", (240, 160)),
    "grey-alpha.png": ("LA", (240, 160)), "grey.jpg": ("L", (240, 160)),
    "cmyk.jpg": ("CMYK", (240, 160)), "panorama.jpg": ("RGB", (16000, 1500)),
    "thumb.jpg": ("RGB", (40, 30)),
}


def _odd(name: str, folder: Path) -> Path:
    mode, size = ODD[name]
    base = Image.fromarray(scene()).resize(size)
    if mode == "RGBA":
        image = base.convert("RGBA")
        alpha = np.full(size[::-1], 255, np.uint8)
        alpha[:, : size[0] // 4] = 0  # a transparent strip: its colours must not show
        image.putalpha(Image.fromarray(alpha))
    elif mode == "I;16":
        image = Image.fromarray(np.asarray(base.convert("L"), np.uint16) * 257)
    else:
        image = base.convert(mode) if mode != "RGB" else base
    path = folder / name
    folder.mkdir(parents=True, exist_ok=True)
    image.save(path, "JPEG" if name.endswith(".jpg") else "PNG")
    return path


@pytest.mark.parametrize("name", sorted(ODD))
def test_odd_photos_release_as_8_bit_rgb_at_their_own_size(project, tmp_path: Path,
                                                           name: str) -> None:
    path = _odd(name, tmp_path / "in")
    photo_id, _ = repo.import_photo(project, path)
    size = ODD[name][1]
    repo.add_region(project, photo_id, kind="face", x=0, y=0, w=max(2, size[0] // 3),
                    h=max(2, size[1] // 3))
    repo.set_status(project, photo_id, "reviewed")
    out, _ = release_photo(project, photo_id, tmp_path / "out", NO_FACES)
    assert_clean(out.read_bytes(), name)
    with Image.open(out) as image:
        assert image.size == size and image.mode == "RGB"
        pixels = np.asarray(image)
    if name == "rgba.png":  # transparency is flattened on white, as the viewer shows it
        assert pixels[size[1] // 2:, : size[0] // 4 - 2].min() >= 250
