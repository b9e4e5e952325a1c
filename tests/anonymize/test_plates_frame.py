"""From text lines to the whole plate (ADR 111): close-ups, two-line plates, broken lines,
rotation, and hostile inputs.  Drawn photos only; the real ones are in test_plates_heldout."""

from __future__ import annotations

import numpy as np
import pytest
from plate_helpers import covered, draw_plate, need_text_models, textured

from core.imaging.detect import DetectSettings, detect_plates
from core.imaging.plate_eval import detail_hidden, quad_mask
from core.imaging.plate_frame import Line, assemble, companions
from core.imaging.plates import for_text

SETTINGS = DetectSettings()


def _line(cx: float, cy: float, w: float, h: float, angle: float = 0.0) -> Line:
    return Line(cx, cy, w, h, angle, 0.9)


# -- geometry without the model -------------------------------------------------------------
def test_line_round_trips_through_its_corners() -> None:
    line = _line(100, 50, 80, 20, angle=8.0)
    again = Line.from_quad(line.corners(), 0.9)
    assert again.w == pytest.approx(80, abs=0.5) and again.h == pytest.approx(20, abs=0.5)
    assert again.angle == pytest.approx(8.0, abs=0.5)
    assert np.allclose(line.local(line.corners()), [[-40, -10], [40, -10], [40, 10], [-40, 10]])


def test_pieces_of_one_line_are_joined_and_others_are_not() -> None:
    left, right = _line(50, 100, 60, 20), _line(125, 101, 70, 20)  # gap 10 px = 0.5 h
    (joined,) = assemble([left, right])
    assert joined.w == pytest.approx(140, abs=1) and joined.cx == pytest.approx(90, abs=1)
    far = _line(200, 100, 60, 20)  # gap 50 px = 2.5 h: another word
    assert len(assemble([left, far])) == 2
    taller = _line(125, 100, 70, 45)  # not the same line
    assert len(assemble([left, taller])) == 2
    below = _line(125, 130, 70, 20)  # the next line
    assert len(assemble([left, below])) == 2


def test_companions_are_the_plates_other_lines() -> None:
    number = _line(200, 200, 160, 40)
    state = _line(200, 165, 80, 14)  # small line above
    slogan = _line(205, 232, 120, 12)  # small line below
    sign = _line(500, 200, 160, 40)  # beside it: another text
    far = _line(200, 40, 160, 40)  # far above
    found = companions(number, [number, state, slogan, sign, far])
    assert state in found and slogan in found
    assert sign not in found and far not in found
    big = _line(200, 100, 200, 45)  # the big number of a close-up under its small line
    small = _line(200, 60, 110, 18)
    assert big in companions(small, [small, big])


# -- the detector on drawn plates -----------------------------------------------------------
def test_close_up_two_line_plate_is_covered_whole() -> None:
    """The issue's case: an 807×262 plate whose small "DF - BRASILIA" line alone was hidden."""
    need_text_models()
    box = (236, 229, 807, 262)
    rgb = draw_plate(textured(1280, 720), box, "JKL 4821", "DF - BRASILIA", frame=10)
    found = detect_plates(rgb, SETTINGS)
    assert covered(found, box, rgb.shape) >= 0.99
    framed = (box[0] - 10, box[1] - 10, box[2] + 20, box[3] + 20)
    assert covered(found, framed, rgb.shape) >= 0.97  # the frame too
    assert all(r.w * r.h <= 2.5 * box[2] * box[3] for r in found)  # not the whole photo


def test_a_region_never_stops_at_a_character() -> None:
    """A plate whose number is cut in two by a bolt: both halves and the frame covered."""
    need_text_models()
    box = (180, 160, 300, 66)
    rgb = draw_plate(textured(640, 400, seed=2), box, "M5 XS 4410")
    x, y, w, h = box
    rgb[y + 10 : y + h - 10, x + 128 : x + 148] = (60, 60, 60)  # a dark bolt / sticker
    found = detect_plates(rgb, SETTINGS)
    assert covered(found, box, rgb.shape) >= 0.98
    plate = [r for r in found if covered([r], box, rgb.shape) > 0.2]
    assert plate and min(r.x for r in plate) <= x and max(r.x + r.w for r in plate) >= x + w


def test_a_region_goes_past_the_plates_border() -> None:
    """Class (a) of issue 18: a plate whose text box reaches its lower border (a tall
    number under a state name) — the frame search stopped 0.13 plate heights inside
    the bottom border, leaving the border's detail; a margin of the frame's height on
    every side (ADR 113) takes the border and what lies just beyond it."""
    need_text_models()
    box, border = (200, 150, 240, 120), 4
    rgb = draw_plate(textured(640, 420), box, "7TRW 218", "TEXAS", frame=border)
    x, y, w, h = box
    outer = (x - border, y - border, w + 2 * border, h + 2 * border)
    found = [r for r in detect_plates(rgb, SETTINGS) if covered([r], box, rgb.shape) > 0.2]
    assert covered(found, outer, rgb.shape) == 1.0
    x1, y1 = min(r.x for r in found), min(r.y for r in found)
    x2, y2 = max(r.x + r.w for r in found), max(r.y + r.h for r in found)
    beyond = min(outer[0] - x1, outer[1] - y1, x2 - outer[0] - outer[2], y2 - outer[1] - outer[3])
    assert beyond > 0  # past the border on every side (before: 0.13 h short of the bottom)
    assert (x2 - x1) * (y2 - y1) <= 3.0 * w * h  # bounded


