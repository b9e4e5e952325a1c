"""Colour and formats: a wide-gamut ICC profile is converted to sRGB and dropped on
release; HEIC photos (optional pillow-heif) are imported and released as clean JPEGs."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from anon_helpers import ADOBE_GAMMA, ADOBE_RGB_D50, adobe_rgb_icc, quadrant_image
from PIL import Image, ImageCms

from core.imaging import photos as repo
from core.imaging.detect import DetectSettings
from core.imaging.loading import decode_rgb, load_rgb
from core.imaging.release import metadata_found, release_photo

NO_FACES = DetectSettings(face_detector="hog")
REGION = (0, 0, 24, 24)  # top-left corner: every other pixel is compared
# LittleCMS' built-in sRGB profile: primaries adapted to D50 (its rXYZ, gXYZ, bXYZ)
SRGB_D50 = ((0.4360747, 0.2225045, 0.0139322), (0.3850649, 0.7168786, 0.0971045),
            (0.1430804, 0.0606169, 0.7141733))


def colour_chart(width: int = 192, height: int = 128) -> np.ndarray:
    """Smooth ramps of every channel mix, so many colours (saturated ones too) occur."""
    y, x = np.mgrid[0:height, 0:width]
    r = 255 * x / (width - 1)
    g = 255 * y / (height - 1)
    b = 255 * (1 - (x + y) / (width + height - 2))
    return np.stack([r, g, b], axis=-1).round().astype(np.uint8)


def adobe_to_srgb_by_hand(rgb: np.ndarray) -> np.ndarray:
    """Adobe RGB → XYZ (D50) → sRGB with the matrices and curves written out (float)."""
    linear = (rgb.astype(float) / 255) ** ADOBE_GAMMA
    xyz = linear @ np.array(ADOBE_RGB_D50)
    srgb_linear = xyz @ np.linalg.inv(np.array(SRGB_D50))
    c = np.clip(srgb_linear, 0, None)
    encoded = np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055)
    return 255 * encoded


def lcms_to_srgb(rgb: np.ndarray, icc: bytes) -> np.ndarray:
    """ImageCms' own conversion of ``rgb`` tagged with ``icc`` to sRGB."""
    out = ImageCms.profileToProfile(
        Image.fromarray(rgb), ImageCms.ImageCmsProfile(io.BytesIO(icc)),
        ImageCms.createProfile("sRGB"), outputMode="RGB",
        renderingIntent=ImageCms.Intent.PERCEPTUAL)
    return np.asarray(out)


def _release(project, path: Path, out: Path) -> Path:
    photo_id, _ = repo.import_photo(project, path)
    repo.add_region(project, photo_id, kind="face", x=REGION[0], y=REGION[1], w=REGION[2],
                    h=REGION[3])
    repo.set_status(project, photo_id, "reviewed")
    target, _ = release_photo(project, photo_id, out, NO_FACES)
    return target


def _outside_region(rgb: np.ndarray) -> np.ndarray:
    mask = np.ones(rgb.shape[:2], bool)
    mask[: REGION[3] + 2, : REGION[2] + 2] = False
    return rgb[mask]


def test_the_test_profile_is_a_real_wide_gamut_profile() -> None:
    icc = adobe_rgb_icc()
    profile = ImageCms.ImageCmsProfile(io.BytesIO(icc))
    assert ImageCms.getProfileDescription(profile).strip() == "Winnow test Adobe RGB (1998)"
    assert profile.profile.xcolor_space.strip() == "RGB"
    chart = colour_chart()
    # the by-hand maths agrees with LittleCMS wherever the colour fits into sRGB
    expected = adobe_to_srgb_by_hand(chart)
    inside = ((expected > 0.5) & (expected < 254.5)).all(axis=-1)
    assert inside.mean() > 0.5
    diff = np.abs(lcms_to_srgb(chart, icc).astype(float) - expected)[inside]
    assert diff.max() <= 2.0


def test_png_with_wide_gamut_profile_is_converted_and_profile_dropped(project,
                                                                      tmp_path: Path) -> None:
    chart = colour_chart()
    icc = adobe_rgb_icc()
    src = tmp_path / "chart.png"
    Image.fromarray(chart).save(src, icc_profile=icc)
    assert "PNG iCCP chunk" in metadata_found(src.read_bytes())
    target = _release(project, src, tmp_path / "out")
    data = target.read_bytes()
    assert target.suffix == ".png" and metadata_found(data) == []
    assert b"iCCP" not in data and b"Adobe" not in data
    with Image.open(io.BytesIO(data)) as image:
        assert "icc_profile" not in image.info
    released = decode_rgb(data)
    converted = lcms_to_srgb(chart, icc)
    # lossless PNG: exactly ImageCms' conversion outside the hidden region
    assert np.array_equal(_outside_region(released), _outside_region(converted))
    # and really converted: the unconverted values differ clearly (greens most)
    raw_diff = np.abs(_outside_region(released).astype(int) - _outside_region(chart))
    assert raw_diff.mean() > 8 and raw_diff.max() > 60
    by_hand = adobe_to_srgb_by_hand(chart)
    fits = ((by_hand > 0.5) & (by_hand < 254.5)).all(axis=-1)
    fits[: REGION[3] + 2, : REGION[2] + 2] = False
    assert np.abs(released[fits] - by_hand[fits]).max() <= 2.0


