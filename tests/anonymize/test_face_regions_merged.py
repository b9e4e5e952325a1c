"""One face, one region (ADR 044): CenterFace's whole-photo pass, its small-face tiles
and HOG can each box the same face; overlapping boxes of one kind become one region, the
union of their boxes (nothing uncovered) with the best score — also when the overlap
only appears once the boxes are grown by the face margins, and whatever order the boxes
come in."""

from __future__ import annotations

import numpy as np
import pytest
from anon_helpers import face_boxes, need_centerface
from PIL import Image

from core.imaging.boxes import Detection, area, intersection, merge_overlapping, overlapping
from core.imaging.detect import DetectSettings, detect_faces


def _face(x: float, y: float, w: float, h: float, score: float,
          detector: str = "centerface", kind: str = "face") -> Detection:
    return Detection(kind, x, y, w, h, score, detector)


def test_a_chain_of_boxes_on_one_face_is_one_region() -> None:
    """Compared with the first box of a group only, the middle box joined the best one
    and the union then lay 65 % over the third, which stayed a second region."""
    best = _face(0, 0, 100, 100, 0.9)
    right = _face(70, 0, 100, 100, 0.8, "hog")  # IoU 0.18 with best: apart at first
    middle = _face(35, 0, 100, 100, 0.5)  # joins best; the union reaches right
    [merged] = merge_overlapping([middle, right, best])
    assert merged.box == (0, 0, 170, 100)
    assert merged.score == 0.9 and merged.detector == "centerface+hog"


def test_kinds_are_never_merged_and_detector_names_are_not_repeated() -> None:
    face = _face(0, 0, 100, 100, 0.9, "centerface+hog")
    again = _face(5, 5, 100, 100, 0.4, "hog")
    plate = _face(0, 0, 100, 100, 0.8, "pp-ocr-text", kind="plate")
    out = merge_overlapping([face, again, plate])
    assert sorted((d.kind, d.detector) for d in out) == [("face", "centerface+hog"),
                                                          ("plate", "pp-ocr-text")]


@pytest.mark.parametrize("seed", range(20))
def test_no_two_regions_overlap_and_every_box_stays_covered(seed: int) -> None:
    rng = np.random.default_rng(seed)
    dets = [_face(*rng.uniform(0, 400, 2), *rng.uniform(10, 120, 2), float(rng.random()),
                  kind=str(rng.choice(["face", "plate"]))) for _ in range(40)]
    out = merge_overlapping(dets)
    for i, a in enumerate(out):
        for b in out[i + 1:]:
            assert a.kind != b.kind or not overlapping(a.box, b.box)
    for det in dets:  # nothing uncovered, and a region keeps the best score of its boxes
        homes = [m for m in out if m.kind == det.kind
                 and intersection(m.box, det.box) == pytest.approx(area(det.box))
                 and m.score >= det.score]
        assert homes, det


def _regions(rgb: np.ndarray, detector: str) -> list[Detection]:
    return detect_faces(rgb, DetectSettings(face_detector=detector))


def _inside(region: Detection, face: tuple[float, ...]) -> bool:
    """Whether the region's centre lies on the face (a neighbour's region, centred on
    its own face, may still half cover this one with its margins: not a duplicate)."""
    cx, cy = region.x + region.w / 2, region.y + region.h / 2
    return face[0] <= cx <= face[0] + face[2] and face[1] <= cy <= face[1] + face[3]


def _check(regions: list[Detection], faces: list[tuple[float, ...]], where: str) -> None:
    for face in faces:
        cover = [intersection(face, r.box) / area(face) for r in regions]
        assert max(cover, default=0) >= 0.9, f"{where}: face {face} not covered"
        centred = [r for r in regions if _inside(r, face)]
        assert len(centred) <= 1, f"{where}: face {face} has two regions: {centred}"
    for i, a in enumerate(regions):
        for b in regions[i + 1:]:
            assert not overlapping(a.box, b.box), f"{where}: {a.box} and {b.box}"


@pytest.mark.parametrize("detector", ["centerface", "centerface+hog"])
def test_every_annotated_face_is_one_region(detector: str) -> None:
    """dlib's annotated photos: every face covered (recall unchanged: 43 of 43), none
    covered by two regions (2008_002079 had two whole-pass boxes on one small face)."""
    need_centerface()
    for path, boxes in face_boxes():
        rgb = np.asarray(Image.open(path).convert("RGB"))
        _check(_regions(rgb, detector), [tuple(map(float, b)) for b in boxes], path.name)


@pytest.mark.parametrize("name", ["2008_001322.jpg", "2008_004176.jpg"])
def test_tiles_and_the_whole_pass_give_one_region_per_face(name: str) -> None:
    """Enlarged 5× (over 4 MP), the small-face tiles run beside the whole-photo pass;
    on these two photos they boxed a face twice (a chin, a mouth apart)."""
    need_centerface()
    [(path, boxes)] = [(p, b) for p, b in face_boxes() if p.name == name]
    image = Image.open(path).convert("RGB")
    image = image.resize((image.width * 5, image.height * 5), Image.Resampling.BICUBIC)
    faces = [tuple(5.0 * v for v in b) for b in boxes]
    _check(_regions(np.asarray(image), "centerface"), faces, f"{name} ×5")
