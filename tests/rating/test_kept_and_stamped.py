"""Rater files and their results refuse a taken name in one sentence, and the files of one
creation carry one ``created_at`` (ADR 216)."""

from __future__ import annotations

import os
import re
import sqlite3
import time
from pathlib import Path

import pytest
from rating_helpers import MODELS, build_project, make_session

from core.files import MADE_MEANWHILE
from core.rating import sessions
from core.rating.design import SessionDesign
from core.rating.merge import merge_files
from core.rating.results import export_results
from core.rating.session_admin import rater_task_counts

SEVEN = tuple(f"s{k:03d}" for k in range(7))


def _meta(path: Path) -> dict[str, str]:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        return dict(conn.execute("SELECT key, value FROM meta"))
    finally:
        conn.close()


def _timestamps(path: Path) -> list[tuple[str, str]]:
    """(table, value) of every text value in the file that looks like a date or time."""
    stamp = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d")
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master "
                                             "WHERE type = 'table'")]
        return [(table, value) for table in tables
                for row in conn.execute(f'SELECT * FROM "{table}"')  # noqa: S608
                for value in row if isinstance(value, str) and stamp.search(value)]
    finally:
        conn.close()


def test_files_of_one_creation_carry_one_created_at(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A stamp per file grew with the work done for the files before it: the gap between
    two raters' files told how many (gold) tasks the first got."""
    real_add = sessions.file_build.add_task

    def slow_add(*args, **kw):  # type: ignore[no-untyped-def]
        time.sleep(0.003)  # every task takes time, as real images do
        return real_add(*args, **kw)

    monkeypatch.setattr(sessions.file_build, "add_task", slow_add)
    project = build_project(tmp_path / "p.winnow", n_samples=7)
    try:
        files = make_session(project, tmp_path / "out", "side_by_side", raters=3, overlap=2,
                             gold_rate=0.1, sample_ids=SEVEN, criteria=("preference",))
        counts = rater_task_counts(project, "side_by_side")
    finally:
        project.close()
    assert len({(tasks, gold) for _slot, tasks, gold in counts}) > 1, counts
    stamps = {_meta(f)["created_at"] for f in files}
    assert len(stamps) == 1, stamps
    for f in files:  # nothing else in a fresh file tells the time it was written
        assert _timestamps(f) == [("meta", _meta(f)["created_at"])]
    # nor do the files' times on disk (a copy or an archive may keep them)
    assert len({(f.stat().st_mtime_ns, f.stat().st_atime_ns) for f in files}) == 1


def test_a_rater_file_made_meanwhile_is_named_and_kept(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two projects creating a session of one name into one folder: the one that finds
    its file's name taken while it writes said "File exists (not replaced)"."""
    out = tmp_path / "out"
    late = out / "s-R2.winnow-session"
    real_temp = sessions.new_temp_dir

    def other_process_writes(parent: Path, name: str) -> Path:
        if name == late.name and not late.exists():
            late.write_bytes(b"the other project's rater file")
        return real_temp(parent, name)

    monkeypatch.setattr(sessions, "new_temp_dir", other_process_writes)
    project = build_project(tmp_path / "p.winnow", n_samples=2)
    design = SessionDesign(name="s", protocol="likert", sample_ids=("s000", "s001"),
                           models=MODELS, raters=2, seed=1)
    try:
        with pytest.raises(FileExistsError) as refused:
            sessions.create_and_write(project, design, out)
        names = [s.name for s in sessions.list_sessions(project)]
    finally:
        project.close()
    text = str(refused.value)
    assert text.startswith(f"{late} {MADE_MEANWHILE}; Winnow left it as it is: ")
    assert "Errno" not in text and "File exists" not in text
    assert late.read_bytes() == b"the other project's rater file"
    assert os.listdir(out) == [late.name]  # this creation's first file was taken back
    assert names == []  # and its session removed, the name free again


def test_results_refuse_a_folder_a_file_and_links_in_one_sentence(
        rated, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from core.interop.parquet import export_results_parquet

    project, files = rated
    merge_files(project, files)
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "file.csv").write_text("keep me")
    (folder / "dir").mkdir()
    os.symlink("file.csv", folder / "link")
    os.symlink("nowhere", folder / "dangling")
    writers = [export_results]
    if _has_pyarrow():
        writers.append(export_results_parquet)
    for name in ("file.csv", "dir", "link", "dangling"):
        path = folder / name
        for write in writers:
            with pytest.raises(FileExistsError) as refused:
                write(project, "side_by_side", path)
            text = str(refused.value)
            assert text.startswith(f"{path} ") and "Winnow left it as it is: " in text, text
            assert "Errno" not in text, text
            if name == "dir":
                assert text == (f"{path} is a folder; Winnow left it as it is: give a file "
                                "name for the export")
    assert (folder / "file.csv").read_text() == "keep me"
    assert sorted(os.listdir(folder)) == ["dangling", "dir", "file.csv", "link"]
    assert os.readlink(folder / "dangling") == "nowhere"


def _has_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True
