"""Header and pixels agree on the orientation of every photo format (ADR 165).

:func:`core.imaging.decode.read_header` (the upright size regions are drawn on, Curate's
export, rating files) and :func:`core.imaging.decode.decode_rgb` (the pixels detected,
shown and released) read orientation through one helper. Each case here is a photo
stored sideways (orientation 6 or 8) in one of the places orientation can hide; the
decoded pixels are also compared with Pillow's own ``exif_transpose`` (the reference)."""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
import pytest
from PIL import Image, ImageOps, PngImagePlugin

from core.imaging.decode import decode_rgb, heif_available, read_header

W, H = 48, 32


def _stored() -> Image.Image:
    """A landscape picture with a red top-left corner, so a turn is visible."""
    rgb = np.full((H, W, 3), 200, np.uint8)
    rgb[:8, :8] = (255, 0, 0)
    return Image.fromarray(rgb)


def _exif(orientation: int) -> Image.Exif:
    exif = Image.Exif()
    exif[0x0112] = orientation
    return exif


def _save(fmt: str, **params: object) -> bytes:
    buffer = io.BytesIO()
    _stored().save(buffer, fmt, **params)
    return buffer.getvalue()


def _raw_profile(orientation: int) -> str:
    raw = _exif(orientation).tobytes()
    return f"\nexif\n{len(raw)}\n{raw.hex()}\n"


def _png_with_text(key: str, text: str, *, zip_: bool) -> bytes:
    info = PngImagePlugin.PngInfo()
    info.add_text(key, text, zip=zip_)
    return _save("PNG", pnginfo=info)


def _chunk(kind: bytes, body: bytes) -> bytes:
    return (struct.pack(">I", len(body)) + kind + body
            + struct.pack(">I", zlib.crc32(kind + body)))


def _after_pixels(png: bytes, chunk: bytes) -> bytes:
    """``chunk`` inserted just before IEND (after IDAT), where Pillow reads it only when
    the pixels are decoded."""
    return png[:-12] + chunk + png[-12:]


def _xmp(orientation: int) -> str:
    return ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/'
            '1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:tiff="http://ns.adobe.com/'
            f'tiff/1.0/" tiff:Orientation="{orientation}"/></rdf:RDF></x:xmpmeta>')


CASES = {
    "jpeg exif": lambda: _save("JPEG", exif=_exif(6), quality=95),
    "png eXIf": lambda: _save("PNG", exif=_exif(6)),
    "png eXIf after the pixels": lambda: _after_pixels(
        _save("PNG"), _chunk(b"eXIf", _exif(8).tobytes())),
    "png raw profile zTXt": lambda: _png_with_text(
        "Raw profile type exif", _raw_profile(6), zip_=True),
    "png raw profile tEXt": lambda: _png_with_text(
        "Raw profile type exif", _raw_profile(8), zip_=False),
    "png raw profile after the pixels": lambda: _after_pixels(_save("PNG"), _chunk(
        b"zTXt", b"Raw profile type exif\0\0" + zlib.compress(_raw_profile(6).encode()))),
    "png xmp": lambda: _png_with_text("XML:com.adobe.xmp", _xmp(6), zip_=False),
    "webp exif": lambda: _save("WEBP", exif=_exif(6), lossless=True),
    "tiff orientation": lambda: _save("TIFF", exif=_exif(8)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_header_and_pixels_agree(case: str) -> None:
    data = CASES[case]()
    header = read_header(data, case)
    rgb = decode_rgb(data, case)
    # the orientation was found at all (a TIFF's size is already upright where Pillow
    # turns TIFFs while decoding: orientation 1 then)
    assert header.orientation in (6, 8) or (header.format, header.width, header.height) == ("TIFF", H, W)
    assert header.upright_size == (H, W)
    assert rgb.shape[:2] == (W, H)  # turned: (rows, columns) of a portrait picture
    # the pixels are turned the way Pillow's exif_transpose turns them (the reference)
    with Image.open(io.BytesIO(data)) as image:
        image.load()
        reference = np.asarray(ImageOps.exif_transpose(image).convert("RGB"))
    assert np.abs(rgb.astype(int) - reference.astype(int)).max() <= 8


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_preview_is_turned_like_the_photo(case: str) -> None:
    data = CASES[case]()
    preview = decode_rgb(data, case, max_side=24)
    assert preview.shape[:2] == (24, 16)


def test_heic_header_and_pixels_agree() -> None:
    if not heif_available():
        pytest.skip("pillow-heif is not installed")
    try:
        data = _save("HEIF", exif=_exif(6), quality=95)
    except (OSError, KeyError, ValueError) as exc:
        pytest.skip(f"no HEIC encoder here: {exc}")
    header = read_header(data, "photo.heic")
    rgb = decode_rgb(data, "photo.heic")
    assert header.upright_size == (rgb.shape[1], rgb.shape[0])


def test_a_broken_raw_profile_is_orientation_1_in_both() -> None:
    data = _png_with_text("Raw profile type exif", "\nexif\n12\nnot hex at all\n", zip_=True)
    assert read_header(data, "odd.png").upright_size == (W, H)
    assert decode_rgb(data, "odd.png").shape[:2] == (H, W)


def test_a_zip_bomb_text_chunk_is_not_inflated() -> None:
    bomb = zlib.compress(b"\nexif\n1\n" + b"0" * (64 << 20), 9)
    data = _after_pixels(_save("PNG"), _chunk(b"zTXt", b"Raw profile type exif\0\0" + bomb))
    assert read_header(data, "bomb.png").orientation == 1


def test_a_photo_whose_header_and_pixels_disagree_is_refused_at_intake(
        monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """Should a decoder ever turn a photo its header does not (a plugin's quirk), the
    photo never reaches region drawing nor release: intake refuses it, naming it."""
    from core.imaging import loading
    from core.imaging.decode import DecodeError, Header

    data = _save("JPEG", quality=95)
    assert loading.decode_photo(data, "fine.jpg").shape[:2] == (H, W)
    monkeypatch.setattr(loading, "read_header",
                        lambda *_a, **_k: Header("JPEG", W, H, orientation=6))
    with pytest.raises(DecodeError, match=r"odd\.jpg: its header says 32×48"):
        loading.decode_photo(data, "odd.jpg")
    path = tmp_path / "odd.jpg"
    path.write_bytes(data)
    with pytest.raises(DecodeError, match="odd.jpg"):
        loading.load_rgb(path)
