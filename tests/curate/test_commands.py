"""Undoable edits: one transaction + audit rows per do/undo, persisted, conflicts refused."""

from __future__ import annotations

import json

import pytest

from core.curate.commands import (
    EditConflict,
    Macro,
    SetField,
    SetTag,
    UndoStack,
    reset_prompt,
    set_prompt,
)
from core.curate.derive import DeriveFromTemplate, fill_template, has_blank
from core.curate.detail import load_sample, sample_history
from core.curate.image_edits import (
    add_box,
    delete_box,
    move_image,
    set_box,
    set_box_role,
    set_image_role,
)
from core.store import Project


def audit(project, sid):  # type: ignore[no-untyped-def]
    return project.conn.execute(
        "SELECT action, field, old, new FROM audit_log WHERE entity_id = ? AND action = 'edit' "
        "ORDER BY id", (sid,)).fetchall()


def test_prompt_edit_undo_redo_then_reopen_persists(curate_project) -> None:
    p = curate_project
    path = p.path
    stack = UndoStack(p)
    assert stack.push(set_prompt("s1", "Make the cat bright green"))
    d = load_sample(p, "s1")
    assert d.prompt == "Make the cat bright green" and d.prompt_modified
    assert d.original_prompt == "Change the colour of the cat to green"
    assert stack.undo_label() == "Edit prompt"
    stack.undo()
    assert load_sample(p, "s1").prompt == "Change the colour of the cat to green"
    assert not load_sample(p, "s1").prompt_modified
    stack.redo()
    assert [(a, f) for a, f, _o, _n in audit(p, "s1")] == [("edit", "prompt")] * 3
    _, _, old, new = audit(p, "s1")[1]  # the undo row records the way back
    assert (json.loads(old), json.loads(new)) == ("Make the cat bright green",
                                                  "Change the colour of the cat to green")
    p.close()
    reopened = Project.open(path)
    try:
        d = load_sample(reopened, "s1")
        assert d.prompt == "Make the cat bright green"
        assert d.original_prompt == "Change the colour of the cat to green"
        assert [h["field"] for h in sample_history(reopened, "s1")][:3] == ["prompt"] * 3
    finally:
        reopened.close()


def test_reset_to_original_and_noop_edits_are_not_recorded(curate_project) -> None:
    p = curate_project
    stack = UndoStack(p)
    stack.push(set_prompt("s2", "make it a watercolour painting"))
    assert stack.push(reset_prompt(p, "s2"))
    assert load_sample(p, "s2").prompt == "make it a watercolor"
    assert not stack.push(reset_prompt(p, "s2"))   # nothing to change: no undo step
    assert stack.undo_label() == "Reset prompt to original"
    stack.undo()
    assert load_sample(p, "s2").prompt == "make it a watercolour painting"


def test_invalid_values_are_refused_without_writing(curate_project) -> None:
    p = curate_project
    before = p.counts()["audit_entries"]
    with pytest.raises(ValueError, match="quality must be one of"):
        SetField(["s1"], "quality", "Great")
    with pytest.raises(ValueError, match="not an editable"):
        SetField(["s1"], "original_prompt", "x")
    with pytest.raises(KeyError, match="nope"):
        UndoStack(p).push(SetField(["s1", "nope"], "quality", "Trash"))
    assert load_sample(p, "s1").quality == "Benchmark"   # whole transaction rolled back
    assert p.counts()["audit_entries"] == before


def test_undo_refuses_to_overwrite_a_later_change(curate_project) -> None:
    p = curate_project
    stack = UndoStack(p)
    stack.push(SetField(["s1"], "notes", "check colours"))
    with p.transaction():  # someone else changes it meanwhile
        p.conn.execute("UPDATE samples SET notes = 'other' WHERE id = 's1'")
    with pytest.raises(EditConflict, match="changed elsewhere"):
        stack.undo()
    assert load_sample(p, "s1").notes == "other"
    assert stack.can_undo()


