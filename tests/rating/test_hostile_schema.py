"""A returned rater file is read on the owner's machine: its *schema* is hostile input too
(ADR 177).  A rater can replace a table Winnow reads with a view (a recursive one never
ends: the merge of every file after it hung), with a virtual table, or give it a generated
column that makes each value a gigabyte when read.  Winnow writes none of these into a
rater file, so a file that has one is refused by name, before a row is read; extra plain
tables and triggers change nothing (a merge only reads, so no trigger ever runs)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import tamper_helpers as th

from core.rating.audit import audit_file
from core.rating.merge import merge_file, merge_files
from core.rating.returned import check_rateable

_ENDLESS = ("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) "
            "SELECT {cols} FROM {old}, n WHERE n.x < 0")

# what the rater does with sqlite3, and the words the refusal must use
SCHEMAS = {
    "judgments as a view": (
        ["ALTER TABLE judgments RENAME TO j_old", "CREATE VIEW judgments AS SELECT * FROM j_old"],
        "'judgments' is a view"),
    "meta as a view (its name spelt otherwise)": (
        ["ALTER TABLE meta RENAME TO m_old", "CREATE VIEW Meta AS SELECT * FROM m_old"],
        "'meta' is a view"),
    "images as a virtual table": (
        ["ALTER TABLE images RENAME TO i_old",
         "CREATE VIRTUAL TABLE images USING fts5(sha256, ext, data)",
         "INSERT INTO images SELECT sha256, ext, data FROM i_old"],
        "'images' is a virtual table"),
    "a generated answer": (
        ["ALTER TABLE judgments RENAME TO j_old",
         "CREATE TABLE judgments (seq INTEGER PRIMARY KEY, uid TEXT, task_id TEXT, "
         "answer_text TEXT, answer TEXT AS (answer_text), flag TEXT, reason TEXT, "
         "supersedes TEXT, time_ms INTEGER, penalty_ms INTEGER, shown_at TEXT, "
         "submitted_at TEXT, mac TEXT)",
         "INSERT INTO judgments(seq, uid, task_id, answer_text, flag, reason, supersedes, "
         "time_ms, penalty_ms, shown_at, submitted_at, mac) SELECT seq, uid, task_id, answer, "
         "flag, reason, supersedes, time_ms, penalty_ms, shown_at, submitted_at, mac "
         "FROM j_old"],
        "'judgments' has a generated column"),
}


@pytest.mark.parametrize("case", sorted(SCHEMAS))
def test_a_table_replaced_by_a_view_or_virtual_table_is_refused(rated, case) -> None:  # type: ignore[no-untyped-def]
    """The views here return exactly the rows they replace: still refused, because a view
    can return anything at all (or never finish), and the rater view never makes one."""
    project, (bad, good) = rated
    statements, words = SCHEMAS[case]
    th.edit(bad, *statements)
    results, errors = merge_files(project, [bad, good])
    assert [r.slot for r in results] == ["R2"] and len(errors) == 1
    assert errors[0].startswith(bad.name) and words in errors[0]
    assert "nothing read" in errors[0]
    assert project.conn.execute("SELECT count(*) FROM rating_merges WHERE path = ?",
                                (str(bad),)).fetchone()[0] == 0
    for check in (lambda: audit_file(bad, project), lambda: check_rateable(bad)):
        with pytest.raises(ValueError, match=words):
            check()


def test_an_endless_view_does_not_hang_the_merge(rated) -> None:  # type: ignore[no-untyped-def]
    """The attack itself: ``judgments`` as a view that never ends.  Run through the CLI in
    a child process, so that without the check the test fails (its child is stopped after
    two minutes) instead of hanging the suite."""
    project, (bad, good) = rated
    th.edit(bad, "ALTER TABLE judgments RENAME TO j_old",
            "CREATE VIEW judgments AS " + _ENDLESS.format(cols="j_old.*", old="j_old"))
    path = project.path
    project.close()
    env_path = str(Path(__file__).resolve().parents[2])
    try:
        done = subprocess.run([sys.executable, "-m", "app", "session", "merge", str(path),
                               str(bad), str(good)], capture_output=True, text=True,
                              timeout=120, cwd=env_path)
    except subprocess.TimeoutExpired:
        pytest.fail("merging a file whose judgments are an endless view did not finish")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"refused: {bad.name}" in done.stderr and "'judgments' is a view" in done.stderr
    assert good.name in done.stdout and "new judgment(s)" in done.stdout


def test_extra_tables_and_triggers_change_nothing(rated) -> None:  # type: ignore[no-untyped-def]
    """A table or a trigger the rater adds is never read and never fires: a merge opens
    the file read-only and only reads the tables Winnow wrote; the answers merge."""
    project, (bad, _good) = rated
    th.edit(bad, "CREATE TABLE notes (x)",
            "CREATE TRIGGER on_read AFTER INSERT ON notes BEGIN DELETE FROM judgments; END",
            "CREATE TRIGGER guard_gone BEFORE INSERT ON judgments BEGIN "
            "SELECT RAISE(ABORT, 'never'); END")
    before = bad.read_bytes()
    assert merge_file(project, bad).added > 0
    assert bad.read_bytes() == before