def test_the_frame_margin_is_a_share_of_the_frames_height() -> None:
    """Without the model: the region around a two-line plate reaches FRAME_MARGIN of the
    frame's height beyond the bare frame on every side."""
    from core.imaging import plate_frame
    from core.imaging.plate_frame import frame

    box = (180, 160, 300, 150)
    rgb = draw_plate(textured(640, 420), box, "KX 4821", "OHIO", frame=6)
    grey = rgb.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)
    number, state = _line(330, 252, 250, 70), _line(330, 184, 110, 22)
    region = frame(grey, [number, state])
    bare_margin, bare_frame = plate_frame.MARGIN, plate_frame.FRAME_MARGIN
    try:
        plate_frame.MARGIN = plate_frame.FRAME_MARGIN = (0.0, 0.0, 0.0, 0.0)
        bare = frame(grey, [number, state])
    finally:
        plate_frame.MARGIN, plate_frame.FRAME_MARGIN = bare_margin, bare_frame
    tall = np.ptp(bare[:, 1])
    (bx1, by1), (bx2, by2) = bare.min(axis=0), bare.max(axis=0)
    (rx1, ry1), (rx2, ry2) = region.min(axis=0), region.max(axis=0)
    left, right, top, bottom = (f * tall for f in bare_frame)
    assert bx1 - rx1 >= left - 0.01 and rx2 - bx2 >= right - 0.01
    assert by1 - ry1 >= top - 0.01 and ry2 - by2 >= bottom - 0.01


def test_rotated_plate_is_covered() -> None:
    need_text_models()
    import cv2

    box = (240, 170, 260, 120)
    rgb = draw_plate(textured(720, 480, seed=3), box, "7TRW 218", "TEXAS")
    x, y, w, h = box
    quad = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], float)
    matrix = cv2.getRotationMatrix2D((x + w / 2, y + h / 2), 9.0, 1.0)
    turned = cv2.warpAffine(
        rgb, matrix, (720, 480), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REFLECT
    )
    quad = np.hstack([quad, np.ones((4, 1))]) @ matrix.T
    found = detect_plates(turned, SETTINGS)
    mask = np.zeros(turned.shape[:2], bool)
    for r in found:
        mask[int(r.y) : int(np.ceil(r.y + r.h)), int(r.x) : int(np.ceil(r.x + r.w))] = True
    assert mask[quad_mask(turned.shape, quad)].mean() >= 0.98


def test_dark_low_contrast_photo_is_stretched_for_the_detector() -> None:
    rgb = draw_plate(textured(640, 400), (200, 150, 240, 60), "AB 1234")
    dark = (rgb.astype(np.float32) * 0.2).astype(np.uint8)
    seen = for_text(dark)
    assert np.ptp(seen) > 200 and seen.shape == dark.shape
    assert for_text(np.zeros((40, 40, 3), np.uint8)).shape == (40, 40, 3)  # flat: no error
    need_text_models()
    x, y, w, h = 200, 150, 240, 60
    assert covered(detect_plates(dark, SETTINGS), (x, y, w, h), dark.shape) >= 0.95


def test_grey_photo_plate_is_found() -> None:
    need_text_models()
    box = (200, 150, 240, 60)
    rgb = draw_plate(textured(640, 400), box, "AB 1234")
    grey = np.repeat(rgb.mean(axis=2, keepdims=True).astype(np.uint8), 3, axis=2)
    assert covered(detect_plates(grey, SETTINGS), box, grey.shape) >= 0.95


# -- hostile inputs ---------------------------------------------------------------------------
@pytest.mark.parametrize("size", [(1, 1), (3, 5), (31, 17), (2, 900)])
def test_tiny_photos_find_nothing_and_do_not_fail(size: tuple[int, int]) -> None:
    need_text_models()
    assert detect_plates(np.full((*size, 3), 128, np.uint8), SETTINGS) == []


def test_page_of_text_without_a_plate_stays_bounded() -> None:
    """Lots of text: regions may appear (hiding text is the safe failure), but each stays
    a line's size and the count stays within the number of lines."""
    need_text_models()
    from PIL import Image, ImageDraw

    from core.demo import drawing as dd

    page = Image.new("RGB", (900, 1200), (250, 250, 245))
    d = ImageDraw.Draw(page)
    for i in range(30):
        d.text(
            (40, 30 + 38 * i),
            "Lorem ipsum dolor sit amet, consectetur adipiscing elit",
            font=dd.font(24),
            fill=(20, 20, 20),
        )
    found = detect_plates(np.asarray(page), SETTINGS)
    assert len(found) <= 60
    assert all(r.h <= 120 for r in found)


