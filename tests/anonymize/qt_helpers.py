"""Qt helpers for the Anonymize GUI tests: open a project with photos, real mouse drags."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from core.imaging import photos as repo
from core.store import Project


def open_with_photos(window, tmp_path: Path, *photos: Path) -> list[int]:  # type: ignore[no-untyped-def]
    """Create a project holding ``photos``, open it in ``window``; the photo ids."""
    path = tmp_path / "photos.winnow"
    with Project.create(path) as project:
        ids = [repo.import_photo(project, photo)[0] for photo in photos]
    assert window.open_project(path)
    return ids


def _send(widget, kind, pos: QPointF, buttons) -> None:  # type: ignore[no-untyped-def]
    button = Qt.MouseButton.LeftButton
    event = QMouseEvent(kind, pos, widget.mapToGlobal(pos), button, buttons,
                        Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, event)


def drag(canvas, start: tuple[float, float], end: tuple[float, float]) -> None:  # type: ignore[no-untyped-def]
    """Press at scene point ``start``, move in steps, release at ``end``."""
    viewport = canvas.viewport()
    a = QPointF(canvas.mapFromScene(QPointF(*start)))
    b = QPointF(canvas.mapFromScene(QPointF(*end)))
    held = Qt.MouseButton.LeftButton
    _send(viewport, QEvent.Type.MouseButtonPress, a, held)
    for t in (0.25, 0.5, 0.75, 1.0):
        _send(viewport, QEvent.Type.MouseMove, a + (b - a) * t, held)
    _send(viewport, QEvent.Type.MouseButtonRelease, b, Qt.MouseButton.NoButton)
    for _ in range(3):  # the canvas reports edits once the event is handled
        QApplication.processEvents()


def anonymize_page(window, monkeypatch, found):  # type: ignore[no-untyped-def]
    """The Anonymize page, its detector ready without a model and finding ``found``."""
    window.show_workspace("anonymize")
    page = window.pages["anonymize"]
    monkeypatch.setattr(page.detector, "ready", lambda: True)
    monkeypatch.setattr("ui.anonymize.workers.detect_all", lambda *_a, **_k: list(found))
    return page
