"""Persistent user settings (QSettings): recent projects, window, import options, theme."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

MAX_RECENT = 10


def settings() -> QSettings:
    """The application's settings store (organisation/application set in ``app.gui``)."""
    return QSettings()


def recent_projects() -> list[str]:
    """Recently opened projects that still exist, newest first."""
    value = settings().value("recent_projects", [])
    if isinstance(value, str):  # a single entry comes back as a string on some platforms
        items = [value]
    else:
        items = list(value) if isinstance(value, (list, tuple)) else []
    return [p for p in items if Path(p).exists()]


def add_recent_project(path: str | Path) -> None:
    """Put ``path`` at the top of the recent list."""
    path = str(Path(path).resolve())
    items = [p for p in recent_projects() if p != path]
    settings().setValue("recent_projects", [path, *items][:MAX_RECENT])


def allow_private_network() -> bool:
    """Whether imports may fetch image URLs on loopback/private networks (ADR 002)."""
    value = settings().value("import/allow_private_network", False)
    return value is True or str(value).lower() == "true"


def set_allow_private_network(allowed: bool) -> None:
    """Remember the private-network choice for image imports."""
    settings().setValue("import/allow_private_network", bool(allowed))
def theme() -> str:
    """The saved theme: "system" (default), "light" or "dark"."""
    value = settings().value("appearance/theme", "system")
    return value if value in ("system", "light", "dark") else "system"


def set_theme(name: str) -> None:
    """Remember the theme chosen in View → Theme."""
    settings().setValue("appearance/theme", name)
