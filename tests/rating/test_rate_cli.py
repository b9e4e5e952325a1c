"""``winnow rate FILE`` refuses what it cannot rate with one clear line, exit 2, and writes
nothing (issue #12 item 5); without a display it says so as plain ``winnow`` does."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tamper_helpers as th
from rating_helpers import make_session

from app.cli import run_cli
from app.gui import NO_DISPLAY

ROOT = Path(__file__).resolve().parents[2]


def _state(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()
            if p.is_file()}


@pytest.fixture
def session_file(rproject, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    return make_session(rproject, tmp_path / "out", "likert", raters=1)[0]


@pytest.mark.parametrize(("edit", "message"), [
    ("DELETE FROM meta WHERE key = 'protocol'", "has no 'protocol' in its meta table"),
    ("UPDATE meta SET value = 'thumbs_up' WHERE key = 'protocol'",
     "unknown protocol 'thumbs_up'"),
    ("UPDATE meta SET value = 'abc' WHERE key = 'format_version'",
     "format_version 'abc' is not a number"),
    ("UPDATE meta SET value = '{not json' WHERE key = 'settings'", "settings are not readable"),
    ("UPDATE meta SET value = X'7bff7d' WHERE key = 'settings'", "settings are not readable"),
])
def test_a_file_rate_cannot_use_is_one_line_and_untouched(session_file: Path, edit: str,  # type: ignore[no-untyped-def]
                                                          message: str, capsys) -> None:
    th.edit(session_file, edit)
    before = _state(session_file.parent)
    assert run_cli(["rate", str(session_file)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("winnow rate: error: ") and message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert _state(session_file.parent) == before  # no -wal, no -shm, no "open" event


def test_a_folder_and_a_missing_file(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "x.winnow-session"
    folder.mkdir()
    assert run_cli(["rate", str(folder)]) == 2
    assert "is a folder, not a session file" in capsys.readouterr().err
    assert run_cli(["rate", str(tmp_path / "nope.winnow-session")]) == 2
    assert "no session file at" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == [folder]


def test_a_read_only_file(session_file: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    if os.geteuid() == 0:
        pytest.skip("root writes read-only files; the mount test below covers it")
    before = _state(session_file.parent)
    session_file.chmod(0o444)
    try:
        assert run_cli(["rate", str(session_file)]) == 2
    finally:
        session_file.chmod(0o644)
    err = capsys.readouterr().err
    assert "the file is read-only" in err and "copy it to a folder you can write to" in err
    assert _state(session_file.parent) == before


def test_a_file_on_a_read_only_mount(session_file: Path) -> None:
    if not shutil.which("unshare"):
        pytest.skip("no unshare(1) here")
    flags = ["-m"] if os.geteuid() == 0 else ["-r", "-m"]
    if subprocess.run(["unshare", *flags, "true"], capture_output=True).returncode != 0:
        pytest.skip("cannot make a mount namespace here")
    folder = session_file.parent
    before = _state(folder)
    script = (f"mount --bind {folder} {folder} && mount -o remount,ro,bind {folder} && "
              f"{sys.executable} -m app rate {session_file}")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(["unshare", *flags, "sh", "-c", script], capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "is read-only" in done.stderr and "Traceback" not in done.stderr
    assert _state(folder) == before


def test_without_a_display_rate_says_what_plain_winnow_says(session_file: Path) -> None:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = str(ROOT)
    before = _state(session_file.parent)
    done = subprocess.run([sys.executable, "-m", "app", "rate", str(session_file)],
                          capture_output=True, text=True, env=env, timeout=120)
    plain = subprocess.run([sys.executable, "-m", "app"], capture_output=True, text=True,
                           env=env, timeout=120)
    assert done.returncode == plain.returncode == 2
    assert done.stderr.strip() == plain.stderr.strip() == NO_DISPLAY
    assert _state(session_file.parent) == before
