"""Actions: one way to make them, and the rule that a workspace's actions act only while
its page is shown (ADR 080).

A workspace page offers ``workspace_menu() -> QMenu`` and may offer ``update_actions()``
(enable what can act now: a project open, a photo or sample selected, not read-only).
The main window calls :func:`show_workspace` on every page switch: the shown page's menu
and actions become visible, every other page's actions invisible — and an invisible
QAction is disabled, so neither its menu entry nor its shortcut can reach a hidden page,
whatever the page itself enables meanwhile (Qt keeps the page's own enabled state and
restores it when the page is shown again).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QWidget


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
    action.setToolTip(tip or plain_text(action))
    action.setStatusTip(action.toolTip())
    action.triggered.connect(slot)
    return action


def plain_text(action: QAction) -> str:
    """The action's text without mnemonics and a trailing ellipsis."""
    return action.text().replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…")


def shortcut_label(action: QAction) -> str:
    """Every shortcut of ``action`` as the platform writes it (``"J, Alt+Down"``)."""
    return ", ".join(s.toString(QKeySequence.SequenceFormat.NativeText)
                     for s in action.shortcuts() if not s.isEmpty())


def add_shortcut_to_tooltip(action: QAction) -> None:
    """Append the shortcut to the tooltip (``"Detect (Ctrl+D)"``) unless it is there."""
    keys = shortcut_label(action)
    tip = action.toolTip() or plain_text(action)
    first = keys.split(", ")[0] if keys else ""
    if first and f"({first}" not in tip and f"{first})" not in tip:
        action.setToolTip(f"{tip} ({keys})")


def menu_actions(menu: QMenu) -> list[QAction]:
    """Every action of ``menu`` and its submenus (submenu entries included), in order."""
    found: list[QAction] = []
    for action in menu.actions():
        if action.isSeparator():
            continue
        found.append(action)
        submenu = action.menu()
        if isinstance(submenu, QMenu):
            found.extend(menu_actions(submenu))
    return found


def workspace_actions(page: QWidget, menu: QMenu | None) -> list[QAction]:
    """The actions that belong to a workspace: its menu's and those added to its page."""
    seen: dict[int, QAction] = {}
    # QWidget.actions unbound: a page may shadow the name (Curate keeps its CurateActions there)
    for action in [*(menu_actions(menu) if menu is not None else []), *QWidget.actions(page)]:
        seen.setdefault(id(action), action)
    return list(seen.values())


def show_workspace(page: QWidget, menu: QMenu | None, shown: bool) -> None:
    """Make a workspace's menu and actions live (``shown``) or unreachable."""
    if menu is not None:
        menu.menuAction().setVisible(shown)
    for action in workspace_actions(page, menu):
        action.setVisible(shown)
    if shown:
        update_workspace(page)


def update_workspace(page: QWidget | None) -> None:
    """Ask the page to enable what can act now (its optional ``update_actions`` hook)."""
    hook = getattr(page, "update_actions", None)
    if callable(hook):
        hook()


def with_shortcuts(actions: Iterable[QAction]) -> list[QAction]:
    """Those of ``actions`` that have a keyboard shortcut."""
    return [a for a in actions if any(not s.isEmpty() for s in a.shortcuts())]