def test_bulk_quality_and_tag_one_step_each(curate_project) -> None:
    p = curate_project
    stack = UndoStack(p)
    stack.push(SetField(["s1", "s2", "s4"], "quality", "Analysis"))
    assert {s: load_sample(p, s).quality for s in ("s1", "s2", "s4")} == \
        dict.fromkeys(("s1", "s2", "s4"), "Analysis")
    # only the two that changed are remembered and audited
    assert len(audit(p, "s1")) == 1 and len(audit(p, "s4")) == 0
    stack.push(SetTag(["s1", "s2"], "batch-3"))
    assert "batch-3" in load_sample(p, "s2").tags
    stack.undo()
    assert "batch-3" not in load_sample(p, "s2").tags
    stack.undo()
    assert load_sample(p, "s1").quality == "Benchmark" and load_sample(p, "s2").quality is None
    assert load_sample(p, "s4").quality == "Analysis"


def test_macro_label_and_review_is_one_undo_step(curate_project) -> None:
    p = curate_project
    stack = UndoStack(p)
    stack.push(Macro("Label Trash and mark reviewed", [
        SetField(["s2"], "quality", "Trash"), SetField(["s2"], "review_status", "reviewed")]))
    d = load_sample(p, "s2")
    assert (d.quality, d.review_status) == ("Trash", "reviewed")
    stack.undo()
    d = load_sample(p, "s2")
    assert (d.quality, d.review_status) == (None, "unreviewed")
    assert not stack.can_undo() and stack.can_redo()


def test_role_changes_reorder_and_undo(curate_project) -> None:
    p = curate_project
    stack = UndoStack(p)
    items = load_sample(p, "s1").images
    extra = items[2]
    assert extra.role is None and extra.row_id is None  # a post image not used yet
    stack.push(set_image_role("s1", "input", sha256=extra.sha256, ref=extra.ref))
    inputs = [i for i in load_sample(p, "s1").images if i.role == "input"]
    assert [i.key for i in inputs] == [items[0].key, extra.key]
    new_row = inputs[1].row_id
    stack.push(move_image("s1", new_row, -1))
    inputs = [i for i in load_sample(p, "s1").images if i.role == "input"]
    assert [i.key for i in inputs] == [extra.key, items[0].key]
    stack.push(set_image_role("s1", "unused", row_id=items[1].row_id))
    d = load_sample(p, "s1")
    assert [i.role for i in d.images if i.key == items[1].key] == ["unused"]
    assert sum(i.role == "output" for i in d.images) == 0
    stack.undo()
    stack.undo()
    stack.undo()
    d = load_sample(p, "s1")
    assert [(i.key, i.role, i.row_id) for i in d.images] == \
        [(i.key, i.role, i.row_id) for i in items]
    history = [h for h in sample_history(p, "s1") if h["action"] == "edit"]
    assert len(history) == 6 and {h["field"] for h in history} == {"images"}
    first = history[-1]
    assert [i["role"] for i in first["old"]["images"]] == ["input", "output"]
    assert [i["role"] for i in first["new"]["images"]] == ["input", "input", "output"]


def test_role_change_at_an_index_places_the_image_there(curate_project) -> None:
    p = curate_project
    stack = UndoStack(p)
    items = load_sample(p, "s1").images  # input cat, output, post image "meme"
    cat, out, meme = items
    stack.push(set_image_role("s1", "input", sha256=meme.sha256, ref=meme.ref, index=0))
    assert [(i.key, i.role, i.position) for i in load_sample(p, "s1").images] == [
        (meme.key, "input", 0), (cat.key, "input", 1), (out.key, "output", 0)]
    assert stack.undo_label() == "Move image to input 1"
    stack.push(set_image_role("s1", "input", row_id=out.row_id, index=1))
    assert [(i.key, i.role, i.position) for i in load_sample(p, "s1").images] == [
        (meme.key, "input", 0), (out.key, "input", 1), (cat.key, "input", 2)]
    stack.push(set_image_role("s1", "unused", row_id=cat.row_id, index=99))  # clamped
    assert [(i.key, i.role, i.position) for i in load_sample(p, "s1").images][-1] == \
        (cat.key, "unused", 0)
    assert len(audit(p, "s1")) == 3
    for _ in range(3):
        stack.undo()
    assert [(i.key, i.role, i.row_id) for i in load_sample(p, "s1").images] == \
        [(i.key, i.role, i.row_id) for i in items]


