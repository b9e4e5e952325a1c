"""Help → Keyboard Shortcuts: a sheet generated from the actions themselves.

The rows are read from the live QActions (text, shortcuts, tooltip) at the moment the
sheet opens, so the sheet cannot drift from what the keys really do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ui.widgets.actions import plain_text, shortcut_label, with_shortcuts


@dataclass(frozen=True)
class ShortcutRow:
    """One line of the sheet."""

    name: str
    keys: str
    tip: str


def shortcut_rows(groups: Sequence[tuple[str, Sequence[QAction]]]
                  ) -> list[tuple[str, list[ShortcutRow]]]:
    """(group title, rows) for every group that has at least one shortcut."""
    out = []
    for title, actions in groups:
        rows, seen = [], set()
        for action in with_shortcuts(actions):
            row = ShortcutRow(plain_text(action), shortcut_label(action),
                              action.statusTip() or action.toolTip())
            if (row.name, row.keys) not in seen:
                seen.add((row.name, row.keys))
                rows.append(row)
        if rows:
            out.append((title, rows))
    return out


class ShortcutSheet(QDialog):
    """Every keyboard shortcut, grouped by workspace, with a filter box."""

    def __init__(self, groups: list[tuple[str, list[ShortcutRow]]],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard Shortcuts")
        self.resize(620, 640)
        intro = QLabel("Workspace keys work while that workspace is shown; the application "
                       "keys work everywhere.")
        intro.setWordWrap(True)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter by action or key, e.g. “label” or “Ctrl+Z”")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._apply_filter)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Action", "Shortcut"])
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(False)
        for title, rows in groups:
            group = QTreeWidgetItem([title])
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            group.setFirstColumnSpanned(True)
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.tree.addTopLevelItem(group)
            for row in rows:
                item = QTreeWidgetItem([row.name, row.keys])
                item.setToolTip(0, row.tip)
                group.addChild(item)
        self.tree.expandAll()
        for group in self._groups():
            group.setFirstColumnSpanned(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.filter)
        layout.addWidget(self.tree, 1)
        layout.addWidget(buttons)
        self.filter.setFocus()

    def rows(self) -> dict[str, list[tuple[str, str]]]:
        """What the sheet lists (visible rows), by group title: for tests and checks."""
        out: dict[str, list[tuple[str, str]]] = {}
        for group in self._groups():
            if group.isHidden():
                continue
            out[group.text(0)] = [(child.text(0), child.text(1)) for child in _children(group)
                                  if not child.isHidden()]
        return out

    def _groups(self) -> list[QTreeWidgetItem]:
        items = (self.tree.topLevelItem(k) for k in range(self.tree.topLevelItemCount()))
        return [item for item in items if item is not None]

    def _apply_filter(self, text: str) -> None:
        needle = text.strip().lower()
        for group in self._groups():
            in_title = needle in group.text(0).lower()
            visible = 0
            for child in _children(group):
                hit = not needle or in_title or needle in child.text(0).lower() \
                    or needle in child.text(1).lower()
                child.setHidden(not hit)
                visible += hit
            group.setHidden(visible == 0)


def _children(item: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    children = (item.child(i) for i in range(item.childCount()))
    return [child for child in children if child is not None]
