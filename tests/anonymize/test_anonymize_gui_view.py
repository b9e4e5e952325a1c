"""Anonymize view gaps of issue 14 item 10: After without outlines, labels that never
overlap, an empty region editor, a toolbar that fits 1024 px, a panel that scrolls
without editing, undo conflicts reported."""

from __future__ import annotations

import itertools
import random
import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from anon_helpers import quadrant_image  # noqa: E402
from PIL import Image  # noqa: E402
from PySide6.QtCore import QPoint, QPointF, QRectF, Qt  # noqa: E402
from PySide6.QtGui import QWheelEvent  # noqa: E402
from PySide6.QtWidgets import QApplication, QToolButton  # noqa: E402
from qt_helpers import drag, open_with_photos  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from core.imaging import photos as repo  # noqa: E402
from ui.anonymize.labels import place_labels  # noqa: E402

CTRL = Qt.KeyboardModifier.ControlModifier


def _page(window: MainWindow, tmp_path: Path, width: int = 800, height: int = 600):  # type: ignore[no-untyped-def]
    folder = tmp_path / "in"
    folder.mkdir(exist_ok=True)
    src = folder / "crowd.png"
    Image.fromarray(quadrant_image(width, height)).save(src)
    (photo_id,) = open_with_photos(window, tmp_path, src)
    window.nav.setCurrentRow(1)
    page = window.pages["anonymize"]
    return page, photo_id


def _crowd(project, photo_id: int) -> list[int]:  # type: ignore[no-untyped-def]
    """40 faces in a tight grid, as in a group photo."""
    return [repo.add_region(project, photo_id, kind="face", shape="ellipse",
                            x=40 + 85 * col, y=60 + 62 * row, w=60, h=48)
            for row in range(5) for col in range(8)]


def _label_rects(page) -> dict[int, QRectF]:  # type: ignore[no-untyped-def]
    """Visible labels in viewport pixels, by region id."""
    canvas = page.canvas
    out = {}
    for rid, item in canvas.region_items.items():
        if item.label.isVisible():
            transform = item.label.deviceTransform(canvas.viewportTransform())
            out[rid] = transform.mapRect(item.label.boundingRect())
    return out


def _no_overlap(rects: list[QRectF]) -> bool:
    return not any(a.intersects(b) for a, b in itertools.combinations(rects, 2))


def test_labels_never_overlap_on_a_crowded_photo(main_window: MainWindow, qtbot,
                                                 tmp_path: Path) -> None:
    main_window.resize(1280, 800)
    page, photo_id = _page(main_window, tmp_path)
    ids = _crowd(main_window.project, photo_id)
    page.reload()
    qtbot.wait(50)
    rects = _label_rects(page)
    assert len(rects) >= 20 and _no_overlap(list(rects.values()))
    hidden = set(ids) - set(rects)
    for rid in hidden:  # a label with no room still tells its name on hover
        assert page.canvas.region_items[rid].toolTip() == f"#{rid} face"
    middle = ids[len(ids) // 2 + 3]
    page.panel.select_region(middle)
    page.panel.region_selected.emit(middle)
    rects = _label_rects(page)
    assert middle in rects and _no_overlap(list(rects.values()))  # the selected one shows
    page.canvas.zoom(3.0)  # zoomed in there is room for every label near the view
    assert _no_overlap(list(_label_rects(page).values()))


def test_label_placement_rules() -> None:
    rng = random.Random(7)
    for _ in range(30):
        boxes = [(rng.uniform(0, 600), rng.uniform(0, 400), rng.uniform(8, 80),
                  rng.uniform(8, 60)) for _ in range(rng.randint(1, 60))]
        sizes = [(rng.uniform(30, 70), 16.0) for _ in boxes]
        spots = place_labels(boxes, sizes, (0, 0, 700, 480), first=0)
        placed = [(x, y, w, h) for (x, y), (w, h) in
                  ((s, size) for s, size in zip(spots, sizes, strict=True) if s is not None)]
        assert spots[0] is not None  # the selected region always has its label
        for a, b in itertools.combinations(placed, 2):
            assert not (a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3]
                        and b[1] < a[1] + a[3])
    # an uncrowded region gets its label just above its top-left corner
    assert place_labels([(100, 100, 50, 40)], [(40, 16)], (0, 0, 500, 500)) == [(100, 84)]
    # at the top of the photo it goes below instead of off the photo
    assert place_labels([(100, 0, 50, 40)], [(40, 16)], (0, 0, 500, 500)) == [(100, 40)]


