"""ADR 228: ``MainWindow.error_shown`` reports only what failed; an action that was not
started (nothing to do, not possible here) is a refusal, ``refusal_shown``, still a
warning box."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from app.main_window import MainWindow  # noqa: E402


def test_a_refusal_is_not_an_error_and_an_error_is_not_a_refusal(
        main_window: MainWindow, qtbot, tmp_path: Path) -> None:
    from PySide6.QtWidgets import QMessageBox

    errors: list[str] = []
    refusals: list[str] = []
    main_window.error_shown.connect(errors.append)
    main_window.refusal_shown.connect(refusals.append)
    page = main_window.show_workspace("anonymize")
    page.jobs.choose_folder()  # Anonymize → Import Photo Folder… with no project open
    assert refusals == ["Open or create a project first."] and errors == []
    boxes = [b for b in main_window.findChildren(QMessageBox) if b.isVisible()]
    assert [(b.windowTitle(), b.icon()) for b in boxes] == [
        ("No project", QMessageBox.Icon.Warning)]
    folder = tmp_path / "photos"
    folder.mkdir()
    assert not main_window.open_path(folder)  # a failure: still an error
    assert len(errors) == 1 and "is a folder" in errors[0]
    assert len(refusals) == 1
