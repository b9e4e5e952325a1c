"""The rater's window: name prompt, one task at a time, pause, penalty countdown, done.

Keyboard only.  Every answer is committed by :class:`RatingSession` before the next
task is shown; the next task's images are decoded ahead of time (prefetch) so the
switch is immediate.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication, QKeyEvent, QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from core.rating.pacing import TaskClock, hold_left_ms, penalty_for
from core.rating.protocols import AnswerError, TaskView
from core.rating.rater_open import answers_left_in_wal
from core.rating.revisit import change_time_s, earlier_answered, later_answered, task_number
from core.rating.session_file import RatingSession, SessionFileError
from core.store.project import now_iso
from ui.rate.image_view import pixmap_from_bytes
from ui.rate.panels import ProtocolPanel, _label
from ui.rate.question_panels import PANELS, key_help, key_hints
from ui.rate.rater_parts import NAV_HINT, GotoField, left_in_wal_box, name_page, nav_direction
from ui.widgets.theme import clear_tone, set_tone

K = Qt.Key
#: closes the rater window (also the platform's own Close keys); the hints name it
CLOSE_KEY = QKeySequence("Ctrl+W")


class RaterWindow(QWidget):
    """Rates one session file.  ``committed`` fires after each durable judgment."""

    committed = Signal(object)   # core.rating.session_file.Judgment
    task_shown = Signal(object)  # TaskView

    def __init__(self, session: RatingSession, parent: QWidget | None = None,
                 clock: TaskClock | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.clock = clock or TaskClock()
        self.setWindowTitle(f"Winnow — rating {session.name} ({session.slot})")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.current: TaskView | None = None
        self.shown_at: str | None = None
        self.superseding: str | None = None      # uid of the answer being changed
        self.penalty_left_ms = 0
        self.change_after_hold = False           # Backspace pressed during the countdown
        self.paused = False
        self._pixmaps: dict[str, QPixmap] = {}
        self._pending_flag: str | None = None
        self._close_anyway = False               # chosen when answers stay in the -wal
        self.last_box: QMessageBox | None = None
        self._build()
        self._tick = QTimer(self)
        self._tick.setInterval(100)
        self._tick.timeout.connect(self._on_tick)
        self._tick.start()
        if session.rater is None:
            self.stack.setCurrentWidget(self.name_page)
            self.name_edit.setFocus()
        else:
            self.advance()
            self._hold_again()

    # -- construction ------------------------------------------------------------
    def _build(self) -> None:
        s = self.session
        self.stack = QStackedWidget()
        named = name_page(s, self, self._name_entered)
        self.name_page, self.name_edit = named.page, named.edit
        self.start_button, self.name_error = named.start, named.error
        # task page
        self.task_page = QWidget()
        tl = QVBoxLayout(self.task_page)
        tl.setContentsMargins(16, 10, 16, 10)
        top = QHBoxLayout()
        self.title = _label(f"{s.name}  ·  {s.slot}", 1.0, True)
        self.title.setWordWrap(False)
        self.progress = QProgressBar()
        self.progress.setFormat("%v of %m answered  ·  each answer is saved when given")
        self.progress.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.timer_label = _label("", 1.0)
        self.timer_label.setMinimumWidth(90)
        self.nav_label = _label(NAV_HINT, 0.95)
        self.nav_label.setWordWrap(False)
        set_tone(self.nav_label, "muted", text_only=True)
        top.addWidget(self.title)
        top.addWidget(self.progress, 1)
        top.addWidget(self.nav_label)
        top.addWidget(self.timer_label)
        tl.addLayout(top)
        self.prompt = _label("", 1.35)
        self.prompt.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self.question = _label("", 1.2, True)
        tl.addWidget(self.prompt)
        tl.addWidget(self.question)
        self.panel_host = QStackedWidget()
        self.panel: ProtocolPanel = PANELS[s.protocol](s.settings)
        self.panel.submitted.connect(self._submit)
        self.panel.flag_requested.connect(self._ask_reason)
        self.panel.hint.connect(self._show_hint)
        self.panel.note.connect(self._show_note)
        self.panel.question.connect(self._set_question)
        self.pause_page = QWidget()
        pl = QVBoxLayout(self.pause_page)
        pl.addStretch(1)
        paused = _label("Paused.  Press Space to resume.", 2.0, True)
        paused.setAlignment(Qt.AlignmentFlag.AlignCenter)
        pl.addWidget(paused)
        pl.addStretch(1)
        self.panel_host.addWidget(self.panel)
        self.panel_host.addWidget(self.pause_page)
        tl.addWidget(self.panel_host, 1)
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("Reason (Enter to save, Esc to cancel)")
        self.reason.installEventFilter(self)
        self.reason.hide()
        tl.addWidget(self.reason)
        self.status = _label("", 1.1, True)
        set_tone(self.status, "warning", text_only=True)
        tl.addWidget(self.status)
        most = max((len(t.options) for t in s.tasks), default=0)
        self.hints = _label(key_hints(s.protocol, s.settings, most), 0.95)
        self.hints.setToolTip(f"{key_help(s.protocol, s.settings, most)}\n{NAV_HINT}")
        set_tone(self.hints, "muted", text_only=True)
        tl.addWidget(self.hints)
        # done page
        self.done_page = QWidget()
        dl = QVBoxLayout(self.done_page)
        dl.addStretch(1)
        self.done_label = _label("", 1.5, True)
        self.done_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        dl.addWidget(self.done_label)
        dl.addStretch(2)
        for page in (self.name_page, self.task_page, self.done_page):
            self.stack.addWidget(page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        self.goto = GotoField(s)  # below the task and the done page alike
        self.goto.left.connect(self._went_to)
        layout.addWidget(self.goto)
        # without a mouse (and without a window manager's close key) the window still
        # closes: everything is saved already, closing folds the log into the file
        self.close_shortcut = QShortcut(self)
        self.close_shortcut.setKeys([CLOSE_KEY, *(k for k in QKeySequence.keyBindings(
            QKeySequence.StandardKey.Close) if k != CLOSE_KEY)])
        self.close_shortcut.activated.connect(self.close)

    # -- flow -----------------------------------------------------------------------
    def _name_entered(self) -> None:
        try:
            self.session.set_rater(self.name_edit.text())
        except ValueError as exc:
            self.name_error.setText(str(exc))
            return
        self.setFocus()
        self.advance()

    def advance(self) -> None:
        """Show the next unanswered task (or the done page)."""
        self.superseding = None
        task = self.session.next_task()
        if task is None:
            self._show_done()
            return
        self.show_task(task, None)

    def show_task(self, task: TaskView, previous: dict[str, Any] | None) -> None:
        """Display ``task`` (images from the prefetch cache) and start its clock."""
        self.current = task
        self.stack.setCurrentWidget(self.task_page)
        self.panel_host.setCurrentWidget(self.pause_page if self.paused else self.panel)
        self.prompt.setText(f"Prompt:  {task.prompt}" if task.shows_prompt and task.prompt
                            else "")
        self.prompt.setVisible(bool(self.prompt.text()))
        self._set_question(task.question)
        self.panel.load(task, self._images_for(task), previous)  # may ask its own question
        self.panel.hold(False)  # a task on screen takes answers (the hold is over)
        done, total = self.session.progress()
        self.progress.setMaximum(total)
        self.progress.setValue(done)
        self.status.setText("")
        self.shown_at = now_iso()
        self.clock.start()
        if self.paused:
            self.clock.pause()
        self.setFocus()
        self.task_shown.emit(task)
        QTimer.singleShot(0, self.prefetch)

    def _set_question(self, text: str) -> None:
        """The question above the images; while an answer is being changed it says so, also
        when the panel replaces the question (Likert's 1–5 scale after the validity gate)."""
        note = ""
        if self.superseding and self.current is not None:
            note = (f"   (changing your answer to task {task_number(self.session, self.current)}"
                    f" of {len(self.session.tasks)} — Esc keeps the old one)")
        self.question.setText(text + note)

    def prefetch(self) -> None:
        """Decode the following task's images now, while the rater looks at this one."""
        if self.current is None or self.session.closed:
            return
        following = self.session.following(self.current)
        keep = set(self.current.image_shas)
        earlier = earlier_answered(self.session, self.current)
        if earlier is not None:  # decoded already when it was on screen: kept for "back"
            keep |= set(earlier.image_shas)
        if following is not None:
            keep |= set(following.image_shas)
            self.panel.prefetch(following, self._images_for(following))
        for sha in list(self._pixmaps):
            if sha not in keep:
                del self._pixmaps[sha]

    def _images_for(self, task: TaskView) -> dict[str, QPixmap]:
        for sha in task.image_shas:
            if sha not in self._pixmaps:
                try:
                    self._pixmaps[sha] = pixmap_from_bytes(self.session.image(sha))
                except SessionFileError as exc:
                    self._show_hint(str(exc))
                    self._pixmaps[sha] = QPixmap()
        return self._pixmaps

    def _submit(self, answer: dict[str, Any], flag: str | None, reason: str) -> None:
        if self.current is None or self.penalty_left_ms > 0 or self.paused:
            return
        # the task was on screen for the answer it replaces too (ADR 204)
        elapsed = change_time_s(self.session.answer_for(self.current.task_id),
                                self.superseding, self.clock.elapsed())
        penalty = penalty_for(elapsed, self.session.min_time_s, self.session.penalty_s)
        try:
            judgment = self.session.submit(
                self.current.task_id, answer, time_ms=round(elapsed * 1000),
                penalty_ms=round(penalty * 1000), flag=flag, reason=reason,
                shown_at=self.shown_at, supersedes=self.superseding)
        except (AnswerError, ValueError) as exc:
            self._show_hint(str(exc))
            return
        if judgment.uid == self.superseding:  # the same answer again: nothing written
            return self.advance()
        self.committed.emit(judgment)
        self.progress.setValue(self.session.progress()[0])
        if penalty > 0:
            self.penalty_left_ms = round(penalty * 1000)
            self.panel.hold(True)
            self._on_tick()
        else:
            self.advance()

    def _hold_again(self) -> None:
        """Opened again while the last answer's hold was running (the window was closed
        or killed): show that answer, held for what is left of its penalty delay."""
        last = self.session.last_judgment()
        if last is None or self.current is None:
            return
        left = min(hold_left_ms(last.penalty_ms, last.submitted_at, now_iso()),
                   round(self.session.penalty_s * 1000))  # never longer than the session's
        if left > 0:
            self.show_task(self.session.task(last.task_id), last.answer)
            self.penalty_left_ms = left
            self.panel.hold(True)
            self._on_tick()

    def _on_tick(self) -> None:
        if self.current is not None and self.stack.currentWidget() is self.task_page:
            self.timer_label.setText(f"{self.clock.elapsed():5.0f} s")
        if self.penalty_left_ms <= 0 or self.paused:
            return
        self.penalty_left_ms -= self._tick.interval()
        if self.penalty_left_ms <= 0:
            self.penalty_left_ms = 0
            if self.change_after_hold:
                self.change_after_hold = False
                self.change_last()
            else:
                self.advance()
        else:
            self._show_countdown()

    def _show_countdown(self) -> None:
        then = ("your answer reopens to be changed (Esc: don't)" if self.change_after_hold
                else "next task")
        self._show_hint(f"Answer saved. That was quicker than the minimum time "
                        f"({self.session.min_time_s:g} s): {then} in "
                        f"{self.penalty_left_ms / 1000:.1f} s")

    def change_last(self) -> None:
        """Reopen the last answered task; the new answer will supersede the old one."""
        last = self.session.last_judgment()
        if last is None:
            self._show_hint("No answer to change yet.")
            return
        self.reopen(self.session.task(last.task_id))

    def reopen(self, task: TaskView) -> None:
        """Show an answered task as it was shown, its answer chosen, to be superseded."""
        current = self.session.answer_for(task.task_id)
        if current is None:
            self.advance()
            return
        self.superseding = current.uid
        self.show_task(task, current.answer)

    def go_back(self) -> None:
        """Reopen the answered task before the one on screen (ADR 229)."""
        on_screen = self.current if self.stack.currentWidget() is self.task_page else None
        earlier = earlier_answered(self.session, on_screen)
        if earlier is None:
            self._show_hint("This is the first task: there is no earlier answer."
                            if self.session.progress()[0] else "No answer to change yet.")
            return
        self.reopen(earlier)

    def go_forward(self) -> None:
        """The next answered task, or back to the first unanswered one (never past it)."""
        if self.current is None:
            return
        if not self.superseding:
            self._show_hint("Answer this task first: later tasks open one by one.")
            return
        later = later_answered(self.session, self.current)
        if later is None:
            self.advance()
        else:
            self.reopen(later)

    def _went_to(self, task: TaskView | None) -> None:  # Ctrl+G closed, maybe on a task
        self.setFocus()
        if task is not None:
            self.reopen(task)

    def toggle_pause(self) -> None:
        """Pause (images hidden, clock stopped) or resume; both are logged in the file."""
        if self.current is None:
            return
        self.paused = not self.paused
        if self.paused:
            self.clock.pause()
            self.session.log_event("pause", self.current.task_id)
            self.session.checkpoint()
            self.panel_host.setCurrentWidget(self.pause_page)
        else:
            self.clock.resume()
            self.session.log_event("resume", self.current.task_id)
            self.panel_host.setCurrentWidget(self.panel)

    def _show_done(self) -> None:
        self.current = None
        done, total = self.session.progress()
        self.session.checkpoint()
        close = CLOSE_KEY.toString(QKeySequence.SequenceFormat.NativeText)
        self.done_label.setText(
            f"All {total} tasks answered — thank you, {self.session.rater}.\n\n"
            f"Close this window ({close}) and send back the file:\n{self.session.path}\n\n"
            "Ctrl+C copies its path.  Backspace changes your last answer;\n"
            "PgUp (or Alt+←) goes back through your answers, Ctrl+G to one by its number.")
        self.stack.setCurrentWidget(self.done_page)

    def _ask_reason(self, flag: str) -> None:
        self._pending_flag = flag
        self.reason.clear()
        self.reason.setPlaceholderText(
            ("Why is it impossible to rank fairly?" if flag == "impossible" else
             "Why is the instruction invalid?") + "  (Enter to save, Esc to cancel)")
        self.reason.show()
        self.reason.setFocus()

    def _reason_entered(self) -> None:
        text = self.reason.text().strip()
        if not text:
            self._show_hint("Please give a reason (or Esc to cancel).")
            return
        flag, self._pending_flag = self._pending_flag, None
        self.reason.hide()
        self.setFocus()
        self._submit({}, flag, text)

    def _show_hint(self, text: str) -> None:
        """Something is missing or wrong: in the warning colour."""
        set_tone(self.status, "warning", text_only=True)
        self.status.setText(text)

    def _show_note(self, text: str) -> None:
        """What the rater chose, nothing wrong: in the plain text colour."""
        clear_tone(self.status)
        self.status.setText(text)

    # -- keys -------------------------------------------------------------------------
    def eventFilter(self, obj: Any, event: Any) -> bool:  # noqa: N802 - Qt override
        """Enter/Esc in the name and reason fields are consumed here (a QLineEdit lets
        Enter travel on to the window, where it would answer the task)."""
        if isinstance(event, QKeyEvent) and event.type() == QKeyEvent.Type.KeyPress and \
                obj in (getattr(self, "reason", None), getattr(self, "name_edit", None)):
            key = event.key()
            if key in (K.Key_Return, K.Key_Enter):
                (self._reason_entered if obj is self.reason else self._name_entered)()
                return True
            if key == K.Key_Escape and obj is self.reason:
                self.reason.hide()
                self._pending_flag = None
                self.setFocus()
                return True
        return super().eventFilter(obj, event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        key, nav = event.key(), nav_direction(event)
        page = self.stack.currentWidget()
        if page is self.done_page:
            if key == K.Key_Backspace:
                self.change_last()
            elif nav == "back":
                self.go_back()
            elif nav == "goto":
                self.goto.open()
            elif event.matches(QKeySequence.StandardKey.Copy):
                QGuiApplication.clipboard().setText(str(self.session.path))
            return
        if page is not self.task_page:
            return super().keyPressEvent(event)
        if key == K.Key_Space:
            self.toggle_pause()
        elif self.paused:
            return
        elif key in (K.Key_Plus, K.Key_Equal, K.Key_Minus) or (
                key == K.Key_0 and self.session.protocol != "checklist"):
            for tile in self.panel.all_tiles():
                if key == K.Key_0:
                    tile.view.reset_zoom()
                else:
                    tile.view.zoom_by(0.8 if key == K.Key_Minus else 1.25)
        elif self.penalty_left_ms > 0:
            # the answer is saved and the next task held back: Backspace reopens the
            # answer when the hold ends (never sooner, so changing it skips no penalty)
            if self._is_change_key(event) or nav == "back":
                self.change_after_hold = True
            elif key == K.Key_Escape:
                self.change_after_hold = False
            self._show_countdown()
        elif self._is_change_key(event):
            self.change_last()
        elif nav in ("back", "forward", "goto") and self.reason.isVisible():
            return  # a reason being typed: Enter or Esc first
        elif nav == "back":
            self.go_back()
        elif nav == "forward":
            self.go_forward()
        elif nav == "goto":
            self.goto.open()
        elif key == K.Key_Escape and self.superseding:
            self.advance()
        else:
            self.status.setText("")  # a hint about the state before this key is stale
            if not self.panel.handle_key(key):
                super().keyPressEvent(event)

    @staticmethod
    def _is_change_key(event: QKeyEvent) -> bool:
        return event.key() == K.Key_Backspace or (
            event.key() == K.Key_Z and bool(event.modifiers() &
                                            Qt.KeyboardModifier.ControlModifier))

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        """Everything is already saved; fold the WAL into the file and close it.  While
        another program keeps answers in the -wal only, say so and stay open until the
        rater tries again or closes anyway (ADR 210)."""
        if not self.session.closed and not self._close_anyway:
            if self.last_box is not None and self.last_box.isVisible():
                event.ignore()  # the rater has the warning in front of them
                return
            text = answers_left_in_wal(self.session)
            if text is not None:
                event.ignore()
                self._warn_left_in_wal(text)
                return
        self._tick.stop()
        self.current = None
        self.session.close()
        super().closeEvent(event)

    def _warn_left_in_wal(self, text: str) -> None:
        def close(anyway: bool) -> None:
            self._close_anyway = self._close_anyway or anyway
            QTimer.singleShot(0, self.close)  # after the box has gone

        self.last_box = left_in_wal_box(self, text, close, replacing=self.last_box)
