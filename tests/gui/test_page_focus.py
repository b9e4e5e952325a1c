"""The shown workspace has the keyboard: after a project opens, after Ctrl+1…5 and after
a click in the workspace list, Curate's single keys (J, A …) act on the samples at once.

They went to the workspace list instead: J did nothing and A (label Analysis, as the start
page says) searched the list and switched to Anonymize."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from ui.workspaces import WORKSPACES  # noqa: E402

KEYS = [w.key for w in WORKSPACES]


def _press(window: MainWindow, qtbot, key: Qt.Key,  # type: ignore[no-untyped-def]
           modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    qtbot.keyClick(QApplication.focusWidget() or window, key, modifier)


def _quality(window: MainWindow, sample_id: str) -> str | None:
    assert window.project is not None
    row = window.project.conn.execute("SELECT quality FROM samples WHERE id = ?",
                                      (sample_id,)).fetchone()
    return row[0]


def _open(window: MainWindow, path: Path, qtbot):  # type: ignore[no-untyped-def]
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    assert window.open_project(path)
    curate = window.pages["curate"]
    qtbot.waitUntil(lambda: curate.current_id() is not None)
    return curate


def _label_analysis_and_step(window: MainWindow, curate, qtbot) -> None:  # type: ignore[no-untyped-def]
    first = curate.current_id()
    _press(window, qtbot, Qt.Key.Key_J)
    second = curate.current_id()
    assert second != first  # J: the next sample
    _press(window, qtbot, Qt.Key.Key_A)
    assert window.stack.currentWidget() is curate  # not Anonymize
    assert _quality(window, second) == "Analysis"


def test_curate_keys_act_right_after_a_project_opens(main_window: MainWindow, demo_path: Path,
                                                     qtbot) -> None:
    curate = _open(main_window, demo_path, qtbot)
    _label_analysis_and_step(main_window, curate, qtbot)


def test_curate_keys_act_after_ctrl_number(main_window: MainWindow, demo_path: Path,
                                           qtbot) -> None:
    curate = _open(main_window, demo_path, qtbot)
    _press(main_window, qtbot, Qt.Key.Key_1 + KEYS.index("rate"),
           Qt.KeyboardModifier.ControlModifier)
    assert main_window.stack.currentWidget() is main_window.pages["rate"]
    _press(main_window, qtbot, Qt.Key.Key_1 + KEYS.index("curate"),
           Qt.KeyboardModifier.ControlModifier)
    assert main_window.stack.currentWidget() is curate
    _label_analysis_and_step(main_window, curate, qtbot)


def test_curate_keys_act_after_a_click_in_the_workspace_list(main_window: MainWindow,
                                                             demo_path: Path, qtbot) -> None:
    curate = _open(main_window, demo_path, qtbot)
    nav = main_window.nav
    for key in ("metrics", "curate"):
        rect = nav.visualItemRect(nav.item(KEYS.index(key)))
        qtbot.mouseClick(nav.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert main_window.stack.currentWidget() is curate
    _label_analysis_and_step(main_window, curate, qtbot)


def test_arrow_keys_in_the_workspace_list_still_walk_the_list(main_window: MainWindow,
                                                              qtbot) -> None:
    main_window.activateWindow()
    qtbot.waitUntil(main_window.isActiveWindow)
    main_window.nav.setFocus()
    main_window.nav.setCurrentRow(0)
    _press(main_window, qtbot, Qt.Key.Key_Down)
    _press(main_window, qtbot, Qt.Key.Key_Down)
    assert main_window.nav.currentRow() == 2
    assert main_window.nav.hasFocus()


def test_anonymize_keys_act_after_ctrl_number(main_window: MainWindow, demo_path: Path,
                                              qtbot) -> None:
    _open(main_window, demo_path, qtbot)
    _press(main_window, qtbot, Qt.Key.Key_1 + KEYS.index("anonymize"),
           Qt.KeyboardModifier.ControlModifier)
    page = main_window.pages["anonymize"]
    qtbot.waitUntil(lambda: page.viewer.photo is not None)
    assert not page.page_actions.act_after.isChecked()
    _press(main_window, qtbot, Qt.Key.Key_B)  # Before / After
    assert page.page_actions.act_after.isChecked()


def test_metrics_and_analyze_arrow_keys_leave_their_selection_boxes_alone(
        main_window: MainWindow, demo_path: Path, qtbot) -> None:
    """Ctrl+4 / Ctrl+5 put the keyboard on the results table and the tabs: the first
    focusable child was the source / data set box, and Down changed what is shown."""
    _open(main_window, demo_path, qtbot)
    metrics = main_window.pages["metrics"]
    _press(main_window, qtbot, Qt.Key.Key_1 + KEYS.index("metrics"),
           Qt.KeyboardModifier.ControlModifier)
    assert QApplication.focusWidget() is metrics.table
    source = metrics.source.currentIndex()
    _press(main_window, qtbot, Qt.Key.Key_Down)
    assert metrics.source.currentIndex() == source
    analyze = main_window.pages["analyze"]
    _press(main_window, qtbot, Qt.Key.Key_1 + KEYS.index("analyze"),
           Qt.KeyboardModifier.ControlModifier)
    assert QApplication.focusWidget() is analyze.tabs.tabBar()
    dataset = analyze.controls.dataset.currentIndex()
    _press(main_window, qtbot, Qt.Key.Key_Down)
    assert analyze.controls.dataset.currentIndex() == dataset
