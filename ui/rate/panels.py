"""One panel per protocol: shows a task's images and turns keys into an answer.

The ranking panel also takes the mouse: its rank strip (:mod:`ui.rate.rank_strip`)
reorders the outputs by drag and drop, editing the same ranks as the number keys; the
side-by-side panel has Left / Tie / Right buttons.  The Likert and checklist panels, and
the protocol → panel table, are in :mod:`ui.rate.question_panels`.

Panels never write anything: a complete answer is emitted with ``submitted`` and the
rater window commits it through :class:`core.rating.session_file.RatingSession`.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.rating.protocols import (
    LIKERT_ANCHORS,
    TaskView,
)
from ui.rate.image_view import ImageTile
from ui.rate.rank_strip import RankStrip, groups_from_ranks, ranks_from_groups, thumbnail
from ui.widgets.theme import set_tone

LETTERS = "ABCDEFGHIJ"
LIKERT_QUESTION = ("Rate the edited output:  " +
                   "  ·  ".join(f"{k} {v}" for k, v in LIKERT_ANCHORS.items()))
K = Qt.Key


def _label(text: str = "", scale: float = 1.0, bold: bool = False) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * scale)
    font.setBold(bold)
    label.setFont(font)
    return label


def _digit(key: int) -> int | None:
    if K.Key_0 <= key <= K.Key_9:
        return key - K.Key_0
    return None


class ProtocolPanel(QWidget):
    """Base: image tiles for inputs and options, key handling, answer emission."""

    submitted = Signal(dict, object, str)   # answer, flag (None), reason ("")
    flag_requested = Signal(str)            # the window asks for a reason, then submits
    hint = Signal(str)                      # what is missing or wrong (warning colour)
    note = Signal(str)                      # what the rater chose (plain: nothing wrong)
    question = Signal(str)                  # replaces the question above the images

    def __init__(self, settings: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.task: TaskView | None = None
        self.tiles: list[ImageTile] = []
        self.input_tiles: list[ImageTile] = []
        self._shape: tuple[int, int] | None = None
        self.images = QHBoxLayout()
        self.images.setSpacing(8)
        self.controls = QVBoxLayout()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self.images, 1)
        layout.addLayout(self.controls)

    # -- building ----------------------------------------------------------------
    def _show_images(self, task: TaskView, pixmaps: dict[str, QPixmap], captions: list[str],
                     arrange: Any, input_stretch: int = 1) -> None:
        """Put the task's images in the tiles; tiles are rebuilt only when the number of
        inputs or options changes (reusing them keeps the switch to the next task fast)."""
        shape = (len(task.inputs), len(task.options))
        if shape != self._shape:
            self._clear_images()
            if task.inputs:
                column = QVBoxLayout()
                for k in range(len(task.inputs)):
                    tile = ImageTile("Input" if len(task.inputs) == 1 else f"Input {k + 1}")
                    self.input_tiles.append(tile)
                    column.addWidget(tile, 1)
                self.images.addLayout(column, input_stretch)
            self.tiles = [ImageTile(c) for c in captions]
            arrange(self.tiles)
            self._shape = shape
        for tile, sha in zip(self.input_tiles, task.inputs, strict=True):
            tile.view.set_pixmap(pixmaps.get(sha, QPixmap()))
        for tile, (_tok, sha), caption in zip(self.tiles, task.options, captions, strict=True):
            tile.caption.setText(caption)
            tile.view.set_pixmap(pixmaps.get(sha, QPixmap()))

    def _clear_images(self) -> None:
        _drop_layout(self.images)
        self.tiles, self.input_tiles = [], []
        self._shape = None

    def all_tiles(self) -> list[ImageTile]:
        return self.input_tiles + self.tiles

    # -- protocol hooks ------------------------------------------------------------
    def load(self, task: TaskView, pixmaps: dict[str, QPixmap],
             previous: dict[str, Any] | None) -> None:
        """Show ``task`` (``previous`` = the answer being changed, to start from)."""
        raise NotImplementedError

    def handle_key(self, key: int) -> bool:
        """React to a key; True if used."""
        raise NotImplementedError

    def hold(self, on: bool) -> None:
        """While the next task is held back (answer saved), ignore the mouse."""

    def prefetch(self, task: TaskView, pixmaps: dict[str, QPixmap]) -> None:
        """Prepare what showing ``task`` next will need (its images are decoded)."""


def _drop_layout(layout: Any) -> None:
    while layout.count():
        item = layout.takeAt(0)
        if item.widget() is not None:
            widget = item.widget()
            widget.hide()
            widget.setParent(None)
            widget.deleteLater()
        elif item.layout() is not None:
            _drop_layout(item.layout())


class RankingPanel(ProtocolPanel):
    """ECHO full ranking: ←/→ choose an output, 1–9 give it a rank, Enter submits,
    I flags "impossible to rank fairly".  Or drag the cards of the rank strip into
    order (onto another card to tie, when the session allows ties)."""

    def __init__(self, settings: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(settings, parent)
        ties = bool(settings.get("allow_ties"))
        self.order_label = _label(
            "Your order, best → worst:  drag a card to move it" +
            ("; drop it onto another card to tie them" if ties else "") +
            "  (or choose with ←/→ and press its rank)", 1.0)
        set_tone(self.order_label, "muted", text_only=True)
        self.strip = RankStrip()
        self.strip.allow_ties = ties
        self.strip.reordered.connect(self._dropped)
        self.strip.clicked.connect(self._clicked)
        self.submit_button = QPushButton("Submit ranking\n(Enter)")
        self.submit_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay with the window
        self.submit_button.setMinimumHeight(56)
        self.submit_button.clicked.connect(lambda: self.handle_key(K.Key_Return))
        row = QHBoxLayout()
        row.addWidget(self.strip, 1)
        row.addWidget(self.submit_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.controls.addWidget(self.order_label)
        self.controls.addLayout(row)
        self._thumbs: dict[str, QPixmap] = {}

    def load(self, task: TaskView, pixmaps: dict[str, QPixmap],
             previous: dict[str, Any] | None) -> None:
        self.task = task
        n = len(task.options)
        cols = n if n <= 3 else math.ceil(math.sqrt(n))

        def arrange(tiles: list[ImageTile]) -> None:
            grid = QGridLayout()
            for k, tile in enumerate(tiles):
                grid.addWidget(tile, k // cols, k % cols)
            self.images.addLayout(grid, cols)

        self._show_images(task, pixmaps, list(LETTERS[:n]), arrange, 1)
        self._thumbs = {sha: self._thumbs.get(sha) or thumbnail(pixmaps.get(sha, QPixmap()))
                        for _tok, sha in task.options}
        self.strip.set_items(LETTERS[:n], [self._thumbs[sha] for _tok, sha in task.options])
        self.ranks: dict[int, int] = {}
        if previous and "ranks" in previous:
            self.ranks = {k: previous["ranks"][tok] for k, (tok, _) in enumerate(task.options)
                          if tok in previous["ranks"]}
        self.focus = 0
        self._refresh()

    def _refresh(self) -> None:
        for k, tile in enumerate(self.tiles):
            rank = self.ranks.get(k)
            tile.caption.setText(f"{LETTERS[k]}   —   rank {rank}" if rank else
                                 f"{LETTERS[k]}   —   not ranked")
            tile.set_selected(k == self.focus)
        assert self.task is not None
        self.strip.set_order(groups_from_ranks(self.ranks, len(self.task.options)),
                             {k: str(r) for k, r in self.ranks.items()}, self.focus)

    def _dropped(self, groups: list[list[int]], moved: int) -> None:
        """A drop ranks every output by its place in the strip, as if each had been given
        that rank with a key."""
        self.ranks = ranks_from_groups(groups)
        self.focus = moved
        self.hint.emit("")  # e.g. "give every output a rank first" no longer holds
        self._refresh()

    def _clicked(self, k: int) -> None:
        self.focus = k
        self._refresh()

    def prefetch(self, task: TaskView, pixmaps: dict[str, QPixmap]) -> None:
        for _tok, sha in task.options:
            if sha not in self._thumbs:
                self._thumbs[sha] = thumbnail(pixmaps.get(sha, QPixmap()))

    def hold(self, on: bool) -> None:
        self.strip.setEnabled(not on)
        self.submit_button.setEnabled(not on)
        if on:
            self.strip.cancel_drag()

    def handle_key(self, key: int) -> bool:
        assert self.task is not None
        n = len(self.task.options)
        digit = _digit(key)
        if key in (K.Key_Left, K.Key_Up, K.Key_Backtab):
            self.focus = (self.focus - 1) % n
        elif key in (K.Key_Right, K.Key_Down, K.Key_Tab):
            self.focus = (self.focus + 1) % n
        elif digit is not None and 1 <= digit <= n:
            if not self.settings.get("allow_ties"):
                for k, r in list(self.ranks.items()):
                    if r == digit and k != self.focus:
                        del self.ranks[k]
            self.ranks[self.focus] = digit
            unranked = [k for k in range(n) if k not in self.ranks]
            if unranked:
                later = [k for k in unranked if k > self.focus]
                self.focus = (later or unranked)[0]
        elif key == K.Key_Delete:
            self.ranks.pop(self.focus, None)
        elif key in (K.Key_Return, K.Key_Enter):
            missing = n - len(self.ranks)
            if missing:
                self.hint.emit(f"Give every output a rank first ({missing} left).")
                return True
            self.submitted.emit({"ranks": {tok: self.ranks[k] for k, (tok, _)
                                           in enumerate(self.task.options)}}, None, "")
        elif key == K.Key_I:
            self.flag_requested.emit("impossible")
        else:
            return False
        self._refresh()
        return True


class SideBySidePanel(ProtocolPanel):
    """Side-by-side: ← (or 1) left, → (or 2) right, ↓ (or T) tie; Enter submits.  The
    same choices as buttons under the images, for a rater who reaches for the mouse."""

    def __init__(self, settings: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(settings, parent)
        row = QHBoxLayout()
        row.addStretch(1)
        self.choice_buttons: dict[str, QPushButton] = {}
        choices = [("left", "◀  Left  (←)", K.Key_Left)]
        if settings.get("allow_tie", True):
            choices.append(("tie", "Tie  (↓)", K.Key_Down))
        choices.append(("right", "Right  (→)  ▶", K.Key_Right))
        for side, text, key in (*choices, ("submit", "Submit  (Enter)", K.Key_Return)):
            button = QPushButton(text)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay with the window
            button.setMinimumHeight(40)
            button.setCheckable(side != "submit")
            button.clicked.connect(lambda _c=False, k=key: self.handle_key(k))
            self.choice_buttons[side] = button
            row.addWidget(button)
            if side == "right":
                row.addSpacing(24)
        row.addStretch(1)
        self.controls.addLayout(row)
        self.choice: str | None = None

    def hold(self, on: bool) -> None:
        for button in self.choice_buttons.values():
            button.setEnabled(not on)

    def load(self, task: TaskView, pixmaps: dict[str, QPixmap],
             previous: dict[str, Any] | None) -> None:
        self.task = task

        def arrange(tiles: list[ImageTile]) -> None:
            for tile in tiles:
                self.images.addWidget(tile, 3)

        self._show_images(task, pixmaps, ["Left", "Right"], arrange, 2)
        self.choice = (previous or {}).get("winner")
        self._refresh()

    def _refresh(self) -> None:
        for side, tile in zip(("left", "right"), self.tiles, strict=True):
            tile.set_selected(self.choice in (side, "tie"),
                              "palette(text)" if self.choice == "tie" else "palette(highlight)")
        for side, button in self.choice_buttons.items():
            if side != "submit":
                button.setChecked(self.choice == side)
        if self.choice:
            self.note.emit(f"Chosen: {self.choice}. Enter to confirm.")

    def handle_key(self, key: int) -> bool:
        tie = bool(self.settings.get("allow_tie", True))
        if key in (K.Key_Left, K.Key_1):
            self.choice = "left"
        elif key in (K.Key_Right, K.Key_2):
            self.choice = "right"
        elif key in (K.Key_Down, K.Key_T) and tie:
            self.choice = "tie"
        elif key in (K.Key_Return, K.Key_Enter):
            if self.choice is None:
                self.hint.emit("Choose left (←) or right (→)" + (" or tie (↓)" if tie else ""))
                return True
            self.submitted.emit({"winner": self.choice}, None, "")
            return True
        else:
            return False
        self._refresh()
        return True
