"""Find Winnow's resource files (style sheet, icon, notices) in a checkout or a bundle.

Looks in the ``resources`` folder first, then the repository root (a checkout keeps
``THIRD_PARTY_NOTICES.md`` there); a missing file is ``None``, never an error.
"""

from __future__ import annotations

from pathlib import Path

RESOURCES = Path(__file__).resolve().parent.parent / "resources"


def resource_path(name: str) -> Path | None:
    """The file ``name`` from ``resources/`` or the repository root, or None."""
    for folder in (RESOURCES, RESOURCES.parent):
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def resource_text(name: str) -> str | None:
    """The text of resource ``name`` (UTF-8), or None when it is absent or unreadable."""
    path = resource_path(name)
    if path is None:
        return None
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
