"""A PNG written by ImageMagick carries its EXIF as a ``Raw profile type exif`` text
chunk (hex), not as an ``eXIf`` chunk. Pillow's ``getexif()`` reads that text, so
``decode_rgb`` turns such a PNG by its orientation, while ``read_header`` (which reads
only ``eXIf``) says the picture is not turned: the two disagree about the size of the
picture a person sees, and Curate's export and the rating files (which take the header's
orientation) place boxes on a differently turned picture than the pixels decoded."""

from __future__ import annotations

import io

from PIL import Image, PngImagePlugin

from core.imaging.decode import decode_rgb, read_header


def _imagemagick_png(orientation: int) -> bytes:
    exif = Image.Exif()
    exif[0x0112] = orientation
    raw = exif.tobytes()
    info = PngImagePlugin.PngInfo()
    info.add_text("Raw profile type exif", f"\nexif\n{len(raw)}\n{raw.hex()}\n", zip=True)
    buffer = io.BytesIO()
    Image.new("RGB", (240, 160), (10, 120, 200)).save(buffer, "PNG", pnginfo=info)
    return buffer.getvalue()


def test_header_and_pixels_agree_on_a_png_with_a_raw_exif_profile() -> None:
    data = _imagemagick_png(6)
    height, width = decode_rgb(data, "magick.png").shape[:2]
    assert read_header(data, "magick.png").upright_size == (width, height)
