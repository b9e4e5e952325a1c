"""Main-window QA: bad paths, Close Project (Ctrl+W), remembered workspace, honest import report."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui


from app.main_window import MainWindow  # noqa: E402


def test_a_folder_is_refused_with_a_message_not_a_crash(main_window: MainWindow,
                                                        tmp_path: Path) -> None:
    messages: list[str] = []
    main_window.error_shown.connect(messages.append)
    folder = tmp_path / "photos"
    folder.mkdir()
    assert not main_window.open_path(folder)  # e.g. `winnow photos/` or a recent entry
    assert "photos" in messages[-1] and "is a folder" in messages[-1]
    assert main_window.project is None
    assert not list(folder.iterdir())  # nothing was created inside it
