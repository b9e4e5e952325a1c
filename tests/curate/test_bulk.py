"""Bulk edits (ADR 036): one set-based transaction, the same audit rows as one edit at a
time, undo/redo per old value, conflicts and a full disk refused without a trace."""

from __future__ import annotations

import json
import sqlite3

import pytest

from core.curate import bulk
from core.curate.commands import EditConflict, EditFailed, Macro, SetField, UndoStack
from core.store import Project, now_iso


def _fill(project: Project, n: int) -> list[str]:
    """``n`` samples with mixed qualities (every fourth unlabelled)."""
    stamp = now_iso()
    qualities = ["Benchmark", "Analysis", "Trash", None]
    ids = [f"b{k:05d}" for k in range(n)]
    with project.transaction() as conn:
        conn.executemany(
            "INSERT INTO samples(id, prompt, original_prompt, quality, created_at, "
            "modified_at) VALUES (?, ?, ?, ?, ?, ?)",
            [(sid, f"prompt {k}", f"prompt {k}", qualities[k % 4], stamp, stamp)
             for k, sid in enumerate(ids)])
    return ids


def _audit(project: Project, field: str) -> list[tuple[str, str | None, str | None]]:
    return project.conn.execute(
        "SELECT entity_id, old, new FROM audit_log WHERE action = 'edit' AND field = ? "
        "ORDER BY id", (field,)).fetchall()


def test_label_many_is_one_undo_step_with_one_audit_row_per_changed_sample(project) -> None:
    ids = _fill(project, 400)
    before = dict(project.conn.execute("SELECT id, quality FROM samples"))
    created = project.conn.execute("SELECT modified_at FROM samples").fetchone()[0]
    stack = UndoStack(project)
    assert stack.push(SetField(ids, "quality", "Trash"))
    assert {q for (q,) in project.conn.execute("SELECT quality FROM samples")} == {"Trash"}
    rows = _audit(project, "quality")
    changed = [s for s in ids if before[s] != "Trash"]
    assert sorted(r[0] for r in rows) == sorted(changed)  # unchanged ones are not logged
    for sid, old, new in rows:  # exactly what Project.audit writes
        assert old == (None if before[sid] is None else json.dumps(before[sid]))
        assert new == json.dumps("Trash")
    stamps = {r[0] for r in project.conn.execute(
        f"SELECT modified_at FROM samples WHERE id IN ({','.join('?' * len(changed))})",
        changed)}
    assert len(stamps) == 1 and stamps != {created}  # touched, in one stroke

    stack.undo()  # every sample gets its own old value back, None included
    assert dict(project.conn.execute("SELECT id, quality FROM samples")) == before
    assert len(_audit(project, "quality")) == 2 * len(changed)
    stack.redo()
    assert {q for (q,) in project.conn.execute("SELECT quality FROM samples")} == {"Trash"}
    assert stack.undo_label() == "Set quality to Trash on 400 samples"


def test_undo_is_refused_when_one_sample_changed_since(project) -> None:
    ids = _fill(project, 50)
    stack = UndoStack(project)
    stack.push(SetField(ids, "quality", "Analysis"))
    with project.transaction():  # someone else relabels one of them
        project.conn.execute("UPDATE samples SET quality = 'Benchmark' WHERE id = 'b00007'")
    audit = project.counts()["audit_entries"]
    with pytest.raises(EditConflict, match="b00007"):
        stack.undo()
    assert project.counts()["audit_entries"] == audit  # nothing half-undone
    assert project.conn.execute("SELECT count(*) FROM samples WHERE quality = 'Analysis'"
                                ).fetchone()[0] == 49
    assert stack.can_undo()


def test_redo_is_refused_when_a_sample_changed_after_undo(project) -> None:
    ids = _fill(project, 20)
    stack = UndoStack(project)
    stack.push(SetField(ids, "quality", "Trash"))
    stack.undo()
    with project.transaction():
        project.conn.execute("UPDATE samples SET quality = 'Trash' WHERE id = 'b00000'")
    with pytest.raises(EditConflict, match="redo refused"):
        stack.redo()


@pytest.mark.parametrize("text", ["plain", 'quo"te', "back\\slash", "tab\tnew\nline",
                                  "\x00\x01\x1f\x7f", "emoji 🐱‍👤 ❤️", "\u2028\u2029", "é ß 漢字",
                                  ""])
def test_prompt_audit_json_is_exactly_what_project_audit_writes(project, text: str) -> None:
    _fill(project, 1)
    stack = UndoStack(project)
    stack.push(SetField(["b00000"], "prompt", text, "Edit prompt"))
    stack.undo()
    (_, old1, new1), (_, old2, new2) = _audit(project, "prompt")
    assert (old1, new1) == (json.dumps("prompt 0", ensure_ascii=False),
                            json.dumps(text, ensure_ascii=False))
    assert (old2, new2) == (new1, old1)
    assert json.loads(new1) == text


