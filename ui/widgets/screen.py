"""Window sizes that fit the screen they open on."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication

#: Share of the screen's free area a window may take when it first opens.
SHARE = 0.92


def fitted_size(width: int, height: int) -> tuple[int, int]:
    """``width × height``, shrunk to fit the primary screen's free area (less the window
    frame) where that is smaller: a 1280×720 screen has no room for a 900-pixel window."""
    screen = QGuiApplication.primaryScreen()
    if screen is None:
        return width, height
    free = screen.availableGeometry()
    return min(width, int(free.width() * SHARE)), min(height, int(free.height() * SHARE))
