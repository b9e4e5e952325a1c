"""Photos for Anonymize: read, decoded upright and in sRGB by :mod:`core.imaging.decode`.

Everything downstream (detection, display, release) works on the upright RGB array
returned by :func:`load_rgb`, so region coordinates always refer to the photo as a
person sees it.  Photos have the photographers' pixel limit
(:data:`core.imaging.decode.PHOTO_MAX_PIXELS`).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import numpy as np

from core.imaging.decode import (
    PHOTO_MAX_PIXELS,
    DecodeError,
    decode_rgb,
    heif_available,
    read_header,
)

__all__ = [
    "HEIF_SUFFIXES",
    "OTHER_IMAGE_SUFFIXES",
    "PHOTO_SUFFIXES",
    "PhotoDecodeError",
    "accepted_suffixes",
    "decode_photo",
    "decode_rgb",
    "heif_available",
    "load_rgb",
    "scan_photos",
    "upright_size",
    "why_not_a_folder",
    "why_not_read",
]

#: suffixes accepted by the folder intake (HEIC only when pillow-heif is installed)
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png")
HEIF_SUFFIXES = (".heic", ".heif")

#: image formats people keep photos in that Anonymize does not read
OTHER_IMAGE_SUFFIXES = (".webp", ".tif", ".tiff", ".gif", ".bmp", ".avif", ".jxl", ".jp2",
                        ".dng", ".raw", ".cr2", ".nef", ".arw", ".psd")

#: a file that is not a photo Winnow can read (the message names the file)
PhotoDecodeError = DecodeError


def accepted_suffixes() -> tuple[str, ...]:
    """Photo suffixes this installation can read."""
    return PHOTO_SUFFIXES + (HEIF_SUFFIXES if heif_available() else ())


def load_rgb(path: str | os.PathLike[str]) -> np.ndarray:
    """Read and decode the photo at ``path`` (see :func:`core.imaging.decode.decode_rgb`)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DecodeError(path.name, f"cannot read ({exc.strerror or exc})") from exc
    return decode_photo(data, path.name)


def decode_photo(data: bytes, name: str = "photo") -> np.ndarray:
    """:func:`decode_rgb` of a photo entering Anonymize, refused (:class:`DecodeError`)
    when its pixels are not the upright size its header says: regions drawn on one
    would not land on the other in the released file (ADR 165)."""
    rgb = decode_rgb(data, name)
    header = read_header(data, name, max_pixels=PHOTO_MAX_PIXELS).upright_size
    if header != (rgb.shape[1], rgb.shape[0]):
        raise DecodeError(name, f"its header says {header[0]}×{header[1]} pixels upright but "
                          f"it decodes to {rgb.shape[1]}×{rgb.shape[0]}; not taken, as "
                          "regions drawn on it could miss what is released")
    return rgb


def upright_size(data: bytes, name: str = "photo") -> tuple[int, int]:
    """(width, height) after EXIF orientation, from the header alone (no pixel decoded,
    a PNG's eXIf chunk included)."""
    return read_header(data, name, max_pixels=PHOTO_MAX_PIXELS).upright_size


def why_not_read(suffix: str) -> str:
    """Why a file with this (lower-case) suffix is not taken as a photo."""
    readable = "JPEG, PNG" + (", HEIC" if ".heic" in accepted_suffixes() else "")
    if suffix in HEIF_SUFFIXES:
        return "HEIC/HEIF photos need the optional pillow-heif package (pip install pillow-heif)"
    if suffix in OTHER_IMAGE_SUFFIXES:
        return (f"{suffix} images are not supported (Winnow anonymizes {readable}); "
                "convert it first")
    return f"not a photo Winnow reads ({readable})"


def why_not_a_folder(path: str | os.PathLike[str]) -> str:
    """Why ``path``, which is not a folder, is not one, naming it: a symlink loop, a link
    to nothing, a file, or nothing at all (ADR 211)."""
    path = Path(path)
    if path.is_symlink():
        try:
            os.stat(path)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return (f"{path} is a link that leads back to itself (a symlink loop), not "
                        "a folder")
            return f"{path} is a link to {os.readlink(path)}, which does not exist"
    if os.path.lexists(path):
        return f"{path} is a file, not a folder"
    return f"{path} does not exist"


def scan_photos(folder: Path, exclude: Path | None = None
                ) -> tuple[list[Path], list[tuple[str, str]]]:
    """``(photos, skipped)`` under ``folder``: the relative paths of the photos this
    installation reads, and every other non-hidden file (relative, POSIX) with the reason
    it is left out (:func:`why_not_read`; pipes, devices and sockets are never opened,
    ADR 155; nor are links to files outside ``folder``, ADR 176). Hidden files and
    folders, linked folders and the folder ``exclude`` are not searched; a hidden folder
    holding images and a link to a folder outside ``folder`` are listed as skipped too
    (ADR 186), so no photo is left out without a word."""
    accepted = accepted_suffixes()
    photos: list[Path] = []
    skipped: list[tuple[str, str]] = []
    excluded = Path(os.path.realpath(exclude)) if exclude is not None else None
    root = Path(os.path.realpath(folder))
    for top, dirs, names in os.walk(folder):
        base = Path(top)
        found, dirs[:] = sorted(dirs), []
        for name in found:
            path = base / name
            if Path(os.path.realpath(path)) == excluded:
                continue
            if name.startswith(".") or path.is_symlink():
                why = _why_folder_left_out(path, root)
                if why:
                    skipped.append((path.relative_to(folder).as_posix(), why))
            else:
                dirs.append(name)
        for name in sorted(names):
            if name.startswith("."):
                continue
            rel = (base / name).relative_to(folder)
            if root not in Path(os.path.realpath(base / name)).parents:  # ADR 176
                skipped.append((rel.as_posix(), "a link to a file outside the folder (never "
                                "read)"))
            elif (base / name).exists() and not (base / name).is_file():  # a pipe: read for ever
                skipped.append((rel.as_posix(), "not a regular file (a pipe, a device or a "
                                "socket)"))
            elif rel.suffix.lower() in accepted:
                photos.append(rel)
            else:
                skipped.append((rel.as_posix(), why_not_read(rel.suffix.lower())))
    return photos, skipped


def _why_folder_left_out(path: Path, root: Path) -> str | None:
    """Why the linked or hidden sub-folder ``path`` (not searched) is worth naming, or
    None: a link leading inside ``root`` is reached by its own path, and a hidden folder
    without images (``.git``) is nobody's photos."""
    if path.is_symlink():
        real = Path(os.path.realpath(path))
        if real == root or root in real.parents:
            return None
        return ("a link to a folder outside the folder (not followed: its photos are not "
                "read; copy them in, or anonymize that folder itself)")
    if not _holds_images(path):
        return None
    return ("a hidden folder holding images (hidden folders are not searched: rename it "
            "without the leading dot to anonymize its photos)")


def _holds_images(folder: Path) -> bool:
    """Whether any file under ``folder`` (links not followed) has an image's suffix."""
    suffixes = PHOTO_SUFFIXES + HEIF_SUFFIXES + OTHER_IMAGE_SUFFIXES
    return any(Path(name).suffix.lower() in suffixes
               for _top, _dirs, names in os.walk(folder) for name in names)
