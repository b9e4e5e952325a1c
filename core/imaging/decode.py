"""Decode images: the one place that opens image bytes with Pillow (ADR 140).

Every decode in Winnow — validating an import, a photo for Anonymize, an image for a
metric, a rater file, an export's crop — goes through this module, so each rule holds
everywhere:

- **Pixel limits, from the header, before any pixel is decoded.** :data:`MAX_PIXELS`
  (80 MP) for images from outside (imports, model outputs, metrics, rater files,
  exports); :data:`PHOTO_MAX_PIXELS` (~179 MP, what Pillow's default allowed) for a
  photographer's own photos, so a 100-MP medium-format photo still opens in Anonymize.
  Pillow's global ``Image.MAX_IMAGE_PIXELS`` is never modified nor relied on: images
  are opened without its check (:func:`open_image`), so a bomb is reported with its real
  size, from any thread, without a warning.
- **One vocabulary of failures**, every message naming the image: ``"NAME: decompression
  bomb: 30000×30000 pixels exceeds the 80 MP limit"``, ``"NAME: truncated JPEG: …"``,
  ``"NAME: corrupt PNG: …"``, ``"NAME: not an image (looks like HTML)"`` (:class:`DecodeError`).
- **Header-only facts** (:func:`read_header`): format, size and EXIF orientation; a PNG's
  ``eXIf``, ``Raw profile type exif`` and XMP chunks are read from the file's structure
  (Pillow's ``getexif()`` would decode the whole PNG to reach them). The orientation
  comes from one rule, :func:`image_orientation`, which :func:`decode_rgb` applies too, so
  a header's upright size is always the decoded pixels' (ADR 165).
- **Upright sRGB pixels** (:func:`decode_rgb`): EXIF orientation applied, an embedded ICC
  profile converted to sRGB (ADR 046), 16-bit and palette images to 8-bit RGB, alpha
  flattened on white; a preview is decoded at 1/2–1/8 scale straight from a JPEG's DCT
  (:func:`draft`) and resized with Pillow's reducing gap (:func:`shrink_to`).
- **HEIF** is registered once, when ``pillow-heif`` is installed (:func:`init_plugins`).
"""

from __future__ import annotations

import functools
import io
import math
import re
import struct
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:  # Pillow and numpy are imported when the first image is decoded
    import numpy as np
    from PIL import Image

#: the most pixels Winnow decodes of an image from outside (imports, outputs, metrics)
MAX_PIXELS = 80_000_000
#: the most pixels of a photographer's photo (Anonymize): twice Pillow's default
#: ``MAX_IMAGE_PIXELS``, the limit photos had before this module (ADR 140)
PHOTO_MAX_PIXELS = 178_956_970
#: EXIF orientation tag
ORIENTATION = 0x0112


def orientation_transpose(orientation: int | None) -> Image.Transpose | None:
    """The Pillow transpose that shows stored pixels upright for an EXIF ``orientation``
    (None for 1, a missing or an out-of-range value)."""
    from PIL import Image

    return {2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
            4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE,
            6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
            8: Image.Transpose.ROTATE_90}.get(orientation or 1)

_init_lock = threading.Lock()
_initialised = False
_heif = False


class DecodeError(ValueError):
    """An image Winnow will not or cannot decode: ``"NAME: reason"`` (``reason`` alone
    when the caller names the image itself, e.g. in a report keyed by URL)."""

    def __init__(self, name: str | None, reason: str) -> None:
        super().__init__(f"{name}: {reason}" if name else reason)
        self.name = name
        self.reason = reason


# -- plugins ---------------------------------------------------------------------------------


def init_plugins() -> None:
    """Register every Pillow plugin, and HEIF when ``pillow-heif`` is installed; once."""
    global _initialised, _heif
    if _initialised:
        return
    with _init_lock:
        if _initialised:
            return
        from PIL import Image

        Image.init()
        try:  # optional (the heic extra): HEIC photos from phones
            from pillow_heif import register_heif_opener

            register_heif_opener()
            _heif = True
        except Exception:  # not installed, or broken: HEIC stays unsupported
            _heif = False
        _initialised = True


