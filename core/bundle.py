"""Files shipped inside a frozen (PyInstaller) bundle, see packaging/winnow.spec."""

from __future__ import annotations

import sys
from pathlib import Path


def bundled_model(name: str) -> Path | None:
    """``models/<name>`` inside a frozen bundle, or None when not frozen or absent."""
    base = getattr(sys, "_MEIPASS", None)
    if not base:
        return None
    path = Path(base) / "models" / name
    return path if path.is_file() else None
