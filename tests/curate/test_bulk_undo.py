"""Undo of a bulk edit writes every old value back in one ``UPDATE … FROM json_each``
(issue 18): the values and audit rows must be exactly those of writing the old value
back one sample at a time through ``Project.audit``, on mixed old values, NULLs, and
prompts with quotes, control characters and unicode; through undo/redo/undo chains.
Adding or removing a tag on many samples is set-based too, against the same reference."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from core.curate import bulk
from core.curate.commands import EditConflict, SetField, SetTag, UndoStack
from core.store import Project, now_iso

TEXTS = ["plain", 'quo"te', "it's", "back\\slash", "tab\tnew\nline", "\x00nul\x01\x1f\x7f",
         "emoji 🐱‍👤 ❤️", "\u2028\u2029", "é ß 漢字", "", "  padded  ", '{"json": 1}', "null"]
QUALITIES = ["Benchmark", "Analysis", "Trash", None]
SPLITS = ["text-to-image", "image-to-image", None]
COLUMNS = "id, prompt, notes, quality, review_status, split, is_screenshot"


def _fill(project: Project, n: int) -> list[str]:
    """``n`` samples whose every field cycles through different values (NULLs too)."""
    stamp = now_iso()
    ids = [f"s{k:04d}-ü'\"" for k in range(n)]
    with project.transaction() as conn:
        conn.executemany(
            "INSERT INTO samples(id, prompt, original_prompt, notes, quality, review_status, "
            "split, is_screenshot, created_at, modified_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(sid, TEXTS[k % len(TEXTS)], "orig", TEXTS[(k * 5) % len(TEXTS)],
              QUALITIES[k % 4], ("unreviewed", "reviewed")[k % 2], SPLITS[k % 3], k % 2,
              stamp, stamp) for k, sid in enumerate(ids)])
    return ids


def _per_sample_write_back(project: Project, field: str, values: dict[str, Any]) -> None:
    """The reference: one UPDATE and one ``Project.audit`` row per sample."""
    stamp = now_iso()
    for sid, value in values.items():
        (current,) = project.conn.execute(f"SELECT {field} FROM samples WHERE id = ?",
                                          (sid,)).fetchone()
        project.conn.execute(f"UPDATE samples SET {field} = ?, modified_at = ? WHERE id = ?",
                             (value, stamp, sid))
        project.audit("edit", "sample", sid, field, current, value)


def _state(project: Project) -> tuple[list[tuple], list[tuple]]:
    samples = project.conn.execute(f"SELECT {COLUMNS} FROM samples ORDER BY id").fetchall()
    audit = project.conn.execute(
        "SELECT actor, action, entity, entity_id, field, old, new FROM audit_log "
        "ORDER BY id").fetchall()
    return samples, audit


VALUES = [("quality", "Trash"), ("quality", None), ("prompt", "new ‘prompt’ \"x\""),
          ("notes", ""), ("split", "text-to-image"), ("is_screenshot", 1),
          ("review_status", "reviewed")]


@pytest.mark.parametrize(("field", "value"), VALUES)
def test_undo_redo_undo_matches_writing_back_one_sample_at_a_time(
        tmp_path: Path, field: str, value: Any) -> None:
    results = []
    set_based = bulk.write_values
    for reference in (False, True):
        with Project.create(tmp_path / f"{reference}.winnow") as project:
            ids = _fill(project, 3 * len(TEXTS) * 4)
            bulk.write_values = _per_sample_write_back if reference else set_based  # type: ignore[assignment]  # the reference returns no count
            try:
                stack = UndoStack(project)
                states = []
                assert stack.push(SetField(ids, field, value))
                states.append(_state(project))
                for step in (stack.undo, stack.redo, stack.undo):
                    step()
                    states.append(_state(project))
            finally:
                bulk.write_values = set_based
            results.append(states)
    new, ref = results
    for (samples_new, audit_new), (samples_ref, audit_ref) in zip(new, ref, strict=True):
        assert samples_new == samples_ref
        assert sorted(audit_new, key=repr) == sorted(audit_ref, key=repr)
    # the undo really put every old value back, NULLs and control characters included
    first_samples = ref[0][0]
    assert new[1][0] != first_samples and new[3][0] == new[1][0]
    assert len(new[1][1]) == 2 * len(new[0][1]) > 0


def test_undo_is_one_stamp_and_exactly_the_old_values(project: Project) -> None:
    ids = _fill(project, 52)
    before = dict(project.conn.execute("SELECT id, prompt FROM samples"))
    stack = UndoStack(project)
    stack.push(SetField(ids, "prompt", "same for all"))
    last = project.conn.execute("SELECT max(id) FROM audit_log").fetchone()[0]
    stack.undo()
    assert dict(project.conn.execute("SELECT id, prompt FROM samples")) == before
    rows = project.conn.execute("SELECT at, entity_id, old, new FROM audit_log WHERE id > ?",
                                (last,)).fetchall()
    changed = {s for s in ids if before[s] != "same for all"}
    assert {r[1] for r in rows} == changed and len(rows) == len(changed)
    assert len({r[0] for r in rows}) == 1
    stamps = {m for (m,) in project.conn.execute(
        "SELECT DISTINCT modified_at FROM samples WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(changed)),))}
    assert stamps == {rows[0][0]}
    for _, sid, old, new in rows:
        assert old == json.dumps("same for all", ensure_ascii=False)
        assert new == json.dumps(before[sid], ensure_ascii=False)
        assert json.loads(new) == before[sid]


def test_redo_conflict_is_one_check_over_the_map(project: Project) -> None:
    ids = _fill(project, 40)
    stack = UndoStack(project)
    stack.push(SetField(ids, "quality", "Trash"))
    stack.undo()
    command = stack.next_redo()
    assert isinstance(command, SetField)
    assert bulk.first_not_matching(project, "quality", command.old) is None
    with project.transaction():  # a NULL becomes a label elsewhere
        project.conn.execute("UPDATE samples SET quality = 'Analysis' WHERE id = ?", (ids[3],))
    assert bulk.first_not_matching(project, "quality", command.old) == ids[3]
    audit = project.counts()["audit_entries"]
    with pytest.raises(EditConflict, match="redo refused"):
        stack.redo()
    assert project.counts()["audit_entries"] == audit


def test_write_values_of_nothing_writes_nothing(project: Project) -> None:
    _fill(project, 3)
    assert bulk.write_values(project, "quality", {}) == 0
    with pytest.raises(ValueError, match="not an editable sample field"):
        bulk.write_values(project, "raw", {"s0000-ü'\"": "x"})
    assert project.counts()["audit_entries"] == 0


def test_a_prompt_holding_nul_comes_back_whole(project: Project) -> None:
    """SQLite's JSON parser cuts strings at \\u0000: such old values must not travel
    through ``json_each`` (found while writing this test: the prompt came back empty)."""
    ids = _fill(project, 8)
    nul = project.conn.execute("SELECT prompt FROM samples WHERE id = ?", (ids[5],)).fetchone()[0]
    assert "\x00" in nul
    stack = UndoStack(project)
    stack.push(SetField(ids, "prompt", "x"))
    stack.undo()
    stack.redo()
    stack.undo()
    assert project.conn.execute("SELECT prompt FROM samples WHERE id = ?",
                                (ids[5],)).fetchone()[0] == nul
    (old,) = project.conn.execute(
        "SELECT new FROM audit_log WHERE entity_id = ? ORDER BY id DESC LIMIT 1",
        (ids[5],)).fetchone()
    assert old == json.dumps(nul, ensure_ascii=False)


def _per_sample_tag(project: Project, ids: list[str], tag: str, present: bool) -> list[str]:
    """The reference: SetTag as it was, six statements and one ``Project.audit`` per sample."""
    def tags(sid: str) -> list[str]:
        return [r[0] for r in project.conn.execute(
            "SELECT tag FROM sample_tags WHERE sample_id = ? ORDER BY tag", (sid,))]

    done = []
    for sid in ids:
        if project.conn.execute("SELECT 1 FROM samples WHERE id = ?", (sid,)).fetchone() is None:
            raise KeyError(f"no sample {sid!r}")
        old = tags(sid)
        if (tag in old) == present:
            continue
        if present:
            project.conn.execute("INSERT INTO sample_tags(sample_id, tag) VALUES (?, ?)",
                                 (sid, tag))
        else:
            project.conn.execute("DELETE FROM sample_tags WHERE sample_id = ? AND tag = ?",
                                 (sid, tag))
        project.conn.execute("UPDATE samples SET modified_at = ? WHERE id = ?", (now_iso(), sid))
        project.audit("edit", "sample", sid, "tags", old, tags(sid))
        done.append(sid)
    return done


TAGS = ["b", "a", 'quo"te', "émoji 🐱", "Zebra", "z\x00nul", "\u2028", "a b"]


def _tag_state(project: Project) -> tuple[list[tuple], list[tuple]]:
    tags = project.conn.execute("SELECT sample_id, tag FROM sample_tags ORDER BY 1, 2").fetchall()
    audit = project.conn.execute(
        "SELECT actor, action, entity, entity_id, field, old, new FROM audit_log "
        "ORDER BY id").fetchall()
    return tags, audit


@pytest.mark.parametrize(("tag", "present"), [("a", True), ("a", False), ("émoji 🐱", True),
                                               ("z\x00nul", False), ("new", True)])
def test_tags_set_based_match_one_sample_at_a_time(tmp_path: Path, tag: str,
                                                   present: bool) -> None:
    results = []
    for reference in (False, True):
        with Project.create(tmp_path / f"{reference}.winnow") as project:
            ids = _fill(project, 60)
            with project.transaction() as conn:
                conn.executemany("INSERT INTO sample_tags(sample_id, tag) VALUES (?, ?)",
                                 [(sid, t) for k, sid in enumerate(ids)
                                  for j, t in enumerate(TAGS) if (k >> j) & 1])
            original = SetTag._apply

            def per_sample(self: SetTag, project: Project, present: bool,
                           ids: Iterable[str]) -> list[str]:
                return _per_sample_tag(project, list(ids), self.tag, present)

            if reference:
                SetTag._apply = per_sample  # type: ignore[method-assign]  # the reference path
            try:
                stack = UndoStack(project)
                command = SetTag(ids, tag, present)
                assert stack.push(command)
                states = [_tag_state(project)]
                for step in (stack.undo, stack.redo, stack.undo, stack.redo):
                    step()
                    states.append(_tag_state(project))
                results.append((states, command.touched))
            finally:
                SetTag._apply = original  # type: ignore[method-assign]  # restored
    (new, touched_new), (ref, touched_ref) = results
    assert touched_new == touched_ref and len(touched_new) > 0
    assert new == ref  # tags, and audit rows in the same order with the same JSON


def test_tag_on_an_unknown_sample_is_named_and_nothing_written(project: Project) -> None:
    ids = _fill(project, 5)
    with pytest.raises(KeyError, match="nope"):
        UndoStack(project).push(SetTag([ids[0], "nope", ids[1]], "t"))
    assert project.counts()["audit_entries"] == 0
    assert project.conn.execute("SELECT count(*) FROM sample_tags").fetchone()[0] == 0


def test_tag_undo_refused_when_a_tag_changed_elsewhere(project: Project) -> None:
    ids = _fill(project, 30)
    stack = UndoStack(project)
    stack.push(SetTag(ids, "t"))
    with project.transaction():
        project.conn.execute("DELETE FROM sample_tags WHERE sample_id = ?", (ids[7],))
    audit = project.counts()["audit_entries"]
    with pytest.raises(EditConflict, match="undo refused"):
        stack.undo()
    assert project.counts()["audit_entries"] == audit
    assert project.conn.execute("SELECT count(*) FROM sample_tags").fetchone()[0] == 29


KILL_UNDO = r"""
import os, signal, sys
from core.curate import bulk
from core.curate.commands import SetField, SetTag
from core.store import Project

