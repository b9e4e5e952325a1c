"""Apply the user's theme (View → Theme) and Winnow's style sheet to the application."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from app import settings as app_settings
from app.resources import resource_text
from ui.widgets.theme import THEMES, apply_theme

STYLE_SHEET = "winnow.qss"


def apply(theme: str | None = None) -> str:
    """Apply ``theme`` (default: the saved one) and the style sheet; returns the theme."""
    theme = theme if theme in THEMES else app_settings.theme()
    app = QApplication.instance()
    if isinstance(app, QApplication):
        apply_theme(app, theme, resource_text(STYLE_SHEET) or "")
    return theme
