"""Scripted checks of a running app (``--quit-when-ready``, ``--keys``): used by the
start-up benchmark and by the smoke test of a built bundle, which cannot run Python.

``--keys TEXT`` types TEXT into whichever widget has the keyboard focus once the app is
ready: plain characters are typed as text, ``{Name}`` presses ``Qt.Key_Name`` (for
example ``{Return}``, ``{Left}``), one key per turn of the event loop.  The app then
closes its windows (everything a rater answers is already saved) and quits.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

_TOKEN = re.compile(r"\{(\w+)\}|(.)", re.S)


def parse_keys(text: str) -> list[tuple[int, str]]:
    """``[(Qt key code, text)]`` for ``text`` (``{Return}`` → Key_Return); ValueError if
    a ``{Name}`` is no Qt key."""
    from PySide6.QtCore import Qt

    out = []
    for name, char in _TOKEN.findall(text):
        if name:
            key = getattr(Qt.Key, f"Key_{name}", None)
            if key is None:
                raise ValueError(f"--keys: {{{name}}} is not a key (Qt.Key.Key_{name})")
            out.append((int(key.value), ""))
        else:
            key = getattr(Qt.Key, f"Key_{char.upper()}", None) if char.isalnum() else None
            out.append((int(key.value) if key is not None else 0, char))
    return out


async def type_keys(fallback: Any, keys: list[tuple[int, str]]) -> None:
    """Send ``keys`` to the focused widget (else the active window, else ``fallback``)."""
    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QApplication

    for code, text in keys:
        target = QApplication.focusWidget() or QApplication.activeWindow() or fallback
        for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            QApplication.sendEvent(target, QKeyEvent(kind, code,
                                                     Qt.KeyboardModifier.NoModifier, text))
        await asyncio.sleep(0.05)


async def wait_for_other_window(window: Any, timeout_s: float = 20.0) -> bool:
    """Wait until a window other than ``window`` is active (e.g. the rater view)."""
    from PySide6.QtWidgets import QApplication

    loop = asyncio.get_running_loop()
    end = loop.time() + timeout_s
    while loop.time() < end:
        active = QApplication.activeWindow()
        if active is not None and active is not window:
            return True
        await asyncio.sleep(0.05)
    return False
