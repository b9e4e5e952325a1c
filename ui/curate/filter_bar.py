"""Search box and filter combos above the sample list; emits a ``SampleFilter``."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QComboBox, QGridLayout, QLabel, QLineEdit, QWidget

from core.selection import SampleFilter

_QUALITY = [("Any quality", ()), ("Benchmark", ("Benchmark",)), ("Analysis", ("Analysis",)),
            ("Trash", ("Trash",)), ("Unlabelled", (None,)),
            ("Benchmark + Analysis", ("Benchmark", "Analysis"))]
_REVIEW = [("Any review", None), ("Unreviewed", "unreviewed"), ("Reviewed", "reviewed")]
_SPLIT = [("Any split", None), ("Text-to-image", "text-to-image"),
          ("Image-to-image", "image-to-image")]
_SHOT = [("Screenshots?", None), ("Screenshots only", True), ("No screenshots", False)]
_MODIFIED = [("Edited?", None), ("Prompt edited", True), ("Prompt not edited", False)]
_PROPOSAL = [("Proposals?", None), ("Machine-proposed, to review", "proposed"),
             ("Proposal accepted", "accepted"), ("Proposal corrected", "corrected"),
             ("Any proposal", "any")]


class FilterBar(QWidget):
    """Full-text search (prompts, post text, feedback) plus quality / review / split /
    screenshot / modified / tag filters."""

    changed = Signal(object)  # SampleFilter
    #: the user is done with the search (Return, or Esc in an empty field): the sample
    #: list should take the keyboard, so its label keys act at once
    done = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search prompts, post text and feedback  (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.quality = _combo(_QUALITY, "Quality label")
        self.review = _combo(_REVIEW, "Review status")
        self.split = _combo(_SPLIT, "Split")
        self.screenshot = _combo(_SHOT, "Screenshot samples")
        self.modified = _combo(_MODIFIED, "Prompt edited by a curator")
        self.proposal = _combo(_PROPOSAL, "Machine-made proposals: still to review, "
                                          "accepted or corrected by a curator")
        self.tag = QComboBox()
        _compact(self.tag)
        self.tag.setToolTip("Tag")
        self.tag.addItem("Any tag", None)
        self.count = QLabel()
        self.count.setTextFormat(Qt.TextFormat.PlainText)
        self.count.setWordWrap(True)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(4)
        grid.addWidget(self.search, 0, 0, 1, 3)
        for k, w in enumerate((self.quality, self.review, self.split, self.screenshot,
                               self.modified, self.tag, self.proposal)):
            grid.addWidget(w, 1 + k // 3, k % 3)
        grid.addWidget(self.count, 4, 0, 1, 3)
        self._timer = QTimer(self, singleShot=True, interval=200)
        self._timer.timeout.connect(self._emit)
        self.search.textChanged.connect(lambda _t: self._timer.start())
        self.search.returnPressed.connect(self._emit)
        self.search.returnPressed.connect(self.done)
        self.search.installEventFilter(self)
        for combo in (self.quality, self.review, self.split, self.screenshot, self.modified,
                      self.tag, self.proposal):
            combo.currentIndexChanged.connect(lambda _i: self._emit())

    def set_tags(self, tags: list[str]) -> None:
        """Offer ``tags`` in the tag combo (keeping the chosen one when still there)."""
        current = self.tag.currentData()
        self.tag.blockSignals(True)
        self.tag.clear()
        self.tag.addItem("Any tag", None)
        for t in tags:
            self.tag.addItem(t, t)
        k = self.tag.findData(current)
        self.tag.setCurrentIndex(max(0, k))
        self.tag.blockSignals(False)

    def filter(self) -> SampleFilter:
        """The filter the controls describe."""
        return SampleFilter(
            quality=tuple(self.quality.currentData() or ()),
            review_status=self.review.currentData(),
            split=self.split.currentData(),
            is_screenshot=self.screenshot.currentData(),
            modified=self.modified.currentData(),
            tag=self.tag.currentData(),
            text=self.search.text().strip(),
            proposal=self.proposal.currentData())

    def reset(self) -> None:
        """Back to "everything" without emitting."""
        for w in (self.quality, self.review, self.split, self.screenshot, self.modified,
                  self.tag, self.proposal):
            w.blockSignals(True)
            w.setCurrentIndex(0)
            w.blockSignals(False)
        self.search.blockSignals(True)
        self.search.clear()
        self.search.blockSignals(False)

    def flush(self) -> None:
        """Apply a pending search at once (tests, Enter)."""
        if self._timer.isActive():
            self._timer.stop()
            self._emit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        """Esc in the search field: clear it when it holds text (the list shows
        everything again at once), else hand the keyboard back to the list."""
        if watched is self.search and event.type() in (QEvent.Type.ShortcutOverride,
                                                       QEvent.Type.KeyPress):
            assert isinstance(event, QKeyEvent)
            if event.key() == Qt.Key.Key_Escape and not event.modifiers():
                event.accept()  # ShortcutOverride: no window shortcut takes Esc from here
                if event.type() == QEvent.Type.KeyPress:
                    if self.search.text():
                        self.search.clear()
                        self._emit()
                    else:
                        self.done.emit()
                return True
        return super().eventFilter(watched, event)

    def _emit(self) -> None:
        self._timer.stop()
        self.changed.emit(self.filter())


def _combo(items: list[tuple[str, Any]], tip: str) -> QComboBox:
    combo = QComboBox()
    _compact(combo)
    combo.setToolTip(tip)
    for text, data in items:
        combo.addItem(text, data)
    return combo


def _compact(combo: QComboBox) -> None:
    combo.setSizeAdjustPolicy(
        QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(7)
