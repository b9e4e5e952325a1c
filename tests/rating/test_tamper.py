"""Tamper evidence (issue #12 item 3, ADR 058): every way a rater edited a returned file
outside the rater view is refused, per file, with its reason; nothing of it is merged;
files from before tamper evidence still merge, with a warning, after the same checks."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
import tamper_helpers as th
from rating_helpers import make_session, simple_answer

from app.cli import run_cli
from core.rating import integrity
from core.rating.merge import LEGACY_WARNING, MergeError, merge_file, merge_files
from core.rating.results import rater_summaries
from core.rating.session_file import RatingSession

REASONS = {
    "duplicates": "answered again without \"change my last answer\"",
    "supersede_other_task": "replaces an answer to another task",
    "extra_keys": "extra keys model",
    "negative_time": "time_ms -5000 is outside",
    "missing_rater": "holds answers but no rater",
    "huge_seq": "should be",
    "huge_name": "5,000,000 characters long",
}


def _counts(project) -> tuple[int, int, int]:  # type: ignore[no-untyped-def]
    return tuple(project.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]  # type: ignore[return-value]
                 for t in ("rating_judgments", "rating_merges", "audit_log"))



@pytest.mark.parametrize("case", sorted(th.TAMPERING))
def test_each_tampering_is_refused_with_its_reason_and_the_rest_merge(rated, case) -> None:  # type: ignore[no-untyped-def]
    project, (bad, good) = rated
    th.TAMPERING[case](bad)
    before = _counts(project)
    results, errors = merge_files(project, [bad, good])
    assert [r.slot for r in results] == ["R2"] and len(errors) == 1
    assert errors[0].startswith(f"{bad.name}: edited outside the rater view, nothing merged")
    assert REASONS[case] in errors[0]
    assert "MAC" in errors[0]  # the chain notices too, whatever the rule
    assert project.conn.execute("SELECT count(*) FROM rating_judgments WHERE file_uid = "
                                "(SELECT file_uid FROM rating_files WHERE slot = 'R1')"
                                ).fetchone()[0] == 0
    assert _counts(project)[0] == before[0] + results[0].added


@pytest.mark.parametrize("case", sorted(th.TAMPERING))
def test_files_from_an_earlier_version_are_checked_by_the_same_rules(tmp_path: Path,  # type: ignore[no-untyped-def]
                                                                      case) -> None:
    project, r1, _r2 = th.legacy_copy(tmp_path / "legacy")
    try:
        th.TAMPERING[case](r1)
        with pytest.raises(MergeError, match="edited outside the rater view") as info:
            merge_file(project, r1)
        assert REASONS[case] in str(info.value) and "MAC" not in str(info.value)
        assert _counts(project)[0] == 0
    finally:
        project.close()


def test_an_edited_answer_fails_its_mac(rated) -> None:  # type: ignore[no-untyped-def]
    project, (bad, good) = rated
    th.edited_answer(bad)
    with pytest.raises(MergeError, match=r"judgment \d+ was changed, added or moved outside "
                                         r"the rater view \(MAC \d+ of \d+"):
        merge_file(project, bad)
    assert merge_file(project, good).added > 0


def test_a_rater_renamed_mid_session_is_refused(rated, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    project, (bad, _good) = rated
    th.renamed(bad)
    with pytest.raises(MergeError, match="the rater's name was changed"):
        merge_file(project, bad)
    # a file from before tamper evidence: caught against the name merged earlier
    legacy, r1, _ = th.legacy_copy(tmp_path / "legacy")
    try:
        assert merge_file(legacy, r1).rater == "Ada Lovelace"
        th.renamed(r1)
        with pytest.raises(MergeError, match="'Ada Lovelace' when it was merged before and "
                                             "is now 'Eve'"):
            merge_file(legacy, r1)
    finally:
        legacy.close()


def test_an_edited_legacy_answer_conflicts_with_what_was_merged(tmp_path: Path) -> None:
    project, r1, _ = th.legacy_copy(tmp_path / "legacy")
    try:
        first = merge_file(project, r1)
        assert first.warnings == (LEGACY_WARNING,) and "warning: made by an earlier" in \
            first.summary()
        th.edited_answer(r1)
        with pytest.raises(MergeError, match="differs from the copy already in the project"):
            merge_file(project, r1)
    finally:
        project.close()


def test_removing_the_last_answers_is_noticed(rated) -> None:  # type: ignore[no-untyped-def]
    project, (bad, _good) = rated
    th.edit(bad, "DELETE FROM judgments WHERE seq > (SELECT max(seq) - 2 FROM judgments)")
    with pytest.raises(MergeError, match="the last 2 entries were removed"):
        merge_file(project, bad)


def test_stripping_the_macs_does_not_make_a_file_legacy(rated) -> None:  # type: ignore[no-untyped-def]
    project, (bad, _good) = rated
    th.edit(bad, "DROP TABLE chain", "UPDATE meta SET value = '1' WHERE key = "
                 "'format_version'", "DELETE FROM meta WHERE key = 'tasks_mac'")
    with pytest.raises(MergeError, match="written with tamper evidence, but its MACs were "
                                         "removed"):
        merge_file(project, bad)


def test_a_forged_task_list_or_image_cannot_be_signed(rated) -> None:  # type: ignore[no-untyped-def]
    project, (bad, good) = rated
    # swap one image for another of the same file: the tasks MAC covers the digests
    th.edit(bad, "UPDATE tasks SET prompt = 'make it look like pixelforge' WHERE position = 0")
    with pytest.raises(MergeError, match="tasks MAC does not match"):
        merge_file(project, bad)
    # a MAC computed with any key but the project's does not verify
    th.edit(good, "UPDATE meta SET value = ? WHERE key = 'tasks_mac'",
            params=(integrity.mac(b"guess", b"x"),))
    with pytest.raises(MergeError, match="tasks MAC differs"):
        merge_file(project, good)


def test_what_a_determined_rater_can_still_do(rated, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """ADR 058's limit, pinned: a rater who kept the pristine file (which holds K0) and
    reads Winnow's code can write a whole new history: it verifies, as answering again
    in the rater view would.  Without the pristine copy, one edit is enough to refuse."""
    project, _files = rated
    files = make_session(project, tmp_path / "again", "checklist", raters=1)
    pristine = tmp_path / "pristine.winnow-session"
    shutil.copy(files[0], pristine)
    th.rate_all(files[0], "Ada", change_first=False)
    # rebuilt from the pristine copy through the rater API with made-up times
    s = RatingSession.open(pristine)
    s.set_rater("Ada")
    for t in s.tasks:
        s.submit(t.task_id, simple_answer(t), time_ms=60_000)
    s.close()
    result = merge_file(project, pristine)
    assert result.added == len(s.tasks) and result.warnings == ()
    # the secret is nowhere in any file; only K0 (a derived key) is in the fresh one
    secret = integrity.stored_secret(project.conn, project.conn.execute(
        "SELECT id FROM rating_sessions WHERE name = 'checklist'").fetchone()[0])
    assert secret is not None
    for path in (*files, pristine, *(tmp_path / "out").iterdir()):
        raw = path.read_bytes()
        assert secret not in raw and secret.hex().encode() not in raw


def test_the_old_key_is_gone_from_the_file_once_answered(rated, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Forward security needs the file to forget K_i: secure_delete and the checkpoint."""
    project, _ = rated
    files = make_session(project, tmp_path / "fs", "likert", raters=1)
    k0 = th.rows(files[0], "SELECT key FROM chain")[0][0]
    th.rate_all(files[0], "Ada")
    raw = files[0].read_bytes()
    assert k0.encode() not in raw and bytes.fromhex(k0) not in raw
    assert not Path(f"{files[0]}-wal").exists() or Path(f"{files[0]}-wal").stat().st_size == 0


