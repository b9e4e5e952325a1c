"""Session housekeeping (ADR 037): sample sources for a new session; delete only what
Winnow can prove it wrote and nobody opened; archive what holds judgments; the folder."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from rating_helpers import SAMPLES, make_session, simple_answer

from core.curate.commands import SetField, SetTag, UndoStack
from core.rating.merge import merge_files
from core.rating.session_admin import (
    archived,
    choose_samples,
    model_output_counts,
    plan_removal,
    rater_task_counts,
    remove_session,
    restore_session,
    session_folder,
    why_keep,
)
from core.rating.session_file import RatingSession
from core.rating.sessions import list_sessions
from core.selection import SampleFilter


def test_sample_sources(rproject) -> None:  # type: ignore[no-untyped-def]
    p = rproject
    stack = UndoStack(p)
    stack.push(SetField(["s001", "s004"], "quality", "Trash"))
    stack.push(SetTag(["s002", "s005"], "shortlist"))
    assert choose_samples(p, "filter", SampleFilter(split="text-to-image")).ids == (
        "s000", "s002", "s004")
    assert choose_samples(p, "benchmark").ids == ("s000", "s002", "s003", "s005")
    assert choose_samples(p, "tag", "shortlist").ids == ("s002", "s005")
    assert choose_samples(p, "tag", "").problems == ("choose a tag",)
    picked = choose_samples(p, "ids", "s003, s001\ns003;nope  s000 also-no")
    assert picked.ids == ("s003", "s001", "s000")  # in the order typed, once each
    assert picked.problems == ("no sample nope, also-no",)
    with pytest.raises(ValueError, match="unknown sample source"):
        choose_samples(p, "everything")
    assert model_output_counts(p) == {m: 6 for m in sorted(
        ("aurora-xl", "brushwork-2", "pixelforge", "lumen-edit"))}


def test_an_unanswered_session_is_deleted_with_its_files(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    p = rproject
    out = tmp_path / "files"
    files = make_session(p, out, "ranking", name="fresh")
    (out / "notes.txt").write_text("mine")  # something of the user's in the same folder
    assert session_folder(p, "fresh") == out
    plan = plan_removal(p, "fresh")
    assert plan.action == "delete" and sorted(plan.delete_files) == sorted(files)
    assert list_sessions(p)[0].name == "fresh"  # planning changed nothing
    done = remove_session(p, "fresh")
    assert sorted(done.deleted_files) == sorted(files) and not done.keep_files
    assert [f for f in files if f.exists()] == []
    assert (out / "notes.txt").read_text() == "mine" and out.is_dir()  # never the folder
    assert list_sessions(p) == []
    assert p.conn.execute("SELECT count(*) FROM rating_tasks").fetchone()[0] == 0
    (action, old) = p.conn.execute("SELECT action, old FROM audit_log WHERE entity = "
                                   "'rating_session' ORDER BY id DESC LIMIT 1").fetchone()
    assert action == "delete" and json.loads(old)["protocol"] == "ranking"
    make_session(p, tmp_path / "again", "ranking", name="fresh")  # the name is free again


def test_files_winnow_cannot_vouch_for_are_kept(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    p = rproject
    out = tmp_path / "files"
    r1, r2, r3 = make_session(p, out, "likert", name="mixed", raters=3)
    opened = RatingSession.open(r1)  # a rater opened it (and it is still open)
    still_open_wal = Path(str(r1) + "-wal").exists()
    opened.close()
    other = tmp_path / "elsewhere.winnow-session"
    shutil.copy(r3, other)
    r3.unlink()
    os.symlink(other, r3)  # the recorded path is now a link to a file elsewhere
    r2.write_bytes(r2.read_bytes())  # rewritten, but still Winnow's and untouched
    plan = plan_removal(p, "mixed")
    kept = dict(plan.keep_files)
    assert kept[r1] == "a rater has opened or answered it" or still_open_wal
    assert kept[r3] == "a symbolic link"
    assert plan.delete_files == [r2]
    remove_session(p, "mixed")
    assert r1.exists() and r3.is_symlink() and other.exists() and not r2.exists()


def test_why_keep_names_each_reason(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    p = rproject
    files = make_session(p, tmp_path / "a", "ranking", name="a")
    uid = list_sessions(p)[0].uid
    other_uid = p.conn.execute("SELECT file_uid FROM rating_files ORDER BY slot").fetchall()
    assert why_keep(files[0], uid, other_uid[0][0]) is None
    assert why_keep(files[0], uid, other_uid[1][0]) == "another rater slot's file"
    assert why_keep(files[0], "not-this-session", None) == "not a file of this session"
    junk = tmp_path / "junk.winnow-session"
    junk.write_bytes(b"not sqlite at all" * 100)
    assert why_keep(junk, uid, None).startswith("cannot be read")
    assert why_keep(tmp_path / "gone", uid, None) == "not there any more"
    assert why_keep(tmp_path, uid, None) == "not a file"
    Path(str(files[1]) + "-wal").write_bytes(b"")
    assert why_keep(files[1], uid, None) == "open in a rater's Winnow, or not closed cleanly"


def test_a_session_with_merged_judgments_is_archived_not_deleted(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    p = rproject
    first, second = make_session(p, tmp_path / "files", "likert", name="study")
    session = RatingSession.open(first)
    session.set_rater("Ann")
    task = session.next_task()
    session.submit(task.task_id, simple_answer(task), time_ms=4000)
    session.close()
    merge_files(p, [first])
    judgments = p.conn.execute("SELECT count(*) FROM rating_judgments").fetchone()[0]
    done = remove_session(p, "study")
    assert done.action == "archive" and "archived" in done.summary()
    assert first.exists() and second.exists()  # nothing deleted
    assert p.conn.execute("SELECT count(*) FROM rating_judgments").fetchone()[0] == judgments
    uid = list_sessions(p)[0].uid
    assert archived(p)[uid]["name"] == "study"
    assert restore_session(p, "study") and archived(p) == {}
    assert not restore_session(p, "study")  # not archived any more
    actions = [r[0] for r in p.conn.execute(
        "SELECT action FROM audit_log WHERE entity = 'rating_session' ORDER BY id")]
    assert actions[-2:] == ["archive", "restore"]


def test_unknown_session_and_unwritten_files(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    p = rproject
    with pytest.raises(ValueError, match="no rating session named 'nope'"):
        plan_removal(p, "nope")
    from core.rating.design import SessionDesign
    from core.rating.sessions import create_session

    create_session(p, SessionDesign(name="unwritten", protocol="ranking",
                                    sample_ids=SAMPLES, models=("aurora-xl", "pixelforge"),
                                    raters=1, seed=1))
    assert session_folder(p, "unwritten") is None
    assert remove_session(p, "unwritten").deleted_files == []


def test_rater_task_counts_per_slot(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """What ``winnow session create`` prints per rater (the CLI holds no SQL, #16)."""
    make_session(rproject, tmp_path / "files", "ranking", name="counted", raters=2,
                 overlap=2, gold_rate=0.2)
    counts = rater_task_counts(rproject, "counted")
    assert [slot for slot, _n, _g in counts] == ["R1", "R2"]
    assert all(n > g > 0 for _slot, n, g in counts)
    assert rater_task_counts(rproject, "no such session") == []


def test_a_file_whose_tables_are_views_is_kept(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A rated file whose answers hide behind a view that shows none looked unopened, so
    deleting its session deleted it (and an endless view hung the deletion): ADR 177."""
    import tamper_helpers as th

    files = make_session(rproject, tmp_path / "a", "likert", name="a", raters=1)
    th.rate_all(files[0])
    th.edit(files[0], "ALTER TABLE judgments RENAME TO j_old",
            "CREATE VIEW judgments AS SELECT * FROM j_old WHERE 0",
            "ALTER TABLE rater RENAME TO r_old", "CREATE VIEW rater AS SELECT * FROM r_old "
            "WHERE 0", "DELETE FROM events")
    uid = list_sessions(rproject)[0].uid
    assert why_keep(files[0], uid, None) == "its 'judgments' is a view, not a table"
    assert remove_session(rproject, "a").deleted_files == [] and files[0].exists()
