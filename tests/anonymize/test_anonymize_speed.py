"""The anonymize speed-ups (issue 18) change no result beyond tolerance.

- CenterFace's small-face pass tiles evenly (fewer pixels looked at twice): tiling stays
  transparent (same faces as one pass over the whole scaled photo) and every annotated
  face of a 12 MP photo is still hidden whole;
- the plate finder's contrast work runs on a working-size copy: photos no bigger than
  the working scale get exactly the regions they got before, bigger ones the same
  regions within tolerance;
- onnxruntime sessions do not spin idle threads.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from anon_helpers import face_boxes, need_centerface, need_testdata
from plate_helpers import covered, need_text_models, plates_testdata

from core.imaging import faces, plates
from core.imaging.boxes import Detection, iou
from core.imaging.detect import TILE, DetectSettings, _tile_plan, centerface_faces, detect_faces
from core.imaging.loading import load_rgb
from core.imaging.plate_eval import annotated


@pytest.mark.parametrize(
    ("height", "width", "overlap"),
    [(1800, 2400, 64), (1824, 2400, 64), (641, 700, 96), (4500, 6000, 64), (500, 3000, 320)],
)
def test_tile_grid_covers_every_pixel_and_every_small_face(
    height: int, width: int, overlap: int
) -> None:
    grid = faces.tile_grid(height, width, TILE, overlap)
    seen = np.zeros((height, width), np.uint8)
    for y, x, h, w in grid:
        assert h <= TILE and w <= TILE and y >= 0 and x >= 0
        assert y + h <= height and x + w <= width
        assert (h % 32 == 0 or h == height) and (w % 32 == 0 or w == width)
        seen[y : y + h, x : x + w] += 1
    assert seen.min() >= 1
    # a face no bigger than the overlap lies whole inside one tile wherever it is
    for fy in range(0, height - overlap, 37):
        for fx in range(0, width - overlap, 53):
            assert any(
                y <= fy and fy + overlap <= y + h and x <= fx and fx + overlap <= x + w
                for y, x, h, w in grid
            ), (fy, fx)
    # no more tiles than the fixed-size grid of before, and fewer pixels in all
    old_count = math.ceil(max(1, height - overlap) / (TILE - overlap)) * math.ceil(
        max(1, width - overlap) / (TILE - overlap)
    )
    assert len(grid) <= old_count
    assert sum(h * w for _y, _x, h, w in grid) < old_count * TILE * TILE
    assert faces.tile_origins(height, width, TILE, overlap) == [(y, x) for y, x, *_ in grid]


def test_one_tile_when_it_fits() -> None:
    assert faces.tile_grid(600, 640, TILE, 64) == [(0, 0, 600, 640)]
    assert faces.tile_grid(3000, 4000, 0, 0) == [(0, 0, 3000, 4000)]


def _big_bald_guys() -> np.ndarray:
    import cv2

    rgb = load_rgb(need_testdata("faces") / "bald_guys.jpg")
    return cv2.resize(rgb, (4000, 3000), interpolation=cv2.INTER_CUBIC)


def test_tiling_finds_what_one_pass_over_the_scaled_photo_finds() -> None:
    """Whole-photo pass + tiles find every face that the whole-photo pass + one untiled
    pass at the tile scale find (a face bigger than the overlap, split by a seam, is
    the whole-photo pass's)."""
    need_centerface()
    big = _big_bald_guys()
    scale_global, scale, overlap = _tile_plan(3000, 4000, 20)
    assert scale > 0 and len(faces.tile_grid(1800, 2400, TILE, overlap)) > 1
    reference = faces.nms(
        np.concatenate(
            [
                faces.nms(faces.centerface_at_scale(big, scale_global, 0.2)),
                faces.nms(faces.centerface_at_scale(big, scale, 0.2)),
            ]
        )
    )
    found = [d.box for d in centerface_faces(big, 0.2, 20)]
    wanted = [(r[0], r[1], r[2] - r[0], r[3] - r[1]) for r in reference if r[4] >= 0.5]
    assert len(wanted) >= 20
    for box in wanted:
        assert max(iou(box, other) for other in found) >= 0.7, box


def test_every_face_of_a_12_mp_mosaic_is_still_hidden_whole() -> None:
    """dlib's 9 annotated photos (43 faces) pasted at native size into a 4000 × 3000
    photo, across the tiles' seams, so the whole-photo and the tile pass both count."""
    need_centerface()
    rng = np.random.default_rng(18)
    big = np.full((3000, 4000, 3), 90, np.uint8)
    boxes = []
    for i, (path, annotated_faces) in enumerate(face_boxes()):
        rgb = load_rgb(path)
        h, w = rgb.shape[:2]
        y0 = 1000 * (i // 3) + int(rng.integers(0, max(1, 1000 - h)))
        x0 = 1333 * (i % 3) + int(rng.integers(0, max(1, 1333 - w)))
        big[y0 : y0 + h, x0 : x0 + w] = rgb
        boxes += [(x + x0, y + y0, bw, bh) for x, y, bw, bh in annotated_faces]
    assert len(boxes) == 43
    regions = detect_faces(big, DetectSettings())
    mask = np.zeros(big.shape[:2], bool)
    for r in regions:
        mask[int(r.y) : math.ceil(r.y + r.h), int(r.x) : math.ceil(r.x + r.w)] = True
    for x, y, w, h in boxes:
        inside = mask[max(0, y) : y + h, max(0, x) : x + w].mean()
        assert inside >= 0.99, (x, y, w, h, inside)


def _old_working_copy(rgb: np.ndarray, _long_side: int) -> tuple[np.ndarray, np.ndarray]:
    """What the plate finder did before: contrast work on the whole photo."""
    return plates.for_text(rgb), np.ones(2)


def _rows(found: list[Detection]) -> list[tuple[float, ...]]:
    return [(d.x, d.y, d.w, d.h, d.score) for d in found]


def test_plates_of_a_photo_within_the_working_scale_are_exactly_as_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    need_text_models()
    folder = plates_testdata()
    for sub in ("eu", "us"):
        photos = (load_rgb(t.path) for t in annotated(folder / sub, "eval"))
        rgb = next(p for p in photos if max(p.shape[:2]) <= 1280)
        now = _rows(plates.find_plates(rgb))
        with monkeypatch.context() as patch:
            patch.setattr(plates, "working_copy", _old_working_copy)
            before = _rows(plates.find_plates(rgb))
        assert now == before and now


def test_plates_of_a_big_photo_match_the_full_size_contrast_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import cv2

    need_text_models()
    folder = plates_testdata()
    for truth in annotated(folder / "us", "eval")[:3]:
        rgb = load_rgb(truth.path)
        big = cv2.resize(rgb, (rgb.shape[1] * 2, rgb.shape[0] * 2), interpolation=cv2.INTER_CUBIC)
        now = plates.find_plates(big)
        with monkeypatch.context() as patch:
            patch.setattr(plates, "working_copy", _old_working_copy)
            before = plates.find_plates(big)
        plate = tuple(2.0 * v for v in truth.box)
        hidden_before = covered(before, plate, big.shape)
        assert hidden_before >= 0.9, truth.path.name
        # the annotated plate is hidden as well as before, by a region close to before's
        assert covered(now, plate, big.shape) >= min(0.99, hidden_before) - 0.01
        on_plate = [d for d in before if iou(d.box, plate) > 0.3]
        for det in on_plate:
            assert max(iou(det.box, other.box) for other in now) >= 0.6, truth.path.name


def test_onnx_sessions_do_not_spin() -> None:
    pytest.importorskip("onnxruntime")
    options = faces.session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert 1 <= options.intra_op_num_threads <= 4
