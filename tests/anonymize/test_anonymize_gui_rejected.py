"""A detection the photographer deletes on the canvas stays rejected through Ctrl+D, the
Regions box says so and restores it, and Undo walks it all back (ADR 201), through
pytest-qt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402
from test_anonymize_gui_redetect import (  # noqa: E402
    PLATE,
    FakeDetector,
    _detect_with_ctrl_d,
    _finish,
    _page,
)

from app.main_window import MainWindow  # noqa: E402
from core.imaging import photos as repo  # noqa: E402
from core.imaging.boxes import Detection  # noqa: E402
from core.imaging.rejections import rejected  # noqa: E402

FACE = Detection("face", 20, 20, 40, 50, 0.8, "centerface")


@pytest.fixture
def detector(monkeypatch: pytest.MonkeyPatch) -> FakeDetector:
    fake = FakeDetector([PLATE, FACE])
    monkeypatch.setattr("ui.anonymize.workers.detect_all", fake)
    return fake


def test_a_deleted_detection_stays_rejected_and_can_be_restored(
        main_window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path, detector: FakeDetector) -> None:
    page, (photo_id,) = _page(main_window, qtbot, monkeypatch, tmp_path, "a.png")
    project = main_window.project
    panel = page.panel
    _finish(qtbot, page.jobs.detect_current())
    face = next(r for r in repo.regions(project, photo_id) if r.kind == "face")
    assert panel.rejected_label.isHidden() and panel.restore_button.isHidden()

    page.canvas.setFocus()
    page.canvas.select_region(face.id)
    qtbot.keyClick(page.canvas, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: panel.region_list.count() == 1, timeout=5_000)
    assert not panel.rejected_label.isHidden()
    assert panel.rejected_label.text() == "1 rejected detection: Detect leaves it out"
    assert "Detect will not add it again" in main_window.statusBar().currentMessage()

    _detect_with_ctrl_d(main_window, page, qtbot)  # the detector finds the face again
    assert [r.kind for r in repo.regions(project, photo_id)] == ["plate"]
    assert "1 you rejected left out" in main_window.statusBar().currentMessage()

    menu = panel.restore_button.menu()
    assert menu is not None
    [entry] = menu.actions()
    assert entry.text().startswith(f"#{face.id}  face")
    entry.trigger()
    qtbot.waitUntil(lambda: panel.region_list.count() == 2, timeout=5_000)
    assert repo.get_region(project, face.id) == face  # the same region, the same id
    assert panel.restore_button.isHidden() and rejected(project, photo_id) == []
    assert page.viewer.selected_region == face.id

    page.editor.undo()  # Restore
    assert [r.id for r in rejected(project, photo_id)] == [face.id]
    qtbot.waitUntil(lambda: not panel.restore_button.isHidden(), timeout=5_000)
    page.editor.undo()  # the second Detect (it replaced the untouched plate)
    page.editor.undo()  # the delete: the face is back and no longer rejected
    assert repo.get_region(project, face.id) == face
    assert rejected(project, photo_id) == []
    qtbot.waitUntil(lambda: panel.restore_button.isHidden(), timeout=5_000)


def test_a_detector_name_with_an_ampersand_is_no_shortcut_mark(qtbot: Any) -> None:
    import re

    from core.imaging.photos import Photo, Region
    from ui.anonymize.panel import PhotoPanel

    panel = PhotoPanel()
    qtbot.addWidget(panel)
    photo = Photo(1, "0" * 64, "a.png", 640, 427)
    gone = Region(7, 1, "plate", "rect", 10, 10, 50, 20, source="r&d-text", score=0.5)
    panel.show_photo(photo, [], None, [gone])
    menu = panel.restore_button.menu()
    assert menu is not None
    [entry] = menu.actions()
    assert re.search(r"(?<!&)&(?!&)", entry.text()) is None  # a lone & would underline "d"
    assert "r&&d-text" in entry.text()
