"""A photo's original in the project: intake from files, and the stored bytes read back.

Intake copies each photo file into the asset store (decoded once to learn its size and
to refuse what cannot be shown) and adds its ``photos`` row with an audit row; reading
back checks that the stored bytes still hash to the photo's SHA-256 (ADR 156). The
photo repository (:mod:`core.imaging.photos`) hands these out with the rest.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import numpy as np

from core.imaging.loading import (
    PhotoDecodeError,
    decode_photo,
    decode_rgb,
    scan_photos,
    why_not_a_folder,
)
from core.imaging.photo_records import IntakeReport, Photo


# -- intake ------------------------------------------------------------------------------
def photo_files(folder: str | os.PathLike[str]) -> list[Path]:
    """Photo files under ``folder`` (recursively, sorted, hidden files skipped)."""
    return _scan(folder)[0]


def _scan(folder: str | os.PathLike[str]) -> tuple[list[Path], list[tuple[str, str]]]:
    folder = Path(folder)
    if not folder.is_dir():
        raise NotADirectoryError(why_not_a_folder(folder))
    photos, skipped = scan_photos(folder)
    return sorted(folder / rel for rel in photos), skipped


def import_photo(project: Any, path: str | os.PathLike[str]) -> tuple[int, bool]:
    """Copy one photo into the project; returns (photo id, newly added).

    Raises :class:`PhotoDecodeError` naming the file when it cannot be decoded.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise PhotoDecodeError(path.name, f"cannot read ({exc.strerror or exc})") from exc
    rgb = decode_photo(data, path.name)
    height, width = rgb.shape[:2]
    ext = path.suffix.lower().lstrip(".") or "jpg"
    ext = "jpg" if ext == "jpeg" else ext
    sha, _stored = project.assets.put(data, ext)
    existing = project.conn.execute("SELECT id FROM photos WHERE sha256 = ?",
                                    (sha,)).fetchone()
    if existing:
        return int(existing[0]), False
    from core.store.project import now_iso

    now = now_iso()
    with project.transaction() as conn:
        conn.execute(
            "INSERT OR IGNORE INTO images(sha256, ext, mime, width, height, bytes, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (sha, ext, "image/png" if ext == "png" else f"image/{ext}", width, height,
             len(data), now))
        cur = conn.execute(
            "INSERT INTO photos(sha256, file_name, source_path, width, height, imported_at, "
            "modified_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (sha, path.name, str(path), width, height, now, now))
        photo_id = int(cur.lastrowid)
        project.audit("import", "photo", str(photo_id), None, None,
                      {"file": path.name, "sha256": sha})
    return photo_id, True


def import_folder(project: Any, folder: str | os.PathLike[str], state: Any = None
                  ) -> IntakeReport:
    """Import every photo under ``folder``; a bad file is reported, never fatal, and every
    other file is listed under ``skipped`` with the reason."""
    files, skipped = _scan(folder)
    report = IntakeReport(skipped=skipped)
    if state is not None:
        state.set_total(len(files))
    for path in files:
        if state is not None:
            state.check()
            state.set_status(path.name)
        try:
            photo_id, new = import_photo(project, path)
        except PhotoDecodeError as exc:
            report.errors.append((path.name, str(exc)))
        else:
            (report.imported.append(photo_id) if new else report.duplicates.append(path.name))
        if state is not None:
            state.advance()
    return report


# -- the stored original -----------------------------------------------------------------
def original_path(project: Any, photo: Photo) -> Path:
    """The read-only original in the asset store."""
    path: Path | None = project.assets.find(photo.sha256)
    if path is None:
        raise FileNotFoundError(f"{photo.file_name}: original missing from the asset store")
    return path


class OriginalChangedError(ValueError):
    """The stored original's bytes no longer hash to the photo's SHA-256."""


def load_original(project: Any, photo: Photo) -> np.ndarray:
    """The original, upright, as an sRGB array.

    Raises :class:`OriginalChangedError` when the stored file was changed since it was
    imported (a sync tool rotating it in place): regions drawn on it would no longer lie
    on what is detected or released (ADR 156).
    """
    return decode_rgb(read_original(project, photo), photo.file_name)


def read_original(project: Any, photo: Photo) -> bytes:
    """The stored original's bytes; :class:`OriginalChangedError` unless they still hash
    to the photo's SHA-256 (OSError when the file is missing or unreadable)."""
    data = original_path(project, photo).read_bytes()
    check_original(photo, data)
    return data


def check_original(photo: Photo, data: bytes) -> None:
    """Raise :class:`OriginalChangedError` unless ``data`` hash to the photo's SHA-256."""
    if hashlib.sha256(data).hexdigest() != photo.sha256:
        raise OriginalChangedError(
            f"{photo.file_name}: the original in the project's asset store was changed "
            "since it was imported (its SHA-256 no longer matches); import the photo again")
