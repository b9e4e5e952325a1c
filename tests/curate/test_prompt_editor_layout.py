"""The prompt editor in a tall window (1920×1200) and a short one (1280×800): the
original prompt sits right under its caption, the room left over goes below both, and a
long original scrolls in a few lines instead of pushing the rest away or being cut."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import QPoint  # noqa: E402

from ui.curate.prompt_editor import PromptEditor  # noqa: E402

LONG = "a prompt with many words about the scene, the light and the mood; " * 60


def _editor(qtbot, height: int, prompt: str, original: str) -> PromptEditor:  # type: ignore[no-untyped-def]
    editor = PromptEditor()
    qtbot.addWidget(editor)
    editor.resize(420, height)
    editor.set_prompt(prompt, original)
    editor.show()
    qtbot.waitExposed(editor)
    return editor


def _top(editor: PromptEditor) -> int:
    return editor.original.mapTo(editor, QPoint(0, 0)).y()


@pytest.mark.parametrize("edited", [False, True])
def test_original_prompt_stays_under_its_caption(qtbot, edited: bool) -> None:
    editor = _editor(qtbot, 600, "far away" if edited else "far", "far")
    gap = _top(editor) - editor.original_caption.geometry().bottom()
    assert gap <= editor.layout().spacing() + 1, gap
    lines = editor.original.fontMetrics().lineSpacing()
    assert editor.original_scroll.height() <= 2 * lines + 8  # one line, not a tall box


@pytest.mark.parametrize("height", [330, 600])
def test_a_long_original_scrolls_and_leaves_the_edit_box_its_room(qtbot, height: int) -> None:
    editor = _editor(qtbot, height, LONG + "edited", LONG)
    lines = editor.original.fontMetrics().lineSpacing()
    assert editor.original_scroll.height() <= 6 * lines + 6
    bar = editor.original_scroll.verticalScrollBar()
    assert bar.maximum() > 0  # the rest of the original is reachable, not cut off
    assert editor.edit.height() >= 48
    assert editor.diff.isVisible()
    assert editor.original.text() == LONG
