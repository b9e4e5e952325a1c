"""The Regions list says which regions hide nothing (off the photo, cropped away), and a
region off the photo is brought back with one undoable click (ADR 201), via pytest-qt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from anon_helpers import quadrant_image  # noqa: E402
from PIL import Image  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from qt_helpers import open_with_photos  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from core.imaging import photos as repo  # noqa: E402
from core.imaging.geometry import Geometry  # noqa: E402


def test_a_region_off_the_photo_is_named_and_moved_back(main_window: MainWindow,
                                                        qtbot: Any, tmp_path: Path) -> None:
    src = tmp_path / "a.png"
    Image.fromarray(quadrant_image(640, 427)).save(src)
    (photo_id,) = open_with_photos(main_window, tmp_path, src)
    project = main_window.project
    assert project is not None
    off = repo.add_region(project, photo_id, kind="face", x=10, y=10, w=50, h=60)
    kept = repo.add_region(project, photo_id, kind="plate", x=100, y=300, w=80, h=30)
    with project.transaction() as conn:  # as an earlier version could leave it
        conn.execute("UPDATE photo_regions SET x = 3200 WHERE id = ?", (off,))
    repo.update_photo(project, photo_id, geometry=Geometry(crop=[0, 0, 320, 200]))
    qtbot.keyClick(main_window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    page = main_window.pages["anonymize"]
    page.reload()
    panel = page.panel
    qtbot.waitUntil(lambda: panel.region_list.count() == 2, timeout=5_000)
    texts = [panel.region_list.item(k).text() for k in range(2)]
    assert texts[0].endswith("· off the photo: hides nothing")
    assert texts[1].endswith("· cropped away")  # below the crop

    panel.select_region(kept)
    assert panel.onto_button.isHidden()  # on the photo: nothing to bring back
    panel.region_list.setCurrentRow(0)
    assert not panel.onto_button.isHidden()
    panel.onto_button.click()
    r = repo.get_region(project, off)
    assert (r.x, r.y, r.w, r.h) == (590, 10, 50, 60)
    qtbot.waitUntil(lambda: "off the photo" not in panel.region_list.item(0).text(),
                    timeout=5_000)
    assert page.editor.step_state(True) == ("Undo: Move region onto the photo", True)
    page.editor.undo()
    assert repo.get_region(project, off).x == 3200


def test_an_ellipse_drawn_past_the_edge_is_kept_whole(main_window: MainWindow, qtbot: Any,
                                                      tmp_path: Path) -> None:
    """A face cut by the photo's edge: the ellipse keeps the box as drawn (clipping the box
    would shrink the ellipse and leave the face's edge pixels in the clear; ADR 188). A
    rectangle is clipped to the photo: nothing lies beyond it."""
    from qt_helpers import drag

    src = tmp_path / "a.png"
    Image.fromarray(quadrant_image(640, 427)).save(src)
    (photo_id,) = open_with_photos(main_window, tmp_path, src)
    main_window.resize(1300, 850)
    qtbot.keyClick(main_window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    page = main_window.pages["anonymize"]
    project = main_window.project
    canvas = page.canvas
    canvas.setFocus()
    canvas.zoom(0.6)  # room around the photo to draw past its edge
    qtbot.keyClick(canvas, Qt.Key.Key_E)
    drag(canvas, (560, 340), (700, 480))
    qtbot.keyClick(canvas, Qt.Key.Key_R)
    drag(canvas, (20, 340), (-60, 480))
    ellipse, rect = repo.regions(project, photo_id)
    assert ellipse.shape == "ellipse"
    assert (ellipse.x, ellipse.y, ellipse.w, ellipse.h) == pytest.approx(
        (560, 340, 140, 140), abs=2)
    assert (rect.x, rect.y, rect.w, rect.h) == pytest.approx((0, 340, 20, 87), abs=2)