def test_boxes_add_move_nudge_merge_relabel_delete(curate_project) -> None:
    p = curate_project
    stack = UndoStack(p)
    shot = load_sample(p, "s2").images[0]
    size = (shot.width, shot.height)
    assert size == (240, 160)
    stack.push(add_box("s2", shot.sha256, shot.ref, "output", (200, 150, 100, 100), size))
    boxes = load_sample(p, "s2").images[0].boxes
    new = next(b for b in boxes if b.rect == (200, 150, 40, 10))  # clipped to the image
    stack.push(set_box("s2", new.row_id, (180, 100, 40, 40), size))
    for k in range(1, 4):
        stack.push(set_box("s2", new.row_id, (180 - k, 100, 40, 40), size, nudge=True))
    box = next(b for b in load_sample(p, "s2").images[0].boxes if b.row_id == new.row_id)
    assert box.rect == (177, 100, 40, 40)
    stack.undo()  # the three nudges are one step
    box = next(b for b in load_sample(p, "s2").images[0].boxes if b.row_id == new.row_id)
    assert box.rect == (180, 100, 40, 40)
    stack.redo()
    stack.push(set_box_role("s2", new.row_id, "input"))
    roles = {b.row_id: b.role for b in load_sample(p, "s2").images[0].boxes}
    assert roles[new.row_id] == "input"
    stack.push(delete_box("s2", new.row_id))
    assert len(load_sample(p, "s2").images[0].boxes) == 2
    for _ in range(5):
        stack.undo()
    assert [b.rect for b in load_sample(p, "s2").images[0].boxes] == \
        [(10, 20, 50, 40), (100, 30, 120, 100)]
    with pytest.raises(ValueError, match="positive width"):
        add_box("s2", shot.sha256, shot.ref, "input", (0, 0, 0, 5))


def test_first_box_marks_the_sample_as_screenshot(curate_project) -> None:
    p = curate_project
    stack = UndoStack(p)
    item = load_sample(p, "s3").images[0]
    stack.push(add_box("s3", item.sha256, item.ref, "output", (2, 2, 10, 10), (32, 32)))
    assert load_sample(p, "s3").is_screenshot
    stack.undo()
    assert not load_sample(p, "s3").is_screenshot


def test_fill_in_the_blank_creates_linked_sample_and_undo_removes_it(curate_project) -> None:
    p = curate_project
    assert has_blank("Design a soda can called ___")
    assert fill_template("Design a soda can called ___", "FIZZ POP") == \
        "Design a soda can called FIZZ POP"
    assert fill_template("Design a can called ___", "Design a can called 'X' with gold foil "
                         "lettering please") == "Design a can called 'X' with gold foil " \
                                                "lettering please"
    stack = UndoStack(p)
    stack.push(DeriveFromTemplate("s3", "r3"))
    new_id = "s3~fill~r3"
    d = load_sample(p, new_id)
    assert d.prompt == "Design a soda can called FIZZ POP" and not d.prompt_modified
    assert d.derived_from == {"kind": "fill-in-the-blank", "source_sample_id": "s3",
                              "template_post_id": "p3", "completion_post_id": "r3"}
    assert "derived" in d.tags and "template" not in d.tags
    assert [i.role for i in d.images] == ["output"]          # the template's output copied
    assert d.feedback == []                                  # the completion is not feedback
    assert load_sample(p, "s3").derived == [new_id]
    with pytest.raises(ValueError, match="already used"):
        stack.push(DeriveFromTemplate("s3", "r3"))
    stack.undo()
    with pytest.raises(KeyError):
        load_sample(p, new_id)
    assert load_sample(p, "s3").derived == []
    stack.redo()
    assert load_sample(p, new_id).post_id == "p3"
    fields = [h["field"] for h in sample_history(p, new_id)]
    assert fields == ["created", "deleted", "created"]


def test_stack_listeners_and_limit(curate_project) -> None:
    p = curate_project
    stack = UndoStack(p, limit=3)
    seen: list[str] = []
    stack.listeners.append(lambda c, what: seen.append(what))
    for k in range(5):
        stack.push(SetField(["s1"], "notes", f"n{k}"))
    while stack.undo():
        pass
    assert load_sample(p, "s1").notes == "n1"
    assert seen == ["do"] * 5 + ["undo"] * 3
