"""Undoable photo edits on core's UndoStack, without Qt (ADR 031, issue 16 "Undo")."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from anon_helpers import quadrant_image
from PIL import Image

from core.imaging import photos as repo
from core.imaging.geometry import Geometry
from core.imaging.photo_edits import (
    AddRegion,
    DeleteRegions,
    EditConflict,
    EditPhoto,
    EditRegion,
    SetStatus,
    UndoStack,
)
from core.store import Project
from core.store.errors import ProjectError

BOX = {"x": 10.0, "y": 20.0, "w": 30.0, "h": 40.0}


@pytest.fixture
def photo(project: Project, tmp_path: Path) -> int:
    src = tmp_path / "a.png"
    Image.fromarray(quadrant_image(120, 80)).save(src)
    return repo.import_photo(project, src)[0]


def _audit(project: Project) -> list[tuple[str, str, str | None]]:
    return [tuple(r) for r in project.conn.execute(
        "SELECT action, entity, field FROM audit_log WHERE entity LIKE 'photo%' "
        "AND action != 'import' ORDER BY id")]


def test_add_undo_redo_keeps_the_region_id(project: Project, photo: int) -> None:
    stack = UndoStack(project)
    add = AddRegion(photo, {"kind": "face", "shape": "ellipse", **BOX})
    assert stack.push(add) and stack.undo_label() == "Add face region"
    (region,) = repo.regions(project, photo)
    assert region.id == add.region_id and (region.x, region.shape) == (10.0, "ellipse")
    stack.push(EditRegion(photo, region.id, {"x": 50.0}, "Move"))
    stack.undo()
    stack.undo()
    assert repo.regions(project, photo) == []
    stack.redo()
    assert repo.regions(project, photo) == [region]  # same id, same fields
    stack.redo()  # the move still applies: it names the same region
    assert repo.get_region(project, region.id).x == 50.0
    rows = project.conn.execute("SELECT entity_id FROM audit_log WHERE entity = "
                                "'photo_region'").fetchall()
    assert {r[0] for r in rows} == {str(region.id)}  # every step audited, one region


def test_delete_undo_restores_ids_so_earlier_edits_undo(project: Project, photo: int) -> None:
    a = repo.add_region(project, photo, kind="plate", **BOX)
    b = repo.add_region(project, photo, kind="other", x=60, y=5, w=10, h=10, source="pp-ocr",
                        score=0.7)
    before = repo.regions(project, photo)
    stack = UndoStack(project)
    stack.push(EditRegion(photo, a, {"kind": "face"}))
    stack.push(DeleteRegions(photo, [a, b]))
    assert repo.regions(project, photo) == [] and stack.undo_label() == "Delete 2 regions"
    stack.undo()
    restored = repo.regions(project, photo)
    assert [r.id for r in restored] == [a, b] and restored[1] == before[1]
    stack.undo()  # the kind edit made before the delete
    assert repo.regions(project, photo) == before


def test_no_op_edits_are_not_recorded(project: Project, photo: int) -> None:
    rid = repo.add_region(project, photo, **BOX)
    stack = UndoStack(project)
    assert not stack.push(EditRegion(photo, rid, {"x": 10.0, "w": 30.0}))
    assert not stack.push(EditPhoto(photo, {"geometry": Geometry()}))
    assert not stack.push(SetStatus(photo, "new"))
    assert not stack.can_undo()


def test_undo_refuses_to_overwrite_a_change_made_elsewhere(project: Project, photo: int
                                                           ) -> None:
    rid = repo.add_region(project, photo, **BOX)
    stack = UndoStack(project)
    stack.push(EditRegion(photo, rid, {"x": 15.0}))
    # someone opens the project with sqlite3 (or another tool) and moves the region
    with sqlite3.connect(project.path) as other:
        other.execute("UPDATE photo_regions SET x = 99 WHERE id = ?", (rid,))
    with pytest.raises(EditConflict, match="changed elsewhere"):
        stack.undo()
    assert repo.get_region(project, rid).x == 99  # their change is kept
    assert stack.can_undo()  # and the step is still there to retry
    add = AddRegion(photo, {"kind": "plate", **BOX})
    stack.push(add)
    with sqlite3.connect(project.path) as other:
        other.execute("UPDATE photo_regions SET w = 5 WHERE id = ?", (add.region_id,))
    with pytest.raises(EditConflict):
        stack.undo()
    assert repo.get_region(project, add.region_id).w == 5


def test_geometry_and_status_edits(project: Project, photo: int) -> None:
    stack = UndoStack(project)
    geometry = Geometry(rot90=1, crop=(1.0, 2.0, 30.0, 40.0))
    assert stack.push(EditPhoto(photo, {"geometry": geometry, "credit": "Ann"}))
    assert repo.get_photo(project, photo).geometry == geometry
    stack.undo()
    assert repo.get_photo(project, photo).geometry == Geometry()
    assert repo.get_photo(project, photo).credit == ""
    stack.redo()
    assert stack.push(SetStatus(photo, "reviewed"))
    project.conn.execute("UPDATE photos SET status = 'released' WHERE id = ?", (photo,))
    assert stack.push(SetStatus(photo, "new"))
    with pytest.raises(EditConflict, match="only by releasing"):
        stack.undo()  # a released photo is not released again by undo
    assert repo.get_photo(project, photo).status == "new"


def test_refusal_names_the_status_step_core_would_refuse(project: Project, photo: int
                                                       ) -> None:
    """``refusal`` says, without changing anything, exactly when undo / redo of a status
    edit is refused (the UI disables Undo / Redo with it)."""
    stack = UndoStack(project)
    mark = SetStatus(photo, "reviewed")
    assert mark.refusal(project, undo=False) is None  # never done: nothing to refuse
    assert stack.push(mark)
    assert mark.refusal(project, undo=True) is None
    project.conn.execute("UPDATE photos SET status = 'released' WHERE id = ?", (photo,))
    assert mark.refusal(project, undo=True) == "the photo is released now"
    with pytest.raises(EditConflict, match="released now; undo of 'Mark reviewed'"):
        stack.undo()
    assert repo.get_photo(project, photo).status == "released" and stack.can_undo()
    project.conn.execute("UPDATE photos SET status = 'reviewed' WHERE id = ?", (photo,))
    stack.undo()
    assert mark.refusal(project, undo=False) is None
    project.conn.execute("UPDATE photos SET status = 'reviewed' WHERE id = ?", (photo,))
    assert mark.refusal(project, undo=False) == "the photo is reviewed now"
    with pytest.raises(EditConflict, match="redo refused"):
        stack.redo()
    back = SetStatus(photo, "new")  # from released: undo would release it again
    project.conn.execute("UPDATE photos SET status = 'released' WHERE id = ?", (photo,))
    assert stack.push(back)
    assert "only by releasing" in (back.refusal(project, undo=True) or "")
    assert repo.get_photo(project, photo).status == "new"


def test_refused_edit_changes_nothing_and_is_not_recorded(project: Project, photo: int
                                                          ) -> None:
    stack = UndoStack(project)
    audit = _audit(project)
    with pytest.raises(ValueError, match="kind"):
        stack.push(AddRegion(photo, {"kind": "car", **BOX}))
    with pytest.raises(KeyError, match="no region 4242"):
        stack.push(EditRegion(photo, 4242, {"x": 1.0}))
    with pytest.raises(ProjectError, match="could not be saved"):  # core's own error, not sqlite3's
        stack.push(AddRegion(9999, dict(BOX)))  # no such photo: a foreign-key failure
    assert not stack.can_undo() and repo.regions(project, photo) == []
    assert _audit(project) == audit


def test_read_only_project_refuses_every_step(tmp_path: Path) -> None:
    src = tmp_path / "a.png"
    Image.fromarray(quadrant_image(64, 48)).save(src)
    with Project.create(tmp_path / "p.winnow") as project:
        photo = repo.import_photo(project, src)[0]
        rid = repo.add_region(project, photo, **BOX)
    with Project.open(tmp_path / "p.winnow", readonly=True) as project:
        stack = UndoStack(project)
        with pytest.raises(ProjectError, match="read-only"):
            stack.push(EditRegion(photo, rid, {"x": 1.0}))
        assert not stack.can_undo()
        assert repo.get_region(project, rid).x == BOX["x"]


def test_an_edit_sends_a_reviewed_photo_back_and_the_log_says_so(project: Project,
                                                                 photo: int) -> None:
    repo.set_status(project, photo, "reviewed")
    stack = UndoStack(project)
    stack.push(AddRegion(photo, {"kind": "plate", **BOX}))
    assert repo.get_photo(project, photo).status == "new"
    rows = project.conn.execute("SELECT field, old, new FROM audit_log WHERE entity = "
                                "'photo' AND field = 'status' ORDER BY id").fetchall()
    assert [(f, json.loads(o), json.loads(n)) for f, o, n in rows][-1] == (
        "status", "reviewed", "new")


def test_a_full_disk_refuses_the_edit_and_loses_nothing(project: Project, photo: int,
                                                        monkeypatch) -> None:
    rid = repo.add_region(project, photo, **BOX)
    stack = UndoStack(project)
    stack.push(EditRegion(photo, rid, {"x": 12.0}))
    real = repo.update_region

    def full_disk(*args, **kwargs):  # type: ignore[no-untyped-def]
        project.conn.execute("UPDATE photo_regions SET y = 0 WHERE id = ?", (rid,))
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(repo, "update_region", full_disk)
    with pytest.raises(ProjectError, match="disk is full"):
        stack.push(EditRegion(photo, rid, {"x": 50.0}, "Move"))
    with pytest.raises(ProjectError, match="disk is full"):
        stack.undo()
    monkeypatch.setattr(repo, "update_region", real)
    region = repo.get_region(project, rid)
    assert (region.x, region.y) == (12.0, BOX["y"])  # both transactions rolled back
    assert stack.undo_label() == "Edit region"  # the history is where it was
    stack.undo()
    assert repo.get_region(project, rid).x == BOX["x"]
