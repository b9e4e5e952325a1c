"""Image validation: good formats, truncated and corrupt files, non-images, bombs, local files."""

from __future__ import annotations

import io
import os
import warnings
from pathlib import Path

import pytest
from PIL import Image

from core.ingest.images import (
    ImageError,
    ImageInfo,
    format_size,
    inspect_image,
    inspect_local_image,
)

try:
    from .http_server import HTML, make_bomb_png, make_image
except ImportError:  # pragma: no cover - depends on the layout
    from http_server import HTML, make_bomb_png, make_image  # type: ignore[no-redef]

pytestmark = pytest.mark.timeout(30)


@pytest.mark.parametrize(
    ("fmt", "mime", "ext"),
    [
        ("JPEG", "image/jpeg", "jpg"),
        ("PNG", "image/png", "png"),
        ("WEBP", "image/webp", "webp"),
        ("GIF", "image/gif", "gif"),
        ("BMP", "image/bmp", "bmp"),
        ("TIFF", "image/tiff", "tiff"),
    ],
)
def test_accepted_formats(fmt: str, mime: str, ext: str) -> None:
    info = inspect_image(make_image(fmt, (33, 21)))
    assert info == ImageInfo(mime=mime, ext=ext, width=33, height=21)


def test_animated_gif_is_accepted() -> None:
    frames = [Image.new("P", (20, 10), color) for color in (1, 2, 3)]
    buf = io.BytesIO()
    frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:], duration=50)
    assert inspect_image(buf.getvalue()).ext == "gif"


@pytest.mark.parametrize(("fmt", "label"), [("JPEG", "JPEG"), ("PNG", "PNG"), ("GIF", "GIF")])
def test_truncated(fmt: str, label: str) -> None:
    data = make_image(fmt, (64, 48))
    with pytest.raises(ImageError, match=f"^truncated {label}: "):
        inspect_image(data[: len(data) // 2])


def test_truncated_webp_names_missing_bytes() -> None:
    data = make_image("WEBP", (64, 48))
    with pytest.raises(ImageError, match=r"^truncated WebP: file has \d+ of the \d+ bytes"):
        inspect_image(data[: len(data) // 2])


def test_corrupt_png_checksum() -> None:
    data = bytearray(make_image("PNG", (64, 48)))
    idat = data.index(b"IDAT")
    data[idat + 10] ^= 0xFF  # damage compressed pixels: the chunk CRC no longer matches
    with pytest.raises(ImageError, match="^corrupt PNG: "):
        inspect_image(bytes(data))


def test_corrupt_header_of_known_format() -> None:
    with pytest.raises(ImageError, match="^(corrupt|truncated) PNG"):
        inspect_image(b"\x89PNG\r\n\x1a\n" + b"\x00" * 5)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty file (0 bytes)"),
        (HTML, "not an image (looks like HTML)"),
        (b"\xef\xbb\xbf  \n<html><body>hi</body></html>", "not an image (looks like HTML)"),
        (b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>', "looks like SVG"),
        (b'{"error": "not found"}', "not an image (looks like JSON)"),
        (b"Access denied.\n", "not an image (looks like text)"),
        (bytes(range(256)), "not an image (unrecognised data)"),
    ],
)
def test_not_an_image(data: bytes, message: str) -> None:
    with pytest.raises(ImageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        inspect_image(data)


def test_unsupported_format_is_named() -> None:
    buf = io.BytesIO()
    Image.new("RGB", (16, 16)).save(buf, "ICO")
    with pytest.raises(ImageError, match=r"unsupported image format ICO \(accepted: JPEG, PNG"):
        inspect_image(buf.getvalue())


def test_bomb_reports_dimensions_and_limit() -> None:
    with pytest.raises(ImageError) as exc_info:
        inspect_image(make_bomb_png(30000, 30000))
    assert str(exc_info.value) == "decompression bomb: 30000×30000 pixels exceeds the 80 MP limit"


def test_bomb_below_pillows_own_limit_without_warnings() -> None:
    """85 MP: over our 80 MP limit, under Pillow's error threshold.  No warning escapes."""
    before = Image.MAX_IMAGE_PIXELS
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any DecompressionBombWarning would raise
        with pytest.raises(ImageError, match="^decompression bomb: 10000×8500 pixels"):
            inspect_image(make_bomb_png(10000, 8500))
    assert before == Image.MAX_IMAGE_PIXELS


def test_max_pixels_is_checked_before_decoding() -> None:
    data = make_image("JPEG", (100, 100))
    with pytest.raises(ImageError, match=r"100×100 pixels exceeds the 0.005 MP limit"):
        inspect_image(data, max_pixels=5000)
    assert inspect_image(data, max_pixels=10_000).width == 100
    assert Image.MAX_IMAGE_PIXELS == 89_478_485  # Pillow's default, untouched


def test_format_size() -> None:
    assert format_size(50 * 2**20) == "50 MB"
    assert format_size(1536) == "1.5 KB"
    assert format_size(10 * 2**30) == "10 GB"
    assert format_size(12) == "12 bytes"


# -- local files -------------------------------------------------------------------
def test_inspect_local_image(tmp_path: Path) -> None:
    path = tmp_path / "photo.png"
    path.write_bytes(make_image("PNG", (12, 8)))
    info = inspect_local_image(path, max_bytes=2**20)
    assert (info.ext, info.width, info.height) == ("png", 12, 8)


def test_read_local_missing(tmp_path: Path) -> None:
    with pytest.raises(ImageError, match=r"nope\.jpg: file not found"):
        inspect_local_image(tmp_path / "nope.jpg", max_bytes=2**20)


def test_read_local_directory(tmp_path: Path) -> None:
    with pytest.raises(ImageError, match="is a directory, not an image file"):
        inspect_local_image(tmp_path, max_bytes=2**20)


def test_read_local_too_large(tmp_path: Path) -> None:
    path = tmp_path / "big.jpg"
    path.write_bytes(make_image("JPEG", (256, 256)))
    with pytest.raises(ImageError, match=r"big\.jpg: file of .* is larger than the 1 KB limit"):
        inspect_local_image(path, max_bytes=1024)


def test_read_local_corrupt_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "cut.jpg"
    data = make_image("JPEG")
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ImageError, match=r"cut\.jpg: truncated JPEG: "):
        inspect_local_image(path, max_bytes=2**20)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads anything")
def test_read_local_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "secret.png"
    path.write_bytes(make_image("PNG"))
    path.chmod(0)
    try:
        with pytest.raises(ImageError, match="permission denied"):
            inspect_local_image(path, max_bytes=2**20)
    finally:
        path.chmod(0o644)
