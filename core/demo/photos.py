"""The demo photos in a project: written as JPEGs with EXIF, imported, detected (ADR 047).

The scenes are drawn by :mod:`core.demo.photo_scenes`; here they become files (real
EXIF, one stored sideways) and photos of a project, as "Import Photo Folder" and
"Detect" would make them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PIL import Image

from core.demo.photo_scenes import DemoPhoto, draw_demo_photos

DEMO_CREDIT = "Winnow demo"
DEMO_LICENCE = "CC-BY-4.0"
PHOTOS_SUBDIR = "photos"


def exif_bytes(photo: DemoPhoto) -> bytes:
    """EXIF for ``photo``: camera, date, artist, GPS position and orientation."""
    exif = Image.Exif()
    exif[0x010F], exif[0x0110] = photo.camera  # Make, Model
    exif[0x0112] = photo.orientation
    exif[0x013B] = "Alex Example"  # Artist
    exif[0x0132] = photo.taken  # DateTime
    exif.get_ifd(0x8769)[0x9003] = photo.taken  # DateTimeOriginal
    lat, lon = photo.gps

    def dms(value: float) -> tuple[float, float, float]:
        value = abs(value)
        deg, minutes = int(value), (abs(value) - int(value)) * 60
        return (float(deg), float(int(minutes)), round((minutes - int(minutes)) * 60, 2))

    gps = exif.get_ifd(0x8825)
    gps[1], gps[2] = ("N" if lat >= 0 else "S"), dms(lat)
    gps[3], gps[4] = ("E" if lon >= 0 else "W"), dms(lon)
    return exif.tobytes()


def _stored(photo: DemoPhoto) -> Image.Image:
    """The pixels as the camera stores them (orientation 6: upright turned 90° left)."""
    if photo.orientation == 6:
        return photo.image.transpose(Image.Transpose.ROTATE_90)
    if photo.orientation != 1:
        raise ValueError(f"unsupported demo orientation {photo.orientation}")
    return photo.image


def write_demo_photos(folder: Path, shots: list[DemoPhoto], root: Path | None = None
                      ) -> list[Path]:
    """Write ``shots`` as JPEGs with EXIF into ``folder``; returns the paths.

    Each file is recorded in the ownership marker of ``root`` (default ``folder``); an
    existing file is replaced only when that marker proves Winnow wrote it (ADR 005).
    """
    import io

    from core.export_files import export_bytes

    paths = []
    for photo in shots:
        buffer = io.BytesIO()
        _stored(photo).save(buffer, "JPEG", quality=90, exif=exif_bytes(photo))
        paths.append(export_bytes(folder / photo.name, buffer.getvalue(), root=root or folder))
    return paths


def generate_demo_photos(folder: Path, seed: int) -> list[Path]:
    """Draw the demo photos and write them into ``folder`` (JPEG + EXIF); returns the paths."""
    return write_demo_photos(Path(folder), draw_demo_photos(seed))


# -- into a project ------------------------------------------------------------------------------
def demo_detect_settings() -> tuple[Any, bool]:
    """Default detection settings for what is installed, and whether faces can be searched.

    CenterFace when its model is installed, else dlib HOG; plates only with rapidocr.
    """
    from core.imaging import faces, plates
    from core.imaging.detect import DetectSettings

    settings = DetectSettings()
    face_ok = faces.centerface_available()
    if not face_ok and faces.hog_available():
        settings.face_detector, face_ok = "hog", True
    settings.plates = plates.text_model_path() is not None
    return settings, face_ok


def add_demo_photos(project: Any, sources_dir: Path, state: Any, seed: int = 0) -> int:
    """Draw the demo photos into ``sources_dir/photos``, import them as "Import Photo
    Folder" does, detect faces and plates as "Detect" does, add a manual face region
    over each drawn face and set category, credit and licence.  The photos stay
    unreviewed (status "new").  Returns the number of photos imported.
    """
    from core.imaging import photos as repo
    from core.imaging.detect import detect_all, detect_plates

    state.check()
    state.set_status("Drawing demo photos")
    shots = {s.name: s for s in draw_demo_photos(seed)}
    state.check()
    folder = Path(sources_dir) / PHOTOS_SUBDIR
    write_demo_photos(folder, list(shots.values()), root=Path(sources_dir))
    state.set_status("Importing demo photos")
    report = repo.import_folder(project, folder, state)
    if report.errors:
        raise RuntimeError("demo photos could not be imported: "
                           + "; ".join(msg for _name, msg in report.errors))
    settings, face_ok = demo_detect_settings()
    state.set_total(len(report.imported))
    state.set_progress(0)
    for photo_id in report.imported:
        state.check()
        photo = repo.get_photo(project, photo_id)
        shot = shots.get(photo.file_name)
        state.set_status(f"Detecting in {photo.file_name}")
        rgb = repo.load_original(project, photo)
        if face_ok:
            found = detect_all(rgb, settings, state.check)
        else:
            found = detect_plates(rgb, settings) if settings.plates else []
        repo.replace_detections(project, photo_id, found, settings.to_json())
        if shot is not None:
            for x, y, w, h in shot.faces:  # drawn a little generously, as a person would
                repo.add_region(project, photo_id, kind="face", shape="ellipse",
                                x=max(0.0, x - 0.1 * w), y=max(0.0, y - 0.08 * h),
                                w=1.2 * w, h=1.16 * h, source="manual")
            repo.update_photo(project, photo_id, category=shot.category, credit=DEMO_CREDIT,
                              licence=DEMO_LICENCE, caption=shot.caption, notes=shot.notes)
        state.advance()
    return len(report.imported)
