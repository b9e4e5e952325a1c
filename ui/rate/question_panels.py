"""The Likert and checklist panels of the rater window: a list of questions, one
highlighted, each with answer buttons beside it (the keys' choices, for the mouse)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QPushButton

from core.rating.protocols import (
    CHECKLIST_LEVELS,
    CHECKLIST_QUESTIONS,
    LIKERT_ANCHORS,
    LIKERT_CRITERIA,
    LIKERT_TITLES,
    TaskView,
)
from ui.rate.image_view import ImageTile
from ui.rate.panels import (
    LIKERT_QUESTION,
    K,
    ProtocolPanel,
    RankingPanel,
    SideBySidePanel,
    _digit,
    _drop_layout,
    _label,
)
from ui.widgets.theme import clear_tone, set_tone


def _answer_button(text: str, on_click: Any) -> QPushButton:
    button = QPushButton(text)
    button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay with the window
    button.clicked.connect(lambda _c=False: on_click())
    return button


class _RowsPanel(ProtocolPanel):
    """Shared by Likert and checklist: a list of questions, one highlighted, each with
    answer buttons (the keys' choices, for a rater who reaches for the mouse)."""

    def _build_rows(self, titles: list[str], choices: list[tuple[str, int]]) -> None:
        shape = (len(titles), tuple(text for text, _key in choices))
        if getattr(self, "_rows_shape", None) == shape:
            return
        self._rows_shape = shape
        _drop_layout(self.controls)
        self.rows: list[QLabel] = []
        self.answer_buttons: list[list[QPushButton]] = []
        grid = QGridLayout()
        grid.setHorizontalSpacing(16)
        grid.setColumnStretch(0, 1)
        for r, title in enumerate(titles):
            label = _label(title, 1.15)
            label.setMinimumHeight(30)
            grid.addWidget(label, r, 0)
            self.rows.append(label)
            buttons = []
            for c, (text, key) in enumerate(choices, 1):
                button = _answer_button(text, lambda r=r, k=key: self._answer(r, k))
                grid.addWidget(button, r, c)
                buttons.append(button)
            self.answer_buttons.append(buttons)
        self.controls.addLayout(grid)
        self.submit_button = _answer_button("Submit  (Enter)",
                                            lambda: self.handle_key(K.Key_Return))
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.submit_button)
        self.controls.addLayout(row)

    def _answer(self, row: int, key: int) -> None:
        """A click on an answer button: that row, that key."""
        self.row = row
        self.handle_key(key)

    def hold(self, on: bool) -> None:
        for button in [b for row in getattr(self, "answer_buttons", []) for b in row]:
            button.setEnabled(not on)
        if hasattr(self, "submit_button"):
            self.submit_button.setEnabled(not on)

    def _paint_rows(self, texts: list[str], current: int) -> None:
        for r, (label, text) in enumerate(zip(self.rows, texts, strict=True)):
            label.setText(("▶  " if r == current else "     ") + text)
            if r == current:
                set_tone(label, "info", "border-radius: 4px;")
            else:
                clear_tone(label)


class LikertPanel(_RowsPanel):
    """TECCI: first the instruction-validity gate (Y / N with a reason), then IF, IC,
    VQ on 1–5 (↑/↓ choose the row, 1–5 rate it), Enter submits.  N still flags the
    instruction invalid after Y."""

    def load(self, task: TaskView, pixmaps: dict[str, QPixmap],
             previous: dict[str, Any] | None) -> None:
        self.task = task

        def arrange(tiles: list[ImageTile]) -> None:
            if not task.inputs:
                self.images.addWidget(_label("No source image (text-to-image)."), 0)
            self.images.addWidget(tiles[0], 1)

        self._show_images(task, pixmaps, ["Edited output"], arrange, 1)
        self.values: dict[str, int] = {}
        self.valid = False
        if previous and previous.get("valid"):
            self.valid = True
            self.values = {c: previous[c] for c in LIKERT_CRITERIA}
        self.row = 0
        self._layout_rows()
        if self.valid:
            self.question.emit(LIKERT_QUESTION)
        self._refresh()

    def _layout_rows(self) -> None:
        if self.valid:
            self._build_rows(["", "", ""], list(zip("12345", (K.Key_1, K.Key_2, K.Key_3,
                                                                K.Key_4, K.Key_5), strict=True)))
        else:
            self._build_rows([""], [("Yes  (Y)", K.Key_Y), ("No  (N)", K.Key_N)])

    def _refresh(self) -> None:
        if not self.valid:
            self._paint_rows(["Is the instruction valid (relevant, feasible, appropriate)?   "
                              "Y = yes,  N = no (say why)"], 0)
            return
        texts = []
        for c in LIKERT_CRITERIA:
            v = self.values.get(c)
            shown = f"{v} – {LIKERT_ANCHORS[v]}" if v else "press 1–5"
            texts.append(f"{LIKERT_TITLES[c]}    [{shown}]")
        self._paint_rows(texts, self.row)

    def handle_key(self, key: int) -> bool:
        digit = _digit(key)
        if not self.valid:
            if key == K.Key_Y:
                self.valid = True
                self._layout_rows()
                self.question.emit(LIKERT_QUESTION)
            elif key == K.Key_N:
                self.flag_requested.emit("invalid")
                return True
            elif key in (K.Key_Return, K.Key_Enter):
                self.hint.emit("First answer Y (valid) or N (invalid).")
                return True
            else:
                return False
        elif key == K.Key_N:
            # "invalid" after all, also while changing an answer (there Esc keeps the old
            # answer, so the gate cannot be reached again)
            self.flag_requested.emit("invalid")
            return True
        elif key in (K.Key_Up, K.Key_Backtab):
            self.row = max(0, self.row - 1)
        elif key in (K.Key_Down, K.Key_Tab):
            self.row = min(2, self.row + 1)
        elif digit is not None and 1 <= digit <= 5:
            self.values[LIKERT_CRITERIA[self.row]] = digit
            self.row = min(2, self.row + 1)
        elif key in (K.Key_Return, K.Key_Enter):
            missing = [c for c in LIKERT_CRITERIA if c not in self.values]
            if missing:
                self.hint.emit(f"Rate {', '.join(missing)} first (1–5).")
                return True
            self.submitted.emit({"valid": True, **self.values}, None, "")
            return True
        elif key == K.Key_Escape:
            self.valid = False
            self._layout_rows()
        else:
            return False
        self._refresh()
        return True


