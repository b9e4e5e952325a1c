"""Curate on a project opened read-only: every edit is off and says why; browsing works."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402
from test_curate_gui import Harness  # noqa: E402

from core.curate.commands import SetField  # noqa: E402
from core.curate.detail import load_sample  # noqa: E402
from core.store import Project  # noqa: E402


@pytest.fixture
def ro(qtbot, curate_project):  # type: ignore[no-untyped-def]
    project = Project.open(curate_project.path, readonly=True)
    h = Harness(qtbot, project)
    yield h
    h.context.project = None
    h.context.project_changed.emit()
    project.close()


def test_read_only_project_offers_no_edits_and_keys_change_nothing(qtbot, ro) -> None:
    ws, view = ro.ws, ro.ws.view
    ro.select("s1")
    assert view.read_only_note.isVisibleTo(ws)
    assert not any(b.isEnabled() for b in view.quality_buttons.values())
    assert not view.reviewed.isEnabled() and not view.split.isEnabled()
    assert not any(w.isEnabled() for w in view.images.edit_widgets())
    before = load_sample(ws.project, "s1")
    for key in (Qt.Key.Key_T, Qt.Key.Key_R, Qt.Key.Key_X, Qt.Key.Key_U):
        ro.key(qtbot, key)
    ro.key(qtbot, Qt.Key.Key_E)
    qtbot.keyClicks(view.prompt.edit, "typed")
    ro.key(qtbot, Qt.Key.Key_J)  # browsing still works; leaving the sample commits nothing
    assert ws.current_id() == "s2"
    after = load_sample(ws.project, "s1")
    assert (after.quality, after.review_status, after.prompt, [i.role for i in after.images]) \
        == (before.quality, before.review_status, before.prompt, [i.role for i in before.images])
    s2 = repr(load_sample(ws.project, "s2").images)
    canvas = view.images.canvas  # s2 is a screenshot with boxes: they stay where they are
    boxes = [(b.row_id, b.rect) for b in canvas.boxes]
    assert boxes
    canvas.select(boxes[0][0])
    canvas.setFocus()
    for key in (Qt.Key.Key_Right, Qt.Key.Key_Delete):
        qtbot.keyClick(canvas, key)
    assert [(b.row_id, b.rect) for b in canvas.boxes] == boxes
    assert repr(load_sample(ws.project, "s2").images) == s2
    assert ro.messages == []
    assert not ws.page_actions.undo.isEnabled()


def test_an_edit_that_reaches_a_read_only_project_is_refused_with_a_message(ro) -> None:
    ro.select("s1")
    assert ro.ws.run(SetField(["s1"], "quality", "Trash")) is False
    assert len(ro.messages) == 1 and "read-only" in ro.messages[0]
    assert load_sample(ro.ws.project, "s1").quality == "Benchmark"


def test_reopening_for_writing_turns_editing_back_on(qtbot, ro, curate_project) -> None:
    ro.context.project = curate_project
    ro.context.project_changed.emit()
    ro.select("s1")
    assert not ro.ws.view.read_only_note.isVisibleTo(ro.ws)
    ro.key(qtbot, Qt.Key.Key_T)
    assert load_sample(curate_project, "s1").quality == "Trash"
