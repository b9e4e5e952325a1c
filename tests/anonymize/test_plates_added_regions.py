"""Regions the release adds (ADR 114/115) never end inside another region (ADR 161):
an added region is grown to contain every region it overlaps, so its edge — a step
between two blurs — never crosses a plate."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw
from plate_helpers import draw_plate, need_text_models, textured, tune_variant

from core.demo import drawing as dd
from core.imaging.anonymize import HideSpec
from core.imaging.boxes import intersection
from core.imaging.detect import DetectSettings, detect_plates
from core.imaging.geometry import Geometry
from core.imaging.loading import decode_rgb
from core.imaging.plate_eval import detail_hidden
from core.imaging.release import RenderJob, render_verified
from core.imaging.release_regions import contain_overlapped

SETTINGS = DetectSettings(face_detector="hog")
PLATE = (160, 100, 320, 150)


def _plate_and_a_line_below(gap: int) -> np.ndarray:
    """A drawn plate and, ``gap`` px below its frame, a readable light line (a dealer's)."""
    rgb = draw_plate(textured(640, 420), PLATE, "KX 4821", "OHIO", frame=6)
    image = Image.fromarray(rgb)
    x, y, w, h = PLATE
    size = dd.fit_size("DEALER 5519", 260, 34)
    top = y + h + 6 + gap
    dd.centered_text(ImageDraw.Draw(image), x + w / 2, top + 17, "DEALER 5519", size, (235,) * 3)
    return np.asarray(image).copy()


def _inside(inner: tuple[float, ...], outer: tuple[float, ...]) -> bool:
    return (
        outer[0] <= inner[0] + 1e-6
        and outer[1] <= inner[1] + 1e-6
        and inner[0] + inner[2] <= outer[0] + outer[2] + 1e-6
        and inner[1] + inner[3] <= outer[1] + outer[3] + 1e-6
    )


def test_a_region_added_for_a_line_below_a_plate_contains_the_plate_region() -> None:
    need_text_models()
    rgb = _plate_and_a_line_below(gap=4)
    x, y, w, h = PLATE
    plate_region = HideSpec(x - 20, y - 25, w + 40, h + 50)
    _data, result = render_verified(
        RenderJob(rgb, [plate_region], ["#1 (plate)"], Geometry()), SETTINGS
    )
    added = {k: v for k, v in result.raised.items() if v.get("added")}
    assert added, "the line below the plate is readable: the release hides it"
    final = {
        "#1 (plate)": result.raised.get("#1 (plate)", {}).get(
            "box", [plate_region.x, plate_region.y, plate_region.w, plate_region.h]
        ),
        **{k: v["box"] for k, v in added.items()},
    }
    for label in added:
        for other, box in final.items():
            if other != label and intersection(tuple(final[label]), tuple(box)) > 0:
                assert _inside(tuple(box), tuple(final[label])), (label, other)


def test_contain_overlapped_grows_to_a_fixpoint_and_leaves_the_rest() -> None:
    plate = HideSpec(100, 100, 200, 100)
    face = HideSpec(290, 150, 60, 120)  # overlaps the plate only once it has grown
    far = HideSpec(500, 10, 20, 20)
    added = HideSpec(120, 180, 80, 60)  # starts inside the plate, ends below it
    specs = [plate, face, far, added]
    boxes = contain_overlapped(specs, [3])
    assert boxes == {3: (100.0, 100.0, 250.0, 170.0)}  # plate, then the face it reaches
    assert specs[3].x == 100 and specs[3].w == 250 and specs[3].h == 170
    assert specs[:3] == [plate, face, far]  # the given regions never change
    assert contain_overlapped(specs, [3]) == {}  # nothing left to grow


def test_a_real_plate_with_a_line_read_below_it_stays_hidden() -> None:
    """Tune ``eu/test_075.jpg`` blur (ADR 115's open bug): the region added for a line
    read just below the plate ended inside it, 1.00 → 0.86 detail hidden."""
    rgb, quad, _text = tune_variant("eu", "test_075.jpg", "blur")
    found = detect_plates(rgb, SETTINGS)
    specs = [HideSpec(d.x, d.y, d.w, d.h) for d in found]
    data, result = render_verified(
        RenderJob(rgb, specs, [f"#{i + 1} (plate)" for i in range(len(specs))], Geometry()), SETTINGS
    )
    assert detail_hidden(rgb, decode_rgb(data), quad) >= 0.9


def test_contain_overlapped_ignores_touching_and_empty_regions() -> None:
    """A region that only shares an edge, or has no area, is not swallowed."""
    added = HideSpec(100, 100, 50, 50)
    beside = HideSpec(150, 100, 40, 40)  # shares the right edge only
    empty = HideSpec(120, 120, 0, 0)
    specs = [beside, empty, added]
    assert contain_overlapped(specs, [2]) == {}
    assert specs[2] == added
