"""Region bounds (ADR 188): a region must overlap its photo and is clipped to the photo
widened by the photo's own size on each side, at the one check every edit passes
(add, update, undo, detection); a region an earlier version stored out of range still
releases, clipped when rendered."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from core.imaging import photos as repo
from core.imaging.detect import DetectSettings
from core.imaging.photo_values import check_region
from core.imaging.release import release_photo, spec_for

NO_FACES = DetectSettings(face_detector="hog", plates=False)


@pytest.fixture
def photo(project, tmp_path: Path) -> int:
    """A 640×427 photo."""
    src = tmp_path / "x.png"
    Image.fromarray(np.random.default_rng(0).integers(0, 255, (427, 640, 3), np.uint8)
                    ).save(src)
    return repo.import_photo(project, src)[0]


def _box(project, region_id: int) -> tuple[float, ...]:  # type: ignore[no-untyped-def]
    r = repo.get_region(project, region_id)
    return (r.x, r.y, r.w, r.h)


@pytest.mark.parametrize("values, word", [
    ({"x": 3200.0, "y": 10.0}, "x"), ({"x": 10.0, "y": 2135.0}, "y"),
    ({"x": -200.0, "y": 10.0}, "x"), ({"x": 10.0, "y": -100.0}, "y"),
])
def test_a_region_outside_the_photo_is_refused_naming_the_field(project, photo: int,
                                                                values, word: str) -> None:
    keep = repo.add_region(project, photo, x=10, y=10, w=100, h=100)
    fields = {"w": 100.0, "h": 100.0, **values}
    with pytest.raises(ValueError, match=rf"region {word} .*outside the photo \(640×427\)"):
        repo.add_region(project, photo, **fields)
    with pytest.raises(ValueError, match=word):
        repo.update_region(project, keep, **values)
    assert _box(project, keep) == (10, 10, 100, 100)
    assert len(repo.regions(project, photo)) == 1


def test_a_huge_region_is_clipped_to_three_photos(project, photo: int) -> None:
    region_id = repo.add_region(project, photo, x=0, y=0, w=2e9, h=2e9)
    assert _box(project, region_id) == (0, 0, 1280, 854)
    repo.update_region(project, region_id, x=-1e9, y=-1e9, w=2e9, h=2e9)
    assert _box(project, region_id) == (-640, -427, 1920, 1281)


def test_a_region_partly_outside_is_kept_as_drawn(project, photo: int) -> None:
    """A face at the edge keeps its ellipse whole (clipping it to the photo would shrink
    what is hidden), and a move a little past the edge is stored as made."""
    region_id = repo.add_region(project, photo, shape="ellipse", x=-50, y=380, w=100, h=90)
    assert _box(project, region_id) == (-50, 380, 100, 90)
    repo.update_region(project, region_id, x=600)
    assert _box(project, region_id) == (600, 380, 100, 90)


def test_detections_and_undo_go_through_the_same_check(project, photo: int) -> None:
    from core.imaging.boxes import Detection

    far = Detection(kind="face", x=0, y=0, w=5e9, h=5e9, score=0.9, detector="hog")
    (region_id,) = repo.replace_detections(project, photo, [far]).added
    assert _box(project, region_id) == (0, 0, 1280, 854)
    region = repo.delete_region(project, region_id)
    repo.restore_region(project, region)
    assert _box(project, region_id) == (0, 0, 1280, 854)


def test_check_region_returns_the_values_to_store() -> None:
    """Without a photo size (a release of an older project) only the old rules apply."""
    assert check_region({"x": 5e9, "y": 0, "w": 1, "h": 1}) == \
        {"x": 5e9, "y": 0, "w": 1, "h": 1}
    assert check_region({"x": 600, "y": 0, "w": 1e6, "h": 1, "kind": "face"},
                        (640, 427)) == {"x": 600, "y": 0, "w": 680, "h": 1, "kind": "face"}


def test_a_stored_out_of_range_region_still_releases(project, photo: int,
                                                     tmp_path: Path) -> None:
    """An earlier version stored it; the release clips it when rendering."""
    huge = repo.add_region(project, photo, x=10, y=10, w=50, h=50)
    gone = repo.add_region(project, photo, x=20, y=20, w=50, h=50)
    with project.transaction() as conn:
        conn.execute("UPDATE photo_regions SET x = 0, y = 0, w = 2e9, h = 2e9 WHERE id = ?",
                     (huge,))
        conn.execute("UPDATE photo_regions SET x = 3200, y = 2135 WHERE id = ?", (gone,))
    photo_row = repo.get_photo(project, photo)
    spec = spec_for(photo_row, repo.get_region(project, huge))
    assert (spec.w, spec.h) == (1280, 854)
    repo.set_status(project, photo, "reviewed")
    target, _ = release_photo(project, photo, tmp_path / "out", NO_FACES)
    assert target.exists()


def test_an_edit_clipped_on_the_way_in_undoes_and_redoes_cleanly(project, photo: int
                                                                  ) -> None:
    from core.imaging.photo_edits import EditRegion, UndoStack

    region_id = repo.add_region(project, photo, x=10, y=10, w=100, h=100)
    stack = UndoStack(project)
    stack.push(EditRegion(photo, region_id, {"x": -5000.0, "w": 1e9}))
    assert _box(project, region_id) == (-640, 10, 1920, 100)
    stack.undo()
    assert _box(project, region_id) == (10, 10, 100, 100)
    stack.redo()
    assert _box(project, region_id) == (-640, 10, 1920, 100)
