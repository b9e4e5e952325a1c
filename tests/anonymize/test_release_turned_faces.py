"""A photo stored sideways or upside down without an orientation tag (a scanned print, a
photo whose EXIF a tool stripped without turning it) shows its faces turned. CenterFace
learnt upright faces and misses most of them, in the detection and in the release check
alike, so `winnow anonymize` wrote such photos as verified with faces a viewer sees once
the picture is turned upright. The check now also looks at the photo turned a quarter,
a half and three quarters round (ADR 197)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from anon_helpers import need_centerface, need_testdata
from PIL import Image

from core.imaging.batch import anonymize_folder
from core.imaging.boxes import iou
from core.imaging.detect import DetectSettings, centerface_faces, turned_faces
from core.imaging.loading import decode_rgb

#: group photos of the dlib test set whose faces CenterFace misses when turned
PHOTOS = ("2007_007763.jpg", "2008_002079.jpg")


def _upright(name: str) -> np.ndarray:
    with Image.open(need_testdata("faces") / name) as image:
        return np.asarray(image.convert("RGB"))


@pytest.mark.parametrize("quarters", [1, 2, 3])
def test_turned_photo_leaves_no_face_once_turned_upright(tmp_path: Path,
                                                         quarters: int) -> None:
    need_centerface()
    folder = tmp_path / "in"
    folder.mkdir()
    for name in PHOTOS:  # stored turned, no orientation tag
        Image.fromarray(np.rot90(_upright(name), quarters)).save(folder / name, quality=95)
    report = anonymize_folder(folder, tmp_path / "out", settings=DetectSettings(plates=False))
    assert not report["errors"]
    for name in PHOTOS:
        written = tmp_path / "out" / name
        if not written.exists():  # refused: nothing leaks either
            assert name in [f["file"] for f in report["failed"]]
            continue
        upright = np.ascontiguousarray(np.rot90(decode_rgb(written.read_bytes()), -quarters))
        left = [(round(d.score, 2), [round(v) for v in d.box])
                for d in centerface_faces(upright, 0.5, 12)]
        assert left == [], (name, quarters, left)


@pytest.mark.parametrize("quarters", [1, 2, 3])
def test_turned_faces_are_found_where_they_are(quarters: int) -> None:
    """Each upright face of the photo is found in the photo turned, at the place the
    turn moved it to."""
    need_centerface()
    upright = _upright(PHOTOS[1])
    height, width = upright.shape[:2]
    turned = np.ascontiguousarray(np.rot90(upright, quarters))
    found = [d.box for d in turned_faces(turned, 0.5)]

    def moved(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        """``box`` of the upright photo in the photo turned ``quarters`` times (np.rot90,
        counter-clockwise)."""
        x, y, w, h = box
        corners, wide, high = [(x, y), (x + w, y + h)], width, height
        for _ in range(quarters):  # one turn: (x, y) -> (y, W - x), W the current width
            corners, wide, high = [(cy, wide - cx) for cx, cy in corners], high, wide
        xs, ys = [c[0] for c in corners], [c[1] for c in corners]
        return min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)

    faces = [moved(d.box) for d in centerface_faces(upright, 0.7, 12)]
    assert len(faces) >= 3
    for face in faces:
        assert max((iou(face, box) for box in found), default=0) > 0.5, face


def _big_turned() -> np.ndarray:
    """A group photo turned a quarter, scaled to 1.9 MP (the whole-photo pass shrinks it)."""
    import cv2

    turned = np.ascontiguousarray(np.rot90(_upright(PHOTOS[1]), 1))
    return cv2.resize(turned, (1200, 1600), interpolation=cv2.INTER_CUBIC)


def test_the_check_shrinks_the_photo_once_for_its_whole_photo_passes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The upright whole-photo pass and the three turned ones look at one shrunk copy
    (ADR 203): the photo is resized to the whole pass's size once, not twice."""
    need_centerface()
    from core.imaging import detect, faces

    rgb = _big_turned()
    sizes: list[tuple[int, ...]] = []
    resize_by = faces.resize_by

    def counted(image: np.ndarray, scale: float) -> np.ndarray:
        out = resize_by(image, scale)
        if out is not image:
            sizes.append(out.shape)
        return out

    monkeypatch.setattr(faces, "resize_by", counted)
    detect.faces_any_way_up(rgb, 0.2, 20)
    scale = detect._tile_plan(*rgb.shape[:2], detect.CENTERFACE_MIN_PX)[0]
    whole = (round(rgb.shape[0] * scale), round(rgb.shape[1] * scale), 3)
    assert sizes.count(whole) == 1, sizes


def test_the_shared_copy_finds_what_the_passes_find_apart() -> None:
    """Sharing the shrunk copy changes no detection: the check's faces are those of the
    upright search and of the turned passes run each on its own copy, to the pixel."""
    need_centerface()
    from core.imaging.detect import TURNED_THRESHOLD, _slanted_runs, faces_any_way_up

    rgb = _big_turned()
    upright = centerface_faces(rgb, 0.2, 20)
    slanted = [f for run in _slanted_runs(rgb, TURNED_THRESHOLD) for f in run()]
    kept = list(upright)
    for face in turned_faces(rgb) + slanted:  # a face seen in two views is kept once
        if all(iou(face.box, k.box) < 0.3 for k in kept):
            kept.append(face)
    assert len(kept) > len(upright), "the photo turned shows faces only the turned passes find"
    assert faces_any_way_up(rgb, 0.2, 20) == kept


@pytest.mark.parametrize("angle", [120, 135])
def test_a_photo_turned_by_a_slant_leaves_no_face_once_turned_upright(tmp_path: Path,
                                                                      angle: int) -> None:
    """Between two quarter turns a face scores under 0.5 in every straight view: the
    group photo turned 120° or 135° (a scan laid crooked, a phone held aslant, no
    orientation tag) was written as verified with 2–3 faces scoring 0.53–0.85 once
    turned back. The check's slanted passes find them (ADR 197, amended)."""
    need_centerface()
    name, grey = "2008_007676.jpg", (128, 128, 128)
    folder = tmp_path / "in"
    folder.mkdir()
    with Image.open(need_testdata("faces") / name) as image:
        image.convert("RGB").rotate(angle, expand=True, fillcolor=grey,
                                    resample=Image.Resampling.BICUBIC).save(
            folder / name, quality=95)
    report = anonymize_folder(folder, tmp_path / "out", settings=DetectSettings(plates=False))
    assert not report["errors"]
    written = tmp_path / "out" / name
    if not written.exists():  # refused: nothing leaks either
        assert name in [f["file"] for f in report["failed"]]
        return
    back = Image.fromarray(decode_rgb(written.read_bytes())).rotate(
        -angle, expand=True, fillcolor=grey, resample=Image.Resampling.BICUBIC)
    left = [(round(d.score, 2), [round(v) for v in d.box])
            for d in centerface_faces(np.asarray(back), 0.5, 12)]
    assert left == [], (angle, left)
