"""Issue #11 item 3 and #13 item 8: a failed or refused open creates and changes nothing.

Each bad file is offered to the real CLI (read-only and writing commands) and to the real
main window (offscreen); every byte in its folder is hashed before and after, and no
``NAME.lock``, ``-wal`` or ``-shm`` may appear.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from safety_helpers import REPO, journal_mode_bytes, snapshot, winnow

from app.cli import run_cli
from core.store import SCHEMA_VERSION, Project


def _one_byte(path: Path) -> None:
    path.write_bytes(b"x")


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _text(path: Path) -> None:
    path.write_text("these are my notes, not a project\n" * 50)


def _newer(path: Path) -> None:
    Project.create(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()


def _foreign(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE grades(student, mark)")
    conn.execute("INSERT INTO grades VALUES ('ann', 5)")
    conn.commit()
    conn.close()


def _foreign_wal(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t(x)")
    conn.commit()
    conn.close()


def _empty_database(path: Path) -> None:  # what the old open made of a 1-byte file
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 0")
    conn.execute("CREATE TABLE x(a)")
    conn.execute("DROP TABLE x")
    conn.commit()
    conn.close()


BAD_FILES: dict[str, tuple[Callable[[Path], None], str]] = {
    "one-byte": (_one_byte, "not an SQLite database"),
    "empty": (_empty, "is empty"),
    "text": (_text, "not an SQLite database"),
    "newer": (_newer, "newer version of Winnow"),
    "foreign": (_foreign, "not a Winnow project"),
    "foreign-wal": (_foreign_wal, "not a Winnow project"),
    "empty-database": (_empty_database, "empty SQLite database"),
}


@pytest.fixture(params=sorted(BAD_FILES))
def bad_file(request, tmp_path: Path) -> tuple[Path, str]:
    make, message = BAD_FILES[request.param]
    folder = tmp_path / "folder"
    folder.mkdir()
    path = folder / "one.winnow"
    make(path)
    assert sorted(p.name for p in folder.iterdir()) == ["one.winnow"]
    return path, message


def test_cli_refuses_and_changes_nothing(bad_file: tuple[Path, str], tmp_path: Path,
                                         capsys) -> None:
    path, message = bad_file
    before, mode = snapshot(path.parent), journal_mode_bytes(path) if path.stat().st_size \
        else b""
    jsonl = tmp_path / "posts.jsonl"
    jsonl.write_text('{"id": "p1", "text": "hello"}\n')
    commands = [["info", str(path)],
                ["export", "benchmark", str(path), "--out", str(tmp_path / "out")],
                ["import", "posts", str(jsonl), "--project", str(path), "--no-images"],
                ["session", "create", str(path), "--name", "s", "--protocol", "ranking",
                 "--out", str(tmp_path / "sessions")]]
    for argv in commands:
        assert run_cli(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, (argv, err)
        assert snapshot(path.parent) == before, argv
    if mode:
        assert journal_mode_bytes(path) == mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "posts.jsonl"]


def test_the_reported_cases_through_the_real_entry_points(tmp_path: Path) -> None:
    """``winnow one.winnow`` (the app) on a 1-byte file, and ``winnow info`` on a newer
    project and a foreign SQLite file, as separate processes."""
    folder = tmp_path / "f"
    folder.mkdir()
    one = folder / "one.winnow"
    one.write_bytes(b"x")
    newer, foreign = folder / "new.winnow", folder / "foreign.winnow"
    _newer(newer)
    _foreign(foreign)
    before = snapshot(folder)
    app = subprocess.run([sys.executable, "-m", "app", str(one), "--quit-when-ready"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen",
                              "HOME": str(tmp_path), "PATH": "/usr/bin:/bin",
                              "WINNOW_LOG_DIR": str(tmp_path / "logs")})
    assert app.returncode == 1 and "not opened: one.winnow" in app.stdout, app.stderr
    assert one.read_bytes() == b"x"
    for path, message in ((newer, "newer version of Winnow"), (foreign, "not a Winnow")):
        done = winnow("info", path)
        assert done.returncode == 2 and message in done.stderr, done.stderr
    assert snapshot(folder) == before


def test_the_app_refuses_with_a_message_and_changes_nothing(main_window, bad_file):
    path, message = bad_file
    before = snapshot(path.parent)
    messages: list[str] = []
    main_window.error_shown.connect(messages.append)
    assert not main_window.open_path(path)  # File → Open and `winnow FILE` land here
    assert main_window.project is None
    assert message in messages[-1]
    assert not main_window.open_project(path, readonly=True)
    assert snapshot(path.parent) == before


def test_a_folder_named_like_a_project(tmp_path: Path) -> None:
    """#13 item 8: ``winnow info X.winnow`` on a directory gave a traceback."""
    folder = tmp_path / "x.winnow"
    folder.mkdir()
    done = winnow("info", folder)
    assert done.returncode == 2, done.stderr
    assert "is a folder, not a Winnow project file" in done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.winnow"]


def test_a_damaged_page_read_after_opening_is_a_message(project_path: Path,
                                                        tmp_path: Path) -> None:
    """#13 item 8: ``session create`` met "database disk image is malformed" long after
    the open succeeded, and printed a traceback."""
    conn = sqlite3.connect(project_path)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'model_outputs'"
                        ).fetchone()[0]
    conn.close()
    with open(project_path, "r+b") as fh:
        fh.seek((root - 1) * page_size)
        fh.write(b"\xde\xad\xbe\xef" * (page_size // 4))
    done = winnow("session", "create", project_path, "--name", "s", "--protocol", "ranking",
                  "--out", tmp_path / "sessions")
    assert done.returncode == 2, done.stderr
    assert "is damaged" in done.stderr and "Traceback" not in done.stderr
    assert ".recover" in done.stderr
