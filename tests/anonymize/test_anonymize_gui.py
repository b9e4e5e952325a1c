"""Anonymize workspace through pytest-qt: draw, undo, review, release, corners, banner."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from anon_helpers import need_centerface, need_testdata, quadrant_image  # noqa: E402
from PIL import Image  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from qt_helpers import drag, open_with_photos  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from core.imaging import photos as repo  # noqa: E402
from core.imaging.loading import load_rgb  # noqa: E402
from core.imaging.release import metadata_found  # noqa: E402


@pytest.fixture
def window(main_window: MainWindow) -> MainWindow:
    main_window.resize(1300, 850)
    return main_window


def _open_with_photo(window: MainWindow, tmp_path: Path, photo: Path) -> int:
    (photo_id,) = open_with_photos(window, tmp_path, photo)
    return photo_id


def test_empty_state_without_project(window: MainWindow, qtbot) -> None:
    page = window.pages["anonymize"]
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    assert window.stack.currentWidget() is page
    assert page.stack.currentWidget() is page.empty
    assert "&Anonymize" in [a.text() for a in window.menuBar().actions()]


def test_draw_undo_review_and_release(window: MainWindow, qtbot, tmp_path: Path) -> None:
    rgb = quadrant_image(320, 200)
    src = tmp_path / "garden.png"
    Image.fromarray(rgb).save(src)
    photo_id = _open_with_photo(window, tmp_path, src)
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    page = window.pages["anonymize"]
    assert page.stack.currentWidget() is page.main and page.photo.id == photo_id
    project = window.project
    canvas = page.canvas
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key.Key_R)
    assert page.viewer.tool == "rect"
    drag(canvas, (100, 40), (180, 120))
    regions = repo.regions(project, photo_id)
    assert len(regions) == 1
    r = regions[0]
    assert (r.x, r.y, r.w, r.h) == pytest.approx((100, 40, 80, 80), abs=2)
    qtbot.keyClick(canvas, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert repo.regions(project, photo_id) == []
    qtbot.keyClick(canvas, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier
                   | Qt.KeyboardModifier.ShiftModifier)
    (r,) = repo.regions(project, photo_id)
    # move it with the select tool: drag from its middle
    qtbot.keyClick(canvas, Qt.Key.Key_V)
    drag(canvas, (140, 80), (150, 90))
    (moved,) = repo.regions(project, photo_id)
    assert (moved.x, moved.y) == pytest.approx((r.x + 10, r.y + 10), abs=2)
    page.panel.region_method.setCurrentIndex(page.panel.region_method.findData("fill"))
    page.panel.region_method.activated.emit(page.panel.region_method.currentIndex())
    assert repo.regions(project, photo_id)[0].method == "fill"
    qtbot.keyClick(canvas, Qt.Key.Key_B)
    assert page.viewer.after and page.view_label.text().startswith("AFTER")
    qtbot.keyClick(canvas, Qt.Key.Key_B)
    assert page.panel.release_button.isEnabled() is False
    qtbot.keyClick(canvas, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert repo.get_photo(project, photo_id).status == "reviewed"
    assert page.panel.release_button.isEnabled()
    job = page.jobs.release_current(tmp_path / "released")
    # the photo is marked released inside the job; the job ends a moment later
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=60_000)
    assert job.outcome == "done"
    assert repo.get_photo(project, photo_id).status == "released"
    out = tmp_path / "released" / f"photo-{photo_id:05d}.png"  # ADR 164
    data = out.read_bytes()
    assert metadata_found(data) == []
    released = load_rgb(out)
    m = repo.regions(project, photo_id)[0]
    x0, y0, x1, y1 = int(m.x), int(m.y), int(m.x + m.w), int(m.y + m.h)
    assert (released[y0 + 1:y1 - 1, x0 + 1:x1 - 1] == 0).all()  # solid fill
    outside = np.ones(rgb.shape[:2], bool)
    outside[y0 - 1:y1 + 2, x0 - 1:x1 + 2] = False
    assert np.array_equal(released[outside], rgb[outside])
    qtbot.waitUntil(lambda: "Released" in page.panel.release_info.text(), timeout=5_000)
    edits = project.conn.execute("SELECT count(*) FROM audit_log WHERE action='edit' AND "
                                 "entity='photo_region'").fetchone()[0]
    assert edits >= 4  # add, delete (undo), add (redo), move, method


def test_delete_key_and_corner_drag(window: MainWindow, qtbot, tmp_path: Path) -> None:
    src = tmp_path / "painting.png"
    Image.fromarray(quadrant_image(300, 200)).save(src)
    photo_id = _open_with_photo(window, tmp_path, src)
    project = window.project
    repo.add_region(project, photo_id, x=20, y=20, w=40, h=30)
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    page = window.pages["anonymize"]
    page.reload()
    canvas = page.canvas
    canvas.setFocus()
    (rid,) = [r.id for r in repo.regions(project, photo_id)]
    canvas.select_region(rid)
    qtbot.keyClick(canvas, Qt.Key.Key_Delete)
    assert repo.regions(project, photo_id) == []
    qtbot.keyClick(canvas, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert len(repo.regions(project, photo_id)) == 1
    qtbot.keyClick(canvas, Qt.Key.Key_K)
    assert len(canvas.corner_items) == 4 and all(c.isVisible() for c in canvas.corner_items)
    drag(canvas, (300, 200), (270, 180))  # bottom-right corner inwards
    quad = repo.get_photo(project, photo_id).geometry.quad
    assert quad is not None and quad[2] == pytest.approx((270, 180), abs=3)
    assert quad[0] == pytest.approx((0, 0))
    qtbot.keyClick(canvas, Qt.Key.Key_BracketRight)
    assert repo.get_photo(project, photo_id).geometry.rot90 == 1
    page.viewer.toggle_after()
    assert canvas.scene().sceneRect().width() < canvas.scene().sceneRect().height()


def test_missing_model_banner_offers_fallback(window: MainWindow, qtbot, tmp_path: Path,
                                             monkeypatch) -> None:
    monkeypatch.setenv("WINNOW_CENTERFACE_MODEL", str(tmp_path / "missing.onnx"))
    src = tmp_path / "a.png"
    Image.fromarray(quadrant_image()).save(src)
    _open_with_photo(window, tmp_path, src)
    page = window.pages["anonymize"]
    assert not page.detector.isHidden()
    assert "not installed" in page.detector.text.text()
    messages: list[str] = []
    window.refusal_shown.connect(messages.append)
    assert page.jobs.detect_current() is None  # refuses to silently detect nothing
    assert "not installed" in messages[-1]
    qtbot.mouseClick(page.detector.button, Qt.MouseButton.LeftButton)
    assert page.detector.settings.face_detector == "hog" and page.detector.button.isHidden()
    assert "fallback detector" in page.detector.text.text()


def test_detection_job_with_progress_and_cancel(window: MainWindow, qtbot,
                                                tmp_path: Path) -> None:
    need_centerface()
    faces_dir = need_testdata("faces")
    photo_id = _open_with_photo(window, tmp_path, faces_dir / "2008_001009.jpg")
    page = window.pages["anonymize"]
    job = page.jobs.detect_current()
    assert window.jobs_panel.rows[0].job is job  # listed with its progress
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=60_000)
    assert job.outcome == "done"
    faces = [r for r in repo.regions(window.project, photo_id) if r.kind == "face"]
    assert len(faces) >= 2 and all(r.source == "centerface" and r.score for r in faces)
    qtbot.waitUntil(lambda: page.panel.region_list.count() == len(
        repo.regions(window.project, photo_id)), timeout=5_000)
    for name in ("2008_002470.jpg", "2008_002506.jpg", "2009_004587.jpg"):
        repo.import_photo(window.project, faces_dir / name)
    job = page.jobs.detect_all()
    job.state.cancel()
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=60_000)
    assert job.outcome == "cancelled"


def test_detection_settings_dialog_round_trip(window: MainWindow) -> None:
    from core.imaging.detect import DetectSettings
    from ui.anonymize.settings_dialog import (
        DetectSettingsDialog,
        load_settings,
        save_settings,
    )

    dialog = DetectSettingsDialog(DetectSettings(), window)
    dialog.spins["face_threshold"].setValue(0.45)
    dialog.spins["min_face_px"].setValue(32)
    dialog.detector.setCurrentText("centerface+hog")
    dialog.plates.setChecked(False)
    edited = dialog.result_settings()
    save_settings(edited)
    loaded = load_settings()
    assert loaded == edited and loaded.face_threshold == 0.45 and not loaded.plates
    assert loaded.min_face_px == 32 and loaded.face_detector == "centerface+hog"
    dialog._defaults()
    assert dialog.result_settings() == DetectSettings()


def test_region_list_says_who_found_each_region(window: MainWindow, qtbot,
                                                tmp_path: Path) -> None:
    from core.imaging.boxes import Detection

    src = tmp_path / "street.png"
    Image.fromarray(quadrant_image(320, 200)).save(src)
    photo_id = _open_with_photo(window, tmp_path, src)
    repo.replace_detections(window.project, photo_id, [
        Detection("plate", 10, 10, 60, 20, 0.97, "pp-ocr-read+pp-ocr-text"),
        Detection("face", 150, 40, 50, 60, 0.81, "centerface")])
    repo.add_region(window.project, photo_id, kind="face", x=200, y=100, w=40, h=40)
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    page = window.pages["anonymize"]
    page.reload()  # regions written outside the page (as a detection job's are)
    items = page.panel.region_list
    qtbot.waitUntil(lambda: items.count() == 3, timeout=5_000)
    texts = [items.item(i).text() for i in range(items.count())]
    assert any("plate · plate shape read + text found 0.97" in t for t in texts), texts
    assert any("face · face detector 0.81" in t for t in texts), texts
    assert any("face · drawn by hand" in t for t in texts), texts
    assert not any("pp-ocr" in t or "centerface" in t for t in texts), texts
    tips = [items.item(i).toolTip() for i in range(items.count())]
    assert any("Detector: pp-ocr-read+pp-ocr-text" in t for t in tips), tips
