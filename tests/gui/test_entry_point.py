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
