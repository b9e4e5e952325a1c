"""The GUI monkey: thousands of seeded random key presses and clicks over every workspace
of the demo project must end without a crash, an unhandled exception, or a change to data
that does not belong to the page on screen (issue #14, "How to check it like a user").

``WINNOW_MONKEY_EVENTS`` and ``WINNOW_MONKEY_SEED`` choose a longer or another walk.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from monkey import Monkey, instrument  # noqa: E402
from PySide6.QtWidgets import (  # noqa: E402
    QApplication,
    QFileDialog,
    QInputDialog,
)

EVENTS = int(os.environ.get("WINNOW_MONKEY_EVENTS", "2500"))
SEED = int(os.environ.get("WINNOW_MONKEY_SEED", "14"))
BUDGET_S = float(os.environ.get("WINNOW_MONKEY_BUDGET_S", "75"))


@pytest.fixture
def no_blocking_dialogs(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Static file and input dialogs run their own event loop: the monkey cancels them
    (a user pressing Escape), so the walk never blocks on one."""
    for name in ("getOpenFileName", "getSaveFileName"):
        monkeypatch.setattr(QFileDialog, name, staticmethod(lambda *a, **k: ("", "")))
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(lambda *a, **k: ([], "")))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: ""))
    for name in ("getItem", "getText", "getInt", "getDouble"):
        monkeypatch.setattr(QInputDialog, name, staticmethod(lambda *a, **k: ("", False)))


def test_random_walk_over_every_workspace(main_window, demo_path: Path, qtbot,
                                         no_blocking_dialogs) -> None:  # type: ignore[no-untyped-def]
    from app.errors import router

    window = main_window
    window.resize(1280, 800)
    window.activateWindow()
    errors: list[str] = []
    router.listeners.append(lambda title, details: errors.append(f"{title}\n{details}"))
    instrument(demo_path)  # triggers that log which table each write touches
    assert window.open_project(demo_path)

    monkey = Monkey(window, reopen=lambda: window.open_project(demo_path), seed=SEED)
    done = monkey.walk(EVENTS, BUDGET_S)

    for widget in QApplication.topLevelWidgets():  # what the walk left open
        if widget is not window and widget.isVisible():
            widget.close()
    for job in window.runner.active:
        job.state.cancel()
    qtbot.waitUntil(lambda: not window.runner.active, timeout=60_000)
    QApplication.processEvents()
    monkey.step(done)  # one more event after the jobs ended: their writes are checked too
    print(f"monkey: {done} events, seed {SEED}: {monkey.counts}")
    assert done >= min(EVENTS, 1000)
    assert monkey.violations == []
    assert errors == []
    assert window.isVisible()