class ChecklistPanel(_RowsPanel):
    """IDEA-Bench: six yes/no questions in three levels; ↑/↓ choose, Y/N (or 1/0)
    answer, Enter submits."""

    def load(self, task: TaskView, pixmaps: dict[str, QPixmap],
             previous: dict[str, Any] | None) -> None:
        self.task = task

        def arrange(tiles: list[ImageTile]) -> None:
            self.images.addWidget(tiles[0], 1)

        self._show_images(task, pixmaps, ["Output"], arrange, 1)
        self.questions = list(self.settings.get("questions") or CHECKLIST_QUESTIONS)
        self.values: dict[int, int] = {}
        if previous:
            self.values = {k: previous[f"q{k + 1}"] for k in range(6)}
        self.row = 0
        self._build_rows([""] * 6, [("Yes", K.Key_Y), ("No", K.Key_N)])
        self._refresh()

    def _refresh(self) -> None:
        texts = []
        for k, q in enumerate(self.questions):
            v = self.values.get(k)
            level = CHECKLIST_LEVELS[k // 2]
            answer = "—" if v is None else ("yes" if v else "no")
            texts.append(f"{k + 1}. {q}   [{answer}]" + (f"      ({level})" if k % 2 == 0
                                                          else ""))
        self._paint_rows(texts, self.row)

    def handle_key(self, key: int) -> bool:
        if key in (K.Key_Up, K.Key_Backtab):  # Tab moves between questions too
            self.row = max(0, self.row - 1)
        elif key in (K.Key_Down, K.Key_Tab):
            self.row = min(5, self.row + 1)
        elif key in (K.Key_Y, K.Key_1, K.Key_N, K.Key_0):
            self.values[self.row] = int(key in (K.Key_Y, K.Key_1))
            self.row = min(5, self.row + 1)
        elif key in (K.Key_Return, K.Key_Enter):
            missing = [str(k + 1) for k in range(6) if k not in self.values]
            if missing:
                self.hint.emit(f"Answer question(s) {', '.join(missing)} first (Y/N).")
                return True
            self.submitted.emit({f"q{k + 1}": self.values[k] for k in range(6)}, None, "")
            return True
        else:
            return False
        self._refresh()
        return True


PANELS = {"ranking": RankingPanel, "side_by_side": SideBySidePanel, "likert": LikertPanel,
          "checklist": ChecklistPanel}
HINTS = {
    "likert": "Y valid / N invalid · ↑/↓ or Tab row · 1–5 rate · Enter submit",
    "checklist": "↑/↓ or Tab question · Y/1 yes · N/0 no · Enter submit",
}
#: the keys every protocol has, shown; :data:`COMMON_HELP` says the same in full
COMMON_HINT = "Space pause · Backspace change last answer · Ctrl+W close · +/− zoom"
COMMON_HELP = ("Space pause · Backspace change my last answer · Ctrl+W close (answers are "
               "saved) · +/− zoom")


def key_hints(protocol: str, settings: dict[str, Any], most_options: int) -> str:
    """The keys of a session's rater view, as its settings have them, in words short
    enough for one line at 1280 pixels (ADR 228): every key listed works (no tie key
    without ties; ranks up to the most outputs a task shows)."""
    return _keys(protocol, settings, most_options, short=True)


def key_help(protocol: str, settings: dict[str, Any], most_options: int) -> str:
    """:func:`key_hints` in full words (the line's tooltip)."""
    return _keys(protocol, settings, most_options, short=False)


def _keys(protocol: str, settings: dict[str, Any], most_options: int, short: bool) -> str:
    if protocol == "ranking":
        ranks = f"1–{min(most_options, 9)}"
        if short:
            ties = " (same rank twice: a tie)" if settings.get("allow_ties") else ""
            keys = (f"←/→ or Tab choose output · {ranks} give its rank{ties} or drag · "
                    "Delete clears · Enter submit · I can't rank fairly")
        else:
            ties = " (the same rank twice ties them)" if settings.get("allow_ties") else ""
            keys = (f"←/→ or Tab choose output · {ranks} give its rank{ties} (or drag the "
                    "cards) · Delete clears · Enter submit · I impossible to rank fairly")
    elif protocol == "side_by_side":
        tie = " · ↓ or T tie" if settings.get("allow_tie", True) else ""
        keys = f"← or 1 left · → or 2 right{tie} · Enter submit"
    else:
        keys = HINTS[protocol]
    fit = "" if protocol == "checklist" else " · 0 fit"  # there 0 answers no
    return f"{keys}  ·  {COMMON_HINT if short else COMMON_HELP}{fit}"
