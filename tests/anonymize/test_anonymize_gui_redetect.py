"""Detect in the Anonymize workspace keeps the user's regions and their undo history, and
is itself one undo step (ADR 189), through pytest-qt."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from anon_helpers import quadrant_image  # noqa: E402
from PIL import Image  # noqa: E402
from PySide6.QtCore import QRectF, Qt  # noqa: E402
from qt_helpers import open_with_photos  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from core.imaging import photos as repo  # noqa: E402
from core.imaging.boxes import Detection  # noqa: E402
from core.jobs import Job  # noqa: E402

PLATE = Detection("plate", 100, 200, 102, 47, 0.9, "pp-ocr-text")
FAR = Detection("face", 400, 20, 40, 50, 0.7, "centerface")


class FakeDetector:
    """Stands in for ``detect_all``: finds ``found``; with ``hold`` set, the first call
    waits until the test lets it go (a Detect All still running)."""

    def __init__(self, found: list[Detection]) -> None:
        self.found, self.hold = found, False
        self.started, self.go = threading.Event(), threading.Event()

    def __call__(self, rgb: Any, settings: Any, check: Any = None,
                 progress: Any = None) -> list[Detection]:
        if self.hold and not self.started.is_set():
            self.started.set()
            assert self.go.wait(30)
        return list(self.found)


@pytest.fixture
def detector(monkeypatch: pytest.MonkeyPatch) -> FakeDetector:
    fake = FakeDetector([PLATE])
    monkeypatch.setattr("ui.anonymize.workers.detect_all", fake)
    return fake


def _page(window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
          *names: str) -> tuple[Any, list[int]]:
    sources = []
    for k, name in enumerate(names):
        sources.append(tmp_path / name)
        Image.fromarray(quadrant_image(640, 427 + k)).save(sources[-1])  # not duplicates
    ids = open_with_photos(window, tmp_path, *sources)
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    page = window.pages["anonymize"]
    monkeypatch.setattr(page.detector, "ready", lambda: True)  # the fake needs no model
    return page, ids


def _finish(qtbot: Any, job: Job | None) -> None:
    assert job is not None
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=30_000)
    assert job.outcome == "done"
    qtbot.wait(20)  # the queued per-photo results and the done callback


def _detect_with_ctrl_d(window: MainWindow, page: Any, qtbot: Any) -> None:
    jobs: list[Job] = []
    detect = page.jobs.detect_current
    page.jobs.detect_current = lambda: jobs.append(detect()) or jobs[-1]
    page.canvas.setFocus()
    qtbot.keyClick(page.canvas, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)
    assert len(jobs) == 1, "Ctrl+D did not start a detection"
    _finish(qtbot, jobs[0])


def test_an_edited_detected_region_survives_detect_and_detect_undoes(
        main_window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path, detector: FakeDetector) -> None:
    page, (photo_id,) = _page(main_window, qtbot, monkeypatch, tmp_path, "a.png")
    project = main_window.project
    _finish(qtbot, page.jobs.detect_current())
    (region,) = repo.regions(project, photo_id)
    page.editor.move_region(region.id, QRectF(60, 180, 182, 87))  # widened by the user
    page.editor.edit_region(region.id, {"method": "fill"})
    edited = repo.get_region(project, region.id)
    assert (edited.w, edited.h, edited.method, edited.edited) == (182, 87, "fill", True)

    _detect_with_ctrl_d(main_window, page, qtbot)  # finds the same plate again
    assert repo.regions(project, photo_id) == [edited]  # kept, not doubled
    assert page.editor.step_state(True) == ("Undo: Edit region", True)  # history kept

    detector.found = [PLATE, FAR]
    _detect_with_ctrl_d(main_window, page, qtbot)
    assert len(repo.regions(project, photo_id)) == 2
    qtbot.waitUntil(lambda: page.panel.region_list.count() == 2, timeout=5_000)
    assert page.editor.step_state(True) == ("Undo: Detect in a.png", True)
    page.editor.undo()
    assert repo.regions(project, photo_id) == [edited]  # as before the detection
    page.editor.undo()
    assert repo.get_region(project, region.id).method is None  # and the edits still undo
    page.editor.redo()
    page.editor.redo()
    assert len(repo.regions(project, photo_id)) == 2


def test_detect_all_keeps_the_undo_history_of_other_photos(
        main_window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path, detector: FakeDetector) -> None:
    page, (first, second) = _page(main_window, qtbot, monkeypatch, tmp_path,
                                  "a.png", "b.png")
    project = main_window.project
    detector.hold = True
    job = page.jobs.detect_all()
    qtbot.waitUntil(detector.started.is_set, timeout=10_000)  # working on a.png
    page.list.setCurrentRow(1)
    qtbot.waitUntil(lambda: page.photo is not None and page.photo.id == second,
                    timeout=5_000)
    drawn = page.editor.add_region("rect", QRectF(10, 10, 50, 50))  # meanwhile, on b.png
    assert drawn is not None
    detector.go.set()
    _finish(qtbot, job)

    assert drawn in {r.id for r in repo.regions(project, second)}
    labels = []
    while page.editor.step_state(True)[1]:
        labels.append(page.editor.step_state(True)[0])
        page.editor.undo()
    assert labels == ["Undo: Detect in b.png", "Undo: Detect in a.png",
                      "Undo: Add other region"]  # the edit made meanwhile still undoes
    assert repo.regions(project, first) == repo.regions(project, second) == []
