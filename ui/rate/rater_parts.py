"""Parts of the rater window apart from its flow: the name page, the keys that go back
and forward through answered tasks (ADR 229), and the warning shown when answers stay
in the -wal on close (ADR 210)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QIntValidator, QKeyEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.rating.protocols import PROTOCOL_TITLES, TaskView
from core.rating.revisit import reachable
from core.rating.session_file import RatingSession
from ui.rate.panels import _label
from ui.widgets.theme import set_tone

K = Qt.Key
#: back to the answered task before, and forward again; Alt+←/→ as in a browser
BACK_KEYS = (K.Key_PageUp, K.Key_Back)
FORWARD_KEYS = (K.Key_PageDown, K.Key_Forward)
#: the keys' own line (the common hint line is full at 1280 pixels)
NAV_HINT = "PgUp or Alt+← earlier task · PgDn or Alt+→ later · Ctrl+G task number"


def nav_direction(event: QKeyEvent) -> str | None:
    """"back", "forward", "goto" or None: PgUp/PgDn, Alt+←/→, a keyboard's Back/Forward
    key, Ctrl+G."""
    key, mods = event.key(), event.modifiers()
    alt = bool(mods & Qt.KeyboardModifier.AltModifier)
    if key in BACK_KEYS or (alt and key == K.Key_Left):
        return "back"
    if key in FORWARD_KEYS or (alt and key == K.Key_Right):
        return "forward"
    if key == K.Key_G and mods & Qt.KeyboardModifier.ControlModifier:
        return "goto"
    return None


class GotoField(QWidget):
    """Ctrl+G: a task's number; Enter opens it when the rater may (an answered task or the
    first unanswered, :func:`core.rating.revisit.reachable`), else says why and stays;
    Esc closes.  ``left`` fires on closing, with the task to open or None (a signal, not
    a stored callback: a bound method of the window here would keep the window alive)."""

    left = Signal(object)  # TaskView | None

    def __init__(self, session: RatingSession) -> None:
        super().__init__()
        self.session = session
        self.edit = QLineEdit()
        self.edit.setValidator(QIntValidator(1, max(1, len(session.tasks)), self.edit))
        self.edit.setPlaceholderText(f"Go to task number 1–{len(session.tasks)}: Enter opens "
                                     "it, Esc cancels")
        self.edit.setMaximumWidth(420)
        self.edit.installEventFilter(self)
        self.problem = _label("")
        set_tone(self.problem, "warning", text_only=True)
        row = QHBoxLayout(self)
        row.setContentsMargins(16, 0, 16, 8)
        row.addWidget(self.edit, 1)
        row.addWidget(self.problem, 2)
        self.hide()

    def open(self) -> None:
        self.edit.clear()
        self.problem.clear()
        self.show()
        self.edit.setFocus()

    def eventFilter(self, obj: Any, event: Any) -> bool:  # noqa: N802 - Qt override
        if obj is self.edit and isinstance(event, QKeyEvent) and \
                event.type() == QKeyEvent.Type.KeyPress:
            if event.key() in (K.Key_Return, K.Key_Enter):
                text = self.edit.text()
                task, why = reachable(self.session, int(text)) if text.isdigit() else (
                    None, "Type a task's number.")
                if task is None:
                    self.problem.setText(why)
                else:
                    self._close(task)
                return True
            if event.key() == K.Key_Escape:
                self._close(None)
                return True
        return super().eventFilter(obj, event)

    def _close(self, task: TaskView | None) -> None:
        self.hide()
        self.left.emit(task)


@dataclass(frozen=True)
class NamePage:
    """The page asking the rater's name before the first task."""

    page: QWidget
    edit: QLineEdit
    start: QPushButton
    error: QLabel


def name_page(session: RatingSession, key_filter: QObject,
              entered: Callable[[], None]) -> NamePage:
    """The name page: the session's title and size, its instructions, the name field (its
    Enter is handled by ``key_filter``) and a start button calling ``entered``."""
    page = QWidget()
    nl = QVBoxLayout(page)
    nl.addStretch(1)
    nl.addWidget(_label(f"{PROTOCOL_TITLES[session.protocol]} — {session.name}", 1.6, True))
    nl.addWidget(_label(f"{len(session.tasks)} tasks. Every answer is saved the moment you "
                        "give it; you can close the window and continue later.", 1.1))
    instructions = session.settings.get("instructions")
    if instructions:
        nl.addWidget(_label(instructions, 1.1))
    nl.addWidget(_label("Your name, then Enter:", 1.2))
    edit = QLineEdit()
    edit.setMaxLength(200)
    edit.setMaximumWidth(420)
    edit.installEventFilter(key_filter)
    # a rater who reaches for the mouse finds the way on as a button too
    start = QPushButton("Start rating  (Enter)")
    start.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    start.clicked.connect(entered)
    name_row = QHBoxLayout()
    name_row.addWidget(edit, 1)
    name_row.addWidget(start)
    name_row.addStretch(1)
    nl.addLayout(name_row)
    error = _label("")
    nl.addWidget(error)
    nl.addStretch(2)
    nl.setContentsMargins(80, 40, 80, 40)
    return NamePage(page, edit, start, error)


def left_in_wal_box(parent: QWidget, text: str, close: Callable[[bool], None],
                    replacing: QMessageBox | None = None) -> QMessageBox:
    """"Answers not in the file yet" (*Try again*, *Close anyway*, *Keep rating*), opened
    in place of ``replacing`` (an earlier one); ``close(anyway)`` runs after *Try again*
    (False) or *Close anyway* (True)."""
    if replacing is not None:
        replacing.deleteLater()
    box = QMessageBox(QMessageBox.Icon.Warning, "Answers not in the file yet", text,
                      QMessageBox.StandardButton.NoButton, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    retry = box.addButton("Try again", QMessageBox.ButtonRole.AcceptRole)
    anyway = box.addButton("Close anyway", QMessageBox.ButtonRole.DestructiveRole)
    box.addButton("Keep rating", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(retry)

    def chosen(button: Any) -> None:
        if button in (retry, anyway):
            close(button is anyway)

    box.buttonClicked.connect(chosen)
    box.open()
    return box
