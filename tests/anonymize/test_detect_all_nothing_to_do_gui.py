"""Detect All with nothing to do says why in a message, not only in the status bar
(ADR 207, 211): a project with no photos names Import Photo Folder, one whose photos
are all reviewed names Detect (Ctrl+D)."""


from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from anon_helpers import quadrant_image  # noqa: E402
from PIL import Image  # noqa: E402
from qt_helpers import anonymize_page, open_with_photos  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from core.imaging import photos as repo  # noqa: E402
from core.imaging.boxes import Detection  # noqa: E402
from core.store import Project  # noqa: E402

FACE = Detection("face", 400, 20, 40, 50, 0.7, "centerface")




def test_detect_all_in_an_empty_project_says_what_to_do(
        main_window: MainWindow, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        messages: list[tuple[str, str]]) -> None:
    with Project.create(tmp_path / "empty.winnow"):
        pass
    assert main_window.open_project(tmp_path / "empty.winnow")
    page = anonymize_page(main_window, monkeypatch, [FACE])
    assert page.jobs.detect_all() is None
    assert len(messages) == 1, messages
    title, text = messages[0]
    assert "no photos" in (title + text).lower()
    assert "Import Photo Folder" in text


def test_detect_all_with_every_photo_reviewed_says_why_nothing_ran(
        main_window: MainWindow, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        messages: list[tuple[str, str]]) -> None:
    Image.fromarray(quadrant_image(64, 48)).save(tmp_path / "a.png")
    [photo] = open_with_photos(main_window, tmp_path, tmp_path / "a.png")
    repo.set_status(main_window.project, photo, "reviewed")
    page = anonymize_page(main_window, monkeypatch, [FACE])
    assert page.jobs.detect_all() is None
    assert len(messages) == 1, messages
    _title, text = messages[0]
    assert "reviewed" in text and "Ctrl+D" in text
