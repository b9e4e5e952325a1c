"""Workspace actions act only on the page on screen; the shortcut sheet and tooltips are
generated from the actions (issue #14 items 2 and 4)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import QEvent, QObject, Qt  # noqa: E402
from PySide6.QtGui import QAction, QKeySequence  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from ui.widgets.actions import (  # noqa: E402
    menu_actions,
    plain_text,
    shortcut_label,
    workspace_actions,
)
from ui.widgets.shortcut_sheet import ShortcutSheet  # noqa: E402
from ui.workspaces import WORKSPACES  # noqa: E402

CTRL = Qt.KeyboardModifier.ControlModifier
KEYS = [w.key for w in WORKSPACES]


def _quality(window: MainWindow, sample_id: str) -> str | None:
    return window.project.conn.execute("SELECT quality FROM samples WHERE id = ?",
                                       (sample_id,)).fetchone()[0]


def _audit_rows(window: MainWindow) -> int:
    return window.project.conn.execute("SELECT count(*) FROM audit_log").fetchone()[0]


def _visible_menus(window: MainWindow) -> list[str]:
    return [a.text().replace("&", "") for a in window.menuBar().actions() if a.isVisible()]


def choose_from_menu(window: MainWindow, *path: str) -> bool:
    """Do what a user can do with the mouse in the menu bar: follow ``path`` through
    visible, enabled entries and trigger the last one. False when the path is not there."""
    entries = window.menuBar().actions()
    for depth, text in enumerate(path):
        entry = next((a for a in entries if a.text().replace("&", "") == text), None)
        if entry is None or not entry.isVisible() or not entry.isEnabled():
            return False
        if depth == len(path) - 1:
            entry.trigger()
            return True
        entries = entry.menu().actions()
    return False


def test_curate_label_cannot_change_a_sample_from_another_page(main_window: MainWindow,
                                                               demo_path: Path,
                                                               qtbot) -> None:
    window = main_window
    assert window.open_project(demo_path)
    curate = window.show_workspace("curate")
    curate.select_row(curate.model.row_of("demo-005"))
    assert curate.current_id() == "demo-005" and _quality(window, "demo-005") == "Analysis"
    trash = next(a for a in menu_actions(curate.workspace_menu()) if a.text() == "Trash")
    before = _audit_rows(window)

    qtbot.keyClick(window, Qt.Key.Key_2, CTRL)  # Anonymize on screen, demo-005 hidden
    assert window.stack.currentWidget() is window.pages["anonymize"]
    assert "Curate" not in _visible_menus(window) and not trash.isEnabled()
    assert not choose_from_menu(window, "Curate", "Label", "Trash")
    qtbot.keyClick(window.pages["anonymize"].canvas, Qt.Key.Key_T)  # nor its key, T
    qtbot.keyClick(window, Qt.Key.Key_T)
    assert _quality(window, "demo-005") == "Analysis"
    assert _audit_rows(window) == before

    qtbot.keyClick(window, Qt.Key.Key_1, CTRL)  # back on Curate, the same entry works
    assert "Curate" in _visible_menus(window) and trash.isEnabled()
    assert choose_from_menu(window, "Curate", "Label", "Trash")
    assert _quality(window, "demo-005") == "Trash"
    assert _audit_rows(window) == before + 1


def test_a_menu_left_open_closes_when_the_workspace_changes(main_window: MainWindow,
                                                           demo_path: Path, qtbot) -> None:
    """Where the platform lets Ctrl+1…5 through while a menu is open (no keyboard grab),
    the page's menu must not stay open over another page, acting on a hidden sample."""
    from PySide6.QtWidgets import QMenu

    window = main_window
    assert window.open_project(demo_path)
    curate = window.show_workspace("curate")
    menu = curate.workspace_menu()
    assert isinstance(menu, QMenu)
    menu.popup(window.geometry().center())
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is menu)
    window.show_workspace("rate")
    assert QApplication.activePopupWidget() is None and not menu.isVisible()


def test_only_the_shown_workspace_has_a_menu_and_live_actions(main_window: MainWindow,
                                                              demo_path: Path,
                                                              qtbot) -> None:
    window = main_window
    assert window.open_project(demo_path)
    menus = window.menus.workspace_menus
    for index, info in enumerate(WORKSPACES):
        qtbot.keyClick(window, Qt.Key.Key_1 + index, CTRL)
        shown = _visible_menus(window)
        assert shown == ["File", menus[info.key].title().replace("&", ""), "View", "Help"]
        for other in WORKSPACES:
            if other.key == info.key:
                continue
            live = [a.text() for a in workspace_actions(window.pages[other.key],
                                                        menus[other.key]) if a.isEnabled()]
            assert live == [], (info.key, other.key)