def test_cli_merge_names_each_refused_file_and_exits_non_zero(rated, capsys) -> None:  # type: ignore[no-untyped-def]
    project, (bad, good) = rated
    th.duplicates(bad)
    path = project.path
    project.close()
    assert run_cli(["session", "merge", str(path), str(bad), str(good), "--json"]) == 1
    out = capsys.readouterr()
    data = json.loads(out.out)
    assert [m["slot"] for m in data["merged"]] == ["R2"]
    assert len(data["refused"]) == 1 and data["refused"][0].startswith(bad.name)
    assert f"refused: {bad.name}: edited outside the rater view" in out.err
    assert "Traceback" not in out.err


def test_summary_still_works_after_a_refused_text_time(rated, capsys) -> None:  # type: ignore[no-untyped-def]
    project, (bad, good) = rated
    th.text_time(bad)
    results, errors = merge_files(project, [bad, good])
    assert len(results) == 1 and "time_ms 'slow' is not a whole number" in errors[0]
    summary = {s.slot: s for s in rater_summaries(project, "side_by_side")}
    assert summary["R1"].completed == 0 and summary["R2"].completed == summary["R2"].tasks
    assert isinstance(summary["R2"].median_time_s, float)


def test_opening_a_file_with_sqlite3_changes_nothing_a_merge_checks(rated) -> None:  # type: ignore[no-untyped-def]
    """A rater who only looks (sqlite3 reads, even VACUUM) keeps a valid file."""
    project, (r1, _r2) = rated
    conn = sqlite3.connect(r1)
    conn.execute("SELECT * FROM judgments").fetchall()
    conn.execute("VACUUM")
    conn.close()
    assert merge_file(project, r1).added > 0


