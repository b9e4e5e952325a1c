"""The released file itself: bare pixels encoded, checked for metadata, named and written.

Split from :mod:`core.imaging.release` (ADR 227), which renders and verifies a photo and
hands these out under the names callers use. The file is encoded from bare pixels (no
EXIF, GPS, thumbnail, XMP, IPTC, ICC profile, comments or PNG text) and checked byte by
byte (:func:`metadata_found`); it is named for the photo's number and category (ADR 164)
and written through :mod:`core.files` (atomic, never replacing a file Winnow did not
write, ADR 156).
"""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from core.files import digest, write_bytes

JPEG_QUALITY = 92
#: the widest / tallest image libjpeg writes (ADR 185)
JPEG_MAX_SIDE = 65_500


class EncodeError(ValueError):
    """The pixels cannot be stored in the chosen format (the message says why and what
    to do); nothing was written."""


# -- metadata -------------------------------------------------------------------------------
_PNG_ALLOWED = {b"IHDR", b"PLTE", b"IDAT", b"IEND", b"tRNS", b"sRGB", b"gAMA"}


def metadata_found(data: bytes) -> list[str]:
    """Every kind of metadata present in an encoded JPEG or PNG (empty = clean).

    Walks every segment (:mod:`core.imaging.segments`), including those between the
    scans of a progressive JPEG, and reports bytes after the end of the image and a
    damaged structure too.
    """
    from core.imaging.segments import TRAILING, SegmentError, image_kind, segments

    kind = image_kind(data)
    if kind is None:
        return ["not a JPEG or PNG"]
    found: list[str] = []

    def add(label: str) -> None:
        if label not in found:
            found.append(label)

    try:
        for seg in segments(data):
            if seg.kind == TRAILING:
                add("bytes after the end of the image")
            elif kind == "png":
                if seg.kind.encode("latin-1") not in _PNG_ALLOWED:
                    add(f"PNG {seg.kind} chunk")
                if not seg.crc_ok:
                    add(f"PNG {seg.kind} chunk with a bad CRC")
            elif seg.marker == 0xFE:
                add("JPEG comment")
            elif seg.marker is not None and 0xE1 <= seg.marker <= 0xEF:
                head = seg.payload[:32]
                add("EXIF" if head.startswith(b"Exif") else
                    "XMP" if b"ns.adobe.com/xap" in head or b"ns.adobe.com/xmp" in head else
                    "ICC profile" if head.startswith(b"ICC_PROFILE") else
                    "IPTC/Photoshop" if head.startswith(b"Photoshop") else
                    f"APP{seg.marker - 0xE0} segment")
            elif seg.marker == 0xE0 and not seg.payload.startswith(b"JFIF\x00"):
                add("APP0 segment (not JFIF)")
    except SegmentError as exc:
        add(f"damaged {'PNG' if kind == 'png' else 'JPEG'} structure ({exc})")
    if kind == "jpeg":
        for needle, label in ((b"Exif\x00\x00", "EXIF"), (b"http://ns.adobe.com/", "XMP"),
                              (b"Photoshop 3.0", "IPTC/Photoshop"),
                              (b"ICC_PROFILE", "ICC profile")):
            if needle in data:
                add(label)
    return found


def encode_clean(rgb: np.ndarray, fmt: str = "jpg") -> bytes:
    """Encode bare pixels (no metadata of any kind) as JPEG or PNG.

    Raises :class:`EncodeError` for a JPEG wider or taller than :data:`JPEG_MAX_SIDE`.
    """
    from PIL import Image

    if fmt != "png":
        _check_jpeg_size(rgb.shape[1], rgb.shape[0])
    image = Image.fromarray(np.ascontiguousarray(rgb, dtype=np.uint8), "RGB")
    buffer = io.BytesIO()
    if fmt == "png":
        image.save(buffer, "PNG", optimize=False)
    else:
        image.save(buffer, "JPEG", quality=JPEG_QUALITY, subsampling=0, exif=b"",
                   icc_profile=None)
    data = buffer.getvalue()
    leftovers = metadata_found(data)
    if leftovers:  # pragma: no cover - a Pillow change would land here
        raise RuntimeError(f"encoder left metadata in the file: {', '.join(leftovers)}")
    return data


