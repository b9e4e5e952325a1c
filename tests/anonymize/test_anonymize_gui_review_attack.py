"""A new photographer's review flow, attacked (ADR 201): a photo whose original went
missing or changed does not stop Detect All, and says which photo, through pytest-qt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from test_anonymize_gui_redetect import PLATE, FakeDetector, _finish, _page  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from core.imaging import photos as repo  # noqa: E402


@pytest.fixture
def detector(monkeypatch: pytest.MonkeyPatch) -> FakeDetector:
    fake = FakeDetector([PLATE])
    monkeypatch.setattr("ui.anonymize.workers.detect_all", fake)
    return fake


def test_detect_all_goes_on_past_a_missing_and_a_changed_original(
        main_window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path, detector: FakeDetector) -> None:
    page, (gone, changed, fine) = _page(main_window, qtbot, monkeypatch, tmp_path,
                                        "gone.png", "changed.png", "fine.png")
    project = main_window.project
    messages: list[tuple[str, str]] = []
    monkeypatch.setattr(main_window.context, "message", lambda t, x: messages.append((t, x)))
    monkeypatch.setattr(main_window.context, "refuse", lambda t, x: messages.append((t, x)))
    repo.original_path(project, repo.get_photo(project, gone)).unlink()  # deleted on disk
    stored = repo.original_path(project, repo.get_photo(project, changed))
    stored.chmod(0o644)
    stored.write_bytes(stored.read_bytes()[:300])  # truncated by a sync tool

    job = page.jobs.detect_all()
    _finish(qtbot, job)
    assert [len(repo.regions(project, p)) for p in (gone, changed, fine)] == [0, 0, 1]
    assert job is not None and job.state.items_failed == 2 and job.state.items_ok == 1
    [(title, text)] = messages
    assert title == "Detection failed for some photos"
    lines = text.splitlines()
    assert lines[0] == "2 photos could not be detected in (the others were):"
    assert lines[1].startswith("gone.png: original missing from the asset store")
    assert lines[2].startswith("changed.png: the original in the project's asset store "
                               "was changed")
    assert "2 photos could not be read" in main_window.statusBar().currentMessage()


def test_detect_on_a_photo_deleted_from_disk_names_it(
        main_window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path, detector: FakeDetector) -> None:
    page, (gone,) = _page(main_window, qtbot, monkeypatch, tmp_path, "gone.png")
    project = main_window.project
    messages: list[tuple[str, str]] = []
    monkeypatch.setattr(main_window.context, "message", lambda t, x: messages.append((t, x)))
    monkeypatch.setattr(main_window.context, "refuse", lambda t, x: messages.append((t, x)))
    repo.original_path(project, repo.get_photo(project, gone)).unlink()
    _finish(qtbot, page.jobs.detect_current())
    assert messages == [("Detection failed", "1 photo could not be read:\n"
                         "gone.png: original missing from the asset store")]
    assert repo.regions(project, gone) == []