def heif_available() -> bool:
    """Whether HEIC/HEIF images can be decoded (``pillow-heif`` installed and registered)."""
    init_plugins()
    return _heif


# -- the vocabulary of failures --------------------------------------------------------------


def sniff_label(head: bytes) -> str | None:
    """Format name from magic bytes, used only to word error messages."""
    if head.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "GIF"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WebP"
    if head[:2] == b"BM":
        return "BMP"
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return "TIFF"
    if head[4:8] == b"ftyp" and head[8:12] in (b"heic", b"heix", b"mif1", b"msf1", b"hevc"):
        return "HEIC"
    return None


def label(fmt: str | None) -> str:
    """A format as people name it: Pillow's MPO is a JPEG, WEBP is WebP, HEIF is HEIC."""
    return {"MPO": "JPEG", "WEBP": "WebP", "HEIF": "HEIC"}.get(fmt or "", fmt or "image")


def describe_non_image(head: bytes) -> str:
    """Why bytes no decoder accepts are not an image, e.g. "not an image (looks like HTML)".

    Never quotes the bytes themselves: a report must not disclose a file's contents.
    """
    text = head[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if text.startswith((b"<!doctype html", b"<html", b"<head", b"<body")) or b"<html" in text:
        return "not an image (looks like HTML)"
    if b"<svg" in text:
        return "not a raster image (looks like SVG, which is not supported)"
    if text.startswith(b"<?xml") or text.startswith(b"<"):
        return "not an image (looks like XML)"
    if text.startswith((b"{", b"[")):
        return "not an image (looks like JSON)"
    try:
        decoded = head[:1024].decode("utf-8")
    except UnicodeDecodeError:
        decoded = ""
    if decoded and sum(ch.isprintable() or ch.isspace() for ch in decoded) >= 0.95 * len(decoded):
        return "not an image (looks like text)"
    return "not an image (unrecognised data)"


def bomb_reason(width: int, height: int, max_pixels: int) -> str:
    """The reason for refusing an image over the pixel limit."""
    return f"decompression bomb: {width}×{height} pixels exceeds the {max_pixels / 1e6:g} MP limit"


def failure_reason(fmt: str | None, exc: BaseException, head: bytes, size: int) -> str:
    """Why decoding failed: "truncated JPEG: …" or "corrupt PNG: …" (``head``: the first
    bytes of the file, ``size``: its length)."""
    if isinstance(exc, MemoryError):
        return f"{label(fmt)} is too large to decode (out of memory)"
    detail = str(exc) or type(exc).__name__
    if head[:4] == b"RIFF" and size >= 12:  # WebP: the RIFF header declares the size
        declared = int.from_bytes(head[4:8], "little") + 8
        if declared > size:
            detail = f"file has {size} of the {declared} bytes its header declares"
    kind = "truncated" if "truncated" in detail.lower() or "declares" in detail else "corrupt"
    return f"{kind} {label(fmt)}: {detail}"


def _unidentified_reason(head: bytes) -> str:
    sniffed = sniff_label(head)
    return f"corrupt {sniffed}: cannot read the header" if sniffed else describe_non_image(head)


# -- opening ---------------------------------------------------------------------------------


def open_image(
    source: bytes | BinaryIO, name: str | None = None, *, max_pixels: int | None = None
) -> Image.Image:
    """Open an image (bytes, or a seekable binary file) and read its header only.

    Like ``Image.open`` — every registered format is tried in Pillow's order — but the
    size is checked against ``max_pixels`` (default :data:`MAX_PIXELS`) instead of
    Pillow's global limit. Raises :class:`DecodeError` for a bomb, a non-image or a
    header that cannot be read. The image decodes when loaded; close it (``with``).
    """
    from PIL import Image

    init_plugins()
    fp = io.BytesIO(source) if isinstance(source, bytes | bytearray) else source
    fp.seek(0)
    head = fp.read(1024)
    fp.seek(0, io.SEEK_END)
    size = fp.tell()
    if not size:
        raise DecodeError(name, "empty file (0 bytes)")
    limit = max_pixels or MAX_PIXELS
    for fmt in list(Image.ID):
        factory, accept = Image.OPEN[fmt]
        try:
            accepted = accept(head[:16]) if accept else True
            if not accepted or isinstance(accepted, str):
                continue
            fp.seek(0)
            im = factory(fp, "")
        except (SyntaxError, IndexError, TypeError, struct.error):
            continue  # not this format (as Image.open decides)
        except Exception as exc:  # a plugin failed on a header it recognised
            raise DecodeError(name, failure_reason(fmt, exc, head, size)) from exc
        width, height = im.size
        if width <= 0 or height <= 0:
            im.close()
            raise DecodeError(name, f"corrupt {label(im.format)}: invalid size {width}×{height}")
        if width * height > limit:
            im.close()
            raise DecodeError(name, bomb_reason(width, height, limit))
        return im
    raise DecodeError(name, _unidentified_reason(head))


def decode_failure(
    exc: BaseException, name: str | None, image: Image.Image | None, data: bytes
) -> DecodeError:
    """``exc``, raised while decoding ``data``, as a :class:`DecodeError` naming it."""
    if isinstance(exc, DecodeError):
        return exc
    fmt = image.format if image is not None else sniff_label(data[:16])
    return DecodeError(name, failure_reason(fmt, exc, data[:1024], len(data)))


@dataclass(frozen=True)
class Header:
    """What an image's header says: format, stored size, EXIF orientation (1–8)."""

    format: str
    width: int
    height: int
    orientation: int = 1

    @property
    def upright_size(self) -> tuple[int, int]:
        """(width, height) as the image is shown (orientations 5–8 swap them)."""
        swap = self.orientation in (5, 6, 7, 8)
        return (self.height, self.width) if swap else (self.width, self.height)


def read_header(data: bytes, name: str | None = None, *, max_pixels: int | None = None) -> Header:
    """Format, size and EXIF orientation of ``data``, its pixel limit checked, no pixel
    decoded (:class:`DecodeError` naming ``name`` otherwise). The orientation is
    :func:`image_orientation`'s, the one :func:`decode_rgb` applies."""
    with open_image(data, name, max_pixels=max_pixels) as image:
        fmt = image.format or ""
        width, height = image.size
        orientation = image_orientation(image, data)
    return Header(fmt, width, height, orientation)


def image_orientation(image: Image.Image, data: bytes) -> int:
    """The EXIF orientation (1–8) of an opened, not yet decoded ``image`` of ``data``:
    the one rule :func:`read_header` reports and :func:`decode_rgb` applies (ADR 165).

    A PNG's comes from its chunks, wherever they lie (before or after the pixels): an
    ``eXIf`` chunk, else ImageMagick's hex ``Raw profile type exif`` text chunk, else an
    XMP packet's ``tiff:Orientation`` (Pillow's order). A TIFF's is 1 where Pillow turns a
    TIFF upright itself while decoding (its size is then already the upright one). Every
    other format's comes from Pillow's ``getexif()`` (its EXIF, else its XMP). 1 when
    missing, broken or out of range.
    """
    try:
        if image.format == "TIFF" and _pillow_turns_tiffs():
            return 1
        if image.format == "PNG":
            value = _png_orientation(data)
        else:
            value = int(image.getexif().get(ORIENTATION, 1) or 1)
    except Exception:  # a broken EXIF block: the decoder will say more, if anything
        return 1
    return value if 1 <= value <= 8 else 1


def decoder_turns_tiffs() -> bool:
    """Whether a TIFF's orientation is already applied by the decoder, so that its
    "stored" pixels, as core counts them (boxes, crops), are the upright ones; another
    decoder of the same bytes (Qt's) must then turn them the same way."""
    return _pillow_turns_tiffs()


@functools.cache
def _pillow_turns_tiffs() -> bool:
    """Whether this Pillow applies a TIFF's orientation while decoding (newer ones do,
    reporting the upright size from the header): probed once on a 2×1 TIFF."""
    from PIL import Image

    exif = Image.Exif()
    exif[ORIENTATION] = 6
    buffer = io.BytesIO()
    Image.new("L", (2, 1)).save(buffer, "TIFF", exif=exif)
    with Image.open(buffer) as probe:
        return probe.size == (1, 2)


#: the most bytes a PNG text chunk is inflated to while looking for an orientation
_PNG_TEXT_LIMIT = 1 << 20
_RAW_EXIF = b"Raw profile type exif"
_XMP = b"XML:com.adobe.xmp"
_XMP_ORIENTATION = re.compile(rb'tiff:Orientation(="|>)([0-9])')


def _png_orientation(data: bytes) -> int:
    from PIL import Image

    raw_exif = xmp = None
    for kind, payload in _png_metadata_chunks(data):
        if kind == b"eXIf":
            exif = Image.Exif()
            exif.load(payload)
            return int(exif.get(ORIENTATION, 1) or 1)
        keyword, text = _png_text(kind, payload)
        if keyword == _RAW_EXIF and raw_exif is None:
            raw_exif = text
        elif keyword == _XMP and xmp is None:
            xmp = text
    if raw_exif is not None:  # "\nexif\nLENGTH\nHEX…" (Pillow's reading)
        exif = Image.Exif()
        exif.load(bytes.fromhex("".join(raw_exif.decode("latin-1").split("\n")[3:])))
        if ORIENTATION in exif:
            return int(exif.get(ORIENTATION, 1) or 1)
    if xmp is not None and (found := _XMP_ORIENTATION.search(xmp)):
        return int(found[2])
    return 1


def _png_metadata_chunks(data: bytes) -> Iterator[tuple[bytes, bytes]]:
    """(kind, payload) of a PNG's eXIf and text chunks, wherever they lie; the pixel
    chunks are stepped over unread (no checksum: a 70 MB PNG costs microseconds, not
    the 15 ms of checking every chunk). Stops at IEND or where the file is cut off:
    the decoder reports a broken file."""
    pos, size = 8, len(data)
    while pos + 12 <= size:
        length = int.from_bytes(data[pos:pos + 4], "big")
        kind = data[pos + 4:pos + 8]
        end = pos + 12 + length
        if end > size or kind == b"IEND":
            return
        if kind in (b"eXIf", b"tEXt", b"zTXt", b"iTXt"):
            yield kind, data[pos + 8:pos + 8 + length]
        pos = end


def _png_text(kind: bytes, payload: bytes) -> tuple[bytes, bytes | None]:
    """(keyword, text) of a tEXt/zTXt/iTXt chunk; text None when unreadable."""
    keyword, _, rest = payload.partition(b"\0")
    if kind == b"tEXt":
        return keyword, rest
    if kind == b"zTXt":
        return keyword, _inflate(rest[1:]) if rest[:1] == b"\0" else None
    flag, method, rest = rest[:1], rest[1:2], rest[2:]
    _language, _, rest = rest.partition(b"\0")
    _translated, _, text = rest.partition(b"\0")
    if flag == b"\1":
        return keyword, _inflate(text) if method == b"\0" else None
    return keyword, text


def _inflate(body: bytes) -> bytes | None:
    import zlib

    try:
        out = zlib.decompressobj().decompress(body, _PNG_TEXT_LIMIT)
    except zlib.error:
        return None
    return out if len(out) < _PNG_TEXT_LIMIT else None


# -- pixels ----------------------------------------------------------------------------------


def draft(image: Image.Image, size: tuple[int, int]) -> None:
    """Let a JPEG decode at 1/2, 1/4 or 1/8 scale (libjpeg's DCT scaling) while staying
    at least ``size``; other formats, and JPEGs not that much bigger, are left alone."""
    if image.format == "JPEG" and (image.width >= 2 * size[0] and image.height >= 2 * size[1]):
        image.draft("RGB", size)


def shrink_to(image: Image.Image, max_side: int) -> Image.Image:
    """``image`` made smaller (never larger) so its longer side is ``max_side``: bilinear,
    with Pillow's reducing gap (a box reduction first, then resampling)."""
    from PIL import Image

    if max(image.size) <= max_side:
        return image
    shrink = max_side / max(image.size)
    return image.resize(
        (max(1, round(image.width * shrink)), max(1, round(image.height * shrink))),
        Image.Resampling.BILINEAR,
        reducing_gap=2.0,
    )


def to_srgb(image: Image.Image) -> Image.Image:
    """8-bit RGB, an embedded ICC profile applied so colours do not shift (ADR 046);
    16-bit greyscale scaled to 8 bits, palette and alpha composited on white."""
    from PIL import Image, ImageCms

    icc = image.info.get("icc_profile")
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):
        image = image.point(lambda v: v / 256).convert("L")
    if image.mode == "P":
        image = image.convert("RGBA")
    if image.mode in ("RGBA", "LA"):
        background = Image.new("RGBA", image.size, (255, 255, 255, 255))
        image = Image.alpha_composite(background, image.convert("RGBA"))
    if icc:
        try:
            src = ImageCms.ImageCmsProfile(io.BytesIO(icc))
            mode = image.mode if image.mode in ("RGB", "CMYK", "L") else "RGB"
            if image.mode != mode:
                image = image.convert(mode)
            converted = ImageCms.profileToProfile(
                image,
                src,
                ImageCms.createProfile("sRGB"),
                outputMode="RGB",
                renderingIntent=ImageCms.Intent.PERCEPTUAL,
            )
            if converted is not None:  # None only when converting in place
                return converted
        except (OSError, ImageCms.PyCMSError, ValueError):
            pass  # a broken profile: fall back to plain conversion
    return image if image.mode == "RGB" else image.convert("RGB")