def test_without_a_project_nothing_pretends_to_act(main_window: MainWindow, qtbot) -> None:
    window = main_window
    anonymize = window.show_workspace("anonymize")
    for action in (anonymize.act_detect, anonymize.act_detect_all, anonymize.act_release,
                   anonymize.act_release_all, anonymize.act_import):
        assert not action.isEnabled(), action.text()
    metrics = window.show_workspace("metrics")
    assert not metrics.act_cancel.isEnabled() and not metrics.act_run.isEnabled()
    assert not metrics.act_export.isEnabled() and not metrics.cancel_button.isEnabled()
    curate = window.show_workspace("curate")
    assert not any(a.isEnabled() for a in curate.page_actions.all)
    assert window.act_new.isEnabled() and window.act_open.isEnabled()


def test_photo_actions_need_a_photo(main_window: MainWindow, tmp_path: Path) -> None:
    from core.store import Project

    path = tmp_path / "empty.winnow"
    Project.create(path).close()
    window = main_window
    assert window.open_project(path)
    anonymize = window.show_workspace("anonymize")
    assert anonymize.act_import.isEnabled() and anonymize.act_detect_all.isEnabled()
    assert not anonymize.act_detect.isEnabled() and not anonymize.act_release.isEnabled()


def test_no_key_is_claimed_twice_on_any_page(main_window: MainWindow, demo_path: Path,
                                             qtbot) -> None:
    window = main_window
    assert window.open_project(demo_path)
    for index, info in enumerate(WORKSPACES):
        qtbot.keyClick(window, Qt.Key.Key_1 + index, CTRL)
        live = window.menus.application_actions() + workspace_actions(
            window.pages[info.key], window.menus.workspace_menus[info.key])
        owners: dict[str, set[str]] = defaultdict(set)
        for action in live:
            if action.isVisible():
                for key in action.shortcuts():
                    owners[key.toString()].add(action.text())
        clashes = {k: v for k, v in owners.items() if len(v) > 1}
        assert clashes == {}, info.key  # Qt fires neither of two actions on one key


# -- the shortcut sheet ---------------------------------------------------------------------
def test_the_shortcut_sheet_is_generated_from_the_actions(main_window: MainWindow,
                                                          qtbot) -> None:
    window = main_window
    qtbot.keyClick(window, Qt.Key.Key_F1)
    sheet = window.menus.sheet
    assert isinstance(sheet, ShortcutSheet) and not isinstance(sheet, QMessageBox)
    assert sheet.isVisible()
    rows = sheet.rows()
    assert list(rows) == ["Application", *(w.title for w in WORKSPACES)]
    curate_keys = {keys for _name, keys in rows["Curate"]}
    for key in ("H", "F", "Ctrl+T", "Ctrl+F", "Ctrl+E", "B", "Shift+T", "Ctrl+Return"):
        assert any(key in keys.split(", ") for keys in curate_keys), key
    # every Curate action with a shortcut is on the sheet, with all of its keys
    curate = window.pages["curate"]
    for action in workspace_actions(curate, window.menus.workspace_menus["curate"]):
        keys = ", ".join(s.toString(QKeySequence.SequenceFormat.NativeText)
                         for s in action.shortcuts())
        if keys:
            name = action.text().replace("&", "").rstrip("…")
            assert (name, keys) in rows["Curate"], (name, keys)
    app_rows = dict(rows["Application"])
    assert app_rows["New Project"] == "Ctrl+N" and app_rows["Keyboard Shortcuts"] == "F1, Ctrl+/"
    assert app_rows["Anonymize"] == "Ctrl+2"

    sheet.filter.setText("undo")
    filtered = sheet.rows()
    assert filtered and all("undo" in n.lower() for g in filtered.values() for n, _ in g)
    sheet.close()
    qtbot.keyClick(window, Qt.Key.Key_Slash, CTRL)  # the other key opens it too
    assert window.menus.sheet is not sheet and window.menus.sheet.isVisible()


def test_menus_and_tooltips_show_the_keys(main_window: MainWindow) -> None:
    window = main_window
    anonymize = window.show_workspace("anonymize")
    assert "Ctrl+D" in anonymize.act_detect.toolTip()
    assert anonymize.act_detect.toolTip().count("Ctrl+D") == 1  # not added twice
    assert "(R)" in anonymize.page_actions.tool_actions["rect"].toolTip()
    assert anonymize.page_actions.tool_actions["rect"].toolTip().count("R)") == 1
    assert "Ctrl+N" in window.act_new.toolTip()
    metrics = window.show_workspace("metrics")
    assert "Ctrl+Return" in metrics.act_run.toolTip()


