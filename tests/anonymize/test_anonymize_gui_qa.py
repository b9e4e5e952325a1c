"""Anonymize workspace QA fixes: narrow windows, undo of an edit on another photo."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from anon_helpers import quadrant_image  # noqa: E402
from PIL import Image  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from qt_helpers import drag, open_with_photos  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from core.imaging import photos as repo  # noqa: E402

CTRL = Qt.KeyboardModifier.ControlModifier


def _photo(folder: Path, name: str, width: int = 320) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / name
    Image.fromarray(quadrant_image(width, 200)).save(path)
    return path


def test_long_file_name_does_not_widen_the_window(main_window: MainWindow, qtbot,
                                                   tmp_path: Path) -> None:
    name = "contributed-photo-from-the-summer-workshop-in-the-old-town-square-0001.png"
    open_with_photos(main_window, tmp_path, _photo(tmp_path / "in", name))
    qtbot.keyClick(main_window, Qt.Key.Key_2, CTRL)
    page = main_window.pages["anonymize"]
    assert page.photo is not None and name in page.view_label.text()
    # list (200) + panel (360) + a canvas: the page must fit a 1100-pixel-wide window
    assert page.minimumSizeHint().width() < 900


def test_undo_brings_back_the_photo_it_changes(main_window: MainWindow, qtbot,
                                               tmp_path: Path) -> None:
    first, second = open_with_photos(main_window, tmp_path, _photo(tmp_path / "in", "a.png"),
                                     _photo(tmp_path / "in", "b.png", 300))
    main_window.resize(1300, 850)
    qtbot.keyClick(main_window, Qt.Key.Key_2, CTRL)
    page = main_window.pages["anonymize"]
    project = main_window.project
    assert page.photo.id == first
    canvas = page.canvas
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key.Key_R)
    drag(canvas, (40, 40), (120, 120))
    assert len(repo.regions(project, first)) == 1
    qtbot.keyClick(canvas, Qt.Key.Key_PageDown)
    assert page.photo.id == second
    qtbot.keyClick(canvas, Qt.Key.Key_Z, CTRL)
    assert repo.regions(project, first) == []
    # the undone edit is on screen, not done out of sight on a photo not shown
    assert page.photo.id == first
    assert page.list.currentItem().data(Qt.ItemDataRole.UserRole) == first
    assert "0 regions" in page.list.currentItem().text()
    qtbot.keyClick(canvas, Qt.Key.Key_PageDown)
    qtbot.keyClick(canvas, Qt.Key.Key_Z, CTRL | Qt.KeyboardModifier.ShiftModifier)
    assert len(repo.regions(project, first)) == 1 and page.photo.id == first
    assert "1 region" in page.list.currentItem().text()


def test_read_only_project_refuses_edits_with_a_message(main_window: MainWindow, qtbot,
                                                        tmp_path: Path, monkeypatch) -> None:
    (photo_id,) = open_with_photos(main_window, tmp_path, _photo(tmp_path / "in", "a.png"))
    repo.add_region(main_window.project, photo_id, x=20, y=20, w=40, h=30)
    path = main_window.project.path
    main_window.close_project()
    assert main_window.open_project(path, readonly=True)
    messages: list[tuple[str, str]] = []
    monkeypatch.setattr(main_window.context, "message", lambda t, x: messages.append((t, x)))
    monkeypatch.setattr(main_window.context, "refuse", lambda t, x: messages.append((t, x)))
    qtbot.keyClick(main_window, Qt.Key.Key_2, CTRL)
    page = main_window.pages["anonymize"]
    assert page.photo.id == photo_id and page.view_label.text().startswith("READ-ONLY")
    for act in (page.page_actions.act_import, page.page_actions.act_detect, page.page_actions.act_release_all,
                page.page_actions.tool_actions["rect"], page.page_actions.tool_actions["crop"]):
        assert not act.isEnabled(), act.text()
    canvas = page.canvas
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key.Key_R)  # the drawing tool is off
    assert page.viewer.tool == "select"
    drag(canvas, (40, 35), (90, 80))  # the region cannot be dragged
    qtbot.keyClick(canvas, Qt.Key.Key_Return, CTRL)  # mark reviewed
    qtbot.keyClick(canvas, Qt.Key.Key_BracketRight)  # rotate
    page.jobs.release_current(tmp_path / "out")
    assert [t for t, _ in messages] == ["Project is read-only"] * 3
    assert all(path.name in text and "read-only" in text for _, text in messages)
    assert "Mark reviewed" in messages[0][1] and "Release a.png" in messages[2][1]
    photo = repo.get_photo(main_window.project, photo_id)
    assert photo.status == "new" and photo.geometry.rot90 == 0
    (region,) = repo.regions(main_window.project, photo_id)
    assert (region.x, region.y) == (20, 20)
    assert not page.editor.stack.can_undo() and not (tmp_path / "out").exists()


def test_refused_edit_is_reported_and_not_kept_for_undo(main_window: MainWindow, qtbot,
                                                        tmp_path: Path, monkeypatch) -> None:
    (photo_id,) = open_with_photos(main_window, tmp_path, _photo(tmp_path / "in", "a.png"))
    project = main_window.project
    region_id = repo.add_region(project, photo_id, x=20, y=20, w=40, h=30)
    messages: list[tuple[str, str]] = []
    monkeypatch.setattr(main_window.context, "message", lambda t, x: messages.append((t, x)))
    monkeypatch.setattr(main_window.context, "refuse", lambda t, x: messages.append((t, x)))
    qtbot.keyClick(main_window, Qt.Key.Key_2, CTRL)
    page = main_window.pages["anonymize"]
    page.reload()
    page.panel.select_region(region_id)
    assert page.panel.kind.isEnabled()
    repo.delete_region(project, region_id)  # e.g. a detection job replaced it meanwhile
    combo = page.panel.kind
    combo.setFocus()
    qtbot.keyClick(combo, Qt.Key.Key_Down)  # face -> plate: the edit reaches core
    assert messages and messages[0][0] == "Edit not saved"
    assert f"no region {region_id}" in messages[0][1]
    assert not page.editor.stack.can_undo() and not page.page_actions.act_undo.isEnabled()
    assert repo.regions(project, photo_id) == []


def test_delete_key_in_the_region_list_deletes_the_selected_region(
        main_window: MainWindow, qtbot, tmp_path: Path) -> None:
    """'Delete region' says "(Delete)": the key did nothing in the region list, where the
    region was just picked; it works there as on the canvas, and Ctrl+Z brings it back."""
    (photo_id,) = open_with_photos(main_window, tmp_path, _photo(tmp_path / "in", "a.png"))
    project = main_window.project
    repo.add_region(project, photo_id, x=20, y=20, w=40, h=30)
    repo.add_region(project, photo_id, x=100, y=60, w=40, h=30)
    qtbot.keyClick(main_window, Qt.Key.Key_2, CTRL)
    page = main_window.pages["anonymize"]
    page.reload()
    regions = page.panel.region_list
    qtbot.waitUntil(lambda: regions.count() == 2)
    regions.setFocus()
    regions.setCurrentRow(1)
    kept = repo.regions(project, photo_id)[0].id
    qtbot.keyClick(regions, Qt.Key.Key_Delete)
    assert [r.id for r in repo.regions(project, photo_id)] == [kept]
    qtbot.keyClick(regions, Qt.Key.Key_Z, CTRL)
    assert len(repo.regions(project, photo_id)) == 2


def test_undo_is_disabled_and_says_why_once_the_photo_is_released(
        main_window: MainWindow, qtbot, tmp_path: Path, monkeypatch) -> None:
    """Released photos are frozen: Undo of their 'Mark reviewed' would be refused, so the
    action is off with the reason, not on and answering with a refusal each press."""
    first, second = open_with_photos(main_window, tmp_path, _photo(tmp_path / "in", "a.png"),
                                     _photo(tmp_path / "in", "b.png", 300))
    main_window.resize(1300, 850)
    messages: list[tuple[str, str]] = []
    monkeypatch.setattr(main_window.context, "message", lambda t, x: messages.append((t, x)))
    monkeypatch.setattr(main_window.context, "refuse", lambda t, x: messages.append((t, x)))
    qtbot.keyClick(main_window, Qt.Key.Key_2, CTRL)
    page = main_window.pages["anonymize"]
    project = main_window.project
    undo, redo = page.page_actions.act_undo, page.page_actions.act_redo
    canvas = page.canvas
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key.Key_Return, CTRL)  # mark reviewed
    assert repo.get_photo(project, first).status == "reviewed"
    assert undo.isEnabled() and "Mark reviewed" in undo.toolTip()
    job = page.jobs.release_current(tmp_path / "out")
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=60_000)
    assert repo.get_photo(project, first).status == "released"
    qtbot.waitUntil(lambda: not undo.isEnabled(), timeout=5_000)
    assert "released" in undo.toolTip() and "Mark reviewed" in undo.toolTip()
    assert "released" in undo.statusTip()
    qtbot.keyClick(canvas, Qt.Key.Key_Z, CTRL)  # a disabled action: no refusal message
    assert messages == [] and repo.get_photo(project, first).status == "released"
    # an edit of another photo is undoable again; once undone, Undo is off again
    qtbot.keyClick(canvas, Qt.Key.Key_PageDown)
    assert page.photo.id == second
    qtbot.keyClick(canvas, Qt.Key.Key_R)
    drag(canvas, (40, 40), (120, 120))
    assert len(repo.regions(project, second)) == 1
    assert undo.isEnabled() and not redo.isEnabled()
    qtbot.keyClick(canvas, Qt.Key.Key_Z, CTRL)
    assert repo.regions(project, second) == []
    assert redo.isEnabled() and "Redo: Add" in redo.toolTip()
    assert not undo.isEnabled() and "released" in undo.toolTip()
    assert messages == []


def test_ctrl_y_redoes_as_in_curate(main_window: MainWindow, qtbot, tmp_path: Path) -> None:
    """Curate's Redo answers Ctrl+Shift+Z and Ctrl+Y; Anonymize's answered only the first,
    so a user used to Ctrl+Y found Redo dead in one workspace."""
    (photo_id,) = open_with_photos(main_window, tmp_path, _photo(tmp_path / "in", "a.png"))
    project = main_window.project
    repo.add_region(project, photo_id, x=20, y=20, w=40, h=30)
    qtbot.keyClick(main_window, Qt.Key.Key_2, CTRL)
    page = main_window.pages["anonymize"]
    page.reload()
    regions = page.panel.region_list
    qtbot.waitUntil(lambda: regions.count() == 1)
    regions.setFocus()
    regions.setCurrentRow(0)
    qtbot.keyClick(regions, Qt.Key.Key_Delete)
    assert repo.regions(project, photo_id) == []
    qtbot.keyClick(regions, Qt.Key.Key_Z, CTRL)
    assert len(repo.regions(project, photo_id)) == 1
    qtbot.keyClick(page.canvas, Qt.Key.Key_Y, CTRL)
    assert repo.regions(project, photo_id) == []
