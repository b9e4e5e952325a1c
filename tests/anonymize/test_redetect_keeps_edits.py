"""Detecting again never replaces a region the user made their own, and is one undo step
(ADR 189)."""

from __future__ import annotations

from pathlib import Path

import pytest
from anon_helpers import quadrant_image
from PIL import Image

from core.imaging import photos as repo
from core.imaging.boxes import Detection
from core.imaging.photo_edits import Detect, EditConflict, EditRegion, SetStatus, UndoStack
from core.store import Project

PLATE = Detection("plate", 100, 200, 102, 47, 0.9, "pp-ocr-text")
FACE = Detection("face", 20, 20, 40, 50, 0.8, "centerface")
FAR = Detection("face", 400, 20, 40, 50, 0.7, "centerface")


@pytest.fixture
def photo(project: Project, tmp_path: Path) -> int:
    src = tmp_path / "a.png"
    Image.fromarray(quadrant_image(640, 427)).save(src)
    return repo.import_photo(project, src)[0]


def _by_id(project: Project, photo: int) -> dict[int, repo.Region]:
    return {r.id: r for r in repo.regions(project, photo)}


def test_an_edited_detector_region_survives_a_new_detection(project: Project,
                                                            photo: int) -> None:
    plate_id, face_id = repo.replace_detections(project, photo, [PLATE, FACE]).added
    repo.update_region(project, plate_id, x=60.0, y=180.0, w=182.0, h=87.0)
    repo.update_region(project, plate_id, method="fill")
    edited = repo.get_region(project, plate_id)
    assert edited.edited and edited.source == "pp-ocr-text"  # the detector's name kept
    assert not repo.get_region(project, face_id).edited

    change = repo.replace_detections(project, photo, [PLATE, FACE, FAR])
    now = _by_id(project, photo)
    assert now[plate_id] == edited  # the user's box and method, untouched
    assert face_id not in now  # an untouched detection is replaced
    assert [r.id for r in change.removed] == [face_id]
    assert change.kept == 1 and change.skipped == 1  # PLATE again: not added twice
    assert sorted((r.kind, r.x) for r in now.values()) == [
        ("face", 20.0), ("face", 400.0), ("plate", 60.0)]


def test_a_detection_over_a_hand_drawn_region_is_not_added_twice(project: Project,
                                                                 photo: int) -> None:
    manual = repo.add_region(project, photo, kind="other", x=95, y=195, w=110, h=55)
    change = repo.replace_detections(project, photo, [PLATE, FAR])
    assert change.skipped == 1 and change.kept == 1 and len(change.added) == 1
    assert {r.id for r in repo.regions(project, photo)} == {manual, *change.added}


def test_undoing_an_edit_gives_the_region_back_to_the_detector(project: Project,
                                                               photo: int) -> None:
    (plate_id,) = repo.replace_detections(project, photo, [PLATE]).added
    stack = UndoStack(project)
    stack.push(EditRegion(photo, plate_id, {"method": "fill"}))
    assert repo.get_region(project, plate_id).edited
    stack.undo()
    assert not repo.get_region(project, plate_id).edited
    stack.redo()
    assert repo.get_region(project, plate_id).edited


def test_a_deleted_edited_region_comes_back_edited(project: Project, photo: int) -> None:
    (plate_id,) = repo.replace_detections(project, photo, [PLATE]).added
    repo.update_region(project, plate_id, method="fill")
    region = repo.delete_region(project, plate_id)
    repo.restore_region(project, region)
    assert repo.get_region(project, plate_id).edited


def test_marking_reviewed_confirms_the_detector_regions(project: Project,
                                                        photo: int) -> None:
    (plate_id,) = repo.replace_detections(project, photo, [PLATE]).added
    stack = UndoStack(project)
    stack.push(SetStatus(photo, "reviewed"))
    assert repo.get_region(project, plate_id).edited  # what the user approved is theirs
    change = repo.replace_detections(project, photo, [PLATE])
    assert change.removed == [] and change.added == [] and change.skipped == 1
    assert repo.get_photo(project, photo).status == "reviewed"  # nothing changed
    stack.undo()
    assert not repo.get_region(project, plate_id).edited


def test_detect_is_one_undo_step(project: Project, photo: int) -> None:
    first = repo.replace_detections(project, photo, [PLATE, FACE])
    detected = repo.get_photo(project, photo).detected_at
    manual = repo.add_region(project, photo, kind="other", x=300, y=300, w=30, h=30)
    before = repo.regions(project, photo)
    stack = UndoStack(project)
    change = repo.replace_detections(project, photo, [FAR], {"face_threshold": 0.3})
    assert stack.record(Detect(change, "a.png"), "do")
    assert stack.undo_label() == "Detect in a.png"
    after = repo.regions(project, photo)
    stack.undo()
    assert repo.regions(project, photo) == before  # same ids, same fields
    assert repo.get_photo(project, photo).detected_at == detected
    stack.redo()
    assert repo.regions(project, photo) == after
    assert first.added[0] not in _by_id(project, photo) and manual in _by_id(project, photo)


def test_undo_of_detect_refuses_over_a_later_change(project: Project, photo: int) -> None:
    repo.replace_detections(project, photo, [PLATE])
    stack = UndoStack(project)
    change = repo.replace_detections(project, photo, [FAR])
    stack.record(Detect(change, "a.png"), "do")
    repo.update_region(project, change.added[0], method="fill")  # made the user's since
    kept = repo.regions(project, photo)
    with pytest.raises(EditConflict):
        stack.undo()
    assert repo.regions(project, photo) == kept  # nothing changed