def test_after_view_hides_outlines_and_labels(main_window: MainWindow, qtbot,
                                              tmp_path: Path) -> None:
    main_window.resize(1280, 800)
    page, photo_id = _page(main_window, tmp_path)
    _crowd(main_window.project, photo_id)
    page.reload()
    assert len(page.canvas.region_items) == 40
    page.canvas.setFocus()
    qtbot.keyClick(page.canvas, Qt.Key.Key_B)
    assert page.viewer.after and page.canvas.region_items == {}
    assert "outlines hidden" in page.view_label.text()
    pixels = page.canvas.image_item.pyramid
    assert pixels is not None and pixels.full  # a small photo renders at once
    qtbot.keyClick(page.canvas, Qt.Key.Key_B)
    assert not page.viewer.after and len(page.canvas.region_items) == 40


def test_region_editor_is_empty_and_disabled_with_nothing_selected(
        main_window: MainWindow, qtbot, tmp_path: Path) -> None:
    page, photo_id = _page(main_window, tmp_path)
    rid = repo.add_region(main_window.project, photo_id, kind="plate", x=10, y=10, w=50, h=20)
    page.reload()
    panel = page.panel
    for combo in (panel.kind, panel.shape, panel.region_method):
        assert combo.currentText() == "" and not combo.isEnabled()
        assert combo.placeholderText() == "select a region"  # says why it is empty
    panel.select_region(rid)
    assert panel.kind.currentText() == "plate" and panel.kind.isEnabled()
    assert panel.shape.currentData() == "rect"
    panel.select_region(None)
    assert panel.kind.currentText() == "" and not panel.delete_button.isEnabled()


@pytest.mark.parametrize("width", [1024, 1120])
def test_toolbar_fits_a_narrow_window(main_window: MainWindow, qtbot, tmp_path: Path,
                                      width: int) -> None:
    page, photo_id = _page(main_window, tmp_path)
    for _ in range(2):  # the window's minimum follows the page shown one turn later
        qtbot.wait(50)
        main_window.resize(width, 700)
    qtbot.wait(50)
    assert main_window.width() == width
    toolbar = page.page_actions.toolbar
    assert toolbar.width() <= page.width()
    overflow = []
    for action in toolbar.actions():
        if action.isSeparator():
            continue
        button = toolbar.widgetForAction(action)
        if button.isVisible():
            assert toolbar.rect().contains(button.geometry()), action.text()
        else:
            overflow.append(action)
    extension = [b for b in toolbar.findChildren(QToolButton)
                 if b.objectName() == "qt_toolbar_ext_button"]
    assert not overflow or (extension and extension[0].isVisible())
    # an edit does not stretch the Undo button: its label stays short
    page.canvas.setFocus()
    qtbot.keyClick(page.canvas, Qt.Key.Key_R)
    drag(page.canvas, (40, 40), (120, 100))
    undo = page.page_actions.act_undo
    assert undo.isEnabled() and undo.iconText() == "Undo"
    assert undo.toolTip() == "Undo: Add other region (Ctrl+Z)"
    assert main_window.width() == width


def test_scrolling_the_panel_never_edits_the_photo(main_window: MainWindow, qtbot,
                                                   tmp_path: Path) -> None:
    main_window.resize(1280, 700)
    page, photo_id = _page(main_window, tmp_path)
    combo = page.panel.method
    assert not combo.hasFocus()
    centre = QPointF(combo.width() / 2, combo.height() / 2)
    for _ in range(3):
        wheel = QWheelEvent(centre, combo.mapToGlobal(centre), QPoint(0, 0), QPoint(0, -120),
                            Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                            Qt.ScrollPhase.NoScrollPhase, False)
        QApplication.sendEvent(combo, wheel)
    assert combo.currentData() == "blur"
    assert repo.get_photo(main_window.project, photo_id).method == "blur"
    assert not page.editor.stack.can_undo()


