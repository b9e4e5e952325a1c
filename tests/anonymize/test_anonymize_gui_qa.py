"""Anonymize workspace QA fixes: narrow windows, undo of an edit on another photo."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from anon_helpers import quadrant_image  # noqa: E402
from PIL import Image  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from qt_helpers import open_with_photos  # noqa: E402

from app.main_window import MainWindow  # noqa: E402

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