project = Project.open(sys.argv[1])
ids = [r[0] for r in project.conn.execute("SELECT id FROM samples ORDER BY id")]
command = (SetTag(ids, "t") if sys.argv[3] == "tag" else SetField(ids, "prompt", "x"))
command.do(project)
print("done", flush=True)
steps = [0]

def progress():
    steps[0] += 1
    if steps[0] > int(sys.argv[2]):
        os.kill(os.getpid(), signal.SIGKILL)
    return 0

project.conn.set_progress_handler(progress, 1000)
command.undo(project)
print("not killed", flush=True)
"""


@pytest.mark.parametrize("what", ["field", "tag"])
@pytest.mark.parametrize("after", ["100", "300", "500"])  # of ~550 (tag) / ~900 steps
def test_sigkill_in_the_middle_of_an_undo_leaves_the_done_edit(tmp_path: Path, what: str,
                                                              after: str) -> None:
    import signal
    import sqlite3
    import subprocess
    import sys

    path = tmp_path / "kill.winnow"
    with Project.create(path) as project:
        _fill(project, 3000)
    child = subprocess.run([sys.executable, "-c", KILL_UNDO, str(path), after, what],
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == -signal.SIGKILL, child.stdout + child.stderr
    assert child.stdout.startswith("done")
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        if what == "field":  # the edit is whole, the undo is not there at all
            assert {p for (p,) in conn.execute("SELECT prompt FROM samples")} == {"x"}
        else:
            assert conn.execute("SELECT count(*) FROM sample_tags").fetchone()[0] == 3000
        assert conn.execute("SELECT count(*) FROM audit_log").fetchone()[0] == 3000
    finally:
        conn.close()


@pytest.mark.parametrize("tag", [False, True])
def test_a_full_disk_during_undo_changes_nothing(project: Project, tag: bool) -> None:
    from core.curate.commands import EditFailed

    ids = _fill(project, 3000)
    stack = UndoStack(project)
    stack.push(SetTag(ids, "t") if tag else SetField(ids, "prompt", "same"))
    before = _state(project), _tag_state(project)
    pages = project.conn.execute("PRAGMA page_count").fetchone()[0]
    project.conn.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full now
    try:
        with pytest.raises(EditFailed, match="could not be saved.*full"):
            stack.undo()
    finally:
        project.conn.execute("PRAGMA max_page_count = 1073741823")
    assert (_state(project), _tag_state(project)) == before
    assert stack.can_undo() and not stack.can_redo()
    stack.undo()  # and with room again it simply works
    assert not stack.can_undo()


@pytest.mark.parametrize(("field", "value", "other"), [
    ("quality", None, "Trash"), ("quality", "Trash", None), ("prompt", "x", "y"),
    ("prompt", "x", "\x00nul\x01\x1f\x7f")])
@pytest.mark.parametrize("victim", [0, 5, -1])  # of the samples the edit changed
def test_undo_refuses_naming_the_sample_changed_since(project: Project, field: str,
                                                      value: Any, other: Any,
                                                      victim: int) -> None:
    """Any sample changed since is named and nothing is undone, NULLs and the NUL path
    included (sample 5's old prompt holds NUL: the sixth the prompt edit changed)."""
    ids = _fill(project, 52)
    stack = UndoStack(project)
    command = SetField(ids, field, value)
    stack.push(command)
    sid = list(command.old)[victim]
    with project.transaction():
        project.conn.execute(f"UPDATE samples SET {field} = ? WHERE id = ?", (other, sid))
    before = _state(project)
    with pytest.raises(EditConflict, match=re.escape(f"sample {sid!r}: {field} was changed")):
        stack.undo()
    assert _state(project) == before and stack.can_undo()


def test_undo_after_a_sample_was_deleted_undoes_the_others(project: Project) -> None:
    ids = _fill(project, 20)
    before = dict(project.conn.execute("SELECT id, quality FROM samples"))
    stack = UndoStack(project)
    stack.push(SetField(ids, "quality", "Trash"))
    with project.transaction():
        project.conn.execute("DELETE FROM samples WHERE id = ?", (ids[0],))
    stack.undo()
    del before[ids[0]]
    assert dict(project.conn.execute("SELECT id, quality FROM samples")) == before
