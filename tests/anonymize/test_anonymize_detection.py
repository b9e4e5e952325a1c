"""Detectors on the real-photo corpus (skipped with a reason where it or the model is absent)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from anon_helpers import face_boxes, need_centerface, need_testdata
from shared_data import need_module

from core.imaging import photos as repo
from core.imaging.detect import DetectSettings, centerface_faces, detect_faces, detect_plates
from core.imaging.loading import load_rgb
from core.imaging.release import ReleaseRefused, metadata_found, release_photo

FACES_ONLY = DetectSettings(plates=False)


def _coverage(shape: tuple[int, ...], regions, box) -> float:
    mask = np.zeros(shape[:2], bool)
    for r in regions:
        mask[int(r.y):int(np.ceil(r.y + r.h)), int(r.x):int(np.ceil(r.x + r.w))] = True
    x, y, w, h = box
    return float(mask[y:y + h, x:x + w].mean())


def _overlap(a, b) -> float:
    from core.imaging.boxes import intersection

    return intersection(a, b) / max(a[2] * a[3], 1e-6)


def test_centerface_runs_at_any_size_with_one_session() -> None:
    need_centerface()
    from core.imaging import faces

    for h, w in ((64, 96), (320, 480), (64, 96)):
        out = faces.centerface_raw(np.zeros((h, w, 3), np.uint8), 0.5)
        assert out.shape[1] == 5
    with pytest.raises(ValueError, match="divisible by 32"):
        faces.centerface_raw(np.zeros((50, 64, 3), np.uint8), 0.5)



def test_centerface_is_handed_the_pixels_as_one_contiguous_float_batch(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The input CenterFace gets is the photo's pixels, channels first, float32, in one
    C-contiguous copy (ADR 203: made in one copy, not two)."""
    from core.imaging import faces

    fed: list[np.ndarray] = []

    class Session:
        def run(self, _names: list[str], feed: dict[str, np.ndarray]) -> list[np.ndarray]:
            fed.append(feed["input.1"])
            zeros = np.zeros((1, 1, 16, 24), np.float32)
            return [zeros, np.zeros((1, 2, 16, 24), np.float32), zeros, zeros]

    monkeypatch.setattr(faces, "_centerface_session", Session)
    rgb = np.random.default_rng(7).integers(0, 256, (64, 96, 3), dtype=np.uint8)
    assert faces.centerface_raw(rgb[:, ::-1], 0.5).shape == (0, 5)  # a view, not a copy
    (blob,) = fed
    assert blob.dtype == np.float32 and blob.flags["C_CONTIGUOUS"]
    assert np.array_equal(blob, rgb[:, ::-1].transpose(2, 0, 1)[None].astype(np.float32))


def test_annotated_faces_are_covered() -> None:
    need_centerface()
    coverages, false_regions = [], 0
    for path, boxes in face_boxes():
        rgb = load_rgb(path)
        found = detect_faces(rgb, FACES_ONLY)
        coverages += [_coverage(rgb.shape, found, b) for b in boxes]
        false_regions += sum(1 for r in found if not any(
            _coverage(rgb.shape, [r], b) > 0.3 for b in boxes))
    assert len(coverages) == 43
    assert sum(c >= 0.9 for c in coverages) == 43
    assert np.mean(coverages) >= 0.99
    assert false_regions / 9 <= 1.0


def test_hog_fallback_finds_frontal_faces_and_no_dogs() -> None:
    need_module("dlib", "anonymize")
    settings = DetectSettings(face_detector="hog", plates=False)
    hits = total = 0
    for path, boxes in face_boxes():
        rgb = load_rgb(path)
        found = detect_faces(rgb, settings)
        total += len(boxes)
        hits += sum(_coverage(rgb.shape, found, b) >= 0.8 for b in boxes)
    assert hits >= 40 and total == 43
    dogs = load_rgb(need_testdata("faces") / "dogs.jpg")
    assert detect_faces(dogs, settings) == []


def test_dogs_are_not_faces() -> None:
    need_centerface()
    dogs = load_rgb(need_testdata("faces") / "dogs.jpg")
    assert len(detect_faces(dogs, FACES_ONLY)) <= 1


def test_plates_are_covered() -> None:
    folder = need_testdata("plates")
    need_module("onnxruntime", "anonymize")
    coverages = []
    for sub in ("eu", "us"):
        for path in sorted((folder / sub).glob("*.jpg"))[:3]:
            x, y, w, h = map(int, path.with_suffix(".txt").read_text().split("\t")[1:5])
            rgb = load_rgb(path)
            coverages.append(_coverage(rgb.shape, detect_plates(rgb, DetectSettings()),
                                       (x, y, w, h)))
    assert np.mean(coverages) >= 0.9 and sum(c >= 0.9 for c in coverages) >= 5


