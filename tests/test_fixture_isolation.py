"""A module- or session-scoped fixture runs with the tests' own user folders (ADR 227).

Such fixtures are made before the function-scoped isolation in ``conftest.py``; an app
one of them started read the developer's ``~/.config/Winnow/Winnow.conf`` (reopening on
Analyze with ``workspace=analyze``) and logged under the developer's name.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: where the app's QSettings would be read from, as ``app.gui`` names the application
SETTINGS_FILE = (
    "import sys\n"
    "from PySide6.QtCore import QCoreApplication, QSettings\n"
    "app = QCoreApplication(sys.argv[:1])\n"
    "app.setOrganizationName('Winnow')\n"
    "app.setApplicationName('Winnow')\n"
    "print(QSettings().fileName())\n")
NAMES = ("XDG_CONFIG_HOME", "WINNOW_LOG_DIR", "WINNOW_USER")


def _expected(base: Path) -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(base / "config"), "WINNOW_LOG_DIR": str(base / "logs"),
            "WINNOW_USER": "tester"}


@pytest.fixture(scope="module")
def seen_by_a_module_fixture() -> tuple[dict[str, str | None], str]:
    """The environment a module-scoped fixture sees, and the settings file of a Qt
    process it starts."""
    env = {name: os.environ.get(name) for name in NAMES}
    done = subprocess.run([sys.executable, "-c", SETTINGS_FILE], capture_output=True,
                          text=True, timeout=120,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr
    return env, done.stdout.strip()


@pytest.fixture(scope="session")
def seen_by_a_session_fixture() -> dict[str, str | None]:
    return {name: os.environ.get(name) for name in NAMES}


def test_a_module_fixture_starts_the_app_with_the_tests_settings_folder(
        seen_by_a_module_fixture: tuple[dict[str, str | None], str],
        tmp_path_factory: pytest.TempPathFactory) -> None:
    env, settings_file = seen_by_a_module_fixture
    base = tmp_path_factory.getbasetemp()
    assert env == _expected(base)
    assert Path(settings_file) == base / "config" / "Winnow" / "Winnow.conf"


def test_a_session_fixture_sees_the_tests_user_folders(
        seen_by_a_session_fixture: dict[str, str | None],
        tmp_path_factory: pytest.TempPathFactory) -> None:
    assert seen_by_a_session_fixture == _expected(tmp_path_factory.getbasetemp())