def test_jpeg_with_wide_gamut_profile_is_converted_and_profile_dropped(project,
                                                                       tmp_path: Path) -> None:
    chart = colour_chart()
    icc = adobe_rgb_icc()
    src = tmp_path / "chart.jpg"
    Image.fromarray(chart).save(src, quality=98, subsampling=0, icc_profile=icc)
    assert "ICC profile" in metadata_found(src.read_bytes())
    with Image.open(src) as image:
        stored = np.asarray(image.convert("RGB"))  # the JPEG's own (unconverted) pixels
    target = _release(project, src, tmp_path / "out")
    data = target.read_bytes()
    assert metadata_found(data) == [] and b"ICC_PROFILE" not in data
    released = decode_rgb(data)
    converted = _outside_region(lcms_to_srgb(stored, icc)).astype(int)
    got = _outside_region(released).astype(int)
    assert np.abs(got - converted).mean() < 1.5  # only the JPEG re-encoding differs
    assert np.abs(got - _outside_region(stored)).mean() > 8


def test_broken_profile_falls_back_to_plain_rgb(tmp_path: Path) -> None:
    chart = colour_chart(64, 48)
    src = tmp_path / "broken-icc.png"
    Image.fromarray(chart).save(src, icc_profile=b"not an ICC profile at all" * 8)
    assert np.array_equal(load_rgb(src), chart)


# -- HEIC (optional) --------------------------------------------------------------------
def _heif():  # type: ignore[no-untyped-def]
    return pytest.importorskip(
        "pillow_heif", reason="pillow-heif (the optional 'heic' extra) is not installed, "
        "so HEIC photos are not accepted here")


def test_heic_photo_is_imported_upright_and_released_clean(project, tmp_path: Path) -> None:
    pillow_heif = _heif()
    from core.imaging.loading import accepted_suffixes

    pillow_heif.register_heif_opener()
    assert ".heic" in accepted_suffixes()
    upright = quadrant_image(240, 160)
    stored = np.rot90(upright, k=1).copy()  # orientation 6 turns it back clockwise
    exif = Image.Exif()
    exif[0x0112] = 6
    exif[0x010E] = "Jane Secret's street"
    exif.get_ifd(0x8825)[1] = "N"
    folder = tmp_path / "in"
    folder.mkdir()
    src = folder / "IMG_0042.HEIC"
    Image.fromarray(stored).save(src, format="HEIF", quality=95, exif=exif.tobytes())
    assert b"Jane Secret" in src.read_bytes()
    report = repo.import_folder(project, folder)
    assert len(report.imported) == 1 and report.errors == []
    photo = repo.get_photo(project, report.imported[0])
    assert (photo.width, photo.height) == (240, 160)  # upright, not the stored 160 × 240
    repo.add_region(project, photo.id, kind="face", x=150, y=20, w=40, h=40, method="fill")
    repo.set_status(project, photo.id, "reviewed")
    target, _ = release_photo(project, photo.id, tmp_path / "out", NO_FACES)
    assert target.name == f"photo-{photo.id:05d}.jpg"  # never the original name (ADR 164)
    data = target.read_bytes()
    assert metadata_found(data) == []
    assert b"Jane Secret" not in data and b"Exif" not in data
    released = decode_rgb(data)
    assert released.shape == upright.shape
    hidden = released[24:56, 154:186].astype(int)
    assert hidden.mean() < 3 and hidden.max() < 32  # filled black (JPEG ringing aside)
    # upright: red top-left, blue bottom-left, white bottom-right (HEIC is lossy)
    assert released[10:60, 10:100].mean(axis=(0, 1)) == pytest.approx((220, 30, 30), abs=15)
    assert released[100:150, 10:100].mean(axis=(0, 1)) == pytest.approx((30, 30, 220),
                                                                          abs=15)
    assert released[100:150, 140:230].mean(axis=(0, 1)) == pytest.approx((240, 240, 240),
                                                                           abs=12)


def test_broken_heic_names_the_file(tmp_path: Path) -> None:
    _heif()
    from core.imaging.loading import PhotoDecodeError

    bad = tmp_path / "broken.heic"
    bad.write_bytes(b"\0\0\0\x18ftypheic" + b"\0" * 64)
    with pytest.raises(PhotoDecodeError, match="broken.heic"):
        load_rgb(bad)


def test_an_unreadable_photo_is_named_not_a_type_error(tmp_path: Path) -> None:
    """import_photo of a file that cannot be read raises the decode error naming it
    (it raised TypeError: the error type now takes the name and the reason apart)."""
    from core.imaging.loading import PhotoDecodeError
    from core.imaging.photos import import_photo

    with pytest.raises(PhotoDecodeError, match=r"^gone\.jpg: cannot read"):
        import_photo(object(), tmp_path / "gone.jpg")


def test_without_pillow_heif_heic_files_are_not_picked_up(tmp_path: Path,
                                                         monkeypatch) -> None:
    from core.imaging import decode
    from core.imaging.loading import accepted_suffixes, heif_available

    # HEIF is registered once per process (ADR 140): pretend that found no pillow-heif
    monkeypatch.setattr(decode, "_initialised", True)
    monkeypatch.setattr(decode, "_heif", False)
    assert heif_available() is False and ".heic" not in accepted_suffixes()
    (tmp_path / "a.heic").write_bytes(b"\0\0\0\x18ftypheic")
    Image.fromarray(quadrant_image()).save(tmp_path / "b.png")
    assert [p.name for p in repo.photo_files(tmp_path)] == ["b.png"]