def _check_jpeg_size(width: int, height: int) -> None:
    """Raise :class:`EncodeError` when JPEG cannot hold a ``width`` × ``height`` image."""
    if max(width, height) > JPEG_MAX_SIDE:
        side = "wide" if width > JPEG_MAX_SIDE else "tall"
        raise EncodeError(
            f"JPEG cannot hold an image {max(width, height)} px {side} (at most "
            f"{JPEG_MAX_SIDE:,} px a side); nothing was written: crop or scale the photo "
            "below that, or save it as PNG (a .png photo is released as PNG)")


def release_stem(photo: Any) -> str:
    """The released file's name without extension: ``photo-00012-vehicle`` (ADR 164).

    Made of the photo's number in the project and its category, nothing of the original
    file name (``anna_smith_at_home.jpg`` can name the person); the original name stays
    inside the project. A category outside the known list is left out of the name.
    """
    from core.imaging.photos import CATEGORIES

    category = getattr(photo, "category", None)
    suffix = f"-{category.lower()}" if category in CATEGORIES else ""
    return f"photo-{int(photo.id):05d}{suffix}"


def release_names(out_dir: Path, stem: str, fmt: str) -> Iterator[Path]:
    """Candidate file names: ``stem.fmt``, then ``stem-2.fmt``, ``stem-3.fmt``…"""
    yield out_dir / f"{stem}.{fmt}"
    for n in range(2, 1000):
        yield out_dir / f"{stem}-{n}.{fmt}"


def write_release(out_dir: Path, photo: Any, fmt: str, data: bytes,
                  own_sha256: str | None = None,
                  claimed: Callable[[Path], bool] = lambda _path: False) -> Path:
    """Write a released file under the first free name (:func:`release_stem`); returns
    the path.

    Never replaces a file, except this photo's own earlier release at the same path,
    unchanged (its SHA-256 is ``own_sha256``, as recorded when it was released).  A
    regular file already holding exactly ``data`` that is not another photo's release
    (``claimed(path)``) is taken as written (a release killed after writing
    it and before recording it leaves one; releasing again must not add a second copy
    under another name): nothing is replaced (ADR 156). This photo's earlier release in
    the same folder under another name (an original file name, before ADR 164) is
    removed once the new file is written, only while it holds exactly ``own_sha256``.
    """
    sha = hashlib.sha256(data).hexdigest()
    for target in release_names(out_dir, release_stem(photo), fmt):
        if photo.released_path == str(target) and own_sha256 and _holds(target, own_sha256):
            write_bytes(target, data, replace=True)
            return target
        try:
            write_bytes(target, data)
        except FileExistsError:
            if _holds(target, sha, len(data)) and not claimed(target):
                _drop_earlier(out_dir, photo, target, own_sha256)
                return target
            continue
        _drop_earlier(out_dir, photo, target, own_sha256)
        return target
    raise FileExistsError(f"{photo.file_name}: no free file name left in {out_dir}")


def _drop_earlier(out_dir: Path, photo: Any, target: Path, own_sha256: str | None) -> None:
    """Remove this photo's earlier release in ``out_dir`` under another name than
    ``target``, if it still holds exactly the bytes recorded at its release (ADR 005)."""
    earlier = Path(photo.released_path) if photo.released_path else None
    if earlier is None or not own_sha256 or earlier.name == target.name:
        return
    try:
        if os.path.realpath(earlier.parent) == os.path.realpath(out_dir) \
                and _holds(earlier, own_sha256):
            earlier.unlink()
    except OSError:
        pass  # it stays; nothing else depends on it


def _holds(path: Path, sha256: str, size: int | None = None) -> bool:
    """Whether ``path`` is a regular file (not a link) whose bytes hash to ``sha256``."""
    try:
        if path.is_symlink() or not path.is_file():
            return False
        if size is not None and path.stat().st_size != size:
            return False
        return digest(path)[1] == sha256
    except OSError:
        return False
