"""The post, its reply tree above and below, community feedback, and the edit history.

Every piece of post text is shown as plain text; the URL is copyable text that is
never opened automatically.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QFont, QPalette
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.curate.detail import PostInfo, SampleDetail
from ui.widgets.dates import format_when, when_tooltip
from ui.widgets.theme import tone_text
from ui.widgets.tooltips import plain_tooltip

_ENGAGEMENT = (("likes", "likes"), ("reposts", "reposts"), ("replies", "replies"),
               ("views", "views"), ("bookmarks", "bookmarks"))


def engagement_text(engagement: dict[str, Any]) -> str:
    """'12 likes  300 views' from an engagement object (known keys first)."""
    parts = []
    for key, sym in _ENGAGEMENT:
        if isinstance(engagement.get(key), int | float):
            parts.append(f"{int(engagement[key]):,} {sym}")
    for key, value in engagement.items():
        if key not in dict(_ENGAGEMENT) and isinstance(value, int | float):
            parts.append(f"{value:,} {key}")
    return "  ".join(parts)


class PostPanel(QWidget):
    """Post header, text, URL, and the reply tree (ancestors, the post, replies)."""

    fill_requested = Signal(str)  # post id of the reply that completes a template

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.header = QLabel()
        self.header.setTextFormat(Qt.TextFormat.PlainText)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.header.setWordWrap(True)
        self.url = QLineEdit()
        self.url.setReadOnly(True)
        self.url.setPlaceholderText("no URL")
        self.url.setToolTip("The post's URL, as text you can copy (never opened by Winnow)")
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setMaximumHeight(64)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Author", "Text", "Time"])
        self.tree.setColumnWidth(0, 110)
        self.tree.setColumnWidth(1, 260)
        self.tree.setWordWrap(True)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._menu)
        self.tree.currentItemChanged.connect(lambda *_: self._update_fill())
        self.fill = QPushButton("Fill in the Blank…")
        self.fill.setToolTip("The prompt is a template: make a fully specified sample from "
                             "it and the reply selected above (linked to both posts) (F)")
        self.fill.hide()  # only for a template's thread
        self.fill.clicked.connect(self._fill_clicked)
        self._template = False
        self._post_id: str | None = None
        row = QHBoxLayout()
        row.addWidget(QLabel("URL:"))
        row.addWidget(self.url, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(3)
        layout.addWidget(self.header)
        layout.addWidget(self.text)
        layout.addLayout(row)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.fill)

    def show_sample(self, d: SampleDetail, template: bool) -> None:
        """Fill from a loaded sample; ``template`` enables fill-in-the-blank."""
        self._template = template
        post = d.post
        self._post_id = post.id if post else None
        if post is None:
            self.header.setText("This sample has no post.")
            self.text.setPlainText("")
            self.url.setText("")
        else:
            bits = [post.author or "unknown author", _when(post.timestamp),
                    engagement_text(post.engagement),
                    f"keyword: {post.keyword}" if post.keyword else ""]
            self.header.setText("  ·  ".join(b for b in bits if b))
            self.text.setPlainText(post.text)
            self.url.setText(post.url)
            self.url.setCursorPosition(0)
        self.tree.clear()
        bold = QFont()
        bold.setBold(True)
        for p in d.ancestors:
            item = self._item(p, "above")
            item.setForeground(1, QBrush(tone_text("muted", role=QPalette.ColorRole.Base)))
            self.tree.addTopLevelItem(item)
        if post is not None:
            main = self._item(post, "post")
            for c in range(3):
                main.setFont(c, bold)
            self.tree.addTopLevelItem(main)
            parents: dict[int, QTreeWidgetItem] = {0: main}
            for depth, reply in d.replies:
                item = self._item(reply, "reply")
                parents.get(depth - 1, main).addChild(item)
                parents[depth] = item
            main.setExpanded(True)
            self.tree.expandAll()
        self._update_fill()

    def clear_sample(self) -> None:
        """Show no post at all (no sample is shown)."""
        self._template = False
        self._post_id = None
        self.header.setText("")
        self.text.setPlainText("")
        self.url.setText("")
        self.tree.clear()
        self._update_fill()

    def _item(self, p: PostInfo, kind: str) -> QTreeWidgetItem:
        first_line = " ".join(p.text.split())
        item = QTreeWidgetItem([p.author, first_line, _when(p.timestamp)])
        item.setData(0, Qt.ItemDataRole.UserRole, p.id)
        item.setData(1, Qt.ItemDataRole.UserRole, kind)
        item.setToolTip(1, plain_tooltip(p.text))
        item.setToolTip(2, when_tooltip(p.timestamp))
        return item

    def selected_reply(self) -> str | None:
        """Post id of the selected reply (not the post itself or a post above it)."""
        item = self.tree.currentItem()
        if item is None or item.data(1, Qt.ItemDataRole.UserRole) != "reply":
            return None
        return item.data(0, Qt.ItemDataRole.UserRole)

    def _update_fill(self) -> None:
        self.fill.setVisible(self._template)
        self.fill.setEnabled(self._template and self.selected_reply() is not None)

    def _fill_clicked(self) -> None:
        reply = self.selected_reply()
        if reply is not None:
            self.fill_requested.emit(reply)

    def _menu(self, pos: Any) -> None:
        item = self.tree.itemAt(pos)
        if item is None:
            return
        menu = QMenu(self)
        copy = menu.addAction("Copy text")
        copy.triggered.connect(lambda: _copy(item.toolTip(1)))
        if self._template and item.data(1, Qt.ItemDataRole.UserRole) == "reply":
            self.tree.setCurrentItem(item)
            use = menu.addAction("Use as the completion of this template…")
            use.triggered.connect(self._fill_clicked)
        menu.popup(self.tree.viewport().mapToGlobal(pos))


class FeedbackList(QListWidget):
    """Community feedback, one reply a line (plain text)."""

    def show_feedback(self, feedback: list[tuple[str | None, str]]) -> None:
        """Fill from ``[(post_id, text)]``."""
        self.clear()
        if not feedback:
            item = QListWidgetItem("No community feedback for this sample.")
            item.setForeground(QBrush(tone_text("muted", role=QPalette.ColorRole.Base)))
            self.addItem(item)
        for post_id, text in feedback:
            item = QListWidgetItem(" ".join(text.split()))
            item.setToolTip(plain_tooltip(f"{text}\n\n(post {post_id or '—'})"))
            self.addItem(item)


class HistoryList(QTreeWidget):
    """What was done to the sample, newest first (from the audit log)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderLabels(["When", "Who", "What", "Change"])
        self.setRootIsDecorated(False)
        # the Change column sat right of a 150 + 100 + 90 pixel start, behind the
        # horizontal scroll bar at 1400 pixels: the first three fit their text, the change
        # takes the rest, old value over new, each line elided (the whole in its tooltip)
        header = self.header()
        header.setStretchLastSection(True)
        for column in range(3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setUniformRowHeights(False)  # a change takes two lines: old, then new
        self.setTextElideMode(Qt.TextElideMode.ElideRight)

    def show_history(self, rows: list[dict[str, Any]]) -> None:
        """Fill from :func:`core.curate.detail.sample_history` rows."""
        self.clear()
        for r in rows:
            what = r["action"] + (f" {r['field']}" if r["field"] else "")
            change = f"{_short(r['old'])}\n→ {_short(r['new'])}"
            item = QTreeWidgetItem([_when(r["at"]), r["actor"], what, change])
            item.setToolTip(0, when_tooltip(r["at"]))
            item.setToolTip(3, plain_tooltip(f"old: {_full(r['old'])}\nnew: {_full(r['new'])}"))
            self.addTopLevelItem(item)


def _when(ts: str) -> str:
    return format_when(ts)  # the user's locale, relative when recent (ADR 083)


def _short(v: Any) -> str:
    text = " ".join(_full(v).split())  # one line: the cell shows old over new
    return text if len(text) <= 60 else text[:57] + "…"


def _full(v: Any) -> str:
    if v is None:
        return "—"
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def _copy(tooltip: str) -> None:
    import html

    from PySide6.QtGui import QGuiApplication

    text = tooltip.removeprefix("<p style='white-space:pre-wrap'>").removesuffix("</p>")
    QGuiApplication.clipboard().setText(html.unescape(text))
