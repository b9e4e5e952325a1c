"""A detection the photographer deleted stays rejected: Detect leaves it out, the rejection
is saved with the photo, undone with the delete, and restorable (ADR 201). It never
silences the release check."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from anon_helpers import need_centerface, need_testdata, quadrant_image
from PIL import Image

from core.imaging import photos as repo
from core.imaging.boxes import Detection
from core.imaging.photo_edits import (
    AddRegion,
    DeleteRegions,
    EditConflict,
    RestoreRejected,
    UndoStack,
)
from core.imaging.rejections import rejected, rejected_counts
from core.store import Project
from tests.store.schema_helpers import undo_m015

FACE = Detection("face", 20, 20, 40, 50, 0.8, "centerface")
FACE_AGAIN = Detection("face", 22, 21, 40, 50, 0.81, "centerface")  # IoU ≈ 0.88
PLATE = Detection("plate", 100, 200, 102, 47, 0.9, "pp-ocr-text")
NEW = Detection("face", 400, 20, 40, 50, 0.7, "centerface")


@pytest.fixture
def photo(project: Project, tmp_path: Path) -> int:
    src = tmp_path / "a.png"
    Image.fromarray(quadrant_image(640, 427)).save(src)
    return repo.import_photo(project, src)[0]


def _boxes(project: Project, photo: int) -> list[tuple[str, float, float]]:
    return sorted((r.kind, r.x, r.y) for r in repo.regions(project, photo))


def test_a_deleted_detection_does_not_come_back_and_new_ones_do(project: Project,
                                                                photo: int) -> None:
    face_id, plate_id = repo.replace_detections(project, photo, [FACE, PLATE]).added
    stack = UndoStack(project)
    stack.push(DeleteRegions(photo, [face_id]))
    assert [r.id for r in rejected(project, photo)] == [face_id]

    change = repo.replace_detections(project, photo, [FACE_AGAIN, PLATE, NEW])
    assert change.declined == 1 and change.skipped == 0
    assert _boxes(project, photo) == [("face", 400.0, 20.0), ("plate", 100.0, 200.0)]
    assert plate_id not in change.added  # an untouched detection is replaced, as before


def test_a_rejection_is_kept_with_the_photo(project: Project, photo: int) -> None:
    (face_id,) = repo.replace_detections(project, photo, [FACE]).added
    UndoStack(project).push(DeleteRegions(photo, [face_id]))
    path = project.path
    project.close()
    with Project.open(path) as again:
        assert rejected_counts(again) == {photo: 1}
        assert repo.replace_detections(again, photo, [FACE]).added == []
        assert repo.regions(again, photo) == []


def test_undoing_the_delete_brings_the_region_back_and_unrejects_it(project: Project,
                                                                    photo: int) -> None:
    (face_id,) = repo.replace_detections(project, photo, [FACE]).added
    before = repo.regions(project, photo)
    stack = UndoStack(project)
    stack.push(DeleteRegions(photo, [face_id]))
    stack.undo()
    assert repo.regions(project, photo) == before and rejected(project, photo) == []
    stack.redo()
    assert repo.regions(project, photo) == [] and len(rejected(project, photo)) == 1
    stack.undo()
    change = repo.replace_detections(project, photo, [FACE_AGAIN])
    assert change.declined == 0 and len(change.added) == 1  # a detection again


def test_a_hand_drawn_region_deleted_is_not_a_rejection(project: Project,
                                                        photo: int) -> None:
    stack = UndoStack(project)
    add = AddRegion(photo, {"kind": "face", "x": 20, "y": 20, "w": 40, "h": 50})
    stack.push(add)
    assert add.region_id is not None
    stack.push(DeleteRegions(photo, [add.region_id]))
    assert rejected(project, photo) == []
    assert len(repo.replace_detections(project, photo, [FACE]).added) == 1


def test_restoring_a_rejected_detection_is_undoable(project: Project, photo: int) -> None:
    face_id, plate_id = repo.replace_detections(project, photo, [FACE, PLATE]).added
    repo.update_region(project, face_id, method="fill")  # made the user's, then deleted
    was = repo.get_region(project, face_id)
    stack = UndoStack(project)
    stack.push(DeleteRegions(photo, [face_id, plate_id]))
    restore = RestoreRejected(photo, [face_id])
    assert stack.push(restore) and stack.undo_label() == "Restore 1 rejected detection"
    assert repo.get_region(project, face_id) == was  # its id, box, method and flag
    assert [r.id for r in rejected(project, photo)] == [plate_id]
    stack.undo()
    assert face_id not in {r.id for r in repo.regions(project, photo)}
    assert [r.id for r in rejected(project, photo)] == [face_id, plate_id]
    stack.redo()
    with pytest.raises(EditConflict, match="no longer a rejected detection"):
        stack.push(RestoreRejected(photo, [face_id]))
    assert repo.get_region(project, face_id) == was


def test_a_file_older_than_the_table_opened_read_only_has_no_rejections(
        project: Project, photo: int) -> None:
    repo.replace_detections(project, photo, [FACE])
    path = project.path
    with project.transaction() as conn:  # as Winnow before m015 left the file
        undo_m015(conn)
        conn.execute("PRAGMA user_version = 14")
    project.close()
    with Project.open(path, readonly=True) as old:
        assert rejected(old, photo) == [] and rejected_counts(old) == {}
    with Project.open(path) as migrated:
        assert migrated.conn.execute("SELECT count(*) FROM photo_rejections").fetchone() \
            == (0,)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_a_rejected_face_is_still_found_by_the_release_check(project: Project,
                                                             tmp_path: Path) -> None:
    """The photographer deletes a real face's region: Detect leaves it out, and the
    release still refuses to write the photo without asking (ADR 185)."""
    from core.imaging.detect import DetectSettings, detect_all
    from core.imaging.photo_edits import SetStatus
    from core.imaging.release import ReleaseRefused, release_photo

    need_centerface()
    settings = DetectSettings(plates=False)
    photo = repo.import_photo(project, need_testdata("faces") / "2008_002470.jpg")[0]
    rgb = repo.load_original(project, repo.get_photo(project, photo))
    found = detect_all(rgb, settings)
    change = repo.replace_detections(project, photo, found)
    best = max(change.made, key=lambda r: r.score or 0.0)
    assert (best.score or 0.0) >= settings.verify_outside_threshold  # a clear face
    stack = UndoStack(project)
    stack.push(DeleteRegions(photo, [best.id]))
    again = repo.replace_detections(project, photo, detect_all(rgb, settings))
    assert again.declined >= 1
    assert all(r.id != best.id and abs(r.x - best.x) > 1 for r in repo.regions(project, photo))
    stack.push(SetStatus(photo, "reviewed"))
    with pytest.raises(ReleaseRefused, match="still shows a face"):
        release_photo(project, photo, tmp_path / "out", settings)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def _state(project: Project, photo: int) -> tuple[object, ...]:
    p = repo.get_photo(project, photo)
    return (p.status, p.geometry.to_json(), p.detected_at, repo.regions(project, photo),
            rejected(project, photo))


def test_undo_and_redo_walk_back_and_forth_across_every_kind_of_step(project: Project,
                                                                      photo: int) -> None:
    """Detect, edit, rotate, crop, reject, detect again, restore, reset the geometry, mark
    reviewed: each undo gives back exactly the state before its step, each redo the state
    after it. (Undo of an edit made after marking reviewed leaves the photo new: ADR 189.)"""
    from core.imaging.geometry import Geometry
    from core.imaging.photo_edits import Detect, EditPhoto, EditRegion, SetStatus

    stack = UndoStack(project)
    states = [_state(project, photo)]

    def detect(found: list[Detection]) -> None:
        assert stack.record(Detect(repo.replace_detections(project, photo, found), "a"),
                            "do")

    detect([FACE, PLATE])
    states.append(_state(project, photo))
    face_id, plate_id = (r.id for r in repo.regions(project, photo))
    steps = [
        lambda: stack.push(EditRegion(photo, plate_id, {"x": 90.0, "w": 130.0})),
        lambda: stack.push(EditPhoto(photo, {"geometry": Geometry(rot90=1)})),
        lambda: stack.push(EditPhoto(photo, {"geometry": Geometry(rot90=1,
                                                                  crop=[0, 0, 300, 300])})),
        lambda: stack.push(DeleteRegions(photo, [face_id])),
        lambda: detect([FACE_AGAIN, PLATE, NEW]),
        lambda: stack.push(RestoreRejected(photo, [face_id])),
        lambda: stack.push(EditPhoto(photo, {"geometry": Geometry()})),
        lambda: stack.push(SetStatus(photo, "reviewed")),
    ]
    for step in steps:
        step()
        states.append(_state(project, photo))
    assert len({repr(s) for s in states}) == len(states)  # every step changed something
    for before in reversed(states[:-1]):
        stack.undo()
        assert _state(project, photo) == before
    for after in states[1:]:
        stack.redo()
        assert _state(project, photo) == after


def test_a_rejection_edited_with_sqlite3_into_text_is_left_aside(project: Project,
                                                                 photo: int) -> None:
    """A rejection whose box a user set to text with sqlite3 (REAL columns take it)
    stopped Detect for the photo with 'can only concatenate str (not "float") to str',
    and the Regions box could not format it: now it steers nothing, is not listed or
    counted, and stays in the file (ADR 208); the other rejections still work."""
    face_id, plate_id = repo.replace_detections(project, photo, [FACE, PLATE]).added
    UndoStack(project).push(DeleteRegions(photo, [face_id, plate_id]))
    with project.transaction() as conn:
        conn.execute("UPDATE photo_rejections SET x = 'abc' WHERE region_id = ?", (face_id,))
    assert [r.id for r in rejected(project, photo)] == [plate_id]
    assert rejected_counts(project) == {photo: 1}
    change = repo.replace_detections(project, photo, [FACE_AGAIN, PLATE])
    assert change.declined == 1 and len(change.added) == 1  # the plate stays rejected
    assert project.conn.execute("SELECT count(*) FROM photo_rejections").fetchone()[0] == 2
