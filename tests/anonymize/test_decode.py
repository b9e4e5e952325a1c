"""core.imaging.decode, the one place that decodes images (ADR 140), under hostile files:
bombs refused from the header with one message at every entry point, truncated and
mislabelled files, CMYK, 16-bit, palette transparency, EXIF orientations 1-8, an ICC
profile, HEIC; and Pillow's global limit never touched."""

from __future__ import annotations

import io
import struct
import warnings
import zlib
from pathlib import Path

import numpy as np
import pytest
from anon_helpers import adobe_rgb_icc, quadrant_image
from PIL import Image, ImageCms, ImageFile, ImageOps

from core.imaging import decode, loading
from core.imaging.decode import DecodeError, decode_rgb, read_header

LIMIT = "exceeds the 80 MP limit"


def _png(rgb: np.ndarray, **params: object) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, "PNG", **params)
    return buf.getvalue()


def _jpeg(image: Image.Image, **params: object) -> bytes:
    buf = io.BytesIO()
    image.save(buf, "JPEG", quality=95, **params)
    return buf.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def bomb_png(width: int = 30000, height: int = 30000) -> bytes:
    """A valid PNG header claiming ``width``×``height`` pixels (a few hundred bytes)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", ihdr)
        + _chunk(b"IDAT", zlib.compress(b"\0" * 1000))
        + _chunk(b"IEND", b"")
    )


def bomb_jpeg(width: int = 30000, height: int = 30000) -> bytes:
    """A small JPEG whose SOF0 segment claims ``width``×``height`` pixels."""
    data = bytearray(_jpeg(Image.new("RGB", (16, 16), (200, 10, 10))))
    sof = data.index(b"\xff\xc0")
    data[sof + 5 : sof + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def bomb_gif() -> bytes:
    """A small GIF whose logical screen claims 65535×65535 pixels."""
    buf = io.BytesIO()
    Image.new("P", (8, 8)).save(buf, "GIF")
    data = bytearray(buf.getvalue())
    data[6:10] = struct.pack("<HH", 65535, 65535)
    return bytes(data)


BOMBS = {
    "png": (bomb_png(), "30000×30000"),
    "jpeg": (bomb_jpeg(), "30000×30000"),
    "gif": (bomb_gif(), "65535×65535"),
}


@pytest.mark.parametrize("kind", sorted(BOMBS))
def test_a_bomb_is_refused_from_its_header_with_one_message_everywhere(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from core.ingest.images import ImageError, inspect_local_image
    from core.metrics.imageio import MetricInputError, open_rgb
    from core.rating.images import SessionImageError, header

    data, size = BOMBS[kind]
    path = tmp_path / f"bomb.{kind}"
    path.write_bytes(data)
    # no pixel may be decoded on the way to the refusal
    monkeypatch.setattr(ImageFile.ImageFile, "load", lambda self: pytest.fail("decoded"))
    expected = f"bomb.{kind}: decompression bomb: {size} pixels {LIMIT}"
    before = Image.MAX_IMAGE_PIXELS
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Pillow's DecompressionBombWarning never fires
        for call, error in (
            (lambda: read_header(data, path.name), DecodeError),
            (lambda: inspect_local_image(path, max_bytes=10**6, name=path.name), ImageError),
            (lambda: open_rgb(path), MetricInputError),
            (lambda: header(data, path.name), SessionImageError),
        ):
            with pytest.raises(error) as info:
                call()
            assert str(info.value).endswith(expected), str(info.value)
        # a photographer's own photo has the larger limit, and the same wording
        with pytest.raises(
            DecodeError,
            match=f"bomb.{kind}: decompression bomb: {size} pixels exceeds the 178.957 MP limit",
        ):
            loading.load_rgb(path)
    assert before == Image.MAX_IMAGE_PIXELS


def test_a_photo_between_the_two_limits_opens_only_as_a_photo() -> None:
    data = bomb_png(10000, 9000)  # 90 MP: over 80 MP, under the photographers' 179 MP
    assert read_header(data, max_pixels=decode.PHOTO_MAX_PIXELS).upright_size == (10000, 9000)
    with pytest.raises(DecodeError, match=f"decompression bomb: 10000×9000 pixels {LIMIT}"):
        read_header(data, "x")


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty file (0 bytes)"),
        (b"<!DOCTYPE html><html><body>404</body></html>", "not an image (looks like HTML)"),
        (b"\x89PNG\r\n\x1a\n" + b"\0" * 40, "corrupt PNG: cannot read the header"),
        (b"\xff\xd8\xff" + b"\0" * 40, "corrupt JPEG: cannot read the header"),
    ],
    ids=["empty", "html", "png header", "jpeg header"],
)
def test_non_images_are_named_and_described(data: bytes, reason: str) -> None:
    for call in (lambda: read_header(data, "a.jpg"), lambda: decode_rgb(data, "a.jpg")):
        with pytest.raises(DecodeError) as info:
            call()
        assert str(info.value) == f"a.jpg: {reason}"
        assert info.value.name == "a.jpg" and info.value.reason == reason


@pytest.mark.parametrize("fmt", ["PNG", "JPEG"])
def test_truncated_files_are_named_and_called_truncated(fmt: str) -> None:
    rgb = quadrant_image(200, 120)
    data = _png(rgb) if fmt == "PNG" else _jpeg(Image.fromarray(rgb))
    cut = data[: len(data) // 2]
    assert read_header(cut, "cut").format == fmt  # the header is whole
    with pytest.raises(DecodeError, match=rf"^cut: truncated {fmt}: "):
        decode_rgb(cut, "cut")


def test_a_wrong_extension_does_not_matter() -> None:
    rgb = quadrant_image(60, 40)
    assert np.array_equal(decode_rgb(_png(rgb), "photo.jpg"), rgb)
    assert read_header(_png(rgb), "photo.jpg").format == "PNG"


def test_cmyk_jpeg_decodes_to_rgb() -> None:
    rgb = quadrant_image(80, 60)
    cmyk = Image.fromarray(rgb).convert("CMYK")
    out = decode_rgb(_jpeg(cmyk), "cmyk.jpg")
    assert out.shape == (60, 80, 3)
    reference = np.asarray(Image.open(io.BytesIO(_jpeg(cmyk))).convert("RGB"))
    assert np.abs(out.astype(int) - reference).max() <= 1
    assert np.abs(out.astype(int) - rgb).mean() < 8  # the colours survive


def test_16_bit_png_is_scaled_to_8_bits() -> None:
    grey16 = (np.arange(64 * 32, dtype=np.uint16).reshape(32, 64) * 31).astype(np.uint16)
    buf = io.BytesIO()
    Image.fromarray(grey16).save(buf, "PNG")
    out = decode_rgb(buf.getvalue(), "deep.png")
    assert out.shape == (32, 64, 3)
    assert np.array_equal(out[..., 0], (grey16 // 256).astype(np.uint8))


def test_palette_with_transparency_is_flattened_on_white() -> None:
    image = Image.new("P", (10, 10), 0)
    image.putpalette([255, 0, 0, 0, 0, 255] + [0] * 762)
    image.paste(1, (5, 0, 10, 10))
    buf = io.BytesIO()
    image.save(buf, "PNG", transparency=0)  # palette entry 0 (red) is transparent
    out = decode_rgb(buf.getvalue(), "p.png")
    assert tuple(out[0, 0]) == (255, 255, 255) and tuple(out[0, 9]) == (0, 0, 255)


def _exif(orientation: int) -> Image.Exif:
    exif = Image.Exif()
    exif[decode.ORIENTATION] = orientation
    return exif


@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_orientations_1_to_8(orientation: int) -> None:
    stored = quadrant_image(60, 40)
    for data in (
        _png(stored, exif=_exif(orientation)),
        _jpeg(Image.fromarray(stored), exif=_exif(orientation)),
    ):
        expected = np.asarray(ImageOps.exif_transpose(Image.open(io.BytesIO(data))))
        out = decode_rgb(data, "o")
        assert out.shape == expected.shape
        assert np.abs(out.astype(int) - expected).max() <= 1
        assert read_header(data).orientation == orientation
        assert loading.upright_size(data) == (out.shape[1], out.shape[0])


def test_upright_size_of_a_png_decodes_no_pixel(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rating engineer's note: ``loading.upright_size`` decoded whole PNGs (Pillow's
    getexif() loads a PNG to reach its eXIf chunk)."""
    data = _png(quadrant_image(60, 40), exif=_exif(6))
    monkeypatch.setattr(ImageFile.ImageFile, "load", lambda self: pytest.fail("decoded"))
    assert loading.upright_size(data) == (40, 60)