def test_huge_photo_plate_is_found() -> None:
    need_text_models()
    box = (2400, 1800, 900, 200)
    rgb = draw_plate(textured(4000, 3000, seed=5), box, "HH 4821")
    found = detect_plates(rgb, SETTINGS)
    assert covered(found, box, rgb.shape) >= 0.98


def test_plate_in_a_photo_stored_sideways_is_found_upright(tmp_path) -> None:
    need_text_models()
    from anon_helpers import jpeg_with_everything

    from core.imaging.loading import load_rgb

    box = (200, 150, 240, 60)
    upright = draw_plate(textured(640, 400), box, "AB 1234")
    path = tmp_path / "sideways.jpg"
    path.write_bytes(jpeg_with_everything(np.rot90(upright, k=1).copy(), orientation=6))
    rgb = load_rgb(path)
    assert rgb.shape == upright.shape
    assert covered(detect_plates(rgb, SETTINGS), box, rgb.shape) >= 0.95


def test_released_close_up_keeps_no_plate_detail() -> None:
    need_text_models()
    from core.imaging.anonymize import HideSpec
    from core.imaging.geometry import Geometry
    from core.imaging.loading import decode_rgb
    from core.imaging.release import RenderJob, render_verified

    box = (236, 229, 807, 262)
    rgb = draw_plate(textured(1280, 720), box, "JKL 4821", "DF - BRASILIA", frame=10)
    found = detect_plates(rgb, SETTINGS)
    specs = [HideSpec(*r.box) for r in found]
    data, result = render_verified(
        RenderJob(rgb, specs, [f"#{i} (plate)" for i in range(len(specs))], Geometry()),
        DetectSettings(face_detector="hog"),
    )
    x, y, w, h = box
    quad = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], float)
    assert detail_hidden(rgb, decode_rgb(data), quad) >= 0.95
    assert result.text_inside == []


def _drawn_ink(
    box: tuple[int, int, int, int], number: str, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A plate drawn in ``box``: the grey photo and the columns and rows its
    characters' ink covers (inside the plate's margin)."""
    rgb = draw_plate(textured(720, 420, seed=seed), box, number)
    grey = rgb.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)
    x, y, w, h = box
    ink = grey[y + 10 : y + h - 10, x + 8 : x + w - 8] < 100
    return grey, np.flatnonzero(ink.any(axis=0)) + x + 8, np.flatnonzero(ink.any(axis=1)) + y + 10


def _plate_missing_its_first_characters() -> tuple[np.ndarray, Line, int]:
    """A drawn plate "1A MW240" and the line a detector that missed "1A" reports: the
    grey photo, that line, and the first ink column of the plate."""
    grey, cols, rows = _drawn_ink((100, 150, 440, 100), "1A MW240", seed=5)
    start = int(cols[int(np.argmax(np.diff(cols))) + 1])  # after the widest gap: "M"
    top, bottom = int(rows.min()), int(rows.max())
    line = Line((start + cols.max()) / 2, (top + bottom) / 2, cols.max() - start, bottom - top, 0, 0.9)
    return grey, line, int(cols.min())


def test_a_region_goes_past_characters_the_detector_missed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without the model (ADR 170): the line covers "MW240" only; the frame moves out past
    the "1A" beside it.  Without the step it stopped between the characters."""
    from core.imaging import plate_frame

    grey, line, first_ink = _plate_missing_its_first_characters()
    assert line.cx - line.w / 2 - first_ink > 1.5 * line.h  # beyond the frame's reach
    region = plate_frame.frame(grey, [line])
    assert region[:, 0].min() < first_ink
    monkeypatch.setattr(plate_frame, "PAST_MAX", 0.0)
    assert plate_frame.frame(grey, [line])[:, 0].min() > first_ink  # the region ended in "A"


def test_a_region_does_not_move_past_a_plain_side() -> None:
    """Nothing beside the text but the plate's margin and the car: the sides stay."""
    from core.imaging import plate_frame

    x, y, w, h = box = (160, 150, 300, 100)
    grey, cols, rows = _drawn_ink(box, "MW240", seed=6)
    line = Line((cols.min() + cols.max()) / 2, (rows.min() + rows.max()) / 2,
                cols.max() - cols.min(), rows.max() - rows.min(), 0, 0.9)
    region = plate_frame.frame(grey, [line])
    # within the plate's frame and one margin of it: not moved a line height out
    assert region[:, 0].min() > x - 0.5 * line.h and region[:, 0].max() < x + w + 0.5 * line.h