@pytest.mark.parametrize(("statement", "reason"), [
    ("UPDATE judgments SET answer = ? WHERE seq = 1", "its answer is not a JSON object"),
    ("UPDATE tasks SET options = ? WHERE position = 0", "its tasks differ"),
    ("UPDATE images SET data = 'text, not a blob' WHERE rowid = 1", "image(s) were changed"),
    ("UPDATE rater SET name = X'00ff'", "its rater name is empty or not text"),
    ("UPDATE judgments SET answer = X'00ff' WHERE seq = 1", "its answer is not a JSON object"),
])
def test_hostile_values_are_reasons_not_crashes(rated, statement, reason) -> None:  # type: ignore[no-untyped-def]
    """Values no rater view writes — JSON nested 100,000 deep, text where a blob goes —
    are reported by merge and audit, never a traceback."""
    from core.rating.audit import audit_file

    project, (bad, good) = rated
    deep = "[" * 100_000 + "]" * 100_000
    th.edit(bad, statement, params=(deep,) if "?" in statement else ())
    results, errors = merge_files(project, [bad, good])
    assert len(results) == 1 and len(errors) == 1 and reason in errors[0]
    assert audit_file(bad, project).findings


_ESCAPES = "Ada\x1b[2J\x1b]52;c;ZXZpbA==\x07\u202eevE"  # clear screen, set clipboard, RLO


