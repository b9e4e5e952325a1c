"""Rate workspace QA fixes: buttons follow their actions; a read-only project."""

from __future__ import annotations

from pathlib import Path

import pytest
from rating_helpers import build_project

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QPushButton  # noqa: E402

from core.selection import SampleFilter  # noqa: E402


def _button(page, action):  # type: ignore[no-untyped-def]
    text = action.text().replace("&", "")
    (button,) = [b for b in page.main.findChildren(QPushButton) if b.text() == text]
    return button


def _page(window):  # type: ignore[no-untyped-def]
    page = window.pages["rate"]
    assert page.stack.currentWidget() is page.main
    return page


def test_new_session_button_is_off_while_its_action_is(main_window, qtbot,  # type: ignore[no-untyped-def]
                                                       tmp_path: Path) -> None:
    build_project(tmp_path / "w.winnow").close()
    assert main_window.open_project(tmp_path / "w.winnow")
    page = _page(main_window)
    button = _button(page, page.act_new)
    assert page.act_new.isEnabled() and button.isEnabled()
    main_window.context.set_selection(SampleFilter(ids=("no-such-sample",)))
    assert not page.act_new.isEnabled()
    assert not button.isEnabled()  # it used to look clickable and do nothing
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert getattr(page, "dialog", None) is None
    main_window.context.set_selection(SampleFilter())
    assert button.isEnabled()
    main_window.runner.shutdown()
    main_window.close_project()
