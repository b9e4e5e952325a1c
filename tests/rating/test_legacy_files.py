"""Projects and rater files made before tamper evidence (format 1, fixture made by the
code of main at c13ac61) keep opening, rating and merging (ADR 058)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import tamper_helpers as th
from rating_helpers import simple_answer

from app.cli import run_cli
from core.rating.merge import LEGACY_WARNING, merge_file
from core.rating.results import rater_summaries, result_rows
from core.rating.session_file import FORMAT_VERSION, RatingSession
from core.rating.sessions import write_session_files


def test_the_fixture_is_what_an_earlier_version_wrote() -> None:
    for name in ("side_by_side-R1.winnow-session", "side_by_side-R2.winnow-session"):
        conn = sqlite3.connect(f"{(th.LEGACY / name).resolve().as_uri()}?mode=ro&immutable=1",
                               uri=True)
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        conn.close()
        assert meta["format_version"] == "1" and "tasks_mac" not in meta
        assert "chain" not in tables


def test_an_earlier_file_merges_with_a_warning(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    project, r1, _r2 = th.legacy_copy(tmp_path / "legacy")
    path = project.path
    project.close()
    assert run_cli(["session", "merge", str(path), str(r1), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (merged,) = data["merged"]
    assert merged["rater"] == "Ada Lovelace" and merged["added"] > 0
    assert merged["warnings"] == [LEGACY_WARNING]
    assert run_cli(["session", "merge", str(path), str(r1)]) == 0
    out = capsys.readouterr().out
    assert "0 new judgment(s)" in out and "not tamper-evident" in out


def test_a_rater_continues_an_earlier_file_and_it_merges(tmp_path: Path) -> None:
    project, _r1, r2 = th.legacy_copy(tmp_path / "legacy")
    try:
        s = RatingSession.open(r2)
        assert not s.chained
        s.set_rater("Grace")
        first = True
        while (t := s.next_task()) is not None:
            j = s.submit(t.task_id, simple_answer(t), time_ms=1000)
            if first:
                s.submit(t.task_id, {"winner": "tie"}, time_ms=10, supersedes=j.uid)
                first = False
        s.close()
        result = merge_file(project, r2)
        assert result.rater == "Grace" and result.warnings == (LEGACY_WARNING,)
        summary = {r.slot: r for r in rater_summaries(project, "side_by_side")}
        assert summary["R2"].completed == summary["R2"].tasks and summary["R2"].changed == 1
        assert result_rows(project, "side_by_side")[1]
    finally:
        project.close()


def test_new_files_for_an_earlier_session_are_tamper_evident(tmp_path: Path) -> None:
    project, _r1, r2 = th.legacy_copy(tmp_path / "legacy")
    try:
        files = write_session_files(project, "side_by_side", tmp_path / "again")
        for f in files:
            s = RatingSession.open(f)
            assert s.chained and s.meta["format_version"] == str(FORMAT_VERSION)
            s.close()
        th.rate_all(files[0], "Ada")
        assert merge_file(project, files[0]).warnings == ()
        # the earlier file of R2 is still out there: it merges as before, with the warning
        th.rate_all(r2, "Grace")
        assert merge_file(project, r2).warnings == (LEGACY_WARNING,)
    finally:
        project.close()


def test_the_migration_marks_the_slots_an_earlier_version_wrote(tmp_path: Path) -> None:
    project, _r1, _r2 = th.legacy_copy(tmp_path / "legacy")
    try:
        rows = project.conn.execute("SELECT slot, legacy_file, tasks_mac FROM rating_files "
                                    "ORDER BY slot").fetchall()
        assert rows == [("R1", 1, None), ("R2", 1, None)]
        assert project.conn.execute("SELECT count(*) FROM rating_keys").fetchone()[0] == 0
    finally:
        project.close()
