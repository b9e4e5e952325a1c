"""Anonymize workspace through pytest-qt: Release all reviewed (+ cancel), corner resize."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from anon_helpers import quadrant_image  # noqa: E402
from PIL import Image  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QFileDialog, QMessageBox  # noqa: E402
from qt_helpers import drag, open_with_photos  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from core.imaging import photos as repo  # noqa: E402
from core.imaging.loading import load_rgb  # noqa: E402
from core.imaging.release import metadata_found  # noqa: E402

CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def window(main_window: MainWindow) -> MainWindow:
    main_window.resize(1300, 850)
    return main_window


def _photos(tmp_path: Path, names: list[str]) -> list[Path]:
    folder = tmp_path / "in"
    folder.mkdir()
    paths = []
    for i, name in enumerate(names):
        Image.fromarray(quadrant_image(200 + 8 * i, 120)).save(folder / name)
        paths.append(folder / name)
    return paths


def _page(window: MainWindow, qtbot):  # type: ignore[no-untyped-def]
    qtbot.keyClick(window, Qt.Key.Key_2, CTRL)
    page = window.pages["anonymize"]
    page.reload()
    page.canvas.setFocus()
    return page


def _choose_folder(monkeypatch, folder: Path) -> list[str]:  # type: ignore[no-untyped-def]
    """Answer the folder dialog with ``folder``; returns the captions it was asked with."""
    asked: list[str] = []

    def answer(_parent, caption: str = "", _start: str = "", *_a, **_k) -> str:
        asked.append(caption)
        return str(folder)

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(answer))
    return asked


def test_release_all_reviewed_from_the_keyboard(window: MainWindow, qtbot, tmp_path: Path,
                                                monkeypatch) -> None:
    paths = _photos(tmp_path, ["alpha.png", "beta.png", "gamma.png"])
    ids = open_with_photos(window, tmp_path, *paths)
    project = window.project
    window.pages["anonymize"].detector.settings.face_detector = "hog"  # fast verification
    for photo_id in ids:
        repo.add_region(project, photo_id, kind="face", x=20, y=20, w=40, h=40,
                        method="fill")
    repo.set_status(project, ids[0], "reviewed")
    repo.set_status(project, ids[2], "reviewed")
    page = _page(window, qtbot)
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Anonymize")
    assert "Release All Reviewed…" in [a.text() for a in menu.actions()]
    out = tmp_path / "released"
    asked = _choose_folder(monkeypatch, out)
    jobs_before = len(window.runner.jobs)
    qtbot.keyClick(page.canvas, Qt.Key.Key_R, CTRL | SHIFT)
    assert asked and "Release all" in asked[0]
    assert len(window.runner.jobs) == jobs_before + 1  # one background job for all
    job = window.runner.jobs[-1]
    qtbot.waitUntil(lambda: page.jobs.last_bulk is not None, timeout=60_000)
    assert job.outcome == "done" and job.state.total == 2 and job.state.done == 2
    names = {"alpha.png": f"photo-{ids[0]:05d}.png", "gamma.png": f"photo-{ids[2]:05d}.png"}
    assert sorted(p.name for p in out.iterdir()) == sorted(names.values())  # ADR 164
    for name in ("alpha.png", "gamma.png"):
        assert metadata_found((out / names[name]).read_bytes()) == []
        released = load_rgb(out / names[name])
        assert (released[22:58, 22:58] == 0).all()  # the region is filled
        original = load_rgb(tmp_path / "in" / name)
        assert np.array_equal(released[70:, 100:], original[70:, 100:])
    statuses = [repo.get_photo(project, i).status for i in ids]
    assert statuses == ["released", "new", "released"]
    box = page.jobs._box
    assert isinstance(box, QMessageBox) and box.isVisible()
    assert box.icon() == QMessageBox.Icon.Information
    assert box.textFormat() == Qt.TextFormat.PlainText
    text = box.text()
    assert text.startswith("Released 2 photos into")
    assert "Skipped 1 not marked reviewed" in text and "beta.png" in text
    assert "alpha.png" not in text  # only photos that need attention are named
    assert "⇪  alpha.png" in page.list.item(0).text()  # the list shows the new status


def test_release_all_cancel_between_photos(window: MainWindow, qtbot, tmp_path: Path,
                                           monkeypatch) -> None:
    paths = _photos(tmp_path, ["a.png", "b.png", "c.png", "d.png"])
    ids = open_with_photos(window, tmp_path, *paths)
    project = window.project
    window.pages["anonymize"].detector.settings.face_detector = "hog"
    for photo_id in ids:
        repo.set_status(project, photo_id, "reviewed")
    page = _page(window, qtbot)
    # press Cancel (as the Jobs panel does) once the first photo is written: the job's
    # state is handed to the runner's listeners before the work starts
    window.runner.listeners.append(lambda job: job.state.subscribe(
        lambda s: s.cancel() if s.done == 1 and not s.cancelled() else None))
    out = tmp_path / "released"
    job = page.jobs.release_all(out)
    qtbot.waitUntil(lambda: page.jobs.last_bulk is not None, timeout=60_000)
    assert job.outcome == "cancelled"
    # nothing half-written either (released names: ADR 164)
    assert [p.name for p in out.iterdir()] == [f"photo-{ids[0]:05d}.png"]
    assert [repo.get_photo(project, i).status for i in ids] == \
        ["released", "reviewed", "reviewed", "reviewed"]
    assert page.jobs._box.text().startswith("Cancelled: released 1 of 4 reviewed photos")
    assert "3 not released" in page.jobs._box.text()


def test_release_all_with_nothing_reviewed_says_so(window: MainWindow, qtbot,
                                                   tmp_path: Path, monkeypatch) -> None:
    open_with_photos(window, tmp_path, *_photos(tmp_path, ["a.png", "b.png"]))
    page = _page(window, qtbot)
    asked = _choose_folder(monkeypatch, tmp_path / "out")
    messages: list[str] = []
    window.refusal_shown.connect(messages.append)
    qtbot.keyClick(page.canvas, Qt.Key.Key_R, CTRL | SHIFT)
    assert asked == [] and not (tmp_path / "out").exists()
    assert messages and "No photo is marked reviewed (2 still to review)" in messages[-1]


def test_resize_region_by_its_corner_then_undo(window: MainWindow, qtbot,
                                               tmp_path: Path) -> None:
    (src,) = _photos(tmp_path, ["street.png"])
    (photo_id,) = open_with_photos(window, tmp_path, src)
    project = window.project
    rid = repo.add_region(project, photo_id, x=60, y=30, w=60, h=40)
    page = _page(window, qtbot)
    canvas = page.canvas
    qtbot.keyClick(canvas, Qt.Key.Key_V)
    canvas.select_region(rid)
    audit_before = project.conn.execute("SELECT max(id) FROM audit_log").fetchone()[0]
    drag(canvas, (60, 30), (40, 15))  # top-left handle: x, y, w and h all change
    r = repo.regions(project, photo_id)[0]
    assert (r.x, r.y, r.w, r.h) == pytest.approx((40, 15, 80, 55), abs=1.5)
    rows = project.conn.execute(
        "SELECT action, entity, entity_id, field, old, new FROM audit_log WHERE id > ? "
        "AND entity = 'photo_region'", (audit_before,)).fetchall()
    changed = {row[3]: (json.loads(row[4]), json.loads(row[5])) for row in rows}
    assert all(row[:3] == ("edit", "photo_region", str(rid)) for row in rows)
    assert set(changed) == {"x", "y", "w", "h"}
    assert changed["w"][0] == pytest.approx(60) and changed["w"][1] == pytest.approx(80,
                                                                                    abs=1.5)
    canvas.select_region(rid)
    drag(canvas, (120, 70), (140, 90))  # bottom-right handle: only w and h change
    r = repo.regions(project, photo_id)[0]
    assert (r.x, r.y, r.w, r.h) == pytest.approx((40, 15, 100, 75), abs=2)
    qtbot.keyClick(canvas, Qt.Key.Key_Z, CTRL)
    r = repo.regions(project, photo_id)[0]
    assert (r.x, r.y, r.w, r.h) == pytest.approx((40, 15, 80, 55), abs=1.5)
    qtbot.keyClick(canvas, Qt.Key.Key_Z, CTRL)
    r = repo.regions(project, photo_id)[0]
    assert (r.x, r.y, r.w, r.h) == pytest.approx((60, 30, 60, 40))
    item = canvas.region_items[rid]  # the canvas shows the restored box
    assert item.scene_rect().getRect() == pytest.approx((60, 30, 60, 40))


def test_release_shortcut_asks_for_the_folder(window: MainWindow, qtbot, tmp_path: Path,
                                              monkeypatch) -> None:
    (src,) = _photos(tmp_path, ["one.png"])
    (photo_id,) = open_with_photos(window, tmp_path, src)
    window.pages["anonymize"].detector.settings.face_detector = "hog"
    repo.set_status(window.project, photo_id, "reviewed")
    page = _page(window, qtbot)
    out = tmp_path / "chosen"
    asked = _choose_folder(monkeypatch, out)
    qtbot.keyClick(page.canvas, Qt.Key.Key_R, CTRL)  # QAction passes checked=False along
    assert asked == ["Release into folder"]
    released = out / f"photo-{photo_id:05d}.png"  # ADR 164
    qtbot.waitUntil(released.exists, timeout=60_000)
    assert metadata_found(released.read_bytes()) == []
