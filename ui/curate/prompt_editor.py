"""Prompt editor: the edit box, the original extracted prompt, a visible diff, reset."""

from __future__ import annotations

import html

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QKeySequence, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QSizePolicy,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.curate.diff import prompt_diff
from ui.widgets.theme import set_tone, span_style


class _Edit(QPlainTextEdit):
    """Commits when focus leaves, on Ctrl+S, and hands Escape back to the list."""

    commit = Signal()
    escape = Signal()

    def focusOutEvent(self, event: QFocusEvent) -> None:  # noqa: N802
        super().focusOutEvent(event)
        self.commit.emit()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.matches(QKeySequence.StandardKey.Save):
            self.commit.emit()
            return
        if event.key() == Qt.Key.Key_Escape:
            self.commit.emit()
            self.escape.emit()
            return
        super().keyPressEvent(event)


def diff_html(original: str, edited: str) -> str:
    """The diff as HTML built from escaped text (user text is never interpreted)."""
    parts = []
    for op, text in prompt_diff(original, edited):
        t = html.escape(text)
        if op == "delete":
            parts.append(f"<span style='{span_style('danger')};"
                         f"text-decoration:line-through'>{t}</span>")
        elif op == "insert":
            parts.append(f"<span style='{span_style('success')}'>{t}</span>")
        else:
            parts.append(t)
    return "<div style='white-space:pre-wrap'>" + "".join(parts) + "</div>"


class _FitScroll(QScrollArea):
    """A scroll area as tall as its text at its width, up to its maximum height."""

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        inner = self.widget()
        hint = super().sizeHint()
        if inner is None:
            return hint
        width = max(1, self.viewport().width())
        height = (inner.heightForWidth(width) if inner.hasHeightForWidth()
                  else inner.sizeHint().height())
        return QSize(hint.width(), min(max(height, 0), self.maximumHeight()))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        least = super().minimumSizeHint()  # room for scroll bars: taller than one line
        return QSize(least.width(), min(least.height(), self.sizeHint().height()))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # the text wraps anew: another height


class PromptEditor(QWidget):
    """Edit the prompt; the original stays visible and a diff shows what changed."""

    commit_requested = Signal(str)
    reset_requested = Signal()
    escape_pressed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edit = _Edit()
        self.edit.setPlaceholderText("The prompt of this sample")
        self.edit.setTabChangesFocus(True)
        self.edit.setToolTip("Edit the prompt (E). Saved when you leave the box or press "
                             "Ctrl+S; Esc returns to the list")
        self.edit.commit.connect(self._commit)
        self.edit.escape.connect(self.escape_pressed)
        self.edit.textChanged.connect(self._update_diff)
        self.original = QLabel()
        self.original.setTextFormat(Qt.TextFormat.PlainText)
        self.original.setWordWrap(True)
        self.original.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.original.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        set_tone(self.original, "muted", text_only=True)
        # a long original scrolls in a few lines, and a short one takes one line
        self.original_scroll = _FitScroll()
        self.original_scroll.setWidget(self.original)
        self.original_scroll.setWidgetResizable(True)
        self.original_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.original_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.original_scroll.setSizePolicy(QSizePolicy.Policy.Preferred,
                                           QSizePolicy.Policy.Maximum)
        self.original_scroll.setMaximumHeight(6 * self.original.fontMetrics().lineSpacing() + 6)
        self.diff = QTextBrowser()
        self.diff.setOpenLinks(False)
        self.diff.setMaximumHeight(60)
        self.edit.setMinimumHeight(48)
        self.edit.setMaximumHeight(120)
        self.badge = QLabel()
        self.reset = QToolButton()
        self.reset.setText("Reset")
        self.reset.setToolTip("Reset to the original extracted prompt (Ctrl+Shift+R; undoable)")
        self.reset.clicked.connect(self.reset_requested)
        head = QHBoxLayout()
        head.addWidget(QLabel("<b>Prompt</b>"))
        head.addWidget(self.badge)
        head.addStretch(1)
        head.addWidget(self.reset)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(3)
        layout.addLayout(head)
        layout.addWidget(self.edit, 2)
        self.original_caption = QLabel("Original extracted prompt:")
        self.original_caption.setWordWrap(True)
        layout.addWidget(self.original_caption)
        layout.addWidget(self.original_scroll)
        self.diff_caption = QLabel("Changes:")
        layout.addWidget(self.diff_caption)
        layout.addWidget(self.diff, 1)
        layout.addStretch(1)  # room left in a tall window goes below, not between the lines
        self._committed = ""
        self._original = ""
        self.read_only = False

    def set_read_only(self, on: bool) -> None:
        """Show the prompt without offering to edit or reset it."""
        self.read_only = on
        self.edit.setReadOnly(on)
        self._update_diff()

    def set_prompt(self, prompt: str, original: str) -> None:
        """Show a sample's prompt without committing anything."""
        self._committed, self._original = prompt, original
        self.edit.blockSignals(True)
        self.edit.setPlainText(prompt)
        self.edit.blockSignals(False)
        self.original.setText(original or ("(empty)" if prompt else ""))
        self.original_scroll.updateGeometry()
        self._update_diff()

    def text(self) -> str:
        """What the edit box holds now."""
        return self.edit.toPlainText()

    def pending(self) -> bool:
        """Whether the box holds an edit not committed yet."""
        return self.text() != self._committed

    def _commit(self) -> None:
        if self.pending():
            self._committed = self.text()
            self.commit_requested.emit(self._committed)

    def commit(self) -> None:
        """Commit a pending edit now (before switching samples)."""
        self._commit()

    def _update_diff(self) -> None:
        modified = self.text() != self._original
        self.badge.setText(f"<span style='{span_style('warning', text_only=True)}'>● edited</span>"
                           if modified else
                           f"<span style='{span_style('success', text_only=True)}'>original</span>"
                           if self._original else "")
        self.reset.setEnabled(modified and not self.read_only)
        self.diff.setVisible(modified)
        self.diff_caption.setVisible(modified)
        if modified:
            self.diff.setHtml(diff_html(self._original, self.text()))