def test_about_shows_version_and_the_notices(main_window: MainWindow, monkeypatch) -> None:
    from app import about
    from core import __version__

    monkeypatch.setattr(about, "resource_text",
                        lambda name: "# Third-party notices\n\nCenterFace — MIT licence\n")
    dialog = main_window.menus.show_about()
    assert f"Winnow {__version__}" in [w.text() for w in dialog.findChildren(type(
        dialog.runtime))]
    assert "CenterFace — MIT licence" in dialog.notices.toPlainText()
    assert "Qt " in dialog.runtime.text() and "Python " in dialog.runtime.text()
    dialog.close()

    monkeypatch.setattr(about, "resource_text", lambda name: None)  # the file is absent
    dialog = main_window.menus.show_about()
    text = dialog.notices.toPlainText()
    assert "PySide6" in text and "LGPL" in text  # read from the installed packages
    assert "CenterFace" in text and "THIRD_PARTY_NOTICES.md was not found" in text


class _Catch(QObject):
    """Swallows the shortcut events actions receive, remembering which action got which
    key: the key reaches the action, and nothing it would do happens."""

    def __init__(self) -> None:
        super().__init__()
        self.hits: list[tuple[QAction, str]] = []

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Shortcut and isinstance(obj, QAction):
            self.hits.append((obj, event.key().toString()))  # type: ignore[attr-defined]
            return True
        return False


def test_every_key_on_the_sheet_reaches_its_action(main_window: MainWindow, demo_path: Path,
                                                   qtbot) -> None:
    """Each shortcut the sheet lists, pressed on its workspace, reaches exactly the action
    the sheet names (an action with that text and that key, live on that page)."""
    window = main_window
    assert window.open_project(demo_path)
    catch = _Catch()
    pressed = skipped = 0
    for index, info in enumerate(WORKSPACES):
        qtbot.keyClick(window, Qt.Key.Key_1 + index, CTRL)
        qtbot.wait(50)
        page = window.pages[info.key]
        if info.key == "curate":
            page.select_row(2)
        sheet = window.menus.show_shortcuts()
        rows = sheet.rows()
        sheet.close()
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
        groups = dict(window.menus.shortcut_groups())
        for title in ("Application", info.title):
            for name, keys in rows.get(title, []):
                owners = [a for a in groups[title] if plain_text(a) == name
                          and keys == shortcut_label(a)]
                assert len(owners) == 1, (title, name, keys)  # an existing action
                action = owners[0]
                if not (action.isEnabled() and action.isVisible()):
                    skipped += 1  # disabled for the state on screen: Qt sends it nothing
                    continue
                action.installEventFilter(catch)
                for key in action.shortcuts():
                    combo = key[0]
                    catch.hits.clear()
                    page.setFocus()
                    qtbot.keyClick(QApplication.focusWidget() or window, combo.key(),
                                   combo.keyboardModifiers())
                    assert [a for a, _k in catch.hits] == [action], (info.key, name,
                                                                    key.toString())
                    pressed += 1
                action.removeEventFilter(catch)
    assert pressed > 60 and skipped < pressed / 3, (pressed, skipped)


def test_rate_and_metrics_long_jobs_have_keys(main_window: MainWindow, demo_path: Path,
                                              qtbot, monkeypatch) -> None:
    """Rate's file actions and Metrics' Cancel Run had no key: a keyboard user could start a
    run and not stop it."""
    from PySide6.QtWidgets import QFileDialog

    asked: list[str] = []
    monkeypatch.setattr(QFileDialog, "getOpenFileNames",
                        lambda *a, **k: (asked.append(a[1]), ([], ""))[1])
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        lambda *a, **k: (asked.append(a[1]), ("", ""))[1])
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *a, **k: (asked.append(a[1]), ("", ""))[1])
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        lambda *a, **k: (asked.append(a[1]), "")[1])
    window = main_window
    assert window.open_project(demo_path)
    qtbot.keyClick(window, Qt.Key.Key_3, CTRL)
    rate = window.pages["rate"]
    rate.sessions.selectRow(0)
    for key, mods in ((Qt.Key.Key_M, CTRL), (Qt.Key.Key_E, CTRL),
                      (Qt.Key.Key_O, CTRL | Qt.KeyboardModifier.ShiftModifier),
                      (Qt.Key.Key_I, CTRL | Qt.KeyboardModifier.ShiftModifier)):
        qtbot.keyClick(window, key, mods)
    assert asked == ["Returned session files", "Export results", "Open a session file to rate",
                     asked[3]] and asked[3].startswith("Model outputs folder")
    metrics = window.show_workspace("metrics")
    assert metrics.act_cancel.shortcut().toString() == "Esc"
    assert "Esc" in metrics.act_cancel.toolTip()