def test_unknown_sample_is_named_and_nothing_written(project) -> None:
    ids = _fill(project, 5)
    audit = project.counts()["audit_entries"]
    with pytest.raises(KeyError, match="nope"):
        UndoStack(project).push(SetField([*ids, "nope"], "quality", "Trash"))
    assert project.counts()["audit_entries"] == audit
    assert bulk.first_differing(project, "quality", ids, "Trash") is not None


def test_a_full_disk_rolls_the_whole_edit_back(project) -> None:
    ids = _fill(project, 3000)
    before = dict(project.conn.execute("SELECT id, quality FROM samples"))
    audit = project.counts()["audit_entries"]
    pages = project.conn.execute("PRAGMA page_count").fetchone()[0]
    project.conn.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full now
    stack = UndoStack(project)
    with pytest.raises(EditFailed, match="could not be saved.*full"):
        stack.push(SetField(ids, "quality", "Trash"))
    project.conn.execute("PRAGMA max_page_count = 1073741823")
    assert dict(project.conn.execute("SELECT id, quality FROM samples")) == before
    assert project.counts()["audit_entries"] == audit
    assert not stack.can_undo()


def test_macro_of_two_bulk_fields_is_one_transaction(project) -> None:
    ids = _fill(project, 100)
    stack = UndoStack(project)
    stack.push(Macro("Label Trash and mark reviewed", [
        SetField(ids, "quality", "Trash"), SetField(ids, "review_status", "reviewed")]))
    assert project.conn.execute("SELECT count(*) FROM samples WHERE quality = 'Trash' AND "
                                "review_status = 'reviewed'").fetchone()[0] == 100
    stack.undo()
    assert project.conn.execute("SELECT count(*) FROM samples WHERE review_status = 'reviewed'"
                                ).fetchone()[0] == 0


def test_record_books_a_command_run_elsewhere_and_refuses_the_wrong_one(project) -> None:
    ids = _fill(project, 10)
    stack = UndoStack(project)
    seen: list[str] = []
    stack.listeners.append(lambda c, what: seen.append(what))
    command = SetField(ids, "quality", "Trash")
    view = project.worker_view()
    try:
        command.do(view)  # as the background job does
        assert stack.record(command, "do")
        assert stack.next_undo() is command
        with pytest.raises(ValueError, match="not the next command to redo"):
            stack.record(command, "redo")
        command.undo(view)
        stack.record(command, "undo")
    finally:
        view.close()
    assert seen == ["do", "undo"] and stack.next_redo() is command
    assert not stack.record(SetField(ids, "quality", "Trash"), "do")  # never done: no change


def test_bulk_fields_are_a_closed_list() -> None:
    with pytest.raises(ValueError, match="not an editable sample field"):
        bulk.current_values(None, "id; DROP TABLE samples", [])  # type: ignore[arg-type]
    assert "quality" in bulk.FIELDS and sqlite3.sqlite_version_info >= (3, 38)


KILL_CHILD = r"""
import os, signal, sys
from core.curate import bulk
from core.curate.commands import SetField
from core.store import Project

project = Project.open(sys.argv[1])
ids = [r[0] for r in project.conn.execute("SELECT id FROM samples ORDER BY id")]
where = sys.argv[2]
if where == "between":  # audit rows written, the UPDATE not yet: die
    original = bulk.write_field

    def dying(project, field, ids, value):
        project.conn.execute("INSERT INTO audit_log(at, actor, action, entity, entity_id) "
                             "VALUES ('x', 'x', 'edit', 'sample', 'marker')")
        os.kill(os.getpid(), signal.SIGKILL)

    bulk.write_field = dying
else:  # inside the audit INSERT…SELECT or the UPDATE (~250 steps of 1000 opcodes)
    calls, active = [0], [False]
    original = bulk.write_field

    def watched(*args):
        active[0] = True
        return original(*args)

    def progress():
        calls[0] += active[0]
        if calls[0] > int(where):
            os.kill(os.getpid(), signal.SIGKILL)
        return 0

    bulk.write_field = watched
    project.conn.set_progress_handler(progress, 1000)
SetField(ids, "quality", "Trash").do(project)
print("not killed", flush=True)
"""


@pytest.mark.parametrize("where", ["between", "20", "120", "240"])
def test_sigkill_in_the_middle_of_a_bulk_label_changes_nothing(tmp_path, where: str) -> None:  # type: ignore[no-untyped-def]
    import signal
    import subprocess
    import sys

    path = tmp_path / "kill.winnow"
    with Project.create(path) as project:
        _fill(project, 3000)
        before = dict(project.conn.execute("SELECT id, quality FROM samples"))
        audit = project.counts()["audit_entries"]
    child = subprocess.run([sys.executable, "-c", KILL_CHILD, str(path), where],
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == -signal.SIGKILL, child.stdout + child.stderr
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert dict(conn.execute("SELECT id, quality FROM samples")) == before
        assert conn.execute("SELECT count(*) FROM audit_log").fetchone()[0] == audit
    finally:
        conn.close()
    with Project.open(path) as project:  # and it simply works again
        UndoStack(project).push(SetField(list(before), "quality", "Trash"))
        assert project.conn.execute("SELECT count(DISTINCT quality) FROM samples"
                                    ).fetchone()[0] == 1
