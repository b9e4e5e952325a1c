"""The scripted checks a built bundle is smoke-tested with (``--keys``), run from source.

The bundle itself is built and smoke-tested by packaging/build-bundle.sh --smoke in CI
(.ci/run); these tests keep the entry points it relies on working between builds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

pytest.importorskip("PySide6")


def test_parse_keys_names_and_text() -> None:
    from PySide6.QtCore import Qt

    from app.scripted import parse_keys

    keys = parse_keys("Ab{Return}{Left} ")
    assert keys[0] == (int(Qt.Key.Key_A.value), "A") and keys[1] == (int(Qt.Key.Key_B.value), "b")
    assert keys[2] == (int(Qt.Key.Key_Return.value), "")
    assert keys[3] == (int(Qt.Key.Key_Left.value), "") and keys[4] == (0, " ")
    with pytest.raises(ValueError, match=r"\{Nope\} is not a key"):
        parse_keys("{Nope}")


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO), QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=240)


@pytest.mark.gui
def test_a_rater_answers_with_the_keyboard_through_the_entry_point(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "tests" / "rating"))
    from rating_helpers import build_project

    from core.rating.session_file import RatingSession

    build_project(tmp_path / "p.winnow").close()
    done = _run("session", "create", str(tmp_path / "p.winnow"), "--name", "keys",
                "--protocol", "side_by_side", "--raters", "1", "--gold", "none",
                "--out", str(tmp_path / "files"), "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (path,) = json.loads(done.stdout)["files"]
    done = _run(path, "--keys", "Ada{Return}{Left}{Return}{Right}{Return}", cwd=tmp_path)
    assert done.returncode == 0 and "keys typed" in done.stdout, done.stderr
    assert "Traceback" not in done.stderr
    session = RatingSession.open(path)
    try:
        assert session.rater == "Ada"
        assert [j.answer for j in session.judgments()] == [{"winner": "left"},
                                                          {"winner": "right"}]
    finally:
        session.close()
    done = _run(path, "--keys", "{Nope}", cwd=tmp_path)
    assert done.returncode == 2 and "{Nope} is not a key" in done.stderr
