"""Test-wide setup: offscreen Qt, isolated settings and logs, shared fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")

REPO = Path(__file__).resolve().parent.parent
# the shared real-photo corpus and the skip-or-fail policy for it: tests/shared_data.py
from shared_data import SHARED, TESTDATA  # noqa: E402, F401


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--headed", action="store_true",
                     help="show GUI test windows (needs a display)")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--headed"):
        os.environ["QT_QPA_PLATFORM"] = os.environ.get("WINNOW_HEADED_PLATFORM", "xcb")


def isolate_user_dirs(monkeypatch: pytest.MonkeyPatch, base: Path) -> None:
    """Logs and QSettings under ``base``, never the developer's own; audit records by
    "tester"."""
    monkeypatch.setenv("WINNOW_LOG_DIR", str(base / "logs"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(base / "config"))
    monkeypatch.setenv("WINNOW_USER", "tester")


@pytest.fixture(scope="session", autouse=True)
def _isolated_user_dirs_all_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The isolation below, from before the first fixture of any scope: module- and
    session-scoped fixtures are made before function-scoped ones, so an app or a project
    one of them makes would otherwise read the developer's settings (``workspace=analyze``
    in ``~/.config/Winnow/Winnow.conf``) and write their logs and name (ADR 227)."""
    with pytest.MonkeyPatch.context() as mp:
        isolate_user_dirs(mp, tmp_path_factory.getbasetemp())
        yield


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory,
                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Logs and QSettings go to a temporary folder, never the developer's own (set again
    for each test, in case one before it changed ``os.environ`` without monkeypatch)."""
    isolate_user_dirs(monkeypatch, tmp_path_factory.getbasetemp())


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo project, generated once per test session (closed, so it can be copied)."""
    from core.demo import create_demo_project

    path = tmp_path_factory.mktemp("demo-template") / "demo.winnow"
    project, _report = create_demo_project(path)
    project.close()
    return path


@pytest.fixture
def project(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A fresh empty project, closed after the test."""
    from core.store import Project

    p = Project.create(tmp_path / "p.winnow")
    yield p
    p.close()


@pytest.fixture
def main_window(qtbot, tmp_path: Path):  # type: ignore[no-untyped-def]
    """The real main window, shown offscreen, with QSettings in a temporary folder."""
    from PySide6.QtCore import QSettings

    from app.main_window import MainWindow

    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope,
                      str(tmp_path / "settings"))
    QSettings().clear()
    from app.gui_gc import GuiThreadCollector

    collector = GuiThreadCollector().install()  # as in app.gui: cycles freed here (ADR 167)
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    try:
        yield win
        win.runner.shutdown()
        win.close_project()
    finally:
        collector.uninstall()
