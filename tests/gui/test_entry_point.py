"""The real entry point: ``winnow --demo PATH`` under the qasync loop, offscreen."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gui


def test_winnow_demo_opens_and_quits_cleanly(tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "WINNOW_LOG_DIR": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    out = subprocess.run([sys.executable, "-m", "app", "--demo", str(tmp_path / "d.winnow"),
                          "--quit-when-ready"], capture_output=True, text=True, timeout=180,
                         env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "ready: d.winnow" in out.stdout
    assert (tmp_path / "d.winnow").exists()
    assert (tmp_path / "winnow.log").exists()
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("workspace", ["analyze", "metrics", "rate", "anonymize"])
def test_the_app_quits_when_ready_whatever_workspace_it_restores(
        tmp_path: Path, demo_template: Path, workspace: str) -> None:
    """Reopened on Analyze (the last workspace a user left), the app began Analyze's first
    computation a moment after "ready", so its close asked whether to stop a running job
    and ``--quit-when-ready`` never ended (seen when a developer's own settings leaked
    into a test)."""
    import shutil

    config = tmp_path / "config" / "Winnow"
    config.mkdir(parents=True)
    (config / "Winnow.conf").write_text(f"[main_window]\nworkspace={workspace}\n")
    project = tmp_path / "demo.winnow"
    shutil.copy(demo_template, project)
    for sibling in demo_template.parent.iterdir():  # the demo's assets and sources
        if sibling.is_dir():
            shutil.copytree(sibling, tmp_path / sibling.name)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "WINNOW_LOG_DIR": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    out = subprocess.run([sys.executable, "-m", "app", str(project), "--quit-when-ready"],
                         capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "ready: demo.winnow" in out.stdout
