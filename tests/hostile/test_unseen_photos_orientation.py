"""A real face photographed in every EXIF orientation (2–8, as phones and cameras store
portraits and selfies): detection finds the face where the photographer sees it, and
the released file is upright, hides that face and matches the upright photo's release."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from core.imaging import photos as repo
from core.imaging.boxes import intersection
from core.imaging.decode import orientation_transpose
from core.imaging.detect import DetectSettings, detect_all
from core.imaging.loading import load_rgb
from core.imaging.release import release_photo

#: the inverse of each orientation's display transpose (5 and 7 are their own inverse)
INVERSE = {2: 2, 3: 3, 4: 4, 5: 5, 6: 8, 7: 7, 8: 6}


def _settings() -> DetectSettings:
    from core.imaging.faces import centerface_available

    return DetectSettings(face_detector="centerface" if centerface_available() else "hog",
                          plates=False)


@pytest.fixture(scope="module")
def upright() -> Image.Image:
    """Tom_Cruise_avp_2014_4.jpg (dlib's test data), at 40 %: one clear frontal face."""
    from shared_data import need_testdata

    path = need_testdata("faces") / "Tom_Cruise_avp_2014_4.jpg"
    with Image.open(path) as image:
        return image.convert("RGB").resize((226, 320))


def _stored(upright: Image.Image, orientation: int) -> bytes:
    """JPEG bytes that a viewer shows as ``upright`` (pixels stored for ``orientation``)."""
    stored = upright if orientation == 1 else upright.transpose(
        orientation_transpose(INVERSE[orientation]))  # type: ignore[arg-type]  # 2–8
    exif = Image.Exif()
    exif[0x0112] = orientation
    buffer = io.BytesIO()
    stored.save(buffer, "JPEG", quality=95, exif=exif)
    return buffer.getvalue()


def _iou(a, b) -> float:
    inter = intersection(a, b)
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def _release(project, folder: Path, upright: Image.Image, orientation: int):
    path = folder / f"o{orientation}.jpg"
    path.write_bytes(_stored(upright, orientation))
    with Image.open(path) as check:  # the stored pixels really are turned
        assert check.getexif()[0x0112] == orientation
        if orientation in (5, 6, 7, 8):
            assert check.size == upright.size[::-1]
    photo_id, _ = repo.import_photo(project, path)
    photo = repo.get_photo(project, photo_id)
    assert (photo.width, photo.height) == upright.size
    found = detect_all(repo.load_original(project, photo), _settings())
    repo.replace_detections(project, photo_id, found, _settings().to_json())
    regions = repo.regions(project, photo_id)
    repo.set_status(project, photo_id, "reviewed")
    out, verification = release_photo(project, photo_id, folder / "out", _settings())
    with Image.open(out) as image:
        pixels = np.asarray(image.convert("RGB"), dtype=np.int16)
    return [(r.x, r.y, r.w, r.h) for r in regions if r.kind == "face"], pixels, verification


def test_every_orientation_releases_upright_with_the_face_hidden(project, tmp_path: Path,
                                                                  upright: Image.Image
                                                                  ) -> None:
    (tmp_path / "out").mkdir()
    faces1, pixels1, _ = _release(project, tmp_path, upright, 1)
    assert len(faces1) == 1, faces1
    x, y, w, h = (round(v) for v in faces1[0])
    seen = np.asarray(upright, dtype=np.int16)
    # the face really is hidden in the upright release, and the rest stays as it was
    assert np.abs(pixels1[y:y + h, x:x + w] - seen[y:y + h, x:x + w]).mean() > 10
    for orientation in range(2, 9):
        faces, pixels, verification = _release(project, tmp_path, upright, orientation)
        assert verification.ok, (orientation, verification.to_json())
        assert len(faces) == 1 and _iou(faces[0], faces1[0]) > 0.8, (orientation, faces)
        assert pixels.shape == pixels1.shape, orientation
        # upright and the same picture: only JPEG noise between the two releases
        assert np.abs(pixels - pixels1).mean() < 4, orientation


def test_a_face_and_its_reflection_are_both_found_and_hidden(project, tmp_path: Path,
                                                            upright: Image.Image) -> None:
    """SPEC §4's faces in reflections: the person and a mirror image of them (flipped,
    darker, bluish, slightly soft, as in a shop window) are two faces to hide."""
    from PIL import ImageFilter

    mirror = upright.transpose(Image.Transpose.FLIP_LEFT_RIGHT).filter(
        ImageFilter.GaussianBlur(1.2))
    tinted = (np.asarray(mirror, float) * (0.6, 0.65, 0.75) + 30).clip(0, 255)
    canvas = np.full((360, 520, 3), 90, np.uint8)
    canvas[20:340, 10:236] = np.asarray(upright)
    canvas[20:340, 280:506] = tinted.astype(np.uint8)
    path = tmp_path / "window.png"
    Image.fromarray(canvas).save(path)
    photo_id, _ = repo.import_photo(project, path)
    found = detect_all(canvas, _settings())
    repo.replace_detections(project, photo_id, found, _settings().to_json())
    faces = [r for r in repo.regions(project, photo_id) if r.kind == "face"]
    assert sorted(r.x + r.w / 2 > 260 for r in faces) == [False, True], faces
    repo.set_status(project, photo_id, "reviewed")
    out, verification = release_photo(project, photo_id, tmp_path / "out", _settings())
    assert verification.ok and not verification.outside
    with Image.open(out) as image:
        pixels = np.asarray(image, dtype=np.int16)
    for left in (10, 280):  # both faces changed
        assert np.abs(pixels[100:260, left + 40:left + 186]
                      - canvas[100:260, left + 40:left + 186]).mean() > 10


@pytest.mark.parametrize("geometry", [
    {"angle": 20.0}, {"angle": -33.0, "rot90": 1},
    {"quad": [[40, 30], [480, 10], [470, 320], [20, 300]]},
    {"quad": [[40, 30], [480, 10], [470, 320], [20, 300]], "angle": 12.0,
     "crop": [50, 100, 300, 150]},
])
def test_crop_rotate_and_keystone_keep_every_face_hidden(project, tmp_path: Path,
                                                         geometry) -> None:
    """Three people (dlib's 2008_002470.jpg): after a fine rotation, quarter turns, a
    keystone and a crop, the detector finds no face in the released file even at its
    detection threshold."""
    from shared_data import need_testdata

    photo_id, _ = repo.import_photo(project, need_testdata("faces") / "2008_002470.jpg")
    rgb = repo.load_original(project, repo.get_photo(project, photo_id))
    found = detect_all(rgb, _settings())
    assert len([d for d in found if d.kind == "face"]) >= 3
    repo.replace_detections(project, photo_id, found, _settings().to_json())
    repo.update_photo(project, photo_id, geometry=geometry)
    repo.set_status(project, photo_id, "reviewed")
    out, verification = release_photo(project, photo_id, tmp_path / "out", _settings())
    assert verification.ok
    released = load_rgb(out)
    assert released.shape[:2] != rgb.shape[:2]  # the geometry was applied
    assert [d for d in detect_all(released, _settings()) if d.kind == "face"] == []
