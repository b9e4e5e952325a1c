"""A region lying off its photo (an earlier version stored it; ADR 188 now refuses one)
can still be edited, deleted and undeleted, and moved back onto the photo (ADR 201);
the Regions list says which regions hide nothing in the release."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from core.imaging import photos as repo
from core.imaging.geometry import Geometry, kept_by
from core.imaging.photo_edits import DeleteRegions, EditRegion, UndoStack
from core.imaging.photo_values import on_photo, onto_photo


@pytest.fixture
def photo(project: Any, tmp_path: Path) -> int:
    """A 640×427 photo."""
    src = tmp_path / "x.png"
    Image.fromarray(np.random.default_rng(0).integers(0, 255, (427, 640, 3), np.uint8)
                    ).save(src)
    return repo.import_photo(project, src)[0]


def _off(project: Any, photo: int, x: float = 3200.0, y: float = 10.0) -> int:
    """A region an earlier version left wholly off the photo."""
    region_id = repo.add_region(project, photo, kind="face", x=10, y=10, w=50, h=60)
    with project.transaction() as conn:
        conn.execute("UPDATE photo_regions SET x = ?, y = ? WHERE id = ?", (x, y, region_id))
    return region_id


def _box(project: Any, region_id: int) -> tuple[float, ...]:
    r = repo.get_region(project, region_id)
    return (r.x, r.y, r.w, r.h)


def test_a_region_off_the_photo_can_change_kind_shape_and_method(project: Any,
                                                                 photo: int) -> None:
    region_id = _off(project, photo)
    stack = UndoStack(project)
    stack.push(EditRegion(photo, region_id, {"kind": "plate", "method": "fill"}))
    stack.push(EditRegion(photo, region_id, {"shape": "ellipse"}))
    region = repo.get_region(project, region_id)
    assert (region.kind, region.method, region.shape) == ("plate", "fill", "ellipse")
    assert _box(project, region_id) == (3200, 10, 50, 60)  # where it was
    stack.undo()
    stack.undo()
    assert repo.get_region(project, region_id).kind == "face"


def test_deleting_a_region_off_the_photo_undoes(project: Any, photo: int) -> None:
    region_id = _off(project, photo, x=-9000.0)
    was = repo.get_region(project, region_id)
    stack = UndoStack(project)
    stack.push(DeleteRegions(photo, [region_id]))
    stack.undo()  # was refused: "lies outside the photo; undo refused"
    assert repo.get_region(project, region_id) == was


def test_moving_it_onto_the_photo_undoes_to_where_it_was(project: Any, photo: int) -> None:
    region_id = _off(project, photo)
    stack = UndoStack(project)
    box = onto_photo(_box(project, region_id), (640, 427))
    assert box == (590, 10, 50, 60)  # the nearest edge, its size kept
    stack.push(EditRegion(photo, region_id, dict(zip("xywh", box, strict=True))))
    assert _box(project, region_id) == box
    stack.undo()  # was refused: the old box lies outside the photo
    assert _box(project, region_id) == (3200, 10, 50, 60)
    stack.redo()
    assert _box(project, region_id) == box


@pytest.mark.parametrize("box, size, expected", [
    ((3200, 10, 50, 60), (640, 427), (590, 10, 50, 60)),
    ((-500, -500, 50, 60), (640, 427), (0, 0, 50, 60)),
    ((-10, 5, 5000, 9000), (640, 427), (0, 0, 640, 427)),  # no bigger than the photo
    ((100, 100, 20, 20), (640, 427), (100, 100, 20, 20)),  # on it already: unchanged
])
def test_onto_photo(box: Any, size: Any, expected: Any) -> None:
    assert onto_photo(box, size) == expected
    assert on_photo(onto_photo(box, size), size)


def test_on_photo_and_kept_by_the_crop() -> None:
    size = (640, 427)
    assert on_photo((-50, 380, 100, 90), size) and not on_photo((640, 0, 10, 10), size)
    crop = Geometry(crop=[0, 0, 320, 427])
    assert kept_by(crop, 640, 427, (100, 100, 50, 50))
    assert not kept_by(crop, 640, 427, (400, 100, 50, 50))
    turned = Geometry(rot90=1, crop=[0, 0, 427, 320])  # the top half of the turned photo
    assert kept_by(turned, 640, 427, (10, 100, 50, 50))  # its left edge is the top now
    assert not kept_by(turned, 640, 427, (590, 100, 40, 50))


def test_kept_by_never_says_cropped_away_beyond_a_perspective_horizon() -> None:
    """A region past the horizon of the perspective corners has no place in the release:
    the list must not call it cropped away (it may still hide something)."""
    quad = [[200, 100], [440, 100], [630, 420], [10, 420]]  # a trapezoid: a horizon above
    geom = Geometry(quad=quad)
    assert kept_by(geom, 640, 427, (300, 200, 40, 40))
    assert kept_by(geom, 640, 427, (-600, -2000, 40, 40))