def test_undo_of_a_region_changed_elsewhere_is_refused_with_a_message(
        main_window: MainWindow, qtbot, tmp_path: Path, monkeypatch) -> None:
    main_window.resize(1280, 800)
    page, photo_id = _page(main_window, tmp_path)
    messages: list[tuple[str, str]] = []
    monkeypatch.setattr(main_window.context, "message", lambda t, x: messages.append((t, x)))
    monkeypatch.setattr(main_window.context, "refuse", lambda t, x: messages.append((t, x)))
    page.canvas.setFocus()
    qtbot.keyClick(page.canvas, Qt.Key.Key_R)
    drag(page.canvas, (40, 40), (120, 100))
    (region,) = repo.regions(main_window.project, photo_id)
    with sqlite3.connect(main_window.project.path) as other:  # a second tool edits it
        other.execute("UPDATE photo_regions SET w = 11 WHERE id = ?", (region.id,))
    qtbot.keyClick(page.canvas, Qt.Key.Key_Z, CTRL)
    assert messages and messages[-1][0] == "Cannot undo"
    assert "changed elsewhere" in messages[-1][1]
    assert repo.get_region(main_window.project, region.id).w == 11  # their edit is kept
    assert page.editor.stack.can_undo()


def test_after_view_without_opencv_says_so(main_window: MainWindow, qtbot, tmp_path: Path,
                                           monkeypatch) -> None:
    import builtins

    page, photo_id = _page(main_window, tmp_path)
    repo.add_region(main_window.project, photo_id, x=10, y=10, w=50, h=40)
    page.reload()
    messages: list[tuple[str, str]] = []
    monkeypatch.setattr(main_window.context, "message", lambda t, x: messages.append((t, x)))
    monkeypatch.setattr(main_window.context, "refuse", lambda t, x: messages.append((t, x)))
    real_import = builtins.__import__

    def no_cv2(name, *args, **kwargs):  # type: ignore[no-untyped-def]
        if name == "cv2":
            raise ImportError("No module named 'cv2'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_cv2)
    page.viewer.set_after(True)  # no traceback: a message naming the photo and the cause
    assert messages == [("Cannot show the release", "crowd.png: No module named 'cv2'")]
    assert page.canvas.image_item.pyramid is None and page.viewer.after


def test_escape_drops_a_half_drawn_region_then_leaves_the_drawing_tool(
        main_window: MainWindow, qtbot, tmp_path: Path) -> None:
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QMouseEvent

    main_window.resize(1280, 800)
    page, photo_id = _page(main_window, tmp_path)
    page.canvas.setFocus()
    qtbot.keyClick(page.canvas, Qt.Key.Key_R)
    tools = page.page_actions.tool_actions
    assert page.canvas.tool == "rect" and tools["rect"].isChecked()
    viewport = page.canvas.viewport()

    def mouse(kind: QEvent.Type, x: int, y: int, buttons: Qt.MouseButton) -> None:
        pos = QPointF(x, y)
        QApplication.sendEvent(viewport, QMouseEvent(
            kind, pos, viewport.mapToGlobal(pos), Qt.MouseButton.LeftButton, buttons,
            Qt.KeyboardModifier.NoModifier))

    mouse(QEvent.Type.MouseButtonPress, 40, 40, Qt.MouseButton.LeftButton)
    mouse(QEvent.Type.MouseMove, 120, 100, Qt.MouseButton.LeftButton)
    qtbot.keyClick(page.canvas, Qt.Key.Key_Escape)  # changed my mind mid-drag
    mouse(QEvent.Type.MouseButtonRelease, 120, 100, Qt.MouseButton.NoButton)
    qtbot.wait(20)
    assert repo.regions(main_window.project, photo_id) == []  # nothing was drawn
    assert page.canvas.tool == "rect"
    qtbot.keyClick(page.canvas, Qt.Key.Key_Escape)  # and out of the tool
    assert page.canvas.tool == "select" and tools["select"].isChecked()