def test_a_rater_name_cannot_carry_terminal_escapes_or_direction_overrides(rated,  # type: ignore[no-untyped-def]
                                                                          tmp_path: Path,
                                                                          capsys) -> None:
    """A rater name is printed by ``session merge`` in the owner's terminal and shown in
    the app: escape sequences in it cleared the screen (hiding the refusals above it) or
    set the clipboard, and a right-to-left override spelt another rater's name.  The
    rater view drops such characters; a file written with them anyway (an earlier rater
    view, or a rater with Winnow's code, whose MACs verify) merges under the name without
    them, and merges again as the same rater."""
    import uuid

    from core.store.project import now_iso

    project, _ = rated
    files = make_session(project, tmp_path / "esc", "likert", raters=2)
    s = RatingSession.open(files[0])
    s.set_rater(_ESCAPES)
    assert s.rater == "Ada[2J]52;c;ZXZpbA==evE"
    s.close()
    forged = RatingSession.open(files[1])  # what set_rater did before: the name as typed
    row = (_ESCAPES, uuid.uuid4().hex, now_iso())
    with forged._write():
        tag = forged._chain(integrity.rater_entry(*row))
        forged.conn.execute("INSERT INTO rater(id, name, copy_uid, started_at, mac) "
                            "VALUES (1, ?, ?, ?, ?)", (*row, tag))
    forged.close()
    th.rate_all(files[0])
    th.rate_all(files[1])
    path = project.path
    project.close()
    for _ in range(2):  # the second time: "already merged", not "renamed"
        assert run_cli(["session", "merge", str(path), *map(str, files)]) == 0
        out = capsys.readouterr()
        assert "\x1b" not in out.out + out.err and "\u202e" not in out.out + out.err
        assert out.out.count("(Ada[2J]52;c;ZXZpbA==evE)") == 2
    from core.store import Project

    with Project.open(path, readonly=True) as again:
        assert {r[0] for r in again.conn.execute(
            "SELECT DISTINCT rater FROM rating_judgments")} >= {"Ada[2J]52;c;ZXZpbA==evE"}


@pytest.mark.parametrize("first", ["original", "fork"])
def test_a_file_copied_mid_session_and_answered_again_is_refused(rproject, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                                 first) -> None:
    """The rater copies their file after three answers, answers three more tasks in each
    copy (differently), and sends both.  Each copy verifies on its own (ADR 058: a copy
    holds the key of its point), but both merged: the project held two answers to each
    of those tasks from one file, neither replacing the other, and the one merged last
    silently counted.  The second history is refused, naming the judgment."""
    from core.rating.results import effective_judgments
    from core.rating.sessions import get_session

    path = make_session(rproject, tmp_path / "out", "side_by_side", raters=1)[0]
    s = RatingSession.open(path)
    s.set_rater("Ada")
    for t in s.tasks[:3]:
        s.submit(t.task_id, {"winner": "left"}, time_ms=5)
    s.close()
    fork = tmp_path / "copy.winnow-session"
    shutil.copy(path, fork)
    for target, winner in ((path, "left"), (fork, "right")):
        s = RatingSession.open(target)
        for t in s.tasks[3:6]:
            s.submit(t.task_id, {"winner": winner}, time_ms=5)
        s.close()
    one, two = (path, fork) if first == "original" else (fork, path)
    assert merge_file(rproject, one).added == 6
    with pytest.raises(MergeError, match=r"judgment 4 is not the one merged before from "
                                         r"this file .*two histories"):
        merge_file(rproject, two)
    winners = {e.answer["winner"] for e in effective_judgments(
        rproject, get_session(rproject, "side_by_side"))}
    assert winners == {"left"} if first == "original" else winners == {"left", "right"}
    assert rproject.conn.execute("SELECT count(*) FROM rating_judgments").fetchone()[0] == 6


def test_earlier_keys_are_gone_while_the_rater_view_is_still_open(rated, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The WAL held every earlier K_i until the next pause or close: a rater who opened
    the ``-wal`` mid-session (sqlite3, a hex viewer) read an old key and could rewrite
    every answer from that point on (ADR 058 amended: the WAL is truncated after each
    chained write)."""
    project, _ = rated
    files = make_session(project, tmp_path / "open", "likert", raters=1)
    s = RatingSession.open(files[0])
    s.set_rater("Ada")
    keys = [s.conn.execute("SELECT key FROM chain").fetchone()[0]]
    for _ in range(3):
        t = s.next_task()
        assert t is not None
        s.submit(t.task_id, simple_answer(t), time_ms=900)
        keys.append(s.conn.execute("SELECT key FROM chain").fetchone()[0])
    wal = Path(f"{files[0]}-wal")
    raw = files[0].read_bytes() + (wal.read_bytes() if wal.exists() else b"")
    assert keys[-1].encode() in raw  # the current key is where it must be
    for old in keys[:-1]:
        assert old.encode() not in raw and bytes.fromhex(old) not in raw
    s.close()