def test_an_icc_profile_is_converted_to_srgb() -> None:
    rgb = quadrant_image(40, 30)
    icc = adobe_rgb_icc()
    out = decode_rgb(_png(rgb, icc_profile=icc), "wide.png")
    expected = np.asarray(
        ImageCms.profileToProfile(
            Image.fromarray(rgb),
            ImageCms.ImageCmsProfile(io.BytesIO(icc)),
            ImageCms.createProfile("sRGB"),
            outputMode="RGB",
            renderingIntent=ImageCms.Intent.PERCEPTUAL,
        )
    )
    assert np.array_equal(out, expected)
    assert not np.array_equal(out, rgb)  # the profile was applied


def test_a_preview_is_drafted_and_shrunk() -> None:
    rgb = np.repeat(np.repeat(quadrant_image(80, 60), 10, axis=0), 10, axis=1)
    out = decode_rgb(_jpeg(Image.fromarray(rgb)), "big.jpg", max_side=200)
    assert max(out.shape[:2]) == 200 and out.shape[:2] == (150, 200)
    assert np.abs(out[20, 20].astype(int) - (220, 30, 30)).max() < 25


def test_heic_when_pillow_heif_is_installed() -> None:
    pillow_heif = pytest.importorskip("pillow_heif")
    assert decode.heif_available()
    rgb = quadrant_image(64, 48)
    try:
        heif = pillow_heif.from_bytes(mode="RGB", size=(64, 48), data=rgb.tobytes())
        buf = io.BytesIO()
        heif.save(buf, quality=95)
    except Exception as exc:  # libheif built without an encoder
        pytest.skip(f"pillow-heif cannot encode HEIC here ({exc})")
    data = buf.getvalue()
    assert read_header(data, "a.heic").format == "HEIF"
    out = decode_rgb(data, "a.heic")
    assert out.shape == (48, 64, 3) and np.abs(out.astype(int) - rgb).mean() < 10
    with pytest.raises(DecodeError, match=r"^a.heic: "):
        decode_rgb(data[:200], "a.heic")
