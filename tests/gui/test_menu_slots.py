"""Menu entries built in a loop act on their own item (their slots were lambdas with
default arguments, which mypy cannot type: now small functions; issue #16, ADR 150)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QMenu

from core.store import Project

pytestmark = pytest.mark.gui


def test_open_recent_opens_the_project_of_its_entry(main_window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from app import settings as app_settings

    paths = [tmp_path / f"{name}.winnow" for name in ("first", "second")]
    for path in paths:
        Project.create(path).close()
        app_settings.add_recent_project(path)
    menu = QMenu()
    main_window.projects.fill_recent(menu)
    entries = {a.text(): a for a in menu.actions()}
    assert set(entries) == {str(p.resolve()) for p in paths}
    entries[str(paths[0].resolve())].trigger()
    assert Path(main_window.project.path).resolve() == paths[0].resolve()
    entries[str(paths[1].resolve())].trigger()
    assert Path(main_window.project.path).resolve() == paths[1].resolve()


def test_recent_projects_read_a_single_entry_and_ignore_junk(main_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from app import settings as app_settings

    path = tmp_path / "only.winnow"
    path.write_bytes(b"")
    app_settings.settings().setValue("recent_projects", str(path))
    assert app_settings.recent_projects() == [str(path)]
    app_settings.settings().setValue("recent_projects", 7)
    assert app_settings.recent_projects() == []


def test_workspace_switches_show_their_own_page(main_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    switches = main_window.menus.switch_group.actions()
    for index in reversed(range(len(switches))):
        switches[index].trigger()
        assert main_window.nav.currentRow() == index


def test_anonymize_reset_menu_emits_the_geometry_of_each_entry(qtbot) -> None:  # type: ignore[no-untyped-def]
    from ui.anonymize.panel import PhotoPanel

    panel = PhotoPanel()
    qtbot.addWidget(panel)
    got: list[str] = []
    panel.reset_geometry.connect(got.append)
    menu = panel.reset_button.menu()
    assert menu is not None
    for action in menu.actions():
        action.trigger()
    assert got == ["corners", "crop", "all"]
