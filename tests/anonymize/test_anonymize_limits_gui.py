"""Anonymize view limits (ADR 188): zoom stops at a fixed range whatever the keys or the
wheel do, the label grid costs the same at any zoom, a stored region far outside the
photo (from an earlier version) shows without harm, and a missing or changed original
is reported once per photo, naming what happened."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from anon_helpers import quadrant_image  # noqa: E402
from PIL import Image  # noqa: E402
from PySide6.QtCore import QPoint, QPointF, Qt  # noqa: E402
from PySide6.QtGui import QWheelEvent  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from qt_helpers import open_with_photos  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from core.imaging import photos as repo  # noqa: E402
from ui.anonymize.canvas import MAX_ZOOM  # noqa: E402
from ui.anonymize.labels import place_labels  # noqa: E402


def _open(window: MainWindow, qtbot, tmp_path: Path, count: int = 1):  # type: ignore[no-untyped-def]
    window.resize(1280, 800)
    folder = tmp_path / "in"
    folder.mkdir(exist_ok=True)
    paths = []
    for k in range(count):
        paths.append(folder / f"p{k}.png")
        Image.fromarray(quadrant_image(640 + k, 427)).save(paths[-1])
    ids = open_with_photos(window, tmp_path, *paths)
    window.show_workspace("anonymize")
    page = window.pages["anonymize"]
    qtbot.waitUntil(lambda: page.viewer.photo is not None, timeout=30_000)
    return page, ids


def _wheel(canvas, up: bool) -> None:  # type: ignore[no-untyped-def]
    centre = QPointF(canvas.viewport().rect().center())
    event = QWheelEvent(centre, QPointF(canvas.viewport().mapToGlobal(centre.toPoint())),
                        QPoint(), QPoint(0, 120 if up else -120), Qt.MouseButton.NoButton,
                        Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(canvas.viewport(), event)


def test_zoom_in_stops_at_the_limit_and_stays_fast(main_window: MainWindow, qtbot,
                                                   tmp_path: Path) -> None:
    page, (photo_id,) = _open(main_window, qtbot, tmp_path)
    repo.add_region(main_window.project, photo_id, kind="plate", x=300, y=200, w=102, h=47)
    page.reload()
    canvas = page.canvas
    canvas.setFocus()
    start = time.perf_counter()
    for key in [Qt.Key.Key_Plus] * 40 + [Qt.Key.Key_Equal] * 10:
        QTest.keyClick(canvas, key)
    for _ in range(20):
        _wheel(canvas, up=True)
    assert time.perf_counter() - start < 10
    assert canvas.view_scale() == pytest.approx(MAX_ZOOM)
    (item,) = canvas.region_items.values()
    assert item.label.isVisible()  # 102×47 px × 32 on screen: its label still placed


def test_zoom_out_stops_too_and_zero_fits(main_window: MainWindow, qtbot,
                                          tmp_path: Path) -> None:
    page, _ = _open(main_window, qtbot, tmp_path)
    canvas = page.canvas
    canvas.setFocus()
    QTest.keyClick(canvas, Qt.Key.Key_0)
    fitted = canvas.view_scale()
    for _ in range(60):
        QTest.keyClick(canvas, Qt.Key.Key_Minus)
    for _ in range(20):
        _wheel(canvas, up=False)
    assert canvas.view_scale() == pytest.approx(min(fitted, 1.0) / 2)
    QTest.keyClick(canvas, Qt.Key.Key_0)
    assert canvas.view_scale() == pytest.approx(fitted)


def test_label_grid_cost_does_not_grow_with_the_boxes() -> None:
    """Regions 10⁹ px across on screen (a far zoom, a huge stored region) are placed at
    once, and still keep labels off them."""
    boxes = [(-1e9, -1e9, 2e9, 2e9), (100.0, 100.0, 1e9, 1e9), (10.0, 10.0, 30.0, 20.0)]
    start = time.perf_counter()
    spots = place_labels(boxes, [(40.0, 16.0)] * 3, (0, 0, 800, 600))
    assert time.perf_counter() - start < 0.5
    assert spots[2] is not None


def test_a_stored_region_far_outside_the_photo_shows_without_harm(
        main_window: MainWindow, qtbot, tmp_path: Path) -> None:
    """A region an earlier version stored 2e9 px wide: shown clipped, zoom still fast."""
    page, (photo_id,) = _open(main_window, qtbot, tmp_path)
    project = main_window.project
    region_id = repo.add_region(project, photo_id, x=10, y=10, w=50, h=50)
    with project.transaction() as conn:
        conn.execute("UPDATE photo_regions SET x = -1e9, y = -1e9, w = 2e9, h = 2e9 "
                     "WHERE id = ?", (region_id,))
    page.reload()
    canvas = page.canvas
    rect = canvas.region_items[region_id].scene_rect()
    assert rect.width() <= 3 * 640 and rect.height() <= 3 * 427
    start = time.perf_counter()
    for _ in range(50):
        QTest.keyClick(canvas, Qt.Key.Key_Plus)
    assert time.perf_counter() - start < 10


def test_a_missing_or_changed_original_is_reported_once_per_photo(
        main_window: MainWindow, qtbot, tmp_path: Path, monkeypatch) -> None:
    page, ids = _open(main_window, qtbot, tmp_path, count=3)
    project = main_window.project
    photos = [repo.get_photo(project, i) for i in ids]
    paths = [repo.original_path(project, p) for p in photos]
    for path in paths[1:]:
        os.chmod(path, 0o644)
    os.remove(paths[1])
    paths[2].write_bytes(b"not a jpeg at all" * 10)
    messages: list[tuple[str, str]] = []
    monkeypatch.setattr(main_window.context, "message", lambda t, x: messages.append((t, x)))
    monkeypatch.setattr(main_window.context, "refuse", lambda t, x: messages.append((t, x)))
    for photo in photos[1:]:
        page.viewer.show(photo.id)
        for _ in range(3):
            page.viewer.refresh()
            page.page_actions.act_after.trigger()
            qtbot.wait(20)
        page.viewer.set_after(False)
    shown = [text for title, text in messages if title == "Cannot show photo"]
    assert len(shown) == 2, shown
    assert "missing" in shown[0] and photos[1].file_name in shown[0]
    assert "changed since it was imported" in shown[1] and photos[2].file_name in shown[1]
    assert "looks like text" not in shown[1]
    page.viewer.show(ids[0])  # another photo, then back: said again
    page.viewer.show(ids[2])
    assert len([t for t, _ in messages if t == "Cannot show photo"]) == 3
