"""Curate → a sample → History at 1400 pixels (ADR 222): the Change column sat right of
fixed 150 + 100 + 90 pixel columns, behind the horizontal scroll bar, so no old or new
value could be read. Now the first three fit their text, the change takes the rest of the
width, old value over new, and the whole of both is in its tooltip."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui


def test_history_change_column_is_in_view_with_old_and_new(
        main_window: Any, qtbot: Any, demo_path: Path) -> None:
    from core.curate.commands import set_prompt

    main_window.resize(1400, 1000)
    assert main_window.open_project(demo_path)
    curate = main_window.show_workspace("curate")
    curate.select_row(0)
    sample = curate.view.detail.id
    prompt = "Make the sky a deep orange sunset " + "with rolling clouds " * 20 + "END"
    set_prompt(sample, prompt).do(main_window.context.project)
    curate.reveal(sample)
    view = curate.view
    view.tabs.setCurrentWidget(view.history)
    history = view.history
    qtbot.waitUntil(lambda: history.topLevelItemCount() >= 1 and history.isVisible())
    qtbot.wait(50)
    item = history.topLevelItem(0)
    assert item.text(2) == "edit prompt"
    width = history.viewport().width()
    left = history.header().sectionViewportPosition(3)
    assert left >= 0 and left + history.columnWidth(3) <= width + 1  # nothing to scroll to
    assert history.columnWidth(3) >= width // 3  # the change uses the space
    old, new = item.text(3).split("\n")
    assert new.startswith("→ Make the sky a deep orange")  # the new value is in the cell
    assert prompt in item.toolTip(3)  # and whole in its tooltip