def test_small_face_in_big_photo_needs_the_tiles() -> None:
    need_centerface()
    import cv2

    path, boxes = next((p, b) for p, b in face_boxes() if p.name == "2008_001009.jpg")
    rgb = load_rgb(path)
    x, y, w, h = boxes[0]
    pad = w // 2
    face = rgb[max(0, y - pad):y + h + pad // 2, max(0, x - pad // 2):x + w + pad // 2]
    scale = 22 / h  # the face itself (dlib box) becomes 22 px tall
    small = cv2.resize(face, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    big = np.full((3000, 4000, 3), 118, np.uint8)  # 12 MP
    big[1100:1100 + small.shape[0], 2100:2100 + small.shape[1]] = small
    target = (2100 + int(pad // 2 * scale), 1100 + int(pad * scale), 22, 22)
    found = detect_faces(big, DetectSettings(plates=False, min_face_px=20))
    assert any(_coverage(big.shape, [r], target) > 0.8 for r in found)
    whole_only = detect_faces(big, DetectSettings(plates=False, min_face_px=200))
    assert not any(_coverage(big.shape, [r], target) > 0.5 for r in whole_only)


def test_verification_raises_strength_and_refuses_unhidden_faces(project,
                                                                 tmp_path: Path) -> None:
    need_centerface()
    path, boxes = next((p, b) for p, b in face_boxes() if p.name == "2008_001009.jpg")
    photo_id, _ = repo.import_photo(project, path)
    (x, y, w, h), other = boxes[0], boxes[1]
    weak = repo.add_region(project, photo_id, x=x - w * 0.3, y=y - h * 0.4, w=w * 1.6,
                           h=h * 1.6, method="blur", strength=0.02)
    repo.set_status(project, photo_id, "reviewed")
    with pytest.raises(ReleaseRefused, match="outside every region") as refused:
        release_photo(project, photo_id, tmp_path / "out", FACES_ONLY)
    assert refused.value.verification["outside"] and not (tmp_path / "out").exists()
    out, result = release_photo(project, photo_id, tmp_path / "out", FACES_ONLY,
                                accept_unhidden=True)
    assert f"#{weak} (face)" in result.raised  # too weak a blur was raised automatically
    assert not result.inside and result.outside
    ox, oy, ow, oh = other
    repo.add_region(project, photo_id, x=ox - ow * 0.3, y=oy - oh * 0.4, w=ow * 1.6,
                    h=oh * 1.6)
    repo.set_status(project, photo_id, "reviewed")
    out, result = release_photo(project, photo_id, tmp_path / "out", FACES_ONLY)
    assert result.ok and metadata_found(out.read_bytes()) == []
    assert detect_faces(load_rgb(out), FACES_ONLY) == []


def test_cli_anonymize_writes_clean_files_and_a_report(tmp_path: Path, capsys) -> None:
    need_centerface()
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(need_testdata("faces") / "2008_002470.jpg", folder)
    shutil.copy(need_testdata("plates") / "eu" / "eu1.jpg", folder / "sub")
    (folder / "broken.jpg").write_bytes(b"not an image")
    from app.cli import run_cli

    code = run_cli(["anonymize", str(folder), "--out", str(tmp_path / "out"),
                    "--method", "pixelate", "--report", str(tmp_path / "r.json")])
    summary = json.loads(capsys.readouterr().out)
    assert code == 1 and summary["photos"] == 2  # 1 = an unreadable file was reported
    assert summary["errors"][0]["file"] == "broken.jpg"
    report = json.loads((tmp_path / "r.json").read_text())
    by_file = {p["file"]: p for p in report["photos"]}
    faces = [r for r in by_file["2008_002470.jpg"]["regions"] if r["kind"] == "face"]
    assert len(faces) >= 6 and all(r["detector"] == "centerface" and r["score"] >= 0.2
                                   for r in faces)
    assert any(r["kind"] == "plate" and r["detector"] == "pp-ocr-text"
               for r in by_file["sub/eu1.jpg"]["regions"])
    for rel in ("2008_002470.jpg", "sub/eu1.jpg"):
        out = tmp_path / "out" / rel
        assert metadata_found(out.read_bytes()) == []
        raised = by_file[rel]["verification"]["raised"]
        for face in centerface_faces(load_rgb(out), 0.2):  # raw detections, usual threshold
            assert face.score < 0.5, face
            for region in by_file[rel]["regions"]:
                if _overlap(face.box, region["box"]) >= 0.5:
                    # only the blank shape of a solid fill may still look face-like
                    fill = raised.get(region["region"], {})
                    assert fill.get("method") == "fill", face
                    assert _overlap(face.box, fill["box"]) >= 0.95
    assert report["failed"] == []
    assert run_cli(["anonymize", str(tmp_path / "nope"), "--out", str(tmp_path / "o2")]) == 2
    # a second run with other settings refuses to replace what the first wrote, and a
    # file the user changed is never replaced, not even with --overwrite
    first = (tmp_path / "out" / "sub" / "eu1.jpg").read_bytes()
    (tmp_path / "out" / "sub" / "eu1.jpg").write_bytes(b"kept")
    capsys.readouterr()
    assert run_cli(["anonymize", str(folder), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "2 output file(s) already exist" in err and "eu1.jpg" in err and "--overwrite" in err
    assert (tmp_path / "out" / "sub" / "eu1.jpg").read_bytes() == b"kept"
    assert run_cli(["anonymize", str(folder), "--out", str(tmp_path / "out"), "--no-plates",
                    "--overwrite"]) == 2
    assert "eu1.jpg (not written by Winnow" in capsys.readouterr().err
    assert (tmp_path / "out" / "sub" / "eu1.jpg").read_bytes() == b"kept"
    (tmp_path / "out" / "sub" / "eu1.jpg").unlink()  # the user moves their file away
    assert run_cli(["anonymize", str(folder), "--out", str(tmp_path / "out"), "--no-plates",
                    "--overwrite"]) == 1  # the broken file is still reported
    assert (tmp_path / "out" / "sub" / "eu1.jpg").read_bytes()[:2] == first[:2] == b"\xff\xd8"
