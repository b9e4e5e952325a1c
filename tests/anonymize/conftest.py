"""Fixtures for the anonymization tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from anon_helpers import jpeg_with_everything, quadrant_image


@pytest.fixture
def rich_jpeg(tmp_path: Path) -> tuple[Path, np.ndarray]:
    """A JPEG with all kinds of metadata, stored rotated (orientation 6 = 90° CW to view).

    Returns the path and the upright pixels it should display as.
    """
    upright = quadrant_image(240, 160)
    stored = np.rot90(upright, k=1).copy()  # orientation 6 rotates this back clockwise
    path = tmp_path / "in" / "rich.jpg"
    path.parent.mkdir()
    path.write_bytes(jpeg_with_everything(stored))
    return path, upright


@pytest.fixture
def messages(main_window, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
             ) -> list[tuple[str, str]]:
    """Every ``(title, text)`` the main window's workspaces show as a message box."""
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(main_window.context, "message", lambda t, x: shown.append((t, x)))
    monkeypatch.setattr(main_window.context, "refuse", lambda t, x: shown.append((t, x)))
    return shown
