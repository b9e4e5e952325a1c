"""Every column of a returned rater file, edited with sqlite3 (new-votes sweep).

test_rater_file_tampering.py and tests/rating/test_tamper.py edit the judgments' order,
times and MACs; this walks the rest of the file: each ``meta`` key, each task column,
each judgment column, the rater row, the key chain, the images, the SQLite header.  An
edit that could change what the project keeps is refused naming the file, with nothing
of it merged, while the honest file beside it merges; an edit to what the project never
reads (the session's display name, the rater view's event log, an extra table) merges
exactly the answers the untouched file would have merged.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rating"))
import tamper_helpers as th  # noqa: E402

from core.rating.merge import merge_files  # noqa: E402

FIRST = "(SELECT min(seq) FROM judgments)"


def _sql(*statements: str) -> Callable[[Path], None]:
    return lambda path: th.edit(path, *statements)


def _meta(key: str, value: str = "x") -> Callable[[Path], None]:
    return _sql(f"UPDATE meta SET value = '{value}' WHERE key = '{key}'")


REFUSED: dict[str, tuple[Callable[[Path], None], str]] = {
    "meta format": (_meta("format"), "is not a Winnow session file"),
    "meta format_version": (_meta("format_version"), "is not a number"),
    "meta session_uid": (_meta("session_uid"), "was not created in this project"),
    "meta file_uid": (_meta("file_uid"), "not one of the files written for session"),
    "meta slot": (_meta("slot", "R2"), "not one of the files written for session"),
    "meta protocol": (_meta("protocol", "ranking"), "not one of the files written"),
    "meta settings": (_meta("settings", '{"min_time_s": 0}'), "are not the ones the project"),
    "meta tasks_mac": (_meta("tasks_mac", "0" * 64), "tasks MAC differs"),
    "task prompt": (_sql("UPDATE tasks SET prompt = 'x' WHERE position = 0"),
                    "are not the ones the project"),
    "task criterion": (_sql("UPDATE tasks SET criterion = 'coherence'"),
                       "are not the ones the project"),
    "task inputs": (_sql("UPDATE tasks SET inputs = '[]'"), "are not the ones the project"),
    "task position": (_sql("UPDATE tasks SET position = -position"),
                      "are not the ones the project"),
    "judgment flag": (_sql("UPDATE judgments SET flag = 'impossible', reason = 'x' "
                           f"WHERE seq = {FIRST}"), "changed, added or moved"),
    "judgment penalty": (_sql(f"UPDATE judgments SET penalty_ms = 9999 WHERE seq = {FIRST}"),
                         "changed, added or moved"),
    "judgment shown_at": (_sql("UPDATE judgments SET shown_at = '2026-01-01T00:00:00.000"
                               f"+00:00' WHERE seq = {FIRST}"), "changed, added or moved"),
    "judgment uid": (_sql(f"UPDATE judgments SET uid = 'u' || uid WHERE seq = {FIRST}"),
                     "changed, added or moved"),
    "judgment task": (_sql("UPDATE judgments SET task_id = (SELECT task_id FROM tasks "
                           f"ORDER BY position DESC LIMIT 1) WHERE seq = {FIRST}"),
                      "changed, added or moved"),
    "rater copy_uid": (_sql("UPDATE rater SET copy_uid = 'x'"), "rater's name was changed"),
    "rater started_at": (_sql("UPDATE rater SET started_at = '2020-01-01T00:00:00.000+00:00'"),
                         "rater's name was changed"),
    "chain position": (_sql("UPDATE chain SET position = position - 1"),
                       "key chain was edited"),
    "one image for all": (_sql("UPDATE images SET data = (SELECT data FROM images "
                               "ORDER BY rowid LIMIT 1)"), "do not match their digest"),
    "application_id": (_sql("PRAGMA application_id = 7"), "is not a Winnow session file"),
}

HARMLESS: dict[str, Callable[[Path], None]] = {
    "meta session_name": _meta("session_name", "renamed by the rater"),
    "meta created_at": _meta("created_at", "2020-01-01T00:00:00.000+00:00"),
    "meta winnow_version": _meta("winnow_version", "99.0"),
    "events deleted": _sql("DELETE FROM events"),
    "events added": _sql("INSERT INTO events(at, kind) VALUES ('2020-01-01', 'pause')"),
    "sqlite_sequence": _sql("UPDATE sqlite_sequence SET seq = seq + 100"),
    "a table of notes": _sql("CREATE TABLE notes(x)", "INSERT INTO notes VALUES ('hi')"),
    "user_version": _sql("PRAGMA user_version = 99"),
}


def _merged(project: Any) -> dict[str, list[tuple[object, ...]]]:
    out: dict[str, list[tuple[object, ...]]] = {}
    for row in project.conn.execute(
        "SELECT f.slot, j.uid, j.task_id, j.answer, j.time_ms FROM rating_files f "
        "JOIN rating_judgments j ON j.file_uid = f.file_uid ORDER BY f.slot, j.uid"
    ):
        out.setdefault(row[0], []).append(tuple(row[1:]))
    return out


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_every_column_that_matters_is_covered(rated: Any, case: str) -> None:
    project, (bad, good) = rated
    tamper, reason = REFUSED[case]
    tamper(bad)
    results, errors = merge_files(project, [bad, good])
    assert [r.slot for r in results] == ["R2"] and results[0].added > 0
    assert len(errors) == 1 and errors[0].startswith(f"{bad.name}")
    assert reason in errors[0], errors[0]
    assert "R1" not in _merged(project)


@pytest.mark.parametrize("case", sorted(HARMLESS))
def test_edits_the_project_never_reads_change_nothing_it_keeps(
    rated: Any, tmp_path: Path, case: str
) -> None:
    project, (a, b) = rated
    HARMLESS[case](a)
    results, errors = merge_files(project, [a, b])
    assert errors == [] and sorted(r.slot for r in results) == ["R1", "R2"]
    merged = _merged(project)
    # each file's answers, judgment for judgment, as the files hold them
    for slot, path in (("R1", a), ("R2", b)):
        held = th.rows(path, "SELECT uid, task_id, answer, time_ms FROM judgments ORDER BY uid")
        assert merged[slot] == [tuple(r) for r in held]
    session = project.conn.execute("SELECT name FROM rating_sessions").fetchall()
    assert ("renamed by the rater",) not in session
