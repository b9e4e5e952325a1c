"""Issue #11 item 7: a project on read-only media (or in a folder the user may not write
to) says so, and opens read-only, instead of "is not a Winnow project"."""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from safety_helpers import copy_project, mount_tmpfs, remount_readonly, snapshot, unmount, winnow

from core.store import Project, ReadOnlyLocationError


@pytest.fixture
def read_only_place(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A folder to fill, then made read-only: ``(folder, what the message says)``.

    As root (who may write anywhere) a real read-only tmpfs mount; otherwise a folder
    without write permission.
    """
    folder = tmp_path / "media"
    if os.geteuid() == 0:
        if not mount_tmpfs(folder, size="8m"):
            pytest.skip("running as root, and mounting a read-only tmpfs is not allowed")
        yield folder, "read-only medium"
        unmount(folder)
    else:
        folder.mkdir()
        yield folder, "folder you may not write to"
        for top, dirs, _names in os.walk(folder):
            for d in dirs:
                os.chmod(Path(top) / d, 0o755)
        os.chmod(folder, 0o755)


def _seal(folder: Path) -> None:
    if os.geteuid() == 0:
        remount_readonly(folder)
    else:
        for top, dirs, _names in os.walk(folder):
            for d in dirs:
                os.chmod(Path(top) / d, stat.S_IRUSR | stat.S_IXUSR)
        os.chmod(folder, stat.S_IRUSR | stat.S_IXUSR)


def test_cli_reads_it_and_refuses_to_write_with_the_real_reason(read_only_place,
                                                                template_project: Path,
                                                                tmp_path: Path) -> None:
    folder, reason = read_only_place
    project = copy_project(template_project, folder / "p.winnow")
    _seal(folder)
    before = snapshot(folder)
    done = winnow("info", project, "--json")
    assert done.returncode == 0, done.stderr
    assert '"samples": 12' in done.stdout
    done = winnow("export", "benchmark", project, "--out", tmp_path / "bench")
    assert done.returncode == 0, done.stderr
    jsonl = tmp_path / "more.jsonl"
    jsonl.write_text('{"id": "x", "text": "hi"}\n')
    done = winnow("import", "posts", jsonl, "--project", project, "--no-images")
    assert done.returncode == 2
    assert reason in done.stderr and "open it read-only" in done.stderr
    assert "not a Winnow project" not in done.stderr and "Traceback" not in done.stderr
    assert snapshot(folder) == before


def test_the_app_offers_to_open_it_read_only(read_only_place, template_project: Path,
                                             main_window) -> None:
    folder, reason = read_only_place
    project = copy_project(template_project, folder / "p.winnow")
    _seal(folder)
    messages: list[str] = []
    main_window.error_shown.connect(messages.append)
    assert not main_window.open_project(project)
    assert reason in messages[-1]
    box = main_window._dialogs[-1]
    assert box.windowTitle() == "Project cannot be written"
    next(b for b in box.buttons() if b.text() == "Open Read-Only").click()
    assert main_window.project is not None and main_window.project.readonly
    assert main_window.project.counts()["samples"] == 12
    assert "(read-only)" in main_window.windowTitle()


def test_unsaved_changes_in_the_wal_on_read_only_media_are_named(read_only_place,
                                                                template_project: Path):
    """A copy taken while a writer had the project open carries its last changes in the
    -wal file, which SQLite cannot read without writing its index beside it."""
    folder, _reason = read_only_place
    work = copy_project(template_project, folder.parent / "live" / "p.winnow")
    with Project.open(work) as live:
        with live.transaction() as conn:
            conn.execute("INSERT INTO project_meta(key, value) VALUES ('late', 'change')")
        for suffix in ("", "-wal"):  # copied while it is open, as a backup tool would
            shutil.copy2(f"{work}{suffix}", folder / f"p.winnow{suffix}")
    _seal(folder)
    path = folder / "p.winnow"
    if os.geteuid() != 0:  # without a read-only mount SQLite can still read the -wal
        with Project.open(path, readonly=True) as ro:
            assert ro.meta("late") == "change"
        return
    with pytest.raises(ReadOnlyLocationError, match="p.winnow-wal"):
        Project.open(path, readonly=True)
    conn = sqlite3.connect(work)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_rater_files_into_it_name_the_file_not_a_temporary_one(read_only_place,
                                                                project_path: Path,
                                                                capsys) -> None:  # type: ignore[no-untyped-def]
    """`session create` said ".s-R1.winnow-session.winnow-tmp-…: Read-only file system"
    (ADR 216); the session is not recorded, so its name stays free."""
    from app.cli import run_cli
    from core.files import TEMP_MARK
    from core.rating.sessions import list_sessions

    folder, _reason = read_only_place
    _seal(folder)
    for out, named in ((folder, folder / "s-R1.winnow-session"),
                       (folder / "new", folder / "new")):
        assert run_cli(["session", "create", str(project_path), "--name", "s", "--protocol",
                        "likert", "--raters", "2", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert f"cannot write {named}: " in err and TEMP_MARK not in err, err
        assert err.rstrip().endswith("; no rater file of this session was written"), err
    assert os.listdir(folder) == []
    with Project.open(project_path) as project:
        assert list_sessions(project) == []
