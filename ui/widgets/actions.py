"""One way to make a QAction with text, slot, shortcut and tooltip."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget


def make_action(parent: QWidget, text: str, slot: Callable[..., Any], shortcut: Any = None,
                tip: str = "", *, local: bool = False) -> QAction:
    """A triggered-connected action; ``local`` scopes its shortcut to ``parent``'s subtree
    (and adds it to ``parent`` so the shortcut works without a menu)."""
    action = QAction(text, parent)
    if shortcut:
        action.setShortcut(QKeySequence(shortcut))
        if local:
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            parent.addAction(action)
    action.setToolTip(tip or text.replace("&", "").rstrip("…"))
    action.setStatusTip(action.toolTip())
    action.triggered.connect(slot)
    return action