def to_array(rgb: Image.Image, band_bytes: int = 4 << 20) -> np.ndarray:
    """An RGB image as an (h, w, 3) ``uint8`` array, copied in bands of ``band_bytes``.

    ``np.asarray`` copies a whole photo in one piece while holding the GIL (a 75 MP
    photo: ~50 ms with the GUI thread waiting); bands keep those waits to a few ms.
    """
    import numpy as np

    width, height = rgb.size
    out = np.empty((height, width, 3), np.uint8)
    rows = max(1, band_bytes // max(1, 3 * width))
    for top in range(0, height, rows):
        band = rgb.crop((0, top, width, min(height, top + rows)))
        out[top : top + band.height] = np.frombuffer(band.tobytes(), np.uint8).reshape(
            band.height, width, 3
        )
    return out


def decode_rgb(
    data: bytes,
    name: str = "photo",
    max_side: int | None = None,
    *,
    max_pixels: int | None = PHOTO_MAX_PIXELS,
) -> np.ndarray:
    """Decode ``data`` to an upright sRGB ``uint8`` array of shape (h, w, 3).

    With ``max_side``, a preview whose long side is at most ``max_side``: a JPEG is
    decoded directly at 1/2, 1/4 or 1/8 scale, then every format is resized; far less
    time and memory than a full decode. The limit is the photographers'
    (:data:`PHOTO_MAX_PIXELS`) unless ``max_pixels`` says otherwise. Every failure is a
    :class:`DecodeError` naming ``name``.
    """
    image = None
    try:
        with open_image(data, name, max_pixels=max_pixels) as image:
            orientation = image_orientation(image, data)  # read_header's, before decoding
            if max_side and max(image.size) > max_side:
                shrink = max_side / max(image.size)
                draft(image, (math.ceil(image.width * shrink), math.ceil(image.height * shrink)))
            image.load()
            # no copy of an upright photo (a whole-photo copy holds the GIL: see to_array)
            transpose = orientation_transpose(orientation)
            upright = image.transpose(transpose) if transpose is not None else image
            if max_side:
                upright = shrink_to(upright, max_side)
            return to_array(to_srgb(upright))  # inside: closing drops the pixels
    except (OSError, SyntaxError, ValueError, MemoryError) as exc:
        raise decode_failure(exc, name, image, data) from exc
